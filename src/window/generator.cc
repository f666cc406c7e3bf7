// SPDX-License-Identifier: Apache-2.0
#include "cosid/generator.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "base/fail.h"
#include "base/fork_guard.h"
#include "base/hot_path.h"
#include "base/time_format.h"
#include "window/next_tick.h"

namespace cosid {
namespace {

using detail::clear;
using detail::TickInputs;
using detail::TickOutcome;
using detail::TickPlan;
using detail::TickRules;
using detail::Wait;
using detail::Waiter;

constexpr std::uint64_t kClosedBit = std::uint64_t{1} << 63;
// closed_result_ before the first close() has stored what it returns.
constexpr std::int64_t kNotClosed = INT64_MIN;

template <typename... Args>
std::string format(const char* pattern, Args... args) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, pattern, args...);
  if (n < 0) return std::string();
  return std::string(buf, std::min(static_cast<std::size_t>(n), sizeof buf - 1));
}

// How far the first tick past the floor lies ahead of the clock, for a generator started there
// (GeneratorOptions::start_at_floor); 0 otherwise. It absorbs that gap as a clock set back by it.
std::int64_t floor_gap_ms(const Layout& layout, std::int64_t first_tick, std::int64_t now_ms,
                          const GeneratorOptions& options) noexcept {
  if (!options.start_at_floor) return 0;
  return std::max<std::int64_t>(0, layout.tick_start_ms(first_tick) - now_ms);
}

// The GeneratorOptions field that is negative, or null: every one is a duration of 0 or more.
const char* negative_option(const GeneratorOptions& options) noexcept {
  if (options.clock_backwards.count() < 0) return "clock_backwards";
  if (options.behind_floor.count() < 0) return "behind_floor";
  if (options.ceiling.count() < 0) return "ceiling";
  if (options.max_drift.count() < 0) return "max_drift";
  if (options.max_catch_up.count() < 0) return "max_catch_up";
  if (options.max_step_back.count() < 0) return "max_step_back";
  return nullptr;
}

// The sentences of create()'s refusals, at the end of this file.
std::string negative_option_message(const char* field);
std::string slot_out_of_range_message(std::uint32_t slot, const Layout& layout);

// A refusal's sink (see Generator::issue()): a Status is cleared on success only when it holds a
// failure, as the std::error_code is (detail::clear()).
void clear(Status& status) noexcept {
  if (!status.ok()) status.clear();
}
bool failed(const std::error_code& ec) noexcept { return static_cast<bool>(ec); }
bool failed(const Status& status) noexcept { return !status.ok(); }

// How long a wait of this kind may last and the code of the refusal when it lasts longer.
struct WaitBound {
  std::int64_t bound_ms;
  errc code;
};

WaitBound wait_bound(Wait wait, const GeneratorOptions& options, const Layout& layout) noexcept {
  switch (wait) {
    case Wait::kClockBackwards:
      return {options.clock_backwards.count(), errc::clock_backwards};
    case Wait::kClockStalled:
      // A used-up tick normally ends within one tick: allow that on top of the bound.
      return {options.clock_backwards.count() + unit_ms(layout.unit), errc::clock_stalled};
    case Wait::kBehindFloor:
      return {options.behind_floor.count(), errc::clock_behind_floor};
    case Wait::kCeiling:
    case Wait::kNone:
      break;
  }
  return {options.ceiling.count(), errc::ceiling_reached};
}

}  // namespace

// What went wrong, with the values the message needs. Plain data: filled on the hot path's exits
// without allocating; the message is built only if the caller asks for it.
struct Generator::Failure {
  errc code;
  std::int64_t now_ms = 0;        // the clock when the generator gave up
  std::int64_t reference_ms = 0;  // last tick, first tick past the floor, ceiling or layout end
  std::int64_t waited_ms = 0;
};

