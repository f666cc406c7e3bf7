// SPDX-License-Identifier: Apache-2.0
// Generator: issues unique ids inside a Binding's window. The hot path.
//
// next() reads the clock once, then takes the next value of one atomic word that holds the last
// timestamp issued, its sequence and a closed bit, with one fetch_add (a new tick, a wait or a
// failure goes through a compare-and-swap loop instead). It takes no lock, allocates nothing and
// makes no system call but the clock read. Before an id is returned its timestamp t is checked
// against the window: floor < t <= ceiling (for a second-unit layout, every millisecond of the
// tick lies inside). No id outside the window is ever returned; instead next() waits, within a
// bound, and then fails:
//
//   the sequence of the tick is used up      wait for the next tick (short spin, then short
//                                            sleeps), or borrow it if max_drift allows
//   the clock went back while running        keep the time at the last tick: issue from it while
//                                            its sequence lasts, then from the ticks after it at
//                                            the pace of the monotonic clock, within the durable
//                                            ceiling, up to the step (at most max_step_back)
//                                            plus max_drift ahead of the clock (no wait, no
//                                            failure); a larger step waits for the clock, then
//                                            errc::clock_backwards, which names the step (at
//                                            once when no wait within the bound could do)
//   the clock moved on past unused ticks     at the limit (the last tick used up): catch up on
//                                            them, up to max_catch_up behind the clock; else
//                                            take the clock's tick
//   the clock stands still                   errc::clock_stalled past the bound
//   t <= floor                               errc::clock_behind_floor past the bound
//   t > ceiling                              ask the binding for more, errc::ceiling_reached past
//                                            the bound
//   t past the layout's last timestamp       errc::timestamp_overflow at once
//   close() was called                       errc::closed at once
//   the binding was invalidated              its reason at once: errc::slot_lost (a lost lease)
//                                            or errc::state_file_replaced
//   called in a child forked after create()  errc::forked_process at once: the child holds a
//                                            copy of the parent's state and would repeat its ids
//
// The sequence does not restart at 0 on each new tick: it continues and wraps to 0 only once it
// has passed half its range (as CosId does), so `id % n` stays balanced at low rates.
//
// Thread safety: next() and close() may be called from any number of threads at once. The
// Generator must not be destroyed while a call is running.
#ifndef COSID_GENERATOR_H_
#define COSID_GENERATOR_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>

#include "cosid/binding.h"
#include "cosid/clock.h"
#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/export.h"
#include "cosid/layout.h"

