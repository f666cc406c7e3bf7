// SPDX-License-Identifier: Apache-2.0
// Internal: what both generators' hot paths share (src/window/generator.cc,
// src/segment/generator.cc): how a waiting call spins and then sleeps, and a success code that
// costs nothing to set.
//
// Thread safety: a Waiter belongs to one call; the rest are constants and pure functions.
#ifndef COSID_SRC_BASE_HOT_PATH_H_
#define COSID_SRC_BASE_HOT_PATH_H_

#include <chrono>
#include <cstdint>
#include <system_error>

#include "cosid/clock.h"

namespace cosid {
namespace detail {

// Rounds of busy waiting before a waiter sleeps: a contended word or a tick about to end clears
// within a few hundred nanoseconds, and a sleep costs more than that.
inline constexpr int kSpinRounds = 64;
// Then it sleeps in short steps, so that it wakes soon after a millisecond tick ends (a wake-up
// within the first tenth of the new tick leaves it ample time to issue its whole sequence) without
// burning a core while it waits.
inline constexpr std::chrono::microseconds kShortSleep{50};
// Past this much waiting (a clock set back, a ceiling not raised, a second-unit tick used up) the
// steps grow: precision matters less than the system calls saved.
inline constexpr std::int64_t kShortSleepPhaseNs = 2000000;
inline constexpr std::chrono::microseconds kLongSleep{1000};

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#endif
}

// Sets `ec` to success. Only when it is not already: std::error_code::clear() calls
// std::system_category(), a function of the C++ library that no compiler inlines, and that call
// would otherwise be part of every id.
inline void clear(std::error_code& ec) noexcept {
  if (ec) ec.clear();
}

// A success code to copy: std::error_code's default constructor calls std::system_category(), as
// clear() does, and the Status& overloads of next() and next_batch() start from a success code.
inline const std::error_code kNoError{};

// Counts rounds of one next() call's wait and gives up once the bound has passed on the
// monotonic clock, which no wall-clock step can stretch or shrink.
class Waiter {
 public:
  // Waits a little. Returns false once `bound_ns` has passed since the first call.
  bool pause(Clock& clock, std::int64_t bound_ns) noexcept {
    const std::int64_t now = clock.monotonic_ns();
    if (rounds_ == 0) start_ns_ = now;
    waited_ns_ = now - start_ns_;
    if (waited_ns_ > bound_ns) return false;
    ++rounds_;
    if (rounds_ <= kSpinRounds) {
      cpu_relax();
    } else {
      clock.sleep_for(waited_ns_ < kShortSleepPhaseNs ? kShortSleep : kLongSleep);
    }
    return true;
  }
  std::int64_t waited_ms() const noexcept { return waited_ns_ / 1000000; }

 private:
  int rounds_ = 0;
  std::int64_t start_ns_ = 0;
  std::int64_t waited_ns_ = 0;
};

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_BASE_HOT_PATH_H_
