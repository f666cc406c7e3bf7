// SPDX-License-Identifier: Apache-2.0
// Compile-time checks, no code: the target gives cosid what its promises rest on.
//
// Lock-free atomics. Generator::next() promises no lock (include/cosid/generator.h): its state
// word is a std::atomic<std::uint64_t>, the window's ceiling a std::atomic<std::int64_t>, the fork
// guard's flag a std::atomic<std::uint32_t>. Where the target has no 64-bit atomic instructions
// (ARMv5, ARMv6 without the K extension, 32-bit MIPS and PowerPC), the compiler turns these into
// calls into libatomic, which takes a lock from a table hashed by address. Ids would still be
// unique, but next() would take a lock, and a child forked while another thread held that lock
// would hang on its first 64-bit atomic instead of being refused with errc::forked_process. So
// cosid refuses such targets here rather than link libatomic behind the user's back.
//
// 64-bit time and file offsets. On 32-bit Linux (armhf) time_t and off_t are 32 bits unless
// _TIME_BITS=64 and _FILE_OFFSET_BITS=64 are defined, which CMakeLists.txt does for cosid's own
// targets: with a 32-bit time_t the real clock stops reading in January 2038, decades before the
// default layout runs out (2089), and with a 32-bit off_t and ino_t fstat() and readdir() fail
// with EOVERFLOW on 64-bit inode numbers and directory offsets.
//
// cmake/toolchains/README.md says what each costs and how to build for older ARM cores.
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <ctime>

static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
              "cosid needs lock-free 64-bit atomics (Generator's state word): on 32-bit ARM "
              "build for ARMv6K or later (-march=armv6k, armv7-a; Debian armhf is armv7-a); "
              "see cmake/toolchains/README.md");
static_assert(std::atomic<std::int64_t>::is_always_lock_free,
              "cosid needs lock-free 64-bit atomics (Binding's ceiling); see "
              "cmake/toolchains/README.md");
static_assert(std::atomic<std::uint32_t>::is_always_lock_free &&
                  std::atomic<bool>::is_always_lock_free,
              "cosid needs lock-free 32-bit atomics (the fork guard's flag)");
static_assert(sizeof(std::time_t) >= 8,
              "cosid needs a 64-bit time_t: build it with -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64 "
              "(glibc 2.34 or later), as CMakeLists.txt does");
static_assert(sizeof(off_t) >= 8 && sizeof(ino_t) >= 8,
              "cosid needs 64-bit off_t and ino_t: build it with -D_FILE_OFFSET_BITS=64, as "
              "CMakeLists.txt does");