namespace cosid {
namespace detail {
class ForkGuard;
class Waiter;
struct TickRules;
struct TickInputs;
struct TickPlan;
enum class Wait;
}  // namespace detail

struct COSID_EXPORT GeneratorOptions {
  // How long next() may wait, measured on the clock's monotonic time, before it gives up:
  // for the clock to come back after it went back while running,
  std::chrono::milliseconds clock_backwards{1000};
  // for the clock to pass the window's floor,
  std::chrono::milliseconds behind_floor{1000};
  // for the ceiling to be raised past the tick the clock has reached.
  std::chrono::milliseconds ceiling{1000};
  // Bounded drift: when a tick's sequence is used up, go on in the next tick before the clock
  // reaches it, but never to a tick that starts later than now + max_drift and never past the
  // durable ceiling. Ids stay unique and increasing, and a restart's floor (the durable ceiling)
  // still lies past every borrowed tick. It turns bursts above 2^sequence_bits per tick into a
  // short lead over the clock instead of a wait, and lets a thread that was descheduled for up
  // to max_drift make up the ticks it missed: with 20 ms, one thread on a 2-core machine with two
  // busy loops beside it kept 0.99 of the sequence limit over whole runs, where without drift it
  // kept 0.81 (tests/bench/README.md). So ids' time may lead the clock by up to max_drift under
  // a sustained rate at the limit. 0 turns it off.
  std::chrono::milliseconds max_drift{20};
  // Catching up, the other half of keeping the limit on a busy machine: when a generator at its
  // limit (the last tick's sequence used up) finds that the clock has moved on by more than a
  // tick, its thread was descheduled or outrun for longer than max_drift covers, and it issues
  // from the ticks it missed, from the one after its last, never more than max_catch_up behind
  // the clock, until it is back with the clock. Every tick after the last is unused, so ids stay
  // unique and increasing; their time lags the clock by up to max_catch_up, only then. Below the
  // limit it never happens (a tick whose sequence was not used up is left as it is). 0 turns it
  // off; a second-unit layout catches up whole ticks only (0 below 1 s).
  std::chrono::milliseconds max_catch_up{50};
  // A clock set back by up to this while running costs nothing: the generator's time stays at
  // max(clock, last tick), and a used-up tick moves on to the next one while that starts no more
  // than the step (at most max_step_back) plus max_drift ahead of the clock, within the durable
  // ceiling: the ids go on at the pace of time, measured on the monotonic clock. So ids' time
  // runs ahead of the clock by at most max_step_back + max_drift, only after the clock went back
  // (or by max_drift, under a burst); the step absorbed fades by 1 ms a second. A Runtime lowers
  // it to half its window (ahead / 2 for a state file, ttl / 4 for a lease), which a step back of
  // the clock cannot outrun before the next renewal, and max_drift to half that. 0: a step back
  // waits for the clock, as a used-up tick does.
  std::chrono::milliseconds max_step_back{5000};
  // Starts at the floor instead of waiting for the clock to pass it: when create() finds the
  // first tick past the binding's floor ahead of the clock, the first id takes that tick at once,
  // and ids' time leads the clock by at most that gap plus max_drift, always within the durable
  // ceiling: the generator absorbs the gap as it would a clock set back by it (it fades by 1 ms a
  // second at the limit, and is gone within the gap below it). Off: the generator waits for the
  // clock, up to `behind_floor`, then fails with clock_behind_floor. The Runtime sets it for
  // `start: borrow` (options.h).
  bool start_at_floor = false;
  // For the messages of ceiling_reached and clock_behind_floor, which a Runtime fills in (a
  // generator over a binding of the caller's own may leave them empty): what makes the ceiling
  // durable ("the state file /var/lib/cosid/slot-3", "the lease store file:/srv/leases"), named
  // where a ceiling was not raised in time (empty: "its keeper"); and why ids up to the floor may
  // exist ("a previous holder of slot 5 may have issued ids up to it"), named where the clock
  // stays behind the floor (empty: no cause is named). Read only when a message is built.
  std::string ceiling_keeper{};
  std::string floor_reason{};
};

// Counters of one generator since it was made. Every field only grows.
struct COSID_EXPORT GeneratorStats {
  std::uint64_t ids_issued = 0;       // ids returned by next() and next_batch()
  std::uint64_t sequence_waits = 0;   // calls that waited for a new tick: the sequence was used up
  std::uint64_t ceiling_waits = 0;    // calls that waited for the ceiling to be raised
  std::uint64_t clock_backwards = 0;  // calls that waited: the clock was behind the last tick
  std::uint64_t floor_waits = 0;      // calls that waited for the clock to pass the floor
  std::uint64_t failures = 0;         // calls that returned an error
};

class COSID_EXPORT Generator {
 public:
  // Makes a generator over `binding`. Fails with the layout's own error when `layout` is invalid
  // or its epoch lies after clock.now_ms(), with invalid_value when a duration of `options` is
  // negative, and with slot_out_of_range when the binding's slot does not fit the layout; then
  // returns null and sets `status`, whose message explains.
  // REQUIRES: `binding` and `clock` outlive the generator.
  [[nodiscard]] static std::unique_ptr<Generator> create(const Layout& layout, Binding& binding,
                                                         Clock& clock,
                                                         const GeneratorOptions& options,
                                                         Status& status);
#if COSID_HAS_EXCEPTIONS
  static std::unique_ptr<Generator> create(const Layout& layout, Binding& binding, Clock& clock,
                                           const GeneratorOptions& options = {});
#endif

  ~Generator();
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  // The next id: the hot path. On failure returns 0 and sets `ec` to one of the codes in the
  // header comment. Never allocates and builds no message.
  [[nodiscard]] std::uint64_t next(std::error_code& ec) noexcept;
  // As next(ec), and on failure sets `status` to the code and a sentence with the values (the size
  // of a clock jump, the floor, the ceiling) and what to do. Only a failure allocates.
  [[nodiscard]] std::uint64_t next(Status& status) noexcept;
#if COSID_HAS_EXCEPTIONS
  // Throws cosid::Error with the message on failure.
  std::uint64_t next();
#endif

