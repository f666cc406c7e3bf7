// SPDX-License-Identifier: Apache-2.0
// What the generator does when the wall clock goes back while it runs, and when it starts at a
// floor ahead of the clock (GeneratorOptions::max_step_back, max_drift, start_at_floor): which
// ids come, whether a call waited (ManualClock::sleeps()), and which error a call fails with.
// Never how long anything takes.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cosid/generator.h"
#include "test_util.h"
#include "time_format.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using OnSleep = ManualClock::OnSleep;
using testing::kNow;

// 16 ids a tick, so a test reaches the end of many ticks with few calls.
const Layout kSmall{1577203200000, TimeUnit::kMillisecond, 41, 18, 4};

GeneratorOptions options_with(milliseconds max_step_back, milliseconds max_drift = milliseconds(0)) {
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

// A step back of 1 s with the clock frozen afterwards: the generator goes on from the last tick
// into the ticks after it, without one wait, up to max_step_back ahead of the clock.
TEST(GeneratorClockStep, AStepBackWithinTheBoundCostsNoWait) {
  ManualClock clock(kNow, OnSleep::kAdvanceMonotonic);
  Binding binding(3, kNow - 1, kNow + 10000);
  auto generator = make(binding, clock, options_with(milliseconds(5000)));
  std::error_code ec;
  std::uint64_t last = generator->next(ec);
  ASSERT_FALSE(ec);
  clock.step_ms(-1000);
  // The rest of tick kNow and then ticks kNow + 1 ... kNow + 4000: 5 s ahead of the clock.
  last = issue_increasing(*generator, 15 + 4000 * 16, last, kNow + 10000);
  EXPECT_EQ(ms_of(last), kNow + 4000);
  EXPECT_EQ(clock.sleeps(), 0);
  // The next tick would start more than 5 s ahead: the call waits for the clock, which stands
  // still, so it fails as a frozen clock, not as one that went back.
  Status status;
  EXPECT_EQ(generator->next(status), 0u);
  EXPECT_STATUS(status, errc::clock_stalled);
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
  // One call waited, less than a tick: where the clock caught up, with the tick it reached used
  // up ahead of it (max_drift 0 lends no tick past the clock's own).
  const GeneratorStats stats = generator->stats();
  EXPECT_EQ(stats.sequence_waits, 1u);
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
  EXPECT_NE(status.message().find("the clock moved back by 10 s while running"),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("more than the 5 s a generator absorbs"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("no wait within the 1 s allowed could bring it back"),
            std::string::npos)
      << status.message();
  // It fails the same way until the clock passes the last tick's successor less the bound.
  EXPECT_NE(status.message().find("until the clock passes " +
                                  detail::format_instant(kNow + 1 - 5000)),
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
  EXPECT_LE(ms_of(last) - clock.now_ms(), 1000);
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

}  // namespace
}  // namespace cosid
