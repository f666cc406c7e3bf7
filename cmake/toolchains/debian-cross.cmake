# SPDX-License-Identifier: Apache-2.0
# What the Debian cross toolchain files share; they set COSID_TARGET_TRIPLET (the GNU triplet of
# Debian's cross compilers, e.g. aarch64-linux-gnu) and COSID_QEMU (the qemu-user program) first.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_CXX_COMPILER ${COSID_TARGET_TRIPLET}-g++)
# cosid is C++ only; GoogleTest's project also enables C, which must not pick the host's cc.
set(CMAKE_C_COMPILER ${COSID_TARGET_TRIPLET}-gcc)

# Headers and libraries come from the target's sysroot only, never from the build machine's
# /usr (an x86-64 libgtest would otherwise be found and fail to link); programs run on the host.
set(COSID_TARGET_SYSROOT /usr/${COSID_TARGET_TRIPLET})
set(CMAKE_FIND_ROOT_PATH ${COSID_TARGET_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# -L: where qemu finds the target's dynamic loader and shared libraries (libc, libstdc++).
if(NOT DEFINED CMAKE_CROSSCOMPILING_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${COSID_QEMU} -L ${COSID_TARGET_SYSROOT})
endif()
