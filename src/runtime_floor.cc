// SPDX-License-Identifier: Apache-2.0
#include "runtime_floor.h"

#include <algorithm>

#include "base/cancel.h"
#include "base/fail.h"
#include "base/time_format.h"
#include "window/window_keeper.h"

namespace cosid {
namespace detail {

using std::chrono::milliseconds;

namespace {

// The sentences of this file's refusals and notices, at its end, so that the wait for the floor
// reads without stepping over text. The ones that need the start's options are StartFloor's.
std::string cancelled_start_consequence_text();
std::string floor_past_layout_end_message(std::int64_t floor, std::uint32_t slot,
                                          std::int64_t end_ms);

}  // namespace

bool start_goes_on(const std::atomic<bool>* cancel, const char* when, Status& status) {
  if (!cancel_requested(cancel)) return true;
  return start_cancelled(status, when, cancelled_start_consequence_text());
}

bool StartFloor::reach(std::int64_t& floor, std::uint32_t slot, Status& status) {
  floor = std::max(floor, options_.layout.epoch_ms() - 1);
  if (!start_goes_on(cancel_, "before the wait for the floor", status) ||
      !check_floor(floor, slot, status) || !wait_for_floor(floor, slot, status)) {
    return false;
  }
  borrow_floor(floor);
  return true;
}

// Fails with timestamp_overflow when no id can lie above `floor` in the layout.
bool StartFloor::check_floor(std::int64_t floor, std::uint32_t slot, Status& status) {
  if (floor < options_.layout.end_ms() - 1) return true;
  return fail(status, make_error_code(errc::timestamp_overflow),
              floor_past_layout_end_message(floor, slot, options_.layout.end_ms()));
}

// Where the first tick that lies wholly after `floor` begins: the first id may take it (for a
// second-unit layout that can be up to a second after the floor itself).
std::int64_t StartFloor::first_tick_start_ms(std::int64_t floor) const {
  return options_.layout.tick_start_ms(options_.layout.tick_of(floor) + 1);
}

// How far ahead of the clock the start may issue: `ahead` in start mode borrow (options.h
// StartMode), else 0. A store's start never borrows (validate_options refuses it).
std::int64_t StartFloor::lent_ms() const {
  return options_.start == StartMode::kBorrow && !options_.uses_store() ? options_.ahead.count()
                                                                        : 0;
}

// Start mode borrow, after wait_for_floor() brought the clock within `ahead` of the first tick
// past the floor: when the clock is still short of that tick, the generator is to issue from it
// at once (borrowed_). The keeper then makes the first ceiling, max(floor, now) + ahead = floor +
// ahead, durable before any id (as always): ids' time leads the clock by at most the gap, at
// most ahead, under the durable ceiling, and every id lies past the floor, which bounds every id
// of the run before. A run that borrowed and crashed before the clock caught up leaves a
// ceiling up to 2 x ahead ahead of the clock; the restart then waits for the part beyond ahead
// (at most ahead, within the start wait of ahead + 1s) and borrows the rest, where a whole wait
// would not fit the start wait.
void StartFloor::borrow_floor(std::int64_t floor) {
  if (lent_ms() == 0) return;
  const std::int64_t usable_ms = first_tick_start_ms(floor);
  const std::int64_t now = clock_.now_ms();
  if (now >= usable_ms) return;  // nothing to borrow
  borrowed_ = true;  // start() runs before any generator() call: no other thread reads it yet
  emit_event(listener_,
             Event{EventKind::kBorrowingAhead, {}, borrowing_ahead_notice(now, floor), floor});
}

bool StartFloor::wait_for_floor(std::int64_t floor, std::uint32_t slot, Status& status) {
  const std::int64_t start = clock_.monotonic_ns();
  const std::int64_t bound_ns = to_nanos(options_.start_wait);
  bool reported = false;
  const std::int64_t usable_ms = first_tick_start_ms(floor);
  // In start mode borrow the clock need only come within `ahead` of it (borrow_floor()).
  const std::int64_t wanted_ms = usable_ms - lent_ms();
  while (clock_.now_ms() < wanted_ms) {
    // Looked at every slice (1 ms) of the wait, which may last up to the start wait.
    if (!start_goes_on(cancel_, "while waiting for the clock to pass the floor", status)) {
      return false;
    }
    const std::int64_t now = clock_.now_ms();
    const std::int64_t waited_ns = clock_.monotonic_ns() - start;
    // A clock running at its rate cannot close a gap larger than the wait left, so that is
    // known at once: fail now rather than at the end of the wait.
    const std::int64_t left_ms = (bound_ns - std::min(waited_ns, bound_ns)) / 1000000;
    if (wanted_ms - now > left_ms) {
      return fail(status, make_error_code(errc::clock_behind_floor),
                  clock_behind_floor_message(now, floor, slot, reported, waited_ns));
    }
    if (!reported) {
      emit_event(listener_,
                 Event{EventKind::kWaitingForFloor, {}, waiting_for_floor_notice(now, floor)});
      reported = true;
    }
    clock_.sleep_for(milliseconds(1));
  }
  return true;
}

// The sentences.

// Why ids up to `floor` of `slot` may exist, for the messages of a clock behind it: a previous
// holder only where there was one. `lost`: the binding of this runtime's lease that was lost
// before this one, if any (the keeper starts the next slot's floor at its ceiling).
std::string StartFloor::floor_reason(std::int64_t floor, std::uint32_t slot,
                                     const Binding* lost) const {
  const std::int64_t epoch = options_.layout.epoch_ms();
  if (floor <= std::max(options_.not_before_ms, epoch - 1)) {
    return "the floor is " + format_floor(floor, epoch) +
           ", set by configuration, not by a previous holder: no id may lie at or before it";
  }
  const std::string slot_text = "slot " + std::to_string(slot);
  if (!options_.uses_store()) {
    return "the state file " + options_.state_file + " records that a previous run on " +
           slot_text + " may have issued ids up to the floor";
  }
  if (lost != nullptr && floor == lost->ceiling_ms()) {
    return "this process may have issued ids up to the floor on slot " +
           std::to_string(lost->slot()) + ", whose lease was lost";
  }
  return "a previous holder of " + slot_text + " may have issued ids up to the floor";
}

// "the clock NOW is GAP short of the first tick after the floor FLOOR": where the start stands.
std::string StartFloor::short_of_floor(std::int64_t now, std::int64_t usable_ms,
                                       std::int64_t floor) {
  return "the clock " + format_instant(now) + " is " + format_gap(usable_ms - now) +
         " short of the first tick after the floor " + format_instant(floor);
}

// Why start borrow waits at all: the gap is larger than the ahead it lends. Empty in wait mode.
std::string StartFloor::borrow_note(std::int64_t gap_ms) const {
  if (lent_ms() == 0) return std::string();
  return " (start borrow lends at most ahead, " + format_gap(lent_ms()) + ", of the " +
         format_gap(gap_ms) + ": it waits for the rest)";
}

// wait_for_floor()'s refusal when the clock cannot pass the floor within the start wait: where it
// stands, why the floor is there, when ids could be issued and what to do. `reported`: the wait
// began already (it took `waited_ns`); else the gap exceeds the whole start wait.
std::string StartFloor::clock_behind_floor_message(std::int64_t now, std::int64_t floor,
                                                   std::uint32_t slot, bool reported,
                                                   std::int64_t waited_ns) const {
  const std::int64_t usable_ms = first_tick_start_ms(floor);
  const std::int64_t wanted_ms = usable_ms - lent_ms();
  return short_of_floor(now, usable_ms, floor) + " of slot " + std::to_string(slot) +
         (reported ? " after waiting " + format_gap(waited_ns / 1000000)
                   : ", more than the start wait of " + format_gap(options_.start_wait.count())) +
         ": " + floor_reason(floor, slot, nullptr) + ", so none can be issued before " +
         format_instant(wanted_ms) + "; " +
         (options_.uses_store() ? std::string("wait until then and start again")
                                : "use another slot (with its own state file), or wait until then "
                                  "and start again") +
         ", and check the clock if it should not be behind" + borrow_note(usable_ms - now);
}

std::string StartFloor::waiting_for_floor_notice(std::int64_t now, std::int64_t floor) const {
  const std::int64_t usable_ms = first_tick_start_ms(floor);
  return short_of_floor(now, usable_ms, floor) + "; waiting for it" + borrow_note(usable_ms - now);
}

std::string StartFloor::borrowing_ahead_notice(std::int64_t now, std::int64_t floor) const {
  const std::int64_t usable_ms = first_tick_start_ms(floor);
  return "start borrow: " + short_of_floor(now, usable_ms, floor) +
         "; issuing from it at once, ids ahead of the clock by at most " +
         format_gap(usable_ms - now) + " (and max_drift, " + format_gap(max_drift_.count()) +
         ", under a burst)";
}

namespace {

std::string cancelled_start_consequence_text() {
  return "nothing was issued, and what the start held is given back (a lease released, the state "
         "file closed)";
}

std::string floor_past_layout_end_message(std::int64_t floor, std::uint32_t slot,
                                          std::int64_t end_ms) {
  return "the floor " + std::to_string(floor) + " of slot " + std::to_string(slot) +
         " lies at or past the end of the layout (" + format_instant(end_ms) +
         "): no id can be issued; check not-before and the state file's or the lease store's "
         "ceiling";
}

}  // namespace

}  // namespace detail
}  // namespace cosid
