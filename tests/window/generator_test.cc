// SPDX-License-Identifier: Apache-2.0
#include "cosid/generator.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/test_util.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using OnSleep = ManualClock::OnSleep;

using testing::kNow;
// Short waits, no drift and no step absorbed: most tests here are about when a call waits (drift
// has tests of its own below, a clock set back generator_clock_step_test.cc).
GeneratorOptions short_bounds() {
  GeneratorOptions options;
  options.clock_backwards = options.behind_floor = options.ceiling = milliseconds(20);
  options.max_drift = milliseconds(0);
  options.max_step_back = milliseconds(0);
  return options;
}
const GeneratorOptions kShortBounds = short_bounds();

// A ceiling listener that records what generators asked for (the runtime's events are
// test_util.h's RecordingListener).
class CeilingRequests : public CeilingListener {
 public:
  void on_ceiling_wanted(std::int64_t needed_ms) noexcept override { wanted.push_back(needed_ms); }
  std::vector<std::int64_t> wanted;
};

std::unique_ptr<Generator> make_generator(const Layout& layout, Binding& binding, Clock& clock,
                                          const GeneratorOptions& bounds = kShortBounds) {
  Status status;
  auto generator = Generator::create(layout, binding, clock, bounds, status);
  EXPECT_TRUE(generator) << status.message();
  return generator;
}

std::int64_t unix_ms_of(const Layout& layout, std::uint64_t id) {
  return layout.tick_start_ms(layout.parse(id).timestamp);
}

TEST(Generator, IdsCarryTheSlotAndTheClocksTime) {
  ManualClock clock(kNow);
  Binding binding(5, kNow - 1000, kNow + 1000);
  auto generator = make_generator(layouts::kDefault, binding, clock);
  std::error_code ec;
  const std::uint64_t id = generator->next(ec);
  ASSERT_NO_ERROR(ec);
  const IdParts parts = layouts::kDefault.parse(id);
  EXPECT_EQ(parts.slot, 5u);
  EXPECT_EQ(parts.sequence, 0u);
  EXPECT_EQ(unix_ms_of(layouts::kDefault, id), kNow);
}

TEST(Generator, StatsCountIdsWaitsAndFailures) {
  // Two sequence bits: four ids a tick. The wall clock moves only when a waiter sleeps.
  const Layout layout{layouts::kDefault.epoch_ms(), TimeUnit::kMillisecond, 41, 10, 2};
  ManualClock clock(kNow, OnSleep::kAdvanceBoth);
  Binding binding(3, kNow - 1, kNow + 1000);
  auto generator = make_generator(layout, binding, clock);
  std::error_code ec;
  for (int i = 0; i < 4; ++i) ASSERT_NE(generator->next(ec), 0u) << ec.message();
  GeneratorStats stats = generator->stats();
  EXPECT_EQ(stats.ids_issued, 4u);
  EXPECT_EQ(stats.sequence_waits, 0u);

  // The tick's four sequences are used up: the fifth call waits for the next tick, once.
  ASSERT_NE(generator->next(ec), 0u) << ec.message();
  std::uint64_t batch[8];
  const std::size_t got = generator->next_batch(batch, 8, ec);
  ASSERT_FALSE(ec) << ec.message();
  stats = generator->stats();
  EXPECT_EQ(stats.ids_issued, 5u + got);
  EXPECT_EQ(stats.sequence_waits, 1u);
  EXPECT_EQ(stats.failures, 0u);

  (void)generator->close();
  EXPECT_EQ(generator->next(ec), 0u);
  EXPECT_ERRC(ec, errc::closed);
  stats = generator->stats();
  EXPECT_EQ(stats.failures, 1u);
  EXPECT_EQ(stats.ids_issued, 5u + got);
}