  // Up to `count` consecutive ids of one tick, reserved with one compare-and-swap and written to
  // `ids`: fewer when the tick has fewer sequences left (call again for the rest). Returns how
  // many were written, at least 1 on success; 0 with `ec` set on the failures of next(). Never
  // allocates and builds no message; the Status& overload gives the message of next(status).
  // REQUIRES: `ids` holds `count` values.
  [[nodiscard]] std::size_t next_batch(std::uint64_t* ids, std::size_t count,
                                       std::error_code& ec) noexcept;
  [[nodiscard]] std::size_t next_batch(std::uint64_t* ids, std::size_t count,
                                       Status& status) noexcept;

  // Closes the generator: every later next() fails with errc::closed. Returns the last timestamp
  // this generator issued, in Unix ms (for a second-unit layout, the last millisecond of its tick),
  // or the binding's floor if it issued none: the largest timestamp it could have used. Covers
  // every id next() returns, concurrent calls included; with calls running, it may name a tick
  // after the last id's (mostly the next one: a call moved the word into it and then failed),
  // never one before. Idempotent: later calls return what the first returned.
  std::int64_t close() noexcept;

  // A snapshot of the counters. Each field is exact for the calls that finished before stats()
  // began; calls running meanwhile may or may not be counted (ids_issued may count a running call
  // that then fails, and keeps that count, since it never goes down).
  GeneratorStats stats() const noexcept;

  const Layout& layout() const noexcept { return layout_; }
  std::uint32_t slot() const noexcept { return binding_.slot(); }

 private:
  struct Failure;
  struct Counters;

  // `now_ms`: the clock as create() read it, so that the window's checks and the lead's start
  // come from one reading.
  Generator(const Layout& layout, Binding& binding, Clock& clock, const GeneratorOptions& options,
            std::int64_t now_ms);

  // The bodies of next() and next_batch(): both overloads of each, inlined into them. `Sink` is
  // what a refusal is reported to, the overload's last parameter: std::error_code (the code
  // alone, so that those failures build no message) or Status (the code and its sentence).
  template <typename Sink>
  std::uint64_t issue(Sink& sink) noexcept;
  template <typename Sink>
  std::size_t issue_batch(std::uint64_t* ids, std::size_t count, Sink& sink) noexcept;

  // Reserves up to `want` (>= 1) consecutive sequences of one tick; returns the first id and sets
  // `got` to how many. `now` is a fresh clock reading and `word` a fresh load of state_. Every path
  // of next() and next_batch() but next()'s fast one: new ticks, drift, waits and failures.
  // `owned`: the value of state_ that next()'s fetch_add gave this call and its fast path did not
  // take, or 0. reserve() sets it to 0 once it has used that value up (issued it, or moved the
  // word on from it); otherwise the caller still holds it (next_slow()).
  template <typename Sink>
  std::uint64_t reserve(std::uint64_t want, std::int64_t now, std::uint64_t word,
                        std::uint64_t& owned, std::uint64_t& got, Sink& sink) noexcept;
  // reserve()'s steps around the pure choice of the next tick (window/next_tick.h): the rules
  // it applies, what it reads for one round, the take of the chosen sequences (false when
  // another caller moved the word, which `word` then holds), and a wait, counted once a call
  // (false once its bound has passed). Not exported: their types are the library's own.
  COSID_NO_EXPORT detail::TickRules tick_rules() const noexcept;
  COSID_NO_EXPORT detail::TickInputs tick_inputs(std::int64_t now, std::uint64_t word,
                                                 std::uint64_t owned) const noexcept;
  COSID_NO_EXPORT bool take(const detail::TickPlan& plan, const detail::TickInputs& in,
                            std::uint64_t want, std::uint64_t& word, std::uint64_t& owned,
                            std::uint64_t& got) noexcept;
  COSID_NO_EXPORT bool pause(detail::Wait wait, detail::Waiter& waiter,
                             unsigned& waits_counted) noexcept;

  // next() past its fast path: reserve() for one id, then gives back or counts the value the
  // fast path took (`owned`, 0 for none). A function of its own so that next() leaves by a tail
  // call: reserve()'s `got` would otherwise need a slot on next()'s stack.
  template <typename Sink>
  std::uint64_t next_slow(std::int64_t now, std::uint64_t owned, Sink& sink) noexcept;
  // Accounts for a value of state_ that next()'s fetch_add took and that no id came from.
  void count_given_up(std::uint64_t value) noexcept;
  // The newest tick reserve() has issued from: at least `tick` from now on.
  void note_chosen(std::int64_t tick) noexcept;

