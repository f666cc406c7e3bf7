// SPDX-License-Identifier: Apache-2.0
// Binding: the window (floor, ceiling] on one slot inside which a holder may issue timestamps.
//
// A binding is what a slot source hands to generators: the slot, a floor that never changes for the
// binding's life, and a ceiling that only grows. Whoever raises the ceiling must have made it
// durable first (written and synced the state file, or renewed the lease); the generators check
// every id against the window they read here. Invalidating the binding makes every generator over
// it fail with the reason given: errc::slot_lost for a lost lease, errc::state_file_replaced for a
// state file removed or replaced while in use.
//
// Thread safety: every member may be called from any thread at any time. ceiling_ms(), valid() and
// the accessors are lock-free loads suitable for the hot path.
#ifndef COSID_BINDING_H_
#define COSID_BINDING_H_

#include <atomic>
#include <cstdint>

#include "cosid/error.h"
#include "cosid/export.h"

namespace cosid {

// Told when a generator waits because its next tick lies past the ceiling, so the owner of the
// window can make a higher ceiling durable at once instead of on its schedule. Called on the
// waiting thread, outside the path that issues ids; must not block and must not throw.
class COSID_EXPORT CeilingListener {
 public:
  virtual ~CeilingListener() = default;
  // `needed_ms` is the last millisecond of the tick the generator wants to issue.
  virtual void on_ceiling_wanted(std::int64_t needed_ms) noexcept = 0;
};

class COSID_EXPORT Binding {
 public:
  // REQUIRES: floor_ms <= ceiling_ms. `listener`, if not null, must outlive the binding.
  Binding(std::uint32_t slot, std::int64_t floor_ms, std::int64_t ceiling_ms,
          CeilingListener* listener = nullptr) noexcept
      : slot_(slot), floor_ms_(floor_ms), ceiling_ms_(ceiling_ms), listener_(listener) {}

  Binding(const Binding&) = delete;
  Binding& operator=(const Binding&) = delete;

  std::uint32_t slot() const noexcept { return slot_; }

  // Excluded: every timestamp issued under this binding lies after it (Unix ms).
  std::int64_t floor_ms() const noexcept { return floor_ms_; }

  // Included: every timestamp issued under this binding lies at or before it (Unix ms).
  std::int64_t ceiling_ms() const noexcept {
    // Acquire pairs with the release in raise_ceiling(): a generator that sees a ceiling also sees
    // everything its writer did before publishing it, above all that the write and the sync that
    // made it durable had returned.
    return ceiling_ms_.load(std::memory_order_acquire);
  }

  // Raises the ceiling to `ceiling_ms`; a lower value is ignored, so the ceiling never goes down.
  // REQUIRES: `ceiling_ms` is durable (see the header comment).
  void raise_ceiling(std::int64_t ceiling_ms) noexcept {
    std::int64_t current = ceiling_ms_.load(std::memory_order_relaxed);
    // Release publishes the durability of the new ceiling to generators (see ceiling_ms()).
    // Relaxed on failure: the loop only compares and retries, it publishes nothing.
    while (current < ceiling_ms &&
           !ceiling_ms_.compare_exchange_weak(current, ceiling_ms, std::memory_order_release,
                                              std::memory_order_relaxed)) {
    }
  }

  // Ends the binding: from now on every generator over it fails with `reason`. Ids issued before
  // remain inside the window, which stays reserved for this holder. The first reason given stays.
  void invalidate(errc reason = errc::slot_lost) noexcept {
    errc none{};  // 0: no reason yet
    // Relaxed: published by the release store below.
    (void)reason_.compare_exchange_strong(none, reason, std::memory_order_relaxed);
    // Release pairs with the acquire in valid(), so whatever the invalidating thread recorded
    // before (the reason, a metric) is visible to a generator that sees the binding as lost.
    valid_.store(false, std::memory_order_release);
  }

  bool valid() const noexcept { return valid_.load(std::memory_order_acquire); }
  // Why the binding was invalidated. REQUIRES: valid() returned false (whose acquire makes the
  // reason visible).
  errc invalid_reason() const noexcept { return reason_.load(std::memory_order_relaxed); }

  // Passes a generator's wish for a higher ceiling to the listener, if any.
  void want_ceiling(std::int64_t needed_ms) const noexcept {
    if (listener_ != nullptr) listener_->on_ceiling_wanted(needed_ms);
  }

 private:
  const std::uint32_t slot_;
  const std::int64_t floor_ms_;
  std::atomic<std::int64_t> ceiling_ms_;
  std::atomic<bool> valid_{true};
  std::atomic<errc> reason_{errc{}};
  CeilingListener* const listener_;
};

}  // namespace cosid

#endif  // COSID_BINDING_H_
