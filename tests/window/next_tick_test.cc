// SPDX-License-Identifier: Apache-2.0
// The generator's choice of the next (tick, sequence), row by row: each row is what one round of
// reserve() read, and the tick, sequence, wait or refusal it must lead to.
#include "window/next_tick.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <ostream>
#include <string>

#include "cosid/layout.h"

namespace cosid {
namespace detail {
namespace {

constexpr Layout kLayout = layouts::kDefault;  // 1 ms ticks, sequences 0 to 4095
constexpr std::int64_t kFirstTick = 100;       // the floor lies just before tick 100
constexpr std::int64_t kMaxTick = 1000;
constexpr std::uint64_t kUsedUp = 4095;
constexpr std::int64_t kNone = -1;       // no last tick (stamp 0), or no allowance given
constexpr std::int64_t kHigh = 1000000;  // a ceiling tick that never limits

constexpr std::int64_t start(std::int64_t tick) { return kLayout.tick_start_ms(tick); }
constexpr std::int64_t end(std::int64_t tick) { return kLayout.tick_end_ms(tick); }

// The rules that come from the layout and the floor alone; a test sets the options it varies.
TickRules layout_rules() {
  TickRules rules;
  rules.layout = kLayout;
  rules.sequence_mask = kLayout.max_sequence();
  rules.reset_threshold = (kLayout.max_sequence() >> 1) + 1;
  rules.first_tick = kFirstTick;
  rules.max_tick = kMaxTick;
  return rules;
}

struct Row {
  const char* name;
  // The generator's rules that vary.
  std::int64_t max_drift_ms;
  std::int64_t catch_up_ticks;
  std::int64_t lead_bound_ms;
  bool start_at_floor;
  // What the round read.
  std::int64_t now_tick;
  std::int64_t last_tick;  // kNone: no id yet
  std::uint64_t sequence;
  std::int64_t chosen_tick;
  std::int64_t ceiling_tick;  // the ceiling is this tick's last millisecond
  std::int64_t allowance_ms;  // kNone: not read yet
  // What it leads to.
  TickOutcome outcome;
  std::int64_t tick;
  std::uint64_t next_sequence;
  Wait wait;
  errc code;
  std::int64_t reference_ms;
};

std::ostream& operator<<(std::ostream& out, const Row& row) { return out << row.name; }

constexpr TickOutcome kTake = TickOutcome::kTake;
constexpr TickOutcome kNeed = TickOutcome::kNeedAllowance;
constexpr TickOutcome kWait = TickOutcome::kWait;
constexpr TickOutcome kRefuse = TickOutcome::kRefuse;
constexpr errc kAny = errc::closed;  // the code of a plan that is not a refusal

const Row kRows[] = {
    // The first id.
    {"first id at the clock", 0, 0, 0, false, 500, kNone, 0, 99, kHigh, kNone,  //
     kTake, 500, 0, Wait::kNone, kAny, 0},
    {"first id before the floor waits for it", 0, 0, 0, false, 50, kNone, 0, 99, kHigh, kNone,
     kWait, 50, 0, Wait::kBehindFloor, kAny, start(kFirstTick)},
    {"a generator started at the floor takes its first tick within the lead bound", 0, 0, 60, true,
     50, kNone, 0, 99, kHigh, kNone,  //
     kTake, kFirstTick, 0, Wait::kNone, kAny, 0},
    {"a generator started at the floor waits beyond the lead bound", 0, 0, 40, true, 50, kNone, 0,
     99, kHigh, kNone,  //
     kWait, 50, 0, Wait::kBehindFloor, kAny, start(kFirstTick)},
    {"a tick past the ceiling waits for it", 0, 0, 0, false, 500, kNone, 0, 99, 499, kNone, kWait,
     500, 0, Wait::kCeiling, kAny, end(499)},
    {"a tick past the layout's end is refused", 0, 0, 0, false, kMaxTick + 1, kNone, 0, 99, kHigh,
     kNone,  //
     kRefuse, kMaxTick + 1, 0, Wait::kNone, errc::timestamp_overflow, kLayout.end_ms()},
    // The same tick.
    {"the same tick goes on in its sequence", 0, 0, 0, false, 500, 500, 7, 500, kHigh, kNone, kTake,
     500, 8, Wait::kNone, kAny, 0},
    {"the sequence limit needs the allowance", 0, 0, 0, false, 500, 500, kUsedUp, 500, kHigh,
     kNone,  //
     kNeed, 0, 0, Wait::kNone, kAny, 0},
    {"the sequence limit waits for the clock without drift", 0, 0, 0, false, 500, 500, kUsedUp, 500,
     kHigh, 0,  //
     kWait, 500, 0, Wait::kClockStalled, kAny, start(500)},
    {"the sequence limit borrows the next tick within max_drift", 1, 0, 0, false, 500, 500, kUsedUp,
     500, kHigh, 0,  //
     kTake, 501, 0, Wait::kNone, kAny, 0},
    {"the sequence limit does not borrow past the ceiling", 1, 0, 0, false, 500, 500, kUsedUp, 500,
     500, 0,  //
     kWait, 500, 0, Wait::kClockStalled, kAny, start(500)},
    // A new tick.
    {"a new tick goes on from a low sequence", 0, 0, 0, false, 501, 500, 7, 500, kHigh, kNone,
     kTake, 501, 8, Wait::kNone, kAny, 0},
    {"a new tick restarts a high sequence", 0, 0, 0, false, 501, 500, 3000, 500, kHigh, kNone,
     kTake, 501, 0, Wait::kNone, kAny, 0},
    {"a generator at its limit catches up on missed ticks", 0, 5, 0, false, 510, 500, kUsedUp, 500,
     kHigh, kNone,  //
     kTake, 505, 0, Wait::kNone, kAny, 0},
    // A clock behind the last tick.
    {"behind a chosen tick, its sequence goes on", 0, 0, 0, false, 490, 500, 7, 500, kHigh, kNone,
     kTake, 500, 8, Wait::kNone, kAny, 0},
    {"behind a tick that values carried into, within the bound, it waits", 0, 0, 0, false, 490, 500,
     7, 499, kHigh, 0,  //
     kWait, 500, 0, Wait::kClockBackwards, kAny, start(499)},
    {"behind a carried tick, the allowance lets it borrow", 0, 0, 10, false, 490, 500, 7, 499,
     kHigh, 10,  //
     kTake, 500, 8, Wait::kNone, kAny, 0},
    {"far behind a used-up tick, no wait can help: refused", 0, 0, 0, false, 400, 500, kUsedUp, 500,
     kHigh, 0,  //
     kRefuse, 0, 0, Wait::kNone, errc::clock_backwards, start(500)},
};

class NextTickTest : public testing::TestWithParam<Row> {};

TEST_P(NextTickTest, PlansTheRow) {
  const Row& row = GetParam();
  TickRules rules = layout_rules();
  rules.max_drift_ms = row.max_drift_ms;
  rules.catch_up_ticks = row.catch_up_ticks;
  rules.lead_bound_ms = row.lead_bound_ms;
  rules.clock_backwards_ms = 20;
  rules.start_at_floor = row.start_at_floor;
  TickInputs in;
  in.now_ms = start(row.now_tick);
  in.now_tick = row.now_tick;
  in.stamp = row.last_tick == kNone ? 0 : static_cast<std::uint64_t>(row.last_tick + 1);
  in.sequence = row.sequence;
  in.chosen_tick = row.chosen_tick;
  in.catch_up_to = 0;
  in.ceiling_ms = end(row.ceiling_tick);
  in.has_allowance = row.allowance_ms != kNone;
  in.allowance_ms = in.has_allowance ? row.allowance_ms : 0;

  const TickPlan plan = plan_next_tick(rules, in);
  ASSERT_EQ(plan.outcome, row.outcome);
  EXPECT_EQ(plan.left_last_tick, row.last_tick != kNone && row.now_tick > row.last_tick);
  switch (row.outcome) {
    case TickOutcome::kTake:
      EXPECT_EQ(plan.tick, row.tick);
      EXPECT_EQ(plan.sequence, row.next_sequence);
      break;
    case TickOutcome::kWait:
      EXPECT_EQ(plan.wait, row.wait);
      EXPECT_EQ(plan.reference_ms, row.reference_ms);
      break;
    case TickOutcome::kRefuse:
      EXPECT_EQ(plan.code, row.code);
      EXPECT_EQ(plan.reference_ms, row.reference_ms);
      break;
    case TickOutcome::kNeedAllowance:
      break;
  }
}

std::string RowName(const testing::TestParamInfo<Row>& info) {
  std::string name;
  for (const char* c = info.param.name; *c != '\0'; ++c) {
    name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
  }
  return std::to_string(info.index) + "_" + name;
}

INSTANTIATE_TEST_SUITE_P(Rows, NextTickTest, testing::ValuesIn(kRows), RowName);

// The ceiling wait names the tick to ask a ceiling for: the one it would have taken.
TEST(NextTickCeilingTest, TheWaitKeepsTheTickItWants) {
  const TickRules rules = layout_rules();
  TickInputs in;
  in.now_tick = 700;
  in.now_ms = start(700);
  in.ceiling_ms = end(650);
  const TickPlan plan = plan_next_tick(rules, in);
  EXPECT_EQ(plan.outcome, TickOutcome::kWait);
  EXPECT_EQ(plan.wait, Wait::kCeiling);
  EXPECT_EQ(plan.tick, 700);
}

}  // namespace
}  // namespace detail
}  // namespace cosid
