// SPDX-License-Identifier: Apache-2.0
// Internal: the choice of the (tick, sequence) Generator::reserve() tries next, as a pure
// function of the generator's rules and what one round of reserve() read (the word, the clock,
// the ceiling), so that a table can test each branch without threads or a clock.
//
// The steps are those of the generator's model (tests/model/generator.pml): the choice of the
// next (tick, sequence) from the word, the borrow of a tick ahead of the clock under the lead
// bound, and the window check against the floor, the ceiling and the layout's end. The load of
// the word before it and the CAS after it stay in reserve(), which owns the atomics.
//
// Thread safety: pure functions of their arguments.
#ifndef COSID_SRC_WINDOW_NEXT_TICK_H_
#define COSID_SRC_WINDOW_NEXT_TICK_H_

#include <algorithm>
#include <cstdint>

#include "cosid/error.h"
#include "cosid/layout.h"

namespace cosid {
namespace detail {

// Why reserve() is waiting.
enum class Wait { kNone, kClockBackwards, kClockStalled, kBehindFloor, kCeiling };

// What a generator keeps fixed from its layout, binding and options.
struct TickRules {
  Layout layout;
  std::uint64_t sequence_mask = 0;      // the layout's max sequence
  std::uint64_t reset_threshold = 0;    // a new tick restarts the sequence from here on
  std::int64_t first_tick = 0;          // the first tick that lies wholly after the floor
  std::int64_t max_tick = 0;            // the layout's last timestamp
  std::int64_t max_drift_ms = 0;        // how far a used-up tick may borrow ahead of the clock
  std::int64_t catch_up_ticks = 0;      // max_catch_up in ticks
  std::int64_t lead_bound_ms = 0;       // the most of a step back (or gap to the floor) absorbed
  std::int64_t clock_backwards_ms = 0;  // GeneratorOptions::clock_backwards
  bool start_at_floor = false;
};

// What one round of reserve() read.
struct TickInputs {
  std::int64_t now_ms = 0;       // the clock; for a borrow, read again with the allowance
  std::int64_t now_tick = 0;     // the tick of the clock's first reading in the round
  std::uint64_t stamp = 0;       // of the word as seen: the last tick issued + 1, 0 for none
  std::uint64_t sequence = 0;    // of the word as seen
  std::int64_t chosen_tick = 0;  // the newest tick reserve() issued from
  std::int64_t catch_up_to = 0;  // the clock's tick when the generator last caught up
  std::int64_t ceiling_ms = 0;   // the binding's durable ceiling
  // The step back the generator still absorbs (Generator::step_allowance()). Only a borrow needs
  // it; until it is given, a borrow answers kNeedAllowance.
  bool has_allowance = false;
  std::int64_t allowance_ms = 0;
};

enum class TickOutcome {
  kTake,           // take (tick, sequence)
  kNeedAllowance,  // a borrow: read the allowance (and the clock) and ask again
  kWait,           // wait for `wait`, then read again
  kRefuse,         // fail with `code` now
};

struct TickPlan {
  TickOutcome outcome = TickOutcome::kTake;
  std::int64_t tick = 0;
  std::uint64_t sequence = 0;
  Wait wait = Wait::kNone;
  errc code = errc::closed;       // for kRefuse
  std::int64_t reference_ms = 0;  // for a wait or a refusal: the last tick, floor, ceiling or end
  bool left_last_tick = false;    // the clock has left the last tick: its lead is worth noting
};

// A used-up last tick, or one ahead of the clock that no id of reserve() came from: borrow the
// candidate tick when it lies within max_drift plus the allowance of the clock and under the
// ceiling, else wait for the clock, or refuse when no wait within the bound could bring the
// clock back near enough. `last` is the last tick issued.
inline TickPlan plan_borrow(const TickRules& rules, const TickInputs& in, std::int64_t last) {
  TickPlan plan;
  if (!in.has_allowance) {
    plan.outcome = TickOutcome::kNeedAllowance;
    return plan;
  }
  // The word was carried into `last` by fast-path values given up: it is a candidate as the
  // next tick is, under the same bound.
  const bool carried = in.sequence < rules.sequence_mask;
  const std::int64_t candidate = carried ? last : last + 1;
  const std::int64_t lead_ms = rules.layout.tick_start_ms(candidate - 1) - in.now_ms;
  const std::int64_t next_lead_ms = rules.layout.tick_start_ms(candidate) - in.now_ms;
  const std::int64_t bound_ms = rules.max_drift_ms + in.allowance_ms;
  if (next_lead_ms <= bound_ms && rules.layout.tick_end_ms(candidate) <= in.ceiling_ms) {
    plan.tick = candidate;
    plan.sequence = carried ? in.sequence + 1 : 0;
    return plan;
  }
  // A lead within the bound ends within a tick, unless the clock stands still; one beyond it is
  // a step back larger than the generator absorbs. Told apart by the tick before the candidate,
  // the last one issued from or used up.
  const bool beyond = lead_ms > bound_ms;
  plan.reference_ms = rules.layout.tick_start_ms(candidate - 1);
  if (beyond && next_lead_ms - bound_ms > rules.clock_backwards_ms) {
    plan.outcome = TickOutcome::kRefuse;
    plan.code = errc::clock_backwards;
    return plan;
  }
  plan.outcome = TickOutcome::kWait;
  plan.wait = beyond ? Wait::kClockBackwards : Wait::kClockStalled;
  return plan;
}

// After the first id: the next (tick, sequence) from the last tick issued and its sequence.
inline TickPlan plan_after_last(const TickRules& rules, const TickInputs& in) {
  const auto last = static_cast<std::int64_t>(in.stamp - 1);
  const std::uint64_t sequence = in.sequence;
  TickPlan plan;
  plan.tick = in.now_tick;
  if (in.now_tick > last) {
    // The clock has left the last tick. Ticks in between went unused: at a rate below the limit
    // that is only the clock passing, but a generator at its limit (its last tick used up)
    // missed them, its thread descheduled or outrun, and catches up on them, from the tick after
    // the last one but never more than max_catch_up behind the clock, and goes on in each while
    // its sequence lasts (catch_up_to: up to the tick the clock was in when it last caught up).
    // Every tick past the last is unused, so ids stay unique and increasing whichever tick this
    // takes; only their time may lag the clock.
    plan.left_last_tick = true;
    const std::int64_t lag = in.now_tick - last;
    if (sequence >= rules.sequence_mask && lag > 1 && rules.catch_up_ticks > 0) {
      plan.tick = std::max(last + 1, in.now_tick - rules.catch_up_ticks);
    } else if (sequence < rules.sequence_mask && lag <= rules.catch_up_ticks &&
               last < in.catch_up_to) {
      plan.tick = last;
      plan.sequence = sequence + 1;
    } else {
      plan.sequence = sequence >= rules.reset_threshold ? 0 : sequence + 1;
    }
    return plan;
  }
  if (sequence < rules.sequence_mask && (last == in.now_tick || last <= in.chosen_tick)) {
    // Same tick, or the clock went back: go on in the last tick while its sequence lasts. A tick
    // ahead of the clock does so only if reserve() issued from it (a tick it chose within the
    // lead), even after a step back larger than the bound.
    plan.tick = last;
    plan.sequence = sequence + 1;
    return plan;
  }
  return plan_borrow(rules, in, last);
}

// The window check of a chosen tick: past the layout's end it is refused; behind the floor or
// past the durable ceiling it waits.
inline TickPlan check_window(const TickRules& rules, const TickInputs& in, TickPlan plan) {
  if (plan.tick > rules.max_tick) {
    plan.outcome = TickOutcome::kRefuse;
    plan.code = errc::timestamp_overflow;
    plan.reference_ms = rules.layout.end_ms();
  } else if (plan.tick < rules.first_tick) {
    plan.outcome = TickOutcome::kWait;
    plan.wait = Wait::kBehindFloor;
    plan.reference_ms = rules.layout.tick_start_ms(rules.first_tick);
  } else if (rules.layout.tick_end_ms(plan.tick) > in.ceiling_ms) {
    plan.outcome = TickOutcome::kWait;
    plan.wait = Wait::kCeiling;
    plan.reference_ms = in.ceiling_ms;
  }
  return plan;
}

// The (tick, sequence) to take next, or why to wait or fail.
inline TickPlan plan_next_tick(const TickRules& rules, const TickInputs& in) {
  TickPlan plan;
  if (in.stamp != 0) {
    plan = plan_after_last(rules, in);
    if (plan.outcome != TickOutcome::kTake) return plan;
  } else {
    plan.tick = in.now_tick;
    // The first id of a generator started at the floor: the first tick past it, ahead of the
    // clock by the gap that lead_bound_ms was made to cover.
    if (in.now_tick < rules.first_tick && rules.start_at_floor &&
        rules.layout.tick_start_ms(rules.first_tick) - in.now_ms <= rules.lead_bound_ms) {
      plan.tick = rules.first_tick;
    }
  }
  return check_window(rules, in, plan);
}

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_WINDOW_NEXT_TICK_H_
