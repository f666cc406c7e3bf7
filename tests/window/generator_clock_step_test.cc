// SPDX-License-Identifier: Apache-2.0
// What the generator does when the wall clock goes back while it runs, when it starts at a floor
// ahead of the clock, and when its thread missed ticks at the limit (GeneratorOptions::
// max_step_back, max_drift, start_at_floor, max_catch_up): which ids come, whether a call waited
// (ManualClock::sleeps()), and which error a call fails with.
// Never how long anything takes.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "base/time_format.h"
#include "cosid/generator.h"
#include "support/test_util.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using OnSleep = ManualClock::OnSleep;
using testing::kNow;

// 16 ids a tick, so a test reaches the end of many ticks with few calls.
const Layout kSmall{1577203200000, TimeUnit::kMillisecond, 41, 18, 4};

GeneratorOptions options_with(milliseconds max_step_back,
                              milliseconds max_drift = milliseconds(0)) {
  GeneratorOptions options;  // the default bounds: 1 s for each wait
  options.max_step_back = max_step_back;
  options.max_drift = max_drift;
  return options;
}

std::unique_ptr<Generator> make(Binding& binding, Clock& clock, const GeneratorOptions& options) {
  Status status;
  auto generator = Generator::create(kSmall, binding, clock, options, status);
  EXPECT_TRUE(generator) << status.message();
  return generator;
}

std::int64_t ms_of(std::uint64_t id) { return kSmall.tick_start_ms(kSmall.parse(id).timestamp); }

// Issues `count` ids, each larger than the one before and under `ceiling`; returns the last.
std::uint64_t issue_increasing(Generator& generator, int count, std::uint64_t previous,
                               std::int64_t ceiling) {
  for (int i = 0; i < count; ++i) {
    Status status;
    const std::uint64_t id = generator.next(status);
    EXPECT_TRUE(status.ok()) << i << ": " << status.message();
    if (!status.ok()) return previous;
    EXPECT_GT(id, previous) << i;
    EXPECT_LE(kSmall.tick_end_ms(kSmall.parse(id).timestamp), ceiling) << i;
    previous = id;
  }
  return previous;
}

// A step back of 1 s at the limit (16 ids a tick, a millisecond passing every 16 ids): the
// generator goes on from the last tick into the ticks after it at the pace of time, without one
// wait, its ids 1 s ahead of the clock. Once the wall clock stands still while time passes (a
// clock going back all along), it goes on up to max_step_back ahead and then fails as a frozen
// clock, not as one that went back.
TEST(GeneratorClockStep, AStepBackWithinTheBoundCostsNoWait) {
  ManualClock clock(kNow, OnSleep::kAdvanceBoth);
  Binding binding(3, kNow - 1, kNow + 10000);
  auto generator = make(binding, clock, options_with(milliseconds(5000)));
  std::error_code ec;
  std::uint64_t last = generator->next(ec);
  ASSERT_FALSE(ec);
  clock.step_ms(-1000);
  last = issue_increasing(*generator, 15, last, kNow + 10000);  // the rest of tick kNow
  for (int ms = 0; ms < 2000; ++ms) {
    clock.advance(milliseconds(1));
    last = issue_increasing(*generator, 16, last, kNow + 10000);
    ASSERT_LE(ms_of(last) - clock.now_ms(), 1000);
    ASSERT_GE(ms_of(last) - clock.now_ms(), 998);
  }
  // The step absorbed fades by 1 ms a second: at the limit that is one wait of a tick a second,
  // for the ids' lead to shrink with it. No other call waited, none failed.
  EXPECT_EQ(generator->stats().sequence_waits, 2u);
  EXPECT_EQ(generator->stats().clock_backwards, 0u);
  EXPECT_EQ(generator->stats().failures, 0u);
  // The wall clock stops; each wait lets a millisecond pass on the monotonic clock alone.
  clock.set_on_sleep(OnSleep::kAdvanceMonotonic);
  Status status;
  std::uint64_t id = 0;
  while ((id = generator->next(status)) != 0) last = id;
  EXPECT_STATUS(status, errc::clock_stalled);
  EXPECT_LE(ms_of(last) - clock.now_ms(), 5000);
  EXPECT_GE(ms_of(last) - clock.now_ms(), 4990);
  // Once the clock moves, the generator goes on where it was.
  clock.advance(milliseconds(1));
  EXPECT_GT(generator->next(ec), last);
  EXPECT_FALSE(ec);
}