// The counters behind stats(). Waits and failures are counted where they happen, which is slow
// anyway; relaxed, since they publish nothing and stats() promises each field only for calls that
// finished before it began.
//
// Ids are not counted one by one: an atomic add per id would cost the hot path as much again as
// its own fetch_add. They are counted in runs of values of the state word instead. A run starts
// at sequence 0 (the first id, a reset at a new tick, a borrowed tick) and goes on without a gap,
// across ticks too, until the next start: each fetch_add and compare-and-swap takes the
// sequences right after the last one taken. So a run that ended at sequence z took exactly z + 1
// values, and the one compare-and-swap that starts the next run, at most once a tick, adds them
// to `ids_in_finished_runs`. The run still going is read off the state word. A value that the
// fast path took and no id came from, and that could not be given back, is counted in
// `given_up` (count_given_up()), which stats() subtracts.
struct Generator::Counters {
  std::atomic<std::uint64_t> ids_in_finished_runs{0};
  std::atomic<std::uint64_t> given_up{0};
  // The largest ids_issued stats() has reported, so that it never goes down (see stats()).
  std::atomic<std::uint64_t> ids_reported{0};
  std::atomic<std::uint64_t> sequence_waits{0};
  std::atomic<std::uint64_t> ceiling_waits{0};
  std::atomic<std::uint64_t> clock_backwards{0};
  std::atomic<std::uint64_t> floor_waits{0};
  std::atomic<std::uint64_t> failures{0};

  void count_wait(Wait wait) noexcept {
    std::atomic<std::uint64_t>* counter = nullptr;
    switch (wait) {
      case Wait::kClockStalled:
        counter = &sequence_waits;
        break;
      case Wait::kClockBackwards:
        counter = &clock_backwards;
        break;
      case Wait::kBehindFloor:
        counter = &floor_waits;
        break;
      case Wait::kCeiling:
        counter = &ceiling_waits;
        break;
      case Wait::kNone:
        return;
    }
    counter->fetch_add(1, std::memory_order_relaxed);
  }
};

std::unique_ptr<Generator> Generator::create(const Layout& layout, Binding& binding, Clock& clock,
                                             const GeneratorOptions& options, Status& status) {
  const std::int64_t now = clock.now_ms();
  if (!layout.validate_at(now, status)) return nullptr;
  if (const char* field = negative_option(options)) {
    detail::fail(status, errc::invalid_value, negative_option_message(field));
    return nullptr;
  }
  if (binding.slot() > layout.max_slot()) {
    detail::fail(status, errc::slot_out_of_range,
                 slot_out_of_range_message(binding.slot(), layout));
    return nullptr;
  }
  status.clear();
  return std::unique_ptr<Generator>(new Generator(layout, binding, clock, options, now));
}

#if COSID_HAS_EXCEPTIONS
std::unique_ptr<Generator> Generator::create(const Layout& layout, Binding& binding, Clock& clock,
                                             const GeneratorOptions& options) {
  Status status;
  auto generator = create(layout, binding, clock, options, status);
  detail::throw_if_failed(status);
  return generator;
}

std::uint64_t Generator::next() {
  Status status;
  const std::uint64_t id = next(status);
  detail::throw_if_failed(status);
  return id;
}
#endif

Generator::Generator(const Layout& layout, Binding& binding, Clock& clock,
                     const GeneratorOptions& options, std::int64_t now_ms)
    : layout_(layout),
      binding_(binding),
      clock_(clock),
      options_(options),
      stamp_shift_(layout.sequence_bits),
      sequence_mask_(layout.max_sequence()),
      reset_threshold_((layout.max_sequence() >> 1) + 1),
      floor_ms_(binding.floor_ms() > layout.epoch_ms() - 1 ? binding.floor_ms()
                                                           : layout.epoch_ms() - 1),
      first_tick_(layout.tick_of(floor_ms_) + 1),
      max_tick_(layout.max_timestamp()),
      max_drift_ms_(options.max_drift.count()),
      catch_up_ticks_(options.max_catch_up.count() / unit_ms(layout.unit)),
      lead_bound_ms_(std::max(options.max_step_back.count(),
                              floor_gap_ms(layout, first_tick_, now_ms, options))),
      unit_ms_(unit_ms(layout.unit)),
      end_offset_ms_(layout.tick_end_ms(0)),
      id_tick_shift_(layout.slot_bits + layout.sequence_bits),
      id_slot_field_(std::uint64_t{binding.slot()} << layout.sequence_bits),
      fork_guard_(std::make_unique<detail::ForkGuard>()),
      counters_(std::make_unique<Counters>()) {
  // A generator started at the floor absorbs the gap to it as it would a clock set back by the
  // gap: its ids go on from the floor at the pace of time, and the lead fades as a step does.
  const std::int64_t gap_ms = floor_gap_ms(layout, first_tick_, now_ms, options);
  clock_anchor_.store(clock_lead(now_ms) + gap_ms, std::memory_order_relaxed);
  fast_lead_ms_.store(max_drift_ms_ + gap_ms, std::memory_order_relaxed);
  chosen_tick_.store(first_tick_ - 1, std::memory_order_relaxed);
  closed_result_.store(kNotClosed, std::memory_order_relaxed);
}