TEST(Generator, StatsCountCeilingAndFloorWaits) {
  ManualClock clock(kNow, OnSleep::kAdvanceMonotonic);  // the wall clock stands still
  Binding behind(1, kNow + 5, kNow + 100);
  auto waits_for_floor = make_generator(layouts::kDefault, behind, clock);
  std::error_code ec;
  EXPECT_EQ(waits_for_floor->next(ec), 0u);
  EXPECT_ERRC(ec, errc::clock_behind_floor);
  EXPECT_EQ(waits_for_floor->stats().floor_waits, 1u);
  EXPECT_EQ(waits_for_floor->stats().failures, 1u);

  Binding low(1, kNow - 100, kNow - 1);
  auto waits_for_ceiling = make_generator(layouts::kDefault, low, clock);
  EXPECT_EQ(waits_for_ceiling->next(ec), 0u);
  EXPECT_ERRC(ec, errc::ceiling_reached);
  EXPECT_EQ(waits_for_ceiling->stats().ceiling_waits, 1u);
  EXPECT_EQ(waits_for_ceiling->stats().ids_issued, 0u);
}

TEST(Generator, CreateRefusesASlotOutsideTheLayout) {
  ManualClock clock(kNow);
  Binding binding(8, kNow - 1, kNow + 1000);
  Status status;
  EXPECT_FALSE(Generator::create(layouts::kJsSafe, binding, clock, {}, status));
  EXPECT_STATUS(status, errc::slot_out_of_range);
  EXPECT_NE(status.message().find("slot 8"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("3 slot bits"), std::string::npos) << status.message();
}

TEST(Generator, CreateRefusesAnInvalidLayout) {
  ManualClock clock(kNow);
  Binding binding(0, kNow - 1, kNow + 1000);
  Status status;
  EXPECT_FALSE(
      Generator::create(Layout{0, TimeUnit::kMillisecond, 42, 10, 12}, binding, clock, {}, status));
  EXPECT_STATUS(status, errc::layout_too_wide);
}

// Every duration of GeneratorOptions is 0 or more: a negative one is refused by name, not taken
// for a bound that every call would fail or a lead that makes every used-up tick wait.
TEST(Generator, CreateRefusesANegativeOption) {
  ManualClock clock(kNow);
  Binding binding(0, kNow - 1, kNow + 1000);
  using Field = std::chrono::milliseconds GeneratorOptions::*;
  const std::pair<Field, const char*> fields[] = {
      {&GeneratorOptions::clock_backwards, "clock_backwards"},
      {&GeneratorOptions::behind_floor, "behind_floor"},
      {&GeneratorOptions::ceiling, "ceiling"},
      {&GeneratorOptions::max_drift, "max_drift"},
      {&GeneratorOptions::max_catch_up, "max_catch_up"},
      {&GeneratorOptions::max_step_back, "max_step_back"},
  };
  for (const auto& [field, name] : fields) {
    SCOPED_TRACE(name);
    GeneratorOptions options;
    options.*field = milliseconds(-1);
    Status status;
    EXPECT_FALSE(Generator::create(layouts::kDefault, binding, clock, options, status));
    EXPECT_STATUS(status, errc::invalid_value);
    EXPECT_EQ(status.message(), std::string("GeneratorOptions::") + name +
                                    " is negative: give a duration of 0 or more (0 turns a bound "
                                    "or a lead off)");
  }
}

TEST(Generator, CreateRefusesAnEpochInTheFuture) {
  ManualClock clock(layouts::kDefault.epoch_ms() - 1);
  Binding binding(0, 0, kNow);
  Status status;
  EXPECT_FALSE(Generator::create(layouts::kDefault, binding, clock, {}, status));
  EXPECT_STATUS(status, errc::layout_epoch_in_future);
}

// The window (floor, ceiling]: t = floor refused, floor + 1 issued, ceiling issued, ceiling + 1
// refused until the ceiling is raised.
TEST(Generator, WindowBoundaries) {
  const std::int64_t floor = kNow;
  const std::int64_t ceiling = kNow + 10;
  ManualClock clock(floor, OnSleep::kAdvanceMonotonic);  // the wall clock stands still
  Binding binding(1, floor, ceiling);
  auto generator = make_generator(layouts::kDefault, binding, clock);
  std::error_code ec;
  Status status;

  EXPECT_EQ(generator->next(status), 0u);
  EXPECT_STATUS(status, errc::clock_behind_floor);
  EXPECT_NE(status.message().find("floor 2026-11-30T02:22:58.123Z"), std::string::npos)
      << status.message();
  // A bare binding: nothing says a previous holder existed, so the message blames none.
  EXPECT_EQ(status.message().find("previous holder"), std::string::npos) << status.message();

  clock.set_ms(floor + 1);
  std::uint64_t id = generator->next(ec);
  ASSERT_NO_ERROR(ec);
  EXPECT_EQ(unix_ms_of(layouts::kDefault, id), floor + 1);

  clock.set_ms(ceiling);
  id = generator->next(ec);
  ASSERT_NO_ERROR(ec);
  EXPECT_EQ(unix_ms_of(layouts::kDefault, id), ceiling);

  clock.set_ms(ceiling + 1);
  EXPECT_EQ(generator->next(status), 0u);
  EXPECT_STATUS(status, errc::ceiling_reached);
  EXPECT_NE(status.message().find("ceiling 2026-11-30T02:22:58.133Z"), std::string::npos)
      << status.message();

  binding.raise_ceiling(ceiling + 1);
  id = generator->next(ec);
  ASSERT_NO_ERROR(ec);
  EXPECT_EQ(unix_ms_of(layouts::kDefault, id), ceiling + 1);
}

TEST(Generator, WaitsForTheFloorWithinTheBound) {
  ManualClock clock(kNow);  // sleeping lets time pass
  Binding binding(1, kNow + 5, kNow + 100);
  auto generator = make_generator(layouts::kDefault, binding, clock);
  std::error_code ec;
  const std::uint64_t id = generator->next(ec);
  ASSERT_NO_ERROR(ec);
  EXPECT_EQ(unix_ms_of(layouts::kDefault, id), kNow + 6);
  EXPECT_GT(clock.sleeps(), 0);
}

TEST(Generator, AsksTheBindingForACeilingWhenWaitingAtIt) {
  ManualClock clock(kNow + 11, OnSleep::kAdvanceMonotonic);
  CeilingRequests listener;
  Binding binding(1, kNow - 1, kNow + 10, &listener);
  auto generator = make_generator(layouts::kDefault, binding, clock);
  std::error_code ec;
  (void)generator->next(ec);
  EXPECT_ERRC(ec, errc::ceiling_reached);
  ASSERT_EQ(listener.wanted.size(), 1u);  // once per call, not once per round of waiting
  EXPECT_EQ(listener.wanted[0], kNow + 11);
}

TEST(Generator, CeilingRaisedByAnotherThreadWhileWaiting) {
  ManualClock clock(kNow + 11, OnSleep::kYield);  // time stands still until raised
  Binding binding(1, kNow - 1, kNow + 10);
  auto generator =
      make_generator(layouts::kDefault, binding, clock,
                     GeneratorOptions{milliseconds(20), milliseconds(20), milliseconds(60000)});
  std::thread raiser([&] {
    while (clock.sleeps() < 10) std::this_thread::yield();
    binding.raise_ceiling(kNow + 20);
  });
  std::error_code ec;
  const std::uint64_t id = generator->next(ec);
  raiser.join();
  ASSERT_NO_ERROR(ec);
  EXPECT_EQ(unix_ms_of(layouts::kDefault, id), kNow + 11);
}

TEST(Generator, CeilingNeverGoesDown) {
  Binding binding(0, 0, 100);
  binding.raise_ceiling(50);
  EXPECT_EQ(binding.ceiling_ms(), 100);
  binding.raise_ceiling(150);
  EXPECT_EQ(binding.ceiling_ms(), 150);
}

// A second-unit tick is only usable if all its milliseconds lie in (floor, ceiling].
TEST(Generator, SecondUnitTickMustLieWhollyInsideTheWindow) {
  const Layout layout = layouts::kSeconds;
  const std::int64_t second = 1796005378000;
  ManualClock clock(second + 500, OnSleep::kAdvanceMonotonic);
  std::error_code ec;
  {
    // Floor inside the tick: the tick starts at or before the floor.
    Binding binding(1, second, second + 5000);
    auto generator = make_generator(layout, binding, clock);
    (void)generator->next(ec);
    EXPECT_ERRC(ec, errc::clock_behind_floor);
  }
  {
    Binding binding(1, second - 1, second + 5000);
    auto generator = make_generator(layout, binding, clock);
    const std::uint64_t id = generator->next(ec);
    ASSERT_NO_ERROR(ec);
    EXPECT_EQ(unix_ms_of(layout, id), second);
  }
  {
    // Ceiling inside the tick: its last millisecond lies past the ceiling.
    Binding binding(1, second - 1, second + 998);
    auto generator = make_generator(layout, binding, clock);
    (void)generator->next(ec);
    EXPECT_ERRC(ec, errc::ceiling_reached);
  }
  {
    Binding binding(1, second - 1, second + 999);
    auto generator = make_generator(layout, binding, clock);
    (void)generator->next(ec);
    EXPECT_NO_ERROR(ec);
  }
}

TEST(Generator, SequenceExhaustionMovesToTheNextTick) {
  const Layout layout{1577203200000, TimeUnit::kMillisecond, 41, 18, 4};  // 16 ids per tick
  ManualClock clock(kNow);
  Binding binding(3, kNow - 1, kNow + 1000);
  auto generator = make_generator(layout, binding, clock);
  std::error_code ec;
  std::set<std::uint64_t> ids;
  std::uint64_t previous = 0;
  for (int i = 0; i < 16; ++i) {
    const std::uint64_t id = generator->next(ec);
    ASSERT_NO_ERROR(ec);
    EXPECT_EQ(unix_ms_of(layout, id), kNow);
    EXPECT_GT(id, previous);
    previous = id;
    ids.insert(id);
  }
  EXPECT_EQ(clock.sleeps(), 0);
  // The 17th id needs the next tick: the generator waits for the clock (which sleeping advances).
  const std::uint64_t id = generator->next(ec);
  ASSERT_NO_ERROR(ec);
  EXPECT_EQ(unix_ms_of(layout, id), kNow + 1);
  EXPECT_GT(id, previous);
  EXPECT_GT(clock.sleeps(), 0);
  EXPECT_TRUE(ids.insert(id).second);
}

TEST(Generator, FrozenClockFailsAfterTheBoundWithoutDuplicates) {
  const Layout layout{1577203200000, TimeUnit::kMillisecond, 41, 18, 4};
  ManualClock clock(kNow, OnSleep::kAdvanceMonotonic);
  Binding binding(3, kNow - 1, kNow + 1000);
  auto generator = make_generator(layout, binding, clock);
  std::error_code ec;
  Status status;
  std::set<std::uint64_t> ids;
  for (int i = 0; i < 16; ++i) ASSERT_TRUE(ids.insert(generator->next(ec)).second);
  EXPECT_EQ(generator->next(status), 0u);
  EXPECT_STATUS(status, errc::clock_stalled);
  EXPECT_NE(status.message().find("frozen"), std::string::npos) << status.message();
  // The wait was bounded on the monotonic clock: the bound plus one tick, and no more than a
  // few sleep steps beyond.
  EXPECT_GE(clock.monotonic_ns(), 21000000);
  EXPECT_LT(clock.monotonic_ns(), 30000000);
}

// Clock set back while running by 1 ms, 10 ms and 1 h: the generator goes on in its last tick
// while the sequence lasts, then in the ticks after it (within max_step_back, 5 s by default) or
// fails; it never issues an earlier timestamp. generator_clock_step_test.cc has the rest.
TEST(Generator, ClockSetBackWhileRunning) {
  const Layout layout{1577203200000, TimeUnit::kMillisecond, 41, 18, 4};  // 16 ids per tick
  for (const std::int64_t back_ms : {std::int64_t{1}, std::int64_t{10}, std::int64_t{3600000}}) {
    SCOPED_TRACE(back_ms);
    ManualClock clock(kNow);
    Binding binding(3, kNow - 4000000, kNow + 1000);
    auto generator =
        make_generator(layout, binding, clock,
                       GeneratorOptions{milliseconds(50), milliseconds(50), milliseconds(50)});
    std::error_code ec;
    Status status;
    const std::uint64_t first = generator->next(ec);
    ASSERT_NO_ERROR(ec);
    clock.step_ms(-back_ms);
    std::uint64_t previous = first;
    // The remaining 15 ids of the tick come from the last tick, at once.
    for (int i = 0; i < 15; ++i) {
      const std::uint64_t id = generator->next(ec);
      ASSERT_NO_ERROR(ec);
      EXPECT_EQ(unix_ms_of(layout, id), kNow);
      EXPECT_GT(id, previous);
      previous = id;
    }
    const std::uint64_t id = generator->next(status);
    if (back_ms < 50) {
      // Within max_step_back: issuing goes on in the next tick, ahead of the clock.
      ASSERT_OK(status);
      EXPECT_EQ(unix_ms_of(layout, id), kNow + 1);
      EXPECT_GT(id, previous);
    } else {
      EXPECT_EQ(id, 0u);
      EXPECT_STATUS(status, errc::clock_backwards);
      EXPECT_NE(status.message().find("moved back by"), std::string::npos) << status.message();
      // The size of the jump is in the message, and that the call failed (at once: no wait
      // within the 50 ms bound could bring the clock back).
      EXPECT_NE(status.message().find("by 1 h while running"), std::string::npos)
          << status.message();
      EXPECT_NE(status.message().find("this call issued no id"), std::string::npos)
          << status.message();
    }
  }
}

TEST(Generator, TimestampOverflowNamesTheDateTheLayoutRunsOut) {
  const Layout layout = layouts::kDefault;
  ManualClock clock(layout.end_ms());
  Binding binding(0, layout.end_ms() - 10, layout.end_ms() + 1000);
  auto generator = make_generator(layout, binding, clock);
  std::error_code ec;
  Status status;
  EXPECT_EQ(generator->next(status), 0u);
  EXPECT_STATUS(status, errc::timestamp_overflow);
  EXPECT_NE(status.message().find("2089-08-30T07:47:35.552Z"), std::string::npos)
      << status.message();
  // The last millisecond of the layout still works.
  clock.set_ms(layout.end_ms() - 1);
  const std::uint64_t id = generator->next(ec);
  ASSERT_NO_ERROR(ec);
  EXPECT_EQ(layout.parse(id).timestamp, layout.max_timestamp());
}

TEST(Generator, ClockBeforeTheEpochWaitsLikeTheFloor) {
  const Layout layout = layouts::kDefault;
  ManualClock clock(layout.epoch_ms() + 5, OnSleep::kAdvanceMonotonic);
  Binding binding(0, 0, kNow);
  auto generator = make_generator(layout, binding, clock);
  clock.set_ms(layout.epoch_ms() - 100);
  std::error_code ec;
  (void)generator->next(ec);
  EXPECT_ERRC(ec, errc::clock_behind_floor);
}

TEST(Generator, CloseReportsTheLastTimestampAndRefusesLaterCalls) {
  ManualClock clock(kNow);
  Binding binding(0, kNow - 1, kNow + 1000);
  auto generator = make_generator(layouts::kDefault, binding, clock);
  std::error_code ec;
  Status status;
  (void)generator->next(ec);
  clock.advance(milliseconds(7));
  (void)generator->next(ec);
  EXPECT_EQ(generator->close(), kNow + 7);
  EXPECT_EQ(generator->close(), kNow + 7);  // idempotent
  EXPECT_EQ(generator->next(status), 0u);
  EXPECT_STATUS(status, errc::closed);
  EXPECT_FALSE(status.message().empty());
}

// next() clears `ec` only when it holds an error (see clear() in generator.cc): a code left over
// from an earlier failure must not survive a success, on the first id of a tick or a later one.
TEST(Generator, SuccessClearsAnErrorLeftInTheCode) {
  ManualClock clock(kNow);
  Binding binding(0, kNow - 1, kNow + 1000);
  auto generator = make_generator(layouts::kDefault, binding, clock);
  std::error_code ec = make_error_code(errc::clock_stalled);
  EXPECT_NE(generator->next(ec), 0u);  // a new tick: reserve()
  EXPECT_FALSE(ec);
  ec = make_error_code(errc::ceiling_reached);
  EXPECT_NE(generator->next(ec), 0u);  // the same tick: the fast path
  EXPECT_FALSE(ec);
  std::uint64_t ids[4];
  ec = make_error_code(errc::clock_backwards);
  EXPECT_EQ(generator->next_batch(ids, 4, ec), 4u);
  EXPECT_FALSE(ec);
}

// A call that fails gives back the value its fetch_add took (generator.cc, next_slow()): calls
// failing in a row leave the word where it was, so the next id is the next sequence, close()
// names the last id's tick and stats() counts no failed call. Without the give-back, 40 failed
// calls would have carried the word 10 ticks (4 sequences each) ahead of the clock.
TEST(Generator, FailedCallsGiveBackTheirValues) {
  const Layout layout{layouts::kDefault.epoch_ms(), TimeUnit::kMillisecond, 41, 10, 2};
  ManualClock clock(kNow, OnSleep::kAdvanceMonotonic);
  Binding binding(0, kNow - 1, kNow + 1000);
  auto generator = make_generator(layout, binding, clock);
  std::error_code ec;
  for (int i = 0; i < 4; ++i) ASSERT_NE(generator->next(ec), 0u) << ec.message();
  clock.set_ms(kNow - 1000);  // the tick is used up: the next one would lie 1 s ahead
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(generator->next(ec), 0u);
    EXPECT_ERRC(ec, errc::clock_backwards);
  }
  EXPECT_EQ(generator->stats().ids_issued, 4u);
  EXPECT_EQ(generator->stats().failures, 40u);

  clock.set_ms(kNow + 1);
  const std::uint64_t id = generator->next(ec);
  ASSERT_NO_ERROR(ec);
  EXPECT_EQ(unix_ms_of(layout, id), kNow + 1);
  EXPECT_EQ(layout.parse(id).sequence, 0u);
  EXPECT_EQ(generator->stats().ids_issued, 5u);
  EXPECT_EQ(generator->close(), kNow + 1);
}

