// SPDX-License-Identifier: Apache-2.0
#include "cosid/clock.h"

#include <time.h>

#include <algorithm>
#include <thread>

namespace cosid {
namespace {

constexpr std::int64_t kNanosPerMilli = 1000000;

std::int64_t read_ns(clockid_t id) noexcept {
  timespec ts{};
  // clock_gettime cannot fail for these two clock ids on any supported system.
  clock_gettime(id, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Floor division, so that wall times before 1970 round down like positive ones.
std::int64_t floor_to_ms(std::int64_t ns) noexcept {
  return ns >= 0 ? ns / kNanosPerMilli : -((-ns + kNanosPerMilli - 1) / kNanosPerMilli);
}

}  // namespace

std::int64_t SystemClock::now_ms() noexcept { return floor_to_ms(read_ns(CLOCK_REALTIME)); }

std::int64_t SystemClock::monotonic_ns() noexcept { return read_ns(CLOCK_MONOTONIC); }

void SystemClock::sleep_for(std::chrono::nanoseconds duration) noexcept {
  if (duration.count() <= 0) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(duration);
  }
}

ManualClock::ManualClock(std::int64_t now_ms, OnSleep on_sleep) noexcept
    : wall_ns_(now_ms * kNanosPerMilli), on_sleep_(on_sleep) {}

std::int64_t ManualClock::now_ms() noexcept {
  return floor_to_ms(wall_ns_.load(std::memory_order_relaxed));
}

std::int64_t ManualClock::monotonic_ns() noexcept {
  return monotonic_ns_.load(std::memory_order_relaxed);
}

void ManualClock::sleep_for(std::chrono::nanoseconds duration) noexcept {
  sleeps_.fetch_add(1, std::memory_order_relaxed);
  const std::chrono::nanoseconds step =
      std::max(duration, std::chrono::nanoseconds(kNanosPerMilli));
  switch (on_sleep_.load(std::memory_order_relaxed)) {
    case OnSleep::kAdvanceBoth:
      advance(step);
      break;
    case OnSleep::kAdvanceMonotonic:
      monotonic_ns_.fetch_add(step.count(), std::memory_order_relaxed);
      break;
    case OnSleep::kYield:
      std::this_thread::yield();
      break;
  }
}

void ManualClock::set_ms(std::int64_t unix_ms) noexcept {
  wall_ns_.store(unix_ms * kNanosPerMilli, std::memory_order_relaxed);
}

void ManualClock::step_ms(std::int64_t delta_ms) noexcept {
  wall_ns_.fetch_add(delta_ms * kNanosPerMilli, std::memory_order_relaxed);
}

void ManualClock::advance(std::chrono::nanoseconds duration) noexcept {
  wall_ns_.fetch_add(duration.count(), std::memory_order_relaxed);
  monotonic_ns_.fetch_add(duration.count(), std::memory_order_relaxed);
}

void ManualClock::set_on_sleep(OnSleep on_sleep) noexcept {
  on_sleep_.store(on_sleep, std::memory_order_relaxed);
}

std::int64_t ManualClock::sleeps() const noexcept {
  return sleeps_.load(std::memory_order_relaxed);
}

}  // namespace cosid