Generator::~Generator() = default;

// How far the wall clock leads the monotonic one, in ms, plus one ms for every second of
// monotonic time: the largest value of it seen is the anchor (clock_anchor_), and the anchor less
// the value now is how far the wall clock went back since, less 1 ms a second. That decay is
// twice the fastest NTP slews the clock (500 ppm), so a slewed clock never passes for one set
// back, and an absorbed step fades: at the limit the ids' lead then shrinks by 1 ms a second.
std::int64_t Generator::clock_lead(std::int64_t wall_ms) noexcept {
  const std::int64_t monotonic_ms = clock_.monotonic_ns() / 1000000;
  return wall_ms - monotonic_ms + monotonic_ms / 1000;
}

void Generator::note_lead(std::int64_t lead) noexcept {
  // Relaxed: the anchor steers how far ahead a tick may be taken, never whether it is unused
  // (the CAS on state_ decides that), and what is drawn from it is capped at lead_bound_ms_.
  std::int64_t anchor = clock_anchor_.load(std::memory_order_relaxed);
  while (anchor < lead &&
         !clock_anchor_.compare_exchange_weak(anchor, lead, std::memory_order_relaxed)) {
  }
}

std::int64_t Generator::step_allowance(std::int64_t& now) noexcept {
  // The wall clock first, then the monotonic one (in clock_lead()): a thread descheduled between
  // the two sees a smaller lead, which is not kept, so a late reading can make the allowance
  // larger for this call alone, never for later ones.
  now = clock_.now_ms();
  const std::int64_t lead = clock_lead(now);
  const std::int64_t anchor = clock_anchor_.load(std::memory_order_relaxed);
  std::int64_t allowance = 0;
  if (anchor <= lead) {
    note_lead(lead);
  } else {
    allowance = std::min(anchor - lead, lead_bound_ms_);
  }
  // The fast path follows the step and its fade from here. Relaxed, and stored only when it
  // changed (the line is read by every next()): the lead steers how far ahead of the clock a
  // tick's values are taken, never whether a value is unused (the fetch_add decides that), and
  // any value stored is at most max_drift + lead_bound_ms_, the bound the header states.
  const std::int64_t fast_lead = max_drift_ms_ + allowance;
  if (fast_lead_ms_.load(std::memory_order_relaxed) != fast_lead) {
    fast_lead_ms_.store(fast_lead, std::memory_order_relaxed);
  }
  return allowance;
}

void Generator::note_chosen(std::int64_t tick) noexcept {
  // Relaxed: it steers whether reserve() goes on in a tick ahead of the clock without the lead
  // check, never whether a value is unused; a stale value only sends a call through that check.
  std::int64_t chosen = chosen_tick_.load(std::memory_order_relaxed);
  while (chosen < tick &&
         !chosen_tick_.compare_exchange_weak(chosen, tick, std::memory_order_relaxed)) {
  }
}

