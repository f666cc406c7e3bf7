// LeaseKeeper: a runtime's hold on one leased slot (src/lease/PROTOCOL.md, "Keeper").
//
// At start() the keeper leases a slot with choose_slot() (slot_choice.h) as Owner{key, a new
// random incarnation}. A namespace whose slots are all held is retried, with back-off, for the
// acquire timeout (the ttl by default); past it start() fails with errc::lease_exhausted naming
// the earliest expiry. The lease's window becomes a Binding that generators issue under.
//
// From then on, in maintain() (called by the keeper's own thread after start_thread(), or by the
// owner) the lease is renewed every ttl/3, and at once when a generator waits at the ceiling: the
// generator wakes the thread, or, without one, the owner's next maintain() renews. A generator
// never makes the store call itself: a store call has no bound that a generator's wait could
// cover.
// Each renewal is durable in the store before its ceiling is published (Binding::raise_ceiling).
// A failed renewal is retried with back-off from 100 ms doubling up to ttl/6; meanwhile the
// generators go on up to the ceiling they have, and no further. A renewal that finds the lease
// gone (errc::lease_lost) invalidates the binding, so every generator over it fails with
// errc::slot_lost, and leases a slot anew: a new Binding, whose floor is at least the old
// binding's ceiling (so a runtime's ids keep growing across the change), retried with back-off
// until it succeeds. There is no mode that keeps issuing after a loss (rule P1 of src/lease/PROTOCOL.md). Old bindings are
// kept for the keeper's life, so a generator made over one stays safe to call.
//
// The store's clock (SlotLease::store_now) is compared with the local one on every change; a gap
// above tolerance/2 raises a kClockSkew event (a metric, not a safety check: uniqueness rests on
// the window alone).
//
// close() is the last step of an ordered shutdown: the caller first closes every generator and
// passes the exact last timestamp issued on the current binding; the keeper invalidates the
// binding, releases the lease with that timestamp (so the next holder starts right after it),
// then stops its thread.
//
// Every time-based decision reads the Clock given to start() (monotonic time for the schedule,
// wall time for the skew), so tests drive the keeper with ManualClock and maintain().
//
// Thread safety: every member may be called from any thread. Store calls are serialised by one
// mutex, held across each whole call; binding(), lease(), stats(), owner() and options() never
// wait on it (binding() is one atomic load, lease() a copy under a lock of its own), so a reader
// never waits for a store. In a child forked from the process that started the keeper, only
// binding(), stats(), owner() and options() may be called (they take no lock); the keeper must
// then be leaked, not closed nor destroyed: its lease and its thread are the parent's.
#ifndef COSID_LEASE_KEEPER_H_
#define COSID_LEASE_KEEPER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "cosid/binding.h"
#include "cosid/clock.h"
#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/export.h"
#include "cosid/lease/store.h"

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
};

enum class KeeperEventKind {
  kAcquired,           // a slot was leased (at start, or after a loss); slot, floor, ceiling
  kWaitingForSlot,     // start-up found no free slot (or no store) and retries
  kDuplicateOwnerKey,  // another live incarnation holds a lease under the same owner key
  kClockSkew,          // the store's clock and the local one differ by more than tolerance/2
  kRenewalFailed,      // a renewal failed; retried with back-off, generators go on to the ceiling
  kRenewalRecovered,   // a renewal succeeded after failures
  kLost,               // the lease is gone: its generators fail with slot_lost from now on
  kReleased,           // the lease was given back at close()
};

struct KeeperEvent {
  KeeperEventKind kind;
  std::error_code code;  // the failure, for kRenewalFailed, kLost and kWaitingForSlot
  std::string message;   // a sentence for a log, with the values
  std::uint32_t slot = 0;
  std::int64_t ceiling_ms = 0;  // the lease's ceiling after the event, where there is one
  std::int64_t skew_ms = 0;     // kClockSkew: store clock minus local clock
};

