// SPDX-License-Identifier: Apache-2.0
#include "cosid/clock.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace cosid {
namespace {

TEST(SystemClock, ReadsRealtimeInMilliseconds) {
  SystemClock clock;
  // 2026-01-01 and 2100-01-01: a Unix-ms reading, not seconds or nanoseconds.
  EXPECT_GT(clock.now_ms(), 1767225600000);
  EXPECT_LT(clock.now_ms(), 4102444800000);
}

TEST(SystemClock, MonotonicNeverGoesBack) {
  SystemClock clock;
  std::int64_t last = clock.monotonic_ns();
  for (int i = 0; i < 10000; ++i) {
    const std::int64_t now = clock.monotonic_ns();
    ASSERT_GE(now, last);
    last = now;
  }
}

TEST(SystemClock, SleepLetsMonotonicTimePass) {
  SystemClock clock;
  const std::int64_t before = clock.monotonic_ns();
  clock.sleep_for(std::chrono::milliseconds(2));
  EXPECT_GE(clock.monotonic_ns() - before, 2000000);
}

TEST(ManualClock, StartsWhereToldAndMovesOnlyWhenTold) {
  ManualClock clock(1000);
  EXPECT_EQ(clock.now_ms(), 1000);
  EXPECT_EQ(clock.monotonic_ns(), 0);
  EXPECT_EQ(clock.now_ms(), 1000);
}

TEST(ManualClock, StepAndSetMoveOnlyTheWallClock) {
  ManualClock clock(1000);
  clock.step_ms(-300);
  EXPECT_EQ(clock.now_ms(), 700);
  clock.set_ms(5000);
  EXPECT_EQ(clock.now_ms(), 5000);
  EXPECT_EQ(clock.monotonic_ns(), 0);
}

TEST(ManualClock, AdvanceMovesBothAndAccumulatesNanoseconds) {
  ManualClock clock(1000);
  for (int i = 0; i < 4; ++i) clock.advance(std::chrono::microseconds(250));
  EXPECT_EQ(clock.now_ms(), 1001);
  EXPECT_EQ(clock.monotonic_ns(), 1000000);
}

TEST(ManualClock, SleepAdvancesByAtLeastOneMillisecond) {
  ManualClock clock(1000);
  clock.sleep_for(std::chrono::nanoseconds(0));
  EXPECT_EQ(clock.now_ms(), 1001);
  clock.sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(clock.now_ms(), 1011);
  EXPECT_EQ(clock.monotonic_ns(), 11000000);
  EXPECT_EQ(clock.sleeps(), 2);
}

TEST(ManualClock, FrozenWallClockLetsOnlyMonotonicTimePass) {
  ManualClock clock(1000, ManualClock::OnSleep::kAdvanceMonotonic);
  clock.sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(clock.now_ms(), 1000);
  EXPECT_EQ(clock.monotonic_ns(), 10000000);
}

TEST(ManualClock, YieldingSleepMovesNothing) {
  ManualClock clock(1000, ManualClock::OnSleep::kYield);
  clock.sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(clock.now_ms(), 1000);
  EXPECT_EQ(clock.monotonic_ns(), 0);
  EXPECT_EQ(clock.sleeps(), 1);
}

TEST(ManualClock, ConcurrentAdvancesAreAllCounted) {
  ManualClock clock(0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&clock] {
      for (int i = 0; i < 1000; ++i) clock.advance(std::chrono::milliseconds(1));
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(clock.now_ms(), 4000);
  EXPECT_EQ(clock.monotonic_ns(), 4000000000);
}

}  // namespace
}  // namespace cosid