TEST(Generator, CloseWithoutIdsReportsTheFloor) {
  ManualClock clock(kNow);
  Binding binding(0, kNow - 1, kNow + 1000);
  auto generator = make_generator(layouts::kDefault, binding, clock);
  EXPECT_EQ(generator->close(), kNow - 1);
}

TEST(Generator, CloseOfASecondUnitGeneratorReportsTheEndOfTheTick) {
  const std::int64_t second = 1796005378000;
  ManualClock clock(second + 250);
  Binding binding(0, second - 1, second + 5000);
  auto generator = make_generator(layouts::kSeconds, binding, clock);
  std::error_code ec;
  (void)generator->next(ec);
  ASSERT_NO_ERROR(ec);
  EXPECT_EQ(generator->close(), second + 999);
}

TEST(Generator, InvalidatedBindingFailsWithSlotLost) {
  ManualClock clock(kNow);
  Binding binding(2, kNow - 1, kNow + 1000);
  auto generator = make_generator(layouts::kDefault, binding, clock);
  std::error_code ec;
  (void)generator->next(ec);
  ASSERT_NO_ERROR(ec);
  binding.invalidate();
  (void)generator->next(ec);
  EXPECT_ERRC(ec, errc::slot_lost);
}

TEST(Generator, ThrowingOverloadCarriesTheMessage) {
  ManualClock clock(kNow);
  Binding binding(0, kNow - 1, kNow + 1000);
  auto generator = Generator::create(layouts::kDefault, binding, clock);
  EXPECT_NE(generator->next(), 0u);
  generator->close();
  try {
    (void)generator->next();
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(errc::closed));
    EXPECT_NE(std::string(e.what()).find("closed"), std::string::npos);
  }
  EXPECT_THROW(Generator::create(Layout{0, TimeUnit::kMillisecond, 0, 1, 1}, binding, clock),
               Error);
}

