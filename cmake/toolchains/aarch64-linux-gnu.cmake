# SPDX-License-Identifier: Apache-2.0
# Cross-compiles cosid for 64-bit ARM Linux with Debian's g++-aarch64-linux-gnu, and runs the
# target's programs (tests, gtest_discover_tests) under qemu-user.
#   cmake --preset cross-aarch64   (or -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake)
# Debian packages: g++-aarch64-linux-gnu qemu-user googletest (GoogleTest is built from its sources
# with this compiler: COSID_GTEST_FROM_SOURCE, see tests/CMakeLists.txt).
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(COSID_TARGET_TRIPLET aarch64-linux-gnu)
set(COSID_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
