// SPDX-License-Identifier: Apache-2.0
// The floor of a Runtime's start (runtime.h): the floor checked against the end of the layout, the
// wait within Options::start_wait for the clock to pass it, start mode borrow, and the sentences
// that say why ids up to a floor may exist. Kept apart from runtime.cc, which wires the keeper, its
// loop and the generator: this is the part of a start that reasons about the clock.
//
// Thread safety: reach() is called by the start alone, before any generator exists; after it,
// borrowed() and floor_reason() only read.
#ifndef COSID_SRC_RUNTIME_FLOOR_H_
#define COSID_SRC_RUNTIME_FLOOR_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "cosid/binding.h"
#include "cosid/clock.h"
#include "cosid/error.h"
#include "cosid/events.h"
#include "cosid/options.h"
#include "cosid/runtime.h"

namespace cosid {
namespace detail {

// The start's look at RuntimeEnvironment::cancel between its steps: fails with errc::cancelled
// once it is set. `when` says where the start stood; the runtime's close() undoes the rest.
bool start_goes_on(const std::atomic<bool>* cancel, const char* when, Status& status);

class StartFloor {
 public:
  // `max_drift`: the generators' (for the borrow event's text). REQUIRES: `options` and `clock`
  // outlive this.
  StartFloor(const Options& options, const RuntimeEnvironment& environment, Clock& clock,
             std::chrono::milliseconds max_drift)
      : options_(options),
        clock_(clock),
        listener_(environment.listener),
        cancel_(environment.cancel),
        max_drift_(max_drift) {}

  // The keeper's FloorWait (window_keeper.h): raises `floor` to just before the layout's epoch,
  // checks that ids can lie above it, and waits for the clock to pass it (in start mode borrow,
  // to come within ahead of it). False with timestamp_overflow, clock_behind_floor or cancelled.
  bool reach(std::int64_t& floor, std::uint32_t slot, Status& status);

  // Whether reach() lent time ahead of the clock: the generator issues from the first tick past
  // the floor at once instead of waiting for the clock.
  bool borrowed() const noexcept { return borrowed_; }

  // Why ids up to `floor` of `slot` may exist, for the messages of a clock behind it: a previous
  // holder only where there was one. `lost`: the binding of this runtime's lease that was lost
  // before this one, if any (the keeper starts the next slot's floor at its ceiling).
  std::string floor_reason(std::int64_t floor, std::uint32_t slot, const Binding* lost) const;

 private:
  bool check_floor(std::int64_t floor, std::uint32_t slot, Status& status);
  std::int64_t first_tick_start_ms(std::int64_t floor) const;
  std::int64_t lent_ms() const;
  void borrow_floor(std::int64_t floor);
  bool wait_for_floor(std::int64_t floor, std::uint32_t slot, Status& status);
  static std::string short_of_floor(std::int64_t now, std::int64_t usable_ms, std::int64_t floor);
  std::string borrow_note(std::int64_t gap_ms) const;
  // The sentences of the wait's refusal and notices, at the end of runtime_floor.cc.
  std::string clock_behind_floor_message(std::int64_t now, std::int64_t floor, std::uint32_t slot,
                                         bool reported, std::int64_t waited_ns) const;
  std::string waiting_for_floor_notice(std::int64_t now, std::int64_t floor) const;
  std::string borrowing_ahead_notice(std::int64_t now, std::int64_t floor) const;

  const Options& options_;
  Clock& clock_;
  EventListener* const listener_;
  const std::atomic<bool>* const cancel_;
  const std::chrono::milliseconds max_drift_;
  bool borrowed_ = false;  // set by reach() when start borrow applied (borrow_floor())
};

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_RUNTIME_FLOOR_H_
