// SPDX-License-Identifier: Apache-2.0
// Internal: the cancel flag of a start (RuntimeEnvironment::cancel, segment::GeneratorOptions::
// cancel, RangeRequest::cancel): a std::atomic<bool> the caller may set from a signal handler,
// which the start looks at between its steps and in every slice of its waits. A call in progress
// (a sync, a store call) is never interrupted: the check comes right after it.
//
// Thread safety: the flag is read with relaxed loads; it publishes no data, it only asks the start
// to end, and the start undoes what it did on its own thread.
#ifndef COSID_SRC_BASE_CANCEL_H_
#define COSID_SRC_BASE_CANCEL_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "base/fail.h"
#include "cosid/clock.h"
#include "cosid/error.h"

namespace cosid {
namespace detail {

// A signal handler may set the flag only if setting it takes no lock (target_check.cc holds every
// target to that).
static_assert(std::atomic<bool>::is_always_lock_free, "the cancel flag must be lock-free");

// How long a cancellable wait sleeps between two looks at the flag.
constexpr std::chrono::milliseconds kCancelSlice{10};

inline bool cancel_requested(const std::atomic<bool>* flag) noexcept {
  return flag != nullptr && flag->load(std::memory_order_relaxed);
}

// The refusal of a cancelled start: "the start was cancelled WHEN: UNDONE".
inline bool start_cancelled(Status& status, const std::string& when, const std::string& undone) {
  return fail(status, make_error_code(errc::cancelled),
              "the start was cancelled " + when + " (its cancel flag was set): " + undone);
}

// Sleeps `wait` on `clock` in slices of kCancelSlice; false as soon as the flag is set (then
// before the whole wait passed).
inline bool sleep_unless_cancelled(Clock& clock, std::chrono::nanoseconds wait,
                                   const std::atomic<bool>* flag) {
  const std::int64_t end = clock.monotonic_ns() + wait.count();
  for (;;) {
    if (cancel_requested(flag)) return false;
    const std::int64_t left = end - clock.monotonic_ns();
    if (left <= 0) return true;
    clock.sleep_for(
        std::min<std::chrono::nanoseconds>(std::chrono::nanoseconds(left), kCancelSlice));
  }
}

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_BASE_CANCEL_H_
