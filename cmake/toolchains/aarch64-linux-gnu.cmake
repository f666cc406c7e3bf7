# Cross-compiles cosid for 64-bit ARM Linux with Debian's g++-aarch64-linux-gnu, and runs the
# target's programs (tests, gtest_discover_tests) under qemu-user.
#   cmake --preset cross-aarch64   (or -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake)
# Debian packages: g++-aarch64-linux-gnu qemu-user googletest (GoogleTest is built from its sources
# with this compiler: COSID_GTEST_FROM_SOURCE, see tests/CMakeLists.txt).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# cosid is C++ only; GoogleTest's project also enables C, which must not pick the host's cc.
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)

# Headers and libraries come from the target's sysroot only, never from the build machine's
# /usr (an x86-64 libgtest would otherwise be found and fail to link); programs run on the host.
set(COSID_TARGET_SYSROOT /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH ${COSID_TARGET_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# -L: where qemu finds the target's dynamic loader and shared libraries (libc, libstdc++).
if(NOT DEFINED CMAKE_CROSSCOMPILING_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${COSID_TARGET_SYSROOT})
endif()
