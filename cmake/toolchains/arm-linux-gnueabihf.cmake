# SPDX-License-Identifier: Apache-2.0
# Cross-compiles cosid for 32-bit ARM Linux with Debian's g++-arm-linux-gnueabihf (armhf: ARMv7-A,
# hard float, Thumb-2 by default), and runs the target's programs (tests, gtest_discover_tests)
# under qemu-user.
#   cmake --preset cross-armhf   (or -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-linux-gnueabihf.cmake)
# Debian packages: g++-arm-linux-gnueabihf qemu-user googletest (GoogleTest is built from its
# sources with this compiler: COSID_GTEST_FROM_SOURCE, see tests/CMakeLists.txt).
set(CMAKE_SYSTEM_PROCESSOR arm)
set(COSID_TARGET_TRIPLET arm-linux-gnueabihf)
set(COSID_QEMU qemu-arm)
# gcc notes on every std::vector<std::uint64_t> iterator passed by value that its ARM calling
# convention changed in GCC 7.1; nothing here links code built before that, so the notes are noise.
set(CMAKE_CXX_FLAGS_INIT "-Wno-psabi")
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