// Counts of what the keeper did since start(); every field only grows. For metrics
// (cosid_lease_renewals_total and its siblings in metrics.h).
struct KeeperStats {
  std::uint64_t acquisitions = 0;      // slots leased: 1 at start, +1 after every loss
  std::uint64_t renewals = 0;          // renewals that succeeded
  std::uint64_t renewal_failures = 0;  // renewals (and new leases after a loss) that failed
  std::uint64_t losses = 0;            // leases found gone (their generators fail with slot_lost)
};

// Receives the keeper's events on the thread that caused them. Must not block for long, must not
// throw, and must not call back into the keeper.
class COSID_EXPORT KeeperListener {
 public:
  virtual ~KeeperListener() = default;
  virtual void on_keeper_event(const KeeperEvent& event) noexcept = 0;
};

class COSID_EXPORT LeaseKeeper {
 public:
  // Leases a slot as the header comment says. Fails with lease_exhausted (after the acquire
  // timeout), store_unavailable (likewise), lease_terms_mismatch, store_corrupt or
  // invalid_argument; then returns null and, if `message` is not null, explains.
  // REQUIRES: `store`, `clock` and `listener` (may be null) outlive the keeper.
  [[nodiscard]] static std::unique_ptr<LeaseKeeper> start(SlotLeaseStore& store,
                                                          const KeeperOptions& options,
                                                          Clock& clock, KeeperListener* listener,
                                                          std::error_code& ec,
                                                          std::string* message = nullptr);
#if COSID_HAS_EXCEPTIONS
  static std::unique_ptr<LeaseKeeper> start(SlotLeaseStore& store, const KeeperOptions& options,
                                            Clock& clock, KeeperListener* listener = nullptr);
#endif

  // Closes (without a last timestamp: the binding's floor is released as the last one, which is
  // only exact if nothing was issued; call close() first).
  ~LeaseKeeper();
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  // Starts a thread that calls maintain() when it is due. Idempotent. Fails with the error of the
  // thread's creation (generic category, EAGAIN under a low `ulimit -u`), and then, if `message`
  // is not null, says what to do; the keeper goes on without a thread (call maintain()).
  std::error_code start_thread(std::string* message = nullptr);

  // Renews, retries or leases anew, whichever is due now; returns how long until something is
  // due next (what a caller without the thread should wait before calling again).
  std::chrono::milliseconds maintain() noexcept;

  // The current binding, and its generation (1 for the first, +1 for every new slot after a
  // loss). Null with errc::slot_lost between a loss and the next lease, and with errc::closed
  // after close(). The pointer stays valid for the keeper's life. Lock-free: never waits for a
  // store call in progress.
  Binding* binding(std::uint64_t& generation, std::error_code& ec) noexcept;

  // Ordered shutdown (header comment). `last_issued(binding)` gives the exact last timestamp
  // issued under `binding` (its floor if none); it is called once, under the keeper's lock, and
  // must not call into the keeper. REQUIRES: every generator over the binding is closed.
  // Idempotent. An error is reported but harmless: the store's floor is then the ceiling.
  std::error_code close(const std::function<std::int64_t(const Binding&)>& last_issued,
                        std::string* message = nullptr);

  // Who holds the lease: the key and this runtime's incarnation.
  const Owner& owner() const noexcept;
  // A copy of the lease as the store last confirmed it.
  SlotLease lease() const;
  // The counters; lock-free, each exact at some moment during the call.
  KeeperStats stats() const noexcept;
  const KeeperOptions& options() const noexcept;

 private:
  class Impl;
  explicit LeaseKeeper(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

// "HOST:PID" of this process: the default owner key. Fails only if the host name cannot be read.
COSID_EXPORT bool default_owner_key(std::string& key, std::error_code& ec,
                                    std::string* message = nullptr);

}  // namespace lease
}  // namespace cosid

#endif  // COSID_LEASE_KEEPER_H_