// Inlined into both next() overloads, so that next(ec) stays the few instructions it is.
template <typename Sink>
[[gnu::always_inline]] inline std::uint64_t Generator::issue(Sink& sink) noexcept {
  // The fast path, nearly every call at a high rate: one fetch_add takes the value V after the
  // word's, and the id is V's tick and sequence when V passes the checks reserve() makes of an
  // id: not closed, not forked, the binding valid, floor < tick, the tick's last millisecond <=
  // ceiling, the tick no further ahead of the clock than the lead allowed, the clock not past the
  // tick, and not a carry into a new tick (sequence 0: reserve() decides on new ticks). Anything
  // else goes to next_slow(), which gives V back or accounts for it.
  //
  // V is this call's alone: every read-modify-write of the word returns a value of its own, and
  // the word only goes down by a give-back, from V to V - 1 while the word is still V, which only
  // V's holder makes (next_slow()). So no value is issued twice, whichever call issues it.
  //
  // What does not depend on the word is read first: the clock (as in reserve()), the fork and
  // binding checks, the ceiling (which only grows: one read a little early is a lower one, which
  // can only send a call to reserve()) and the lead (see step_allowance()).
  const std::int64_t now = clock_.now_ms();
  const std::int64_t ceiling = binding_.ceiling_ms();
  if (fork_guard_->forked() || !binding_.valid()) return next_slow(now, 0, sink);
  const std::int64_t lead = fast_lead_ms_.load(std::memory_order_relaxed);
  // Relaxed on state_: see reserve().
  const std::uint64_t value = state_.fetch_add(1, std::memory_order_relaxed) + 1;
  // The closed bit is masked out of the tick all the same, so that tick * unit_ms_ cannot
  // overflow; a closed value fails the first check.
  const std::int64_t tick = static_cast<std::int64_t>((value & ~kClosedBit) >> stamp_shift_) - 1;
  const std::uint64_t sequence = value & sequence_mask_;
  const std::int64_t end_ms = tick * unit_ms_ + end_offset_ms_;
  if (value < kClosedBit && sequence != 0 && tick >= first_tick_ && tick <= max_tick_ &&
      end_ms <= ceiling && now <= end_ms && end_ms - (unit_ms_ - 1) - now <= lead) {
    clear(sink);
    return (static_cast<std::uint64_t>(tick) << id_tick_shift_) | id_slot_field_ | sequence;
  }
  return next_slow(now, value, sink);
}

std::uint64_t Generator::next(std::error_code& ec) noexcept { return issue(ec); }

std::uint64_t Generator::next(Status& status) noexcept { return issue(status); }

// Not inlined into next(), which would undo the reason for it (see the header).
template <typename Sink>
[[gnu::noinline]] std::uint64_t Generator::next_slow(std::int64_t now, std::uint64_t owned,
                                                     Sink& sink) noexcept {
  std::uint64_t got = 0;
  const std::uint64_t id =
      reserve(1, now, state_.load(std::memory_order_relaxed), owned, got, sink);
  if (owned != 0) {
    // No id came from the value the fast path took. Given back while it is still the word's (the
    // next fetch_add takes it again), so that calls failing in a row, a clock set back too far,
    // do not carry the word into ticks ahead of the clock; once the word has moved on, it is a
    // gap, counted out of stats(). After a success the give-back is not tried: reserve() moved
    // the word from another value to the id it issued, which no call gives back, so the word
    // never comes down to V again, and a CAS there would only take the contended line once more.
    std::uint64_t expected = owned;
    const bool given_back = failed(sink) && state_.compare_exchange_strong(
                                                expected, owned - 1, std::memory_order_relaxed,
                                                std::memory_order_relaxed);
    if (!given_back) count_given_up(owned);
  }
  return id;
}

void Generator::count_given_up(std::uint64_t value) noexcept {
  // stats() counts the run still going off the word, and only values with a stamp (a value
  // before the first id has none): so a given-up value with a stamp is subtracted, and a carry
  // (sequence 0) that the word has gone on from took the S values of the tick before it out of
  // the run read off the word, which a finished run now holds. A value of a closed word is
  // counted as it would be open: stats() masks the bit out too.
  const std::uint64_t open = value & ~kClosedBit;
  // Relaxed: stats() reads it last (see there). Release on the run, as in reserve().
  if ((open >> stamp_shift_) != 0) counters_->given_up.fetch_add(1, std::memory_order_relaxed);
  if ((open & sequence_mask_) == 0 && ((open - 1) >> stamp_shift_) != 0) {
    counters_->ids_in_finished_runs.fetch_add(sequence_mask_ + 1, std::memory_order_release);
  }
}