  // The wall clock's lead over the monotonic clock, decaying by 1 ms a second (see generator.cc).
  std::int64_t clock_lead(std::int64_t wall_ms) noexcept;
  // Records a clock_lead() in clock_anchor_ if it is the largest seen.
  void note_lead(std::int64_t lead) noexcept;
  // Reads the clock again into `now`; returns the step back it made since the anchor that the
  // generator still absorbs, at most lead_bound_ms_ (0 when it did not go back), and publishes
  // max_drift plus that step as the fast path's lead (fast_lead_ms_).
  std::int64_t step_allowance(std::int64_t& now) noexcept;

  // Counts the failure and reports it: its code alone to `ec`, or its code and sentence
  // (refusal_message()) to `status`. Returns the 0 that a failed next() returns.
  std::uint64_t refuse(const Failure& failure, std::error_code& ec) const noexcept;
  std::uint64_t refuse(const Failure& failure, Status& status) const;
  std::string refusal_message(const Failure& failure) const;
  std::string clock_backwards_message(const Failure& failure) const;

  const Layout layout_;
  Binding& binding_;
  Clock& clock_;
  const GeneratorOptions options_;
  // Derived from the layout and the binding once, so next() does no shifting of layout fields.
  const int stamp_shift_;                // where the stamp starts in state_
  const std::uint64_t sequence_mask_;    // max sequence
  const std::uint32_t reset_threshold_;  // a new tick restarts the sequence from here on
  const std::int64_t floor_ms_;          // max(binding floor, the last ms before the epoch)
  const std::int64_t first_tick_;        // the first tick that lies wholly after floor_ms_
  const std::int64_t max_tick_;          // the layout's last timestamp
  // How far a used-up tick may move on ahead of the clock: max_drift_ms_ (a lead of the
  // generator's own) plus the step back absorbed, which is at most lead_bound_ms_ (max_step_back,
  // or the gap to the floor of a generator started there).
  const std::int64_t max_drift_ms_;
  const std::int64_t catch_up_ticks_;  // max_catch_up in ticks
  const std::int64_t lead_bound_ms_;
  const std::int64_t unit_ms_;         // ms per tick
  const std::int64_t end_offset_ms_;   // tick_end_ms(t) == t * unit_ms_ + end_offset_ms_
  const int id_tick_shift_;            // where the timestamp starts in an id
  const std::uint64_t id_slot_field_;  // the slot, shifted into place in an id
  const std::unique_ptr<detail::ForkGuard> fork_guard_;  // a forked child must not issue
  const std::unique_ptr<Counters> counters_;             // stats()

  // The state word: bit 63 closed; bits [stamp_shift_, 63) the stamp, which is the last timestamp
  // issued plus one (0: none issued yet); bits [0, stamp_shift_) the sequence of that id.
  // Timestamp and sequence bits add up to at most 62 (slot >= 1 bit, total <= 63), so the stamp
  // (timestamp bits + 1), the sequence and the closed bit fit in 64 bits.
  // On a cache line of its own: every fetch_add and CAS takes the line exclusively, and the
  // read-mostly fields above must not be evicted from the other cores with it (false sharing).
  alignas(64) std::atomic<std::uint64_t> state_{0};
  // How far ahead of the clock the fast path may issue from a tick: max_drift plus the step back
  // that reserve() last found absorbed (step_allowance()). Read by every next(), written only when
  // reserve() borrows: on a line of its own, so that the writes to state_ do not evict it.
  alignas(64) std::atomic<std::int64_t> fast_lead_ms_{0};
  // The clock's tick when the generator last caught up on ticks it missed (max_catch_up): ticks
  // before it are caught up on while their sequence lasts. Read and written by reserve() only,
  // never on the fast path; on a line of its own too, off state_'s.
  alignas(64) std::atomic<std::int64_t> catch_up_to_{0};
  // The largest clock_lead() seen (see generator.cc): how far the wall clock went back since is
  // the step the generator absorbs. Slow path only, like catch_up_to_, whose line it shares.
  std::atomic<std::int64_t> clock_anchor_{0};
  // The newest tick reserve() issued an id from (first_tick_ - 1 before the first): a tick past it
  // that the word holds was reached by fast-path values that no id came from (see reserve()).
  std::atomic<std::int64_t> chosen_tick_{0};
  // What the first close() returned, for the later ones (kNotClosed until then).
  std::atomic<std::int64_t> closed_result_{0};
};

}  // namespace cosid

#endif  // COSID_GENERATOR_H_