TEST(Generator, BatchReservesConsecutiveIdsOfOneTick) {
  const Layout layout{1577203200000, TimeUnit::kMillisecond, 41, 18, 4};  // 16 ids per tick
  ManualClock clock(kNow);
  Binding binding(3, kNow - 1, kNow + 1000);
  auto generator = make_generator(layout, binding, clock);
  std::error_code ec;
  std::uint64_t ids[32] = {};
  ASSERT_EQ(generator->next_batch(ids, 10, ec), 10u);
  ASSERT_NO_ERROR(ec);
  for (std::size_t i = 1; i < 10; ++i) EXPECT_EQ(ids[i], ids[0] + i);
  EXPECT_EQ(layout.parse(ids[0]).sequence, 0u);
  // Six sequences are left in this tick: a batch of 10 gets those six.
  std::uint64_t more[32] = {};
  ASSERT_EQ(generator->next_batch(more, 10, ec), 6u);
  EXPECT_EQ(more[0], ids[9] + 1);
  EXPECT_EQ(layout.parse(more[5]).sequence, 15u);
  // The next batch waits for the next tick (sleeping advances the clock) and starts it.
  ASSERT_EQ(generator->next_batch(more, 3, ec), 3u);
  EXPECT_EQ(unix_ms_of(layout, more[0]), kNow + 1);
  EXPECT_EQ(generator->next_batch(more, 0, ec), 0u);
  EXPECT_NO_ERROR(ec);
  // A single next() follows the batch without overlap.
  EXPECT_EQ(generator->next(ec), more[2] + 1);
}