template <typename Sink>
[[gnu::always_inline]] inline std::size_t Generator::issue_batch(std::uint64_t* ids,
                                                                 std::size_t count,
                                                                 Sink& sink) noexcept {
  if (count == 0) {
    clear(sink);
    return 0;
  }
  std::uint64_t got = 0;
  std::uint64_t owned = 0;  // no fetch_add: a batch takes its sequences with one CAS
  const std::int64_t now = clock_.now_ms();
  const std::uint64_t first =
      reserve(count, now, state_.load(std::memory_order_relaxed), owned, got, sink);
  if (failed(sink)) return 0;
  // The sequence is the id's lowest field, so one tick's consecutive sequences are consecutive ids.
  for (std::uint64_t i = 0; i < got; ++i) ids[i] = first + i;
  return static_cast<std::size_t>(got);
}

std::size_t Generator::next_batch(std::uint64_t* ids, std::size_t count,
                                  std::error_code& ec) noexcept {
  return issue_batch(ids, count, ec);
}

std::size_t Generator::next_batch(std::uint64_t* ids, std::size_t count, Status& status) noexcept {
  return issue_batch(ids, count, status);
}

TickRules Generator::tick_rules() const noexcept {
  TickRules rules;
  rules.layout = layout_;
  rules.sequence_mask = sequence_mask_;
  rules.reset_threshold = reset_threshold_;
  rules.first_tick = first_tick_;
  rules.max_tick = max_tick_;
  rules.max_drift_ms = max_drift_ms_;
  rules.catch_up_ticks = catch_up_ticks_;
  rules.lead_bound_ms = lead_bound_ms_;
  rules.clock_backwards_ms = options_.clock_backwards.count();
  rules.start_at_floor = options_.start_at_floor;
  return rules;
}

[[gnu::always_inline]] inline TickInputs Generator::tick_inputs(
    std::int64_t now, std::uint64_t word, std::uint64_t owned) const noexcept {
  TickInputs in;
  in.now_ms = now;
  // For a millisecond layout the tick is the millisecond: tick_of()'s division by the unit (a
  // 64-bit idiv, since the unit is not known at compile time) is skipped on the hot path.
  in.now_tick = layout_.unit == TimeUnit::kMillisecond ? now - layout_.epoch : layout_.tick_of(now);
  // While the word is still the value this call's fetch_add took, that value is not an id
  // issued: the last one issued is the value before it. From there the call either takes the
  // value itself or moves the word on from it (take()), and uses it up either way.
  const std::uint64_t seen = owned != 0 && word == owned ? word - 1 : word;
  in.stamp = seen >> stamp_shift_;  // the closed bit is 0 here
  in.sequence = seen & sequence_mask_;
  // Relaxed: both steer which unused tick is taken, never whether it is unused (the CAS on
  // state_ decides that); a stale value only sends a call through the lead check or past a
  // catch-up.
  in.chosen_tick = chosen_tick_.load(std::memory_order_relaxed);
  in.catch_up_to = catch_up_to_.load(std::memory_order_relaxed);
  in.ceiling_ms = binding_.ceiling_ms();
  return in;
}

[[gnu::always_inline]] inline bool Generator::take(const TickPlan& plan, const TickInputs& in,
                                                   std::uint64_t want, std::uint64_t& word,
                                                   std::uint64_t& owned,
                                                   std::uint64_t& got) noexcept {
  // Up to `want` consecutive sequences of this tick, as many as it has left.
  const std::uint64_t left = sequence_mask_ - plan.sequence + 1;
  const std::uint64_t take = want < left ? want : left;
  const std::uint64_t desired =
      (static_cast<std::uint64_t>(plan.tick + 1) << stamp_shift_) | (plan.sequence + take - 1);
  // The id is the value this call's fetch_add took (`desired` can equal the word only when
  // `seen` is the value before it): it is this call's alone, taken with no read-modify-write.
  // Otherwise a CAS, which on success leaves `word` at what the word held.
  const bool own_value = word == owned && desired == word;
  if (!own_value && !state_.compare_exchange_weak(word, desired, std::memory_order_relaxed,
                                                  std::memory_order_relaxed)) {
    return false;
  }
  if (word == owned) owned = 0;  // taken, or the word moved on from it: used up
  got = take;
  if (plan.sequence == 0 && in.stamp != 0) {
    // This starts a new run; the one that ended at `in.sequence` issued in.sequence + 1 ids.
    // Release, after the CAS: stats() reads this counter with acquire and then the word, so a
    // run it finds counted here is never also the run it reads off the word.
    counters_->ids_in_finished_runs.fetch_add(in.sequence + 1, std::memory_order_release);
  }
  note_chosen(plan.tick);
  if (plan.tick < in.now_tick && catch_up_to_.load(std::memory_order_relaxed) < in.now_tick) {
    // A tick caught up on: the ticks up to the clock's are to be caught up on too. Relaxed: the
    // value only steers which unused tick a later call takes, never whether a tick is unused
    // (the CAS on state_ decides that), so a stale or lost store costs ticks at most. Two
    // callers racing here store about the same tick.
    catch_up_to_.store(in.now_tick, std::memory_order_relaxed);
  }
  return true;
}

