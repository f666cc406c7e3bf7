// SPDX-License-Identifier: Apache-2.0
// Clock: the one seam through which cosid reads time.
//
// Two time lines are read: the wall clock (CLOCK_REALTIME, Unix milliseconds), which is the time
// written into ids and may jump in either direction, and a monotonic clock, which never jumps and
// only measures how long cosid has waited. No part of cosid reads the system clock except
// SystemClock; everything takes a Clock&, so a test controls time with ManualClock.
//
// Thread safety: implementations must be safe to call from any number of threads at once.
// SystemClock and ManualClock are.
#ifndef COSID_CLOCK_H_
#define COSID_CLOCK_H_

#include <atomic>
#include <chrono>
#include <cstdint>

#include "cosid/export.h"

namespace cosid {

class COSID_EXPORT Clock {
 public:
  virtual ~Clock() = default;

  // The wall-clock time in Unix milliseconds (CLOCK_REALTIME).
  virtual std::int64_t now_ms() noexcept = 0;

  // A monotonic time in nanoseconds from an arbitrary origin (CLOCK_MONOTONIC).
  virtual std::int64_t monotonic_ns() noexcept = 0;

  // Gives up the processor while waiting for time to pass: yields for a zero duration, else sleeps
  // about `duration`. cosid calls it only while it waits, never while it issues an id.
  virtual void sleep_for(std::chrono::nanoseconds duration) noexcept = 0;
};

// The real clock: clock_gettime(CLOCK_REALTIME) and clock_gettime(CLOCK_MONOTONIC), which the
// vDSO serves without entering the kernel on Linux. Stateless.
class COSID_EXPORT SystemClock final : public Clock {
 public:
  std::int64_t now_ms() noexcept override;
  std::int64_t monotonic_ns() noexcept override;
  void sleep_for(std::chrono::nanoseconds duration) noexcept override;
};

// A clock for tests. Wall and monotonic time start where the constructor puts them and move only
// when told: set_ms() and step_ms() move the wall clock alone (a clock set forward or back),
// advance() moves both (time passing). What sleep_for() does is chosen by OnSleep.
class COSID_EXPORT ManualClock final : public Clock {
 public:
  enum class OnSleep {
    // sleep_for(d) lets max(d, 1 ms) pass on both clocks: a caller that waits for time makes
    // progress without a second thread.
    kAdvanceBoth,
    // sleep_for(d) lets max(d, 1 ms) pass on the monotonic clock only: a frozen wall clock, so a
    // bounded wait runs out.
    kAdvanceMonotonic,
    // sleep_for() only yields: another thread must move the clock.
    kYield,
  };

  explicit ManualClock(std::int64_t now_ms = 1700000000000,
                       OnSleep on_sleep = OnSleep::kAdvanceBoth) noexcept;

  std::int64_t now_ms() noexcept override;
  std::int64_t monotonic_ns() noexcept override;
  void sleep_for(std::chrono::nanoseconds duration) noexcept override;

  // Moves the wall clock to `unix_ms`; the monotonic clock does not move.
  void set_ms(std::int64_t unix_ms) noexcept;
  // Moves the wall clock by `delta_ms` (negative: back); the monotonic clock does not move.
  void step_ms(std::int64_t delta_ms) noexcept;
  // Lets `duration` pass: both clocks move forward by it.
  void advance(std::chrono::nanoseconds duration) noexcept;
  void set_on_sleep(OnSleep on_sleep) noexcept;
  // How many times sleep_for was called: lets a test see that a caller waited.
  std::int64_t sleeps() const noexcept;

 private:
  // The wall clock is kept in nanoseconds so that advance() by less than 1 ms accumulates.
  // Relaxed order throughout: each field is an independent reading with no other data published
  // through it; a test that needs ordering between threads synchronises by other means.
  std::atomic<std::int64_t> wall_ns_;
  std::atomic<std::int64_t> monotonic_ns_{0};
  std::atomic<OnSleep> on_sleep_;
  std::atomic<std::int64_t> sleeps_{0};
};

}  // namespace cosid

#endif  // COSID_CLOCK_H_