// Bounded drift: a used-up tick moves on to the next one before the clock gets there, at most
// max_drift ahead of the clock and never past the ceiling.
TEST(Generator, DriftBorrowsTicksWithinTheBoundAndTheCeiling) {
  const Layout layout{1577203200000, TimeUnit::kMillisecond, 41, 18, 4};  // 16 ids per tick
  ManualClock clock(kNow, OnSleep::kAdvanceMonotonic);                    // a frozen clock
  Binding binding(3, kNow - 1, kNow + 2);
  GeneratorOptions options = kShortBounds;
  options.max_drift = milliseconds(5);
  // A wall clock that stands still while time passes is one going back; this test is about drift.
  options.max_step_back = milliseconds(0);
  auto generator = make_generator(layout, binding, clock, options);
  std::error_code ec;
  std::uint64_t previous = 0;
  // Ticks kNow, kNow + 1 and kNow + 2 (the ceiling): 48 ids without the clock moving.
  for (int i = 0; i < 48; ++i) {
    const std::uint64_t id = generator->next(ec);
    ASSERT_NO_ERROR(ec) << i;
    EXPECT_GT(id, previous);
    EXPECT_EQ(unix_ms_of(layout, id), kNow + i / 16);
    previous = id;
  }
  // The ceiling stops the drift: the generator waits for the clock, which does not move.
  (void)generator->next(ec);
  EXPECT_ERRC(ec, errc::clock_stalled);
  // Raising the ceiling lets it drift on, up to now + max_drift.
  binding.raise_ceiling(kNow + 1000);
  for (int i = 0; i < 32; ++i) {  // ticks kNow + 3 and kNow + 4
    (void)generator->next(ec);
    ASSERT_NO_ERROR(ec);
  }
  EXPECT_EQ(unix_ms_of(layout, generator->next(ec)), kNow + 5);
  for (int i = 0; i < 15; ++i) (void)generator->next(ec);
  (void)generator->next(ec);
  EXPECT_ERRC(ec, errc::clock_stalled);  // kNow + 6 would be more than 5 ms ahead
}