bool Generator::pause(Wait wait, Waiter& waiter, unsigned& waits_counted) noexcept {
  const unsigned wait_bit = 1u << static_cast<unsigned>(wait);
  if ((waits_counted & wait_bit) == 0) {
    waits_counted |= wait_bit;
    counters_->count_wait(wait);
  }
  const std::int64_t bound_ms = wait_bound(wait, options_, layout_).bound_ms;
  return waiter.pause(clock_, detail::to_nanos(std::chrono::milliseconds(bound_ms)));
}

template <typename Sink>
std::uint64_t Generator::reserve(std::uint64_t want, std::int64_t now, std::uint64_t word,
                                 std::uint64_t& owned, std::uint64_t& got, Sink& sink) noexcept {
  // Relaxed loads, fetch_add and CAS on state_: the word is the only data the callers share, and
  // all read-modify-writes of one atomic are totally ordered whatever the memory order. That
  // order alone makes each (tick, sequence) go to one caller and makes close() see every id
  // issued before it; nothing else is published through the word.
  const TickRules rules = tick_rules();
  Waiter waiter;
  bool asked_for_ceiling = false;
  unsigned waits_counted = 0;  // a bit per Wait kind already counted for this call
  for (;;) {
    if ((word & kClosedBit) != 0) return refuse({errc::closed, now}, sink);
    if (fork_guard_->forked()) return refuse({errc::forked_process, now}, sink);
    if (!binding_.valid()) return refuse({binding_.invalid_reason(), now}, sink);

    TickInputs in = tick_inputs(now, word, owned);
    TickPlan plan = detail::plan_next_tick(rules, in);
    if (plan.outcome == TickOutcome::kNeedAllowance) {
      // A borrow: the generator may move on ahead of the clock by max_drift (a lead of its own,
      // under a burst) plus the step back the clock made that it still absorbs (measured on the
      // monotonic clock, so a thread that read the wall clock late cannot pass for a clock set
      // back), so that such a step costs no wait: its ids go on at the pace of time.
      in.allowance_ms = step_allowance(now);  // `now` read again, with it
      in.has_allowance = true;
      in.now_ms = now;
      plan = detail::plan_next_tick(rules, in);
    }
    if (plan.left_last_tick) note_lead(clock_lead(now));
    if (plan.outcome == TickOutcome::kTake) {
      if (take(plan, in, want, word, owned, got)) {
        clear(sink);
        return layout_.compose(plan.tick, binding_.slot(),
                               static_cast<std::uint32_t>(plan.sequence));
      }
      continue;  // another caller moved the word; `word` holds its value, `now` is still fresh
    }
    if (plan.outcome == TickOutcome::kRefuse)
      return refuse({plan.code, now, plan.reference_ms}, sink);
    if (plan.wait == Wait::kCeiling && !asked_for_ceiling) {
      binding_.want_ceiling(layout_.tick_end_ms(plan.tick));
      asked_for_ceiling = true;
    }
    if (!pause(plan.wait, waiter, waits_counted)) {
      const errc code = wait_bound(plan.wait, options_, layout_).code;
      return refuse({code, now, plan.reference_ms, waiter.waited_ms()}, sink);
    }
    now = clock_.now_ms();
    word = state_.load(std::memory_order_relaxed);
  }
}