// The same step while time passes: no call fails, the lead over the clock never passes the bound,
// and once the clock has caught up the ids follow it again.
TEST(GeneratorClockStep, IdsCatchUpWithTheClockAfterAStep) {
  ManualClock clock(kNow, OnSleep::kAdvanceBoth);
  Binding binding(3, kNow - 1, kNow + 100000);
  auto generator = make(binding, clock, options_with(milliseconds(5000)));
  std::error_code ec;
  std::uint64_t last = generator->next(ec);
  clock.step_ms(-1000);
  // 8 ids a millisecond (half the layout's 16 a tick), for 3 s of the clock: the lead shrinks by
  // half a millisecond a millisecond.
  for (int ms = 0; ms < 3000; ++ms) {
    last = issue_increasing(*generator, 8, last, kNow + 100000);
    EXPECT_LE(ms_of(last) - clock.now_ms(), 5000);
    clock.advance(milliseconds(1));
  }
  // No call waited: the step absorbed lets the generator move on at the pace of time until the
  // clock is back with it.
  const GeneratorStats stats = generator->stats();
  EXPECT_EQ(stats.sequence_waits, 0u);
  EXPECT_EQ(stats.clock_backwards, 0u);
  EXPECT_EQ(stats.failures, 0u);
  EXPECT_EQ(ms_of(last), clock.now_ms() - 1);  // the clock's own tick again
}

