// SPDX-License-Identifier: Apache-2.0
// Internal: LeaseKeeper, the window keeper of a slot leased from a store (window_keeper.h;
// PROTOCOL.md, "Keeper").
//
// At start() the keeper leases a slot with choose_slot() (slot_choice.h) as Owner{key, a new
// random incarnation}. A namespace whose slots are all held is retried, with back-off, for the
// acquire timeout (the ttl by default); past it start() fails with errc::lease_exhausted naming
// the earliest expiry. The lease's window becomes a Binding that generators issue under.
//
// From then on, in round() (called by the runtime's KeeperLoop) or maintain() (by the owner) the
// lease is renewed every ttl/3, and at once when a generator waits at the ceiling: the generator
// wakes the loop, or, without one, the owner's next maintain() renews. A generator
// never makes the store call itself: a store call has no bound that a generator's wait could
// cover.
// Each renewal is durable in the store before its ceiling is published (Binding::raise_ceiling).
// A failed renewal is retried with back-off from 100 ms doubling up to ttl/6; meanwhile the
// generators go on up to the ceiling they have, and no further. A renewal that finds the lease
// gone (errc::lease_lost) invalidates the binding, so every generator over it fails with
// errc::slot_lost, and leases a slot anew: a new Binding, whose floor is at least the old
// binding's ceiling (so a runtime's ids keep growing across the change), retried with back-off
// until it succeeds. There is no mode that keeps issuing after a loss (the fail-stop rule of
// src/lease/PROTOCOL.md). Old bindings are kept for the keeper's life, so a generator made over one
// stays safe to call.
//
// The store's clock (SlotLease::store_now) is compared with the local one on every change; a gap
// above tolerance/2 raises an EventKind::kClockSkew event (a metric, not a safety check: uniqueness
// rests on the window alone).
//
// close() is the last step of an ordered shutdown: the caller first closes every generator and
// passes the last timestamp issued on the current binding; the keeper invalidates the
// binding and releases the lease with that timestamp (so the next holder starts right after it).
// The loop is stopped before (KeeperLoop::stop()).
//
// Every time-based decision reads the Clock given to start() (monotonic time for the schedule,
// wall time for the skew), so tests drive the keeper with ManualClock and maintain().
//
// Thread safety: every member may be called from any thread. Store calls are serialised by one
// mutex, held across each whole call; binding(), lease(), stats(), owner() and options() never
// wait on it (binding() is one atomic load, lease() a copy under a lock of its own), so a reader
// never waits for a store (window_keeper.h has the lock order). In a child forked from the process
// that started the keeper, only binding(), stats(), owner() and options() may be called (they take
// no lock); the keeper must then be leaked, not closed nor destroyed: its lease is the parent's.
#ifndef COSID_SRC_LEASE_KEEPER_H_
#define COSID_SRC_LEASE_KEEPER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "cosid/binding.h"
#include "cosid/clock.h"
#include "cosid/error.h"
#include "cosid/events.h"
#include "cosid/lease/store.h"
#include "window/window_keeper.h"