std::int64_t Generator::close() noexcept {
  // Relaxed is enough for the same reason as in next(): the fetch_or takes its place in the total
  // order of read-modify-writes on state_, after every one that took a value an id came from or
  // comes from (reserve() may still issue the value its own fetch_add took, without another one)
  // and before every later one, whose value is closed and refused. The word's tick covers them
  // all; it is not capped at the ceiling, which such a value's call may have seen raised. It may
  // name a later tick than the last id's: one that values of calls that then failed carried the
  // word into (mostly the next one, a carry racing this close()).
  const std::uint64_t word = state_.fetch_or(kClosedBit, std::memory_order_relaxed);
  if ((word & kClosedBit) != 0) {
    // Closed before. Refused calls have moved the word on since with their fetch_adds, so it is
    // not read again: the first close() stored its result. A call racing the first one may find
    // none yet, and then returns its own reading, a later tick, which covers every id as well.
    // Relaxed: the value is all that is read.
    const std::int64_t first = closed_result_.load(std::memory_order_relaxed);
    if (first != kNotClosed) return first;
  }
  const std::uint64_t stamp = (word & ~kClosedBit) >> stamp_shift_;
  const std::int64_t last =
      stamp == 0 ? binding_.floor_ms() : layout_.tick_end_ms(static_cast<std::int64_t>(stamp - 1));
  if ((word & kClosedBit) == 0) closed_result_.store(last, std::memory_order_relaxed);
  return last;
}

GeneratorStats Generator::stats() const noexcept {
  GeneratorStats stats;
  // Acquire pairs with the release in reserve(): see there. Between a run's start and its
  // fetch_add the finished run is in neither place, so the sum can come out short; keeping the
  // largest sum reported makes the count never go down, and it is exact whenever no call is in
  // flight and none was while an earlier stats() read.
  //
  // The values given up are read last: one given up after the word was read is then subtracted
  // without being in the run read off it, which makes the sum short, as above. The sum comes out
  // long only by values that running calls hold, counted until given back or given up: a call
  // running while stats() reads may be counted, and stays counted if it then fails.
  const std::uint64_t finished = counters_->ids_in_finished_runs.load(std::memory_order_acquire);
  const std::uint64_t word = state_.load(std::memory_order_relaxed) & ~kClosedBit;
  const std::uint64_t in_current_run =
      (word >> stamp_shift_) == 0 ? 0 : (word & sequence_mask_) + 1;
  const std::uint64_t given_up = counters_->given_up.load(std::memory_order_relaxed);
  std::uint64_t reported = counters_->ids_reported.load(std::memory_order_relaxed);
  const std::uint64_t counted = finished + in_current_run;
  const std::uint64_t sum = counted > given_up ? counted - given_up : 0;
  while (reported < sum &&
         !counters_->ids_reported.compare_exchange_weak(reported, sum, std::memory_order_relaxed)) {
  }
  stats.ids_issued = reported < sum ? sum : reported;
  stats.sequence_waits = counters_->sequence_waits.load(std::memory_order_relaxed);
  stats.ceiling_waits = counters_->ceiling_waits.load(std::memory_order_relaxed);
  stats.clock_backwards = counters_->clock_backwards.load(std::memory_order_relaxed);
  stats.floor_waits = counters_->floor_waits.load(std::memory_order_relaxed);
  stats.failures = counters_->failures.load(std::memory_order_relaxed);
  return stats;
}

std::uint64_t Generator::refuse(const Failure& failure, std::error_code& ec) const noexcept {
  counters_->failures.fetch_add(1, std::memory_order_relaxed);
  ec = make_error_code(failure.code);
  return 0;
}

std::uint64_t Generator::refuse(const Failure& failure, Status& status) const {
  counters_->failures.fetch_add(1, std::memory_order_relaxed);
  detail::fail(status, make_error_code(failure.code), refusal_message(failure));
  return 0;
}

