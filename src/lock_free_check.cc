// Compile-time check, no code: the atomics on cosid's hot path are lock-free on the target.
//
// Generator::next() promises no lock (include/cosid/generator.h): its state word is a
// std::atomic<std::uint64_t>, the window's ceiling a std::atomic<std::int64_t>, the fork guard's
// flag a std::atomic<std::uint32_t>. Where the target has no 64-bit atomic instructions (ARMv5 and
// ARMv6 without the K extension, 32-bit MIPS and PowerPC), the compiler turns these into calls
// into libatomic, which takes a lock from a table hashed by address. Ids would still be unique,
// but next() would take a lock, and a child forked while another thread held that lock would hang
// on its first 64-bit atomic instead of being refused with errc::forked_process. So cosid refuses
// such targets here rather than link libatomic behind the user's back (README, Embedded targets).
#include <atomic>
#include <cstdint>

static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
              "cosid needs lock-free 64-bit atomics (Generator's state word): on 32-bit ARM "
              "build for ARMv6K or later (-march=armv6k, armv7-a; Debian armhf is armv7-a); "
              "see README.md, Embedded targets");
static_assert(std::atomic<std::int64_t>::is_always_lock_free,
              "cosid needs lock-free 64-bit atomics (Binding's ceiling); see README.md, "
              "Embedded targets");
static_assert(std::atomic<std::uint32_t>::is_always_lock_free &&
                  std::atomic<bool>::is_always_lock_free,
              "cosid needs lock-free 32-bit atomics (the fork guard's flag)");