// A step back larger than max_step_back plus the wait: the last tick's sequence is used, then
// the call fails at once with clock_backwards, whose message names the step and the bound.
TEST(GeneratorClockStep, AStepBeyondTheBoundFailsAtOnceNamingTheStep) {
  ManualClock clock(kNow, OnSleep::kAdvanceMonotonic);
  Binding binding(3, kNow - 1, kNow + 10000);
  auto generator = make(binding, clock, options_with(milliseconds(5000)));
  std::error_code ec;
  std::uint64_t last = generator->next(ec);
  clock.step_ms(-10000);
  last = issue_increasing(*generator, 15, last, kNow + 10000);
  EXPECT_EQ(ms_of(last), kNow);
  Status status;
  EXPECT_EQ(generator->next(status), 0u);
  EXPECT_STATUS(status, errc::clock_backwards);
  EXPECT_EQ(clock.sleeps(), 0);
  EXPECT_NE(status.message().find("the clock moved back by 10 s while running"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("more than the 5 s a generator absorbs"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("no wait within the 1 s allowed could bring it back"),
            std::string::npos)
      << status.message();
  // It fails the same way until the clock passes the last tick's successor less the bound.
  EXPECT_NE(
      status.message().find("until the clock passes " + detail::format_instant(kNow + 1 - 5000)),
      std::string::npos)
      << status.message();
}

// A step just beyond the bound, by less than the wait allows: the call waits for the clock and
// then goes on; the wait is counted as one for a clock that went back.
TEST(GeneratorClockStep, AStepJustBeyondTheBoundWaitsAndGoesOn) {
  ManualClock clock(kNow, OnSleep::kAdvanceBoth);
  Binding binding(3, kNow - 1, kNow + 10000);
  auto generator = make(binding, clock, options_with(milliseconds(5000)));
  std::error_code ec;
  std::uint64_t last = generator->next(ec);
  clock.step_ms(-5500);
  last = issue_increasing(*generator, 16, last, kNow + 10000);
  EXPECT_EQ(ms_of(last), kNow + 1);
  EXPECT_GT(clock.sleeps(), 0);
  EXPECT_GE(clock.now_ms() - (kNow - 5500), 500);  // it waited for the clock, not less
  EXPECT_EQ(generator->stats().clock_backwards, 1u);
  EXPECT_EQ(generator->stats().failures, 0u);
}

// The durable ceiling bounds the borrowing as it bounds everything: a step back never takes an
// id past it, whatever max_step_back says.
TEST(GeneratorClockStep, TheCeilingStopsTheBorrowing) {
  ManualClock clock(kNow, OnSleep::kAdvanceMonotonic);
  Binding binding(3, kNow - 1, kNow + 2);
  auto generator = make(binding, clock, options_with(milliseconds(5000)));
  std::error_code ec;
  std::uint64_t last = generator->next(ec);
  clock.step_ms(-1000);
  last = issue_increasing(*generator, 15 + 2 * 16, last, kNow + 2);
  EXPECT_EQ(ms_of(last), kNow + 2);
  (void)generator->next(ec);
  EXPECT_TRUE(ec == errc::clock_stalled) << ec.message();
}

// A step back within max_drift (the audit's case: 1 s of drift, a 1 s step) waits at most a tick
// at a time and fails no call; it used to fail with clock_stalled.
TEST(GeneratorClockStep, AStepWithinMaxDriftFailsNoCall) {
  ManualClock clock(kNow, OnSleep::kAdvanceBoth);
  Binding binding(3, kNow - 1, kNow + 100000);
  auto generator = make(binding, clock, options_with(milliseconds(5000), milliseconds(1000)));
  std::error_code ec;
  std::uint64_t last = generator->next(ec);
  clock.step_ms(-1000);
  last = issue_increasing(*generator, 16 * 100, last, kNow + 100000);
  EXPECT_EQ(generator->stats().failures, 0u);
  EXPECT_LE(ms_of(last) - clock.now_ms(), 2000);  // the step plus max_drift
}

// max_step_back 0: a step back waits for the clock as before, and fails at once when the wait
// could not be enough.
TEST(GeneratorClockStep, WithoutMaxStepBackAStepWaitsForTheClock) {
  ManualClock clock(kNow, OnSleep::kAdvanceBoth);
  Binding binding(3, kNow - 1, kNow + 100000);
  auto generator = make(binding, clock, options_with(milliseconds(0)));
  std::error_code ec;
  std::uint64_t last = generator->next(ec);
  clock.step_ms(-10);
  last = issue_increasing(*generator, 16, last, kNow + 100000);
  EXPECT_EQ(ms_of(last), kNow + 1);
  EXPECT_GE(clock.now_ms(), kNow);  // it waited for the clock to come back
  EXPECT_EQ(generator->stats().clock_backwards, 1u);
  clock.step_ms(-5000);
  issue_increasing(*generator, 15, last, kNow + 100000);
  Status status;
  EXPECT_EQ(generator->next(status), 0u);
  EXPECT_STATUS(status, errc::clock_backwards);
  EXPECT_NE(status.message().find("more than the 0 ms a generator absorbs"), std::string::npos)
      << status.message();
}

// start_at_floor: the first id takes the first tick past a floor 3 s ahead of the clock at once,
// and later ids go on without a wait within the gap.
TEST(GeneratorClockStep, StartAtTheFloorIssuesAtOnce) {
  ManualClock clock(kNow, OnSleep::kAdvanceMonotonic);
  Binding binding(3, kNow + 3000, kNow + 13000);
  GeneratorOptions options = options_with(milliseconds(1000));
  options.start_at_floor = true;
  auto generator = make(binding, clock, options);
  Status status;
  const std::uint64_t first = generator->next(status);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(ms_of(first), kNow + 3001);
  // The lead allowed is the gap (3,001 ms), more than max_step_back: ticks up to kNow + 3001.
  const std::uint64_t last = issue_increasing(*generator, 15, first, kNow + 13000);
  EXPECT_EQ(ms_of(last), kNow + 3001);
  EXPECT_EQ(clock.sleeps(), 0);
  clock.advance(milliseconds(10));
  issue_increasing(*generator, 16 * 10, last, kNow + 13000);
  EXPECT_EQ(clock.sleeps(), 0);
}

// Without start_at_floor the same generator waits for the clock to pass the floor.
TEST(GeneratorClockStep, WithoutStartAtTheFloorTheGeneratorWaits) {
  ManualClock clock(kNow, OnSleep::kAdvanceMonotonic);
  Binding binding(3, kNow + 3000, kNow + 13000);
  auto generator = make(binding, clock, options_with(milliseconds(1000)));
  Status status;
  EXPECT_EQ(generator->next(status), 0u);
  EXPECT_STATUS(status, errc::clock_behind_floor);
}

// A generator at its limit whose thread was away for 10 ms (the clock moved on with the last tick
// used up): it catches up on the ticks it missed, each with its whole sequence, without a wait,
// until it is back with the clock.
TEST(GeneratorCatchUp, AGeneratorAtItsLimitCatchesUpOnTheTicksItMissed) {
  ManualClock clock(kNow, OnSleep::kAdvanceMonotonic);
  Binding binding(3, kNow - 1, kNow + 10000);
  GeneratorOptions options = options_with(milliseconds(0));
  options.max_catch_up = milliseconds(50);
  auto generator = make(binding, clock, options);
  std::uint64_t last = issue_increasing(*generator, 16, 0, kNow + 10000);  // tick kNow used up
  clock.advance(milliseconds(10));
  // Ticks kNow + 1 ... kNow + 9, 16 ids each, then the clock's own tick kNow + 10.
  last = issue_increasing(*generator, 9 * 16, last, kNow + 10000);
  EXPECT_EQ(ms_of(last), kNow + 9);
  EXPECT_EQ(kSmall.parse(last).sequence, 15u);
  last = issue_increasing(*generator, 16, last, kNow + 10000);
  EXPECT_EQ(ms_of(last), kNow + 10);
  EXPECT_EQ(clock.sleeps(), 0);
  EXPECT_EQ(generator->stats().ids_issued, 16u * 11);
}

// It lags the clock by at most max_catch_up: after 200 ms away it starts 50 ms back.
TEST(GeneratorCatchUp, TheLagIsBoundedByMaxCatchUp) {
  ManualClock clock(kNow, OnSleep::kAdvanceMonotonic);
  Binding binding(3, kNow - 1, kNow + 10000);
  GeneratorOptions options = options_with(milliseconds(0));
  options.max_catch_up = milliseconds(50);
  auto generator = make(binding, clock, options);
  const std::uint64_t last = issue_increasing(*generator, 16, 0, kNow + 10000);
  clock.advance(milliseconds(200));
  const std::uint64_t id = issue_increasing(*generator, 1, last, kNow + 10000);
  EXPECT_EQ(ms_of(id), kNow + 200 - 50);
}

// Below the limit nothing is caught up on: a tick with sequences left is the clock passing, and
// the next id takes the clock's tick, as does every id with max_catch_up 0.
TEST(GeneratorCatchUp, BelowTheLimitOrWhenOffTheNextIdTakesTheClocksTick) {
  for (const bool at_limit : {false, true}) {
    SCOPED_TRACE(at_limit);
    ManualClock clock(kNow, OnSleep::kAdvanceMonotonic);
    Binding binding(3, kNow - 1, kNow + 10000);
    GeneratorOptions options = options_with(milliseconds(0));
    options.max_catch_up = at_limit ? milliseconds(0) : milliseconds(50);
    auto generator = make(binding, clock, options);
    const std::uint64_t last = issue_increasing(*generator, at_limit ? 16 : 8, 0, kNow + 10000);
    clock.advance(milliseconds(10));
    const std::uint64_t id = issue_increasing(*generator, 1, last, kNow + 10000);
    EXPECT_EQ(ms_of(id), kNow + 10);
  }
}

}  // namespace
}  // namespace cosid
