# Cross-compiles cosid for 32-bit ARM Linux with Debian's g++-arm-linux-gnueabihf (armhf: ARMv7-A,
# hard float, Thumb-2 by default), and runs the target's programs (tests, gtest_discover_tests)
# under qemu-user.
#   cmake --preset cross-armhf   (or -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-linux-gnueabihf.cmake)
# Debian packages: g++-arm-linux-gnueabihf qemu-user googletest (GoogleTest is built from its
# sources with this compiler: COSID_GTEST_FROM_SOURCE, see tests/CMakeLists.txt).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_CXX_COMPILER arm-linux-gnueabihf-g++)
# cosid is C++ only; GoogleTest's project also enables C, which must not pick the host's cc.
set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
# gcc notes on every std::vector<std::uint64_t> iterator passed by value that its ARM calling
# convention changed in GCC 7.1; nothing here links code built before that, so the notes are noise.
set(CMAKE_CXX_FLAGS_INIT "-Wno-psabi")

# Headers and libraries come from the target's sysroot only, never from the build machine's
# /usr (an x86-64 libgtest would otherwise be found and fail to link); programs run on the host.
set(COSID_TARGET_SYSROOT /usr/arm-linux-gnueabihf)
set(CMAKE_FIND_ROOT_PATH ${COSID_TARGET_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# -L: where qemu finds the target's dynamic loader and shared libraries (libc, libstdc++).
if(NOT DEFINED CMAKE_CROSSCOMPILING_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm -L ${COSID_TARGET_SYSROOT})
endif()