namespace cosid {
namespace lease {

struct KeeperOptions {
  std::string name_space = "cosid";
  std::string owner_key;  // empty: "HOST:PID" of this process
  NamespaceTerms terms;   // slot limit (2^slot bits of the layout) and tolerance
  std::chrono::milliseconds ttl{30000};
  std::optional<std::uint32_t> preferred_slot;
  // How long start() retries an exhausted (or unavailable) store. Negative: the ttl.
  std::chrono::milliseconds acquire_timeout{-1};
  // No binding's floor lies below this (Unix ms; 0: none), for a namespace that issued ids
  // before it was leased (the not-before of a migration).
  std::int64_t not_before_ms = 0;
  // Set (by a signal handler, say): start() stops retrying a namespace whose slots are all held,
  // and fails with errc::cancelled. Null: start() retries for the whole acquire timeout.
  const std::atomic<bool>* cancel = nullptr;
};

class LeaseKeeper final : public detail::WindowKeeper {
 public:
  // Leases a slot as the header comment says. Fails with lease_exhausted (after the acquire
  // timeout), store_unavailable (likewise), lease_terms_mismatch, store_corrupt or
  // invalid_argument; then returns null. `loop` is the loop that runs the rounds (null: the
  // owner calls maintain()); a waiting generator wakes it.
  // REQUIRES: `store`, `clock`, `listener` and `loop` (may be null) outlive the keeper.
  [[nodiscard]] static std::unique_ptr<LeaseKeeper> open(SlotLeaseStore& store,
                                                         const KeeperOptions& options, Clock& clock,
                                                         EventListener* listener,
                                                         detail::KeeperLoop* loop, Status& status);
  // A keeper that leases from `store`, which it keeps, when start() is called: the runtime's
  // (src/runtime_keeper.cc opens the store its options name). Leases nothing yet. options.cancel
  // (may be null) is the runtime's cancel flag: start() looks at it between its acquire attempts
  // and fails with errc::cancelled once it is set.
  [[nodiscard]] static std::unique_ptr<LeaseKeeper> unstarted(std::shared_ptr<SlotLeaseStore> store,
                                                              const KeeperOptions& options,
                                                              Clock& clock, EventListener* listener,
                                                              detail::KeeperLoop* loop);

  // Closes (without a last timestamp: the binding's floor is released as the last one, which is
  // only exact if nothing was issued; call close() first).
  ~LeaseKeeper() override;
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  // For a keeper of unstarted(): leases a slot, then lets `wait_for_floor` wait for the clock to
  // pass its floor. A keeper of open() has leased already: this only waits.
  bool start(const detail::FloorWait& wait_for_floor, Status& status) override;

  // Renews, retries or leases anew, whichever is due now. Failures are retried by the keeper and
  // reported as events: this is always true.
  bool maintain(Status& status) override;
  // The same, and how long until something is due next (what a caller without the loop should
  // wait before calling again).
  detail::NextRound round() noexcept override;

  // The current binding, and its generation (1 for the first, +1 for every new slot after a
  // loss). Null with errc::slot_lost between a loss and the next lease, and with errc::closed
  // after close(). The pointer stays valid for the keeper's life. Lock-free: never waits for a
  // store call in progress.
  Binding* binding(std::uint64_t& generation, std::error_code& ec) noexcept override;

  // Ordered shutdown (header comment). `last_issued(binding)` gives the last timestamp
  // issued under `binding` (its floor if none); it is called once, under the keeper's lock, and
  // must not call into the keeper. REQUIRES: every generator over the binding is closed.
  // Idempotent. A failure is reported but harmless: the store's floor is then the ceiling.
  bool close(const std::function<std::int64_t(const Binding&)>& last_issued,
             Status& status) override;

  bool has_rounds() const noexcept override { return true; }
  // Nothing to do: the lease is the parent's, and nothing the keeper holds is the child's.
  void abandon_in_forked_child() noexcept override {}

  // Who holds the lease: the key and this runtime's incarnation.
  const Owner& owner() const noexcept;
  // A copy of the lease as the store last confirmed it.
  SlotLease lease() const;
  // The counters (acquisitions, renewals, renewal_failures, losses); lock-free, each exact at some
  // moment during the call.
  detail::KeeperStats stats() const noexcept override;
  const KeeperOptions& options() const noexcept;

 private:
  class Impl;
  LeaseKeeper() noexcept;
  // With unstarted(): the store, which outlives impl_.
  std::shared_ptr<SlotLeaseStore> own_store_;
  std::unique_ptr<Impl> impl_;
  bool leased_ = false;  // the Impl's start() succeeded
};

// "HOST:PID" of this process: the default owner key. Fails only if the host name cannot be read.
bool default_owner_key(std::string& key, Status& status);

}  // namespace lease
}  // namespace cosid

#endif  // COSID_SRC_LEASE_KEEPER_H_