// The sentence of each refusal of next() and next_batch(), from the values in `failure`.
std::string Generator::refusal_message(const Failure& failure) const {
  const auto ll = [](std::int64_t v) { return static_cast<long long>(v); };
  std::string message;
  switch (failure.code) {
    case errc::closed:
      message = "generator is closed: get a new one from its runtime";
      break;
    case errc::forked_process:
      message =
          "this generator was created in the parent of this forked process, and its copy "
          "would repeat the parent's ids: open a new runtime, with its own slot and state "
          "file, in the child";
      break;
    case errc::slot_lost:
      message = format(
          "the window on slot %u was invalidated (the slot was lost): get a new "
          "generator from its runtime, which acquires a new slot",
          binding_.slot());
      break;
    case errc::timestamp_overflow:
      message =
          "the clock (" + detail::format_instant(failure.now_ms) + ") is past the end of layout " +
          format("%d/%d/%d", layout_.timestamp_bits, layout_.slot_bits, layout_.sequence_bits) +
          ", which runs out at " + detail::format_instant(failure.reference_ms) +
          ": move to a layout with a later epoch or more timestamp bits";
      break;
    case errc::state_file_replaced:
      message = format(
          "no more ids are issued on slot %u: its state file was removed or replaced while in "
          "use (the kStateFileReplaced event, a warning in `cosid`, said how), so its ceilings "
          "no longer protect a restart; stop the process, undo the change, and restart",
          binding_.slot());
      break;
    case errc::clock_backwards:
      message = clock_backwards_message(failure);
      break;
    case errc::clock_stalled:
      message = "the clock stayed at " + detail::format_instant(failure.now_ms) +
                format(
                    " for %lld ms while the sequence of its tick was used up: the clock is "
                    "frozen; check the time source",
                    ll(failure.waited_ms));
      break;
    case errc::clock_behind_floor:
      message = "the clock (" + detail::format_instant(failure.now_ms) + ") is " +
                format("%lld ms short of the first tick after the window's floor ",
                       ll(failure.reference_ms - failure.now_ms)) +
                detail::format_instant(floor_ms_) +
                format(" after waiting %lld ms", ll(failure.waited_ms)) +
                (options_.floor_reason.empty() ? std::string() : ": " + options_.floor_reason) +
                "; wait for the clock to pass it or correct the clock";
      break;
    case errc::ceiling_reached:
      message = "the clock (" + detail::format_instant(failure.now_ms) +
                ") reached the durable ceiling " + detail::format_instant(failure.reference_ms) +
                format(" and it was not raised within %lld ms: making the next ceiling durable ",
                       ll(failure.waited_ms)) +
                "in " + (options_.ceiling_keeper.empty() ? "its keeper" : options_.ceiling_keeper) +
                " is failing or slow; see the errors it reported before";
      break;
    default:
      message = make_error_code(failure.code).message();
      break;
  }
  return message;
}

// The call fails; so does every later one until the clock is back near the last id, which a
// caller that gives up at the first failure (`cosid next`) never sees. Borrowing resumes once the
// tick after the last one starts within what the generator absorbs of the clock.
std::string Generator::clock_backwards_message(const Failure& failure) const {
  const std::int64_t absorbed_ms = lead_bound_ms_ + max_drift_ms_;
  const std::int64_t resume_ms = failure.reference_ms + unit_ms_ - absorbed_ms;
  const std::string waited =
      failure.waited_ms > 0
          ? "it did not come back within " + detail::format_gap(failure.waited_ms)
          : "no wait within the " + detail::format_gap(options_.clock_backwards.count()) +
                " allowed could bring it back";
  return "the clock moved back by " + detail::format_gap(failure.reference_ms - failure.now_ms) +
         " while running (now " + detail::format_instant(failure.now_ms) + ", last id at " +
         detail::format_instant(failure.reference_ms) + "), more than the " +
         detail::format_gap(absorbed_ms) +
         " a generator absorbs (GeneratorOptions::max_step_back and max_drift), and " + waited +
         ": this call issued no id, and every call fails the same way until the clock "
         "passes " +
         detail::format_instant(resume_ms) +
         "; check what steps the clock (NTP in step mode, a manual set)";
}

namespace {

std::string negative_option_message(const char* field) {
  return std::string("GeneratorOptions::") + field +
         " is negative: give a duration of 0 or more (0 turns a bound or a lead off)";
}

std::string slot_out_of_range_message(std::uint32_t slot, const Layout& layout) {
  return format(
      "slot %u does not fit the layout's %d slot bits (0 to %u): use a slot in that range or a "
      "layout with more slot bits",
      slot, layout.slot_bits, layout.max_slot());
}

}  // namespace

}  // namespace cosid