TEST(Generator, BatchFailsLikeNext) {
  ManualClock clock(kNow);
  Binding binding(0, kNow - 1, kNow + 1000);
  auto generator = make_generator(layouts::kDefault, binding, clock);
  generator->close();
  std::error_code ec;
  std::uint64_t ids[4] = {};
  EXPECT_EQ(generator->next_batch(ids, 4, ec), 0u);
  EXPECT_ERRC(ec, errc::closed);
}

// The sequence goes on across ticks and restarts only past half its range, so the low bits of
// ids stay balanced when fewer ids than ticks are issued: id % n spreads evenly.
TEST(Generator, SequenceContinuesAcrossTicksSoLowBitsStayBalanced) {
  const Layout layout = layouts::kDefault;  // 4,096 sequence values; restart past 2,048
  ManualClock clock(kNow);
  Binding binding(0, kNow - 1, kNow + 100000000);
  auto generator = make_generator(layout, binding, clock);
  std::error_code ec;
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 40960; ++i) {
    clock.advance(milliseconds(1));  // one id per tick: a low rate
    ids.push_back(generator->next(ec));
    ASSERT_NO_ERROR(ec);
  }
  // Sequences run 0, 1, ..., 2048, then restart at 0.
  EXPECT_EQ(layout.parse(ids[0]).sequence, 0u);
  EXPECT_EQ(layout.parse(ids[1]).sequence, 1u);
  EXPECT_EQ(layout.parse(ids[2048]).sequence, 2048u);
  EXPECT_EQ(layout.parse(ids[2049]).sequence, 0u);
  for (const std::uint64_t n : {2u, 4u, 16u}) {
    std::map<std::uint64_t, int> buckets;
    for (const std::uint64_t id : ids) ++buckets[id % n];
    ASSERT_EQ(buckets.size(), n) << "n = " << n;
    const double expected = static_cast<double>(ids.size()) / static_cast<double>(n);
    for (const auto& [bucket, count] : buckets) {
      EXPECT_NEAR(count, expected, expected * 0.01) << "n = " << n << ", bucket " << bucket;
    }
  }
}

// The same workload with a sequence that restarted at 0 every tick would put every id in one
// bucket; this shows the property above is not automatic.
TEST(Generator, ResetThresholdIsHalfTheRange) {
  const Layout layout{1577203200000, TimeUnit::kMillisecond, 41, 19, 3};  // 8 values; reset past 4
  ManualClock clock(kNow);
  Binding binding(0, kNow - 1, kNow + 100000);
  auto generator = make_generator(layout, binding, clock);
  std::error_code ec;
  std::vector<std::uint32_t> sequences;
  for (int i = 0; i < 12; ++i) {
    clock.advance(milliseconds(1));
    sequences.push_back(layout.parse(generator->next(ec)).sequence);
  }
  EXPECT_EQ(sequences, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1}));
}

}  // namespace
}  // namespace cosid
