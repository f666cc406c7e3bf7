// SPDX-License-Identifier: Apache-2.0
#include "lease/keeper.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

#include "base/cancel.h"
#include "base/fail.h"
#include "base/parse_util.h"
#include "base/time_format.h"
#include "cosid/lease/slot_choice.h"
#include "cosid/slot_source.h"

namespace cosid {
namespace lease {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

using detail::kFirstBackoff;
using detail::kMaxIdle;

std::int64_t to_ns(milliseconds value) { return detail::to_nanos(value); }

milliseconds ns_to_ms_ceil(std::int64_t ns) {
  return milliseconds(ns <= 0 ? 0 : (ns + 999999) / 1000000);
}

// The sentences of this file's refusals and notices, at its end, so that the renewal loop and the
// lease's changes read without stepping over text.
std::string no_incarnation_message(const Status& problem);
std::string all_slots_held_text(const std::string& name_space, std::uint32_t slot_limit,
                                const SlotChoice& choice);
std::string acquire_gave_up_text(milliseconds timeout);
std::string acquire_retrying_notice(const std::string& why, milliseconds timeout);
std::string duplicate_owner_key_notice(const std::string& owner_key, const std::string& name_space,
                                       const SlotRecord& other);
std::string lease_acquired_notice(const SlotLease& lease, const std::string& name_space,
                                  const std::string& owner_key, std::int64_t floor);
std::string renewed_again_notice(std::uint32_t slot, int failures, std::int64_t ceiling);
std::string renewal_failed_notice(std::uint32_t slot, const std::string& why, milliseconds retry_in,
                                  std::int64_t ceiling);
std::string lease_lost_notice(std::uint32_t slot, const std::string& name_space,
                              const std::string& why);
std::string new_lease_failed_notice(const Status& problem, milliseconds retry_in);
std::string release_failed_message(const SlotLease& lease, const std::string& name_space,
                                   const Status& problem);
std::string released_notice(std::uint32_t slot, const std::string& name_space, std::int64_t last);
std::string store_clock_skew_notice(std::int64_t store_now, std::int64_t skew, std::int64_t call_ms,
                                    milliseconds tolerance);

}  // namespace

bool default_owner_key(std::string& key, Status& status) {
  std::string host;
  if (!local_hostname(host, status)) return false;
  key = host + ":" + std::to_string(static_cast<long long>(getpid()));
  return true;
}

class LeaseKeeper::Impl {
 public:
  Impl(SlotLeaseStore& store, const KeeperOptions& options, Clock& clock, EventListener* listener,
       detail::KeeperLoop* loop)
      : store_(store),
        options_(options),
        clock_(clock),
        listener_(listener),
        loop_(loop),
        ceiling_listener_(*this),
        renew_every_(std::max(options.ttl / 3, milliseconds(1))),
        backoff_(options.ttl / 6) {}

  ~Impl() {
    Status ignored;  // a failed release leaves the next holder to start after the ceiling
    (void)close([](const Binding& binding) { return binding.floor_ms(); }, ignored);
  }

  bool start(Status& status) {
    if (options_.owner_key.empty()) {
      if (!default_owner_key(owner_.key, status)) return false;
    } else {
      owner_.key = options_.owner_key;
    }
    if (!Incarnation::random(owner_.incarnation, status)) {
      return detail::fail(status, status.code(), no_incarnation_message(status));
    }
    const milliseconds timeout =
        options_.acquire_timeout.count() < 0 ? options_.ttl : options_.acquire_timeout;
    const std::int64_t begin = clock_.monotonic_ns();
    detail::Backoff backoff(options_.ttl / 6);
    bool reported = false;
    std::lock_guard<std::mutex> lock(mutex_);
    for (;;) {
      SlotChoice choice;
      if (acquire_locked(choice, status)) return true;
      const std::error_code ec = status.code();
      std::string why = status.message();
      const bool retryable = ec == errc::lease_exhausted || ec == errc::store_unavailable;
      const std::int64_t waited = clock_.monotonic_ns() - begin;
      if (ec == errc::lease_exhausted) {
        why = all_slots_held_text(options_.name_space, options_.terms.slot_limit, choice);
      }
      if (!retryable || waited >= to_ns(timeout)) {
        if (retryable) why += acquire_gave_up_text(timeout);
        return detail::fail(status, ec, why);
      }
      if (!reported) {
        emit(EventKind::kLeaseWaiting, ec, acquire_retrying_notice(why, timeout));
        reported = true;
      }
      const std::int64_t left = to_ns(timeout) - waited;
      if (!detail::sleep_unless_cancelled(
              clock_, nanoseconds(std::min<std::int64_t>(to_ns(backoff.failed()), left)),
              options_.cancel)) {
        return detail::start_cancelled(status, "while waiting for a free slot",
                                       "no slot was leased, nothing was issued");
      }
    }
  }

  milliseconds maintain() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    (void)maintain_locked();
    // A generator that came to wait at the ceiling after the first look only set wanted_ (it
    // never takes the lock: on_ceiling_wanted()). Look again, so that its wish is served by this
    // call, before the generator's wait runs out, rather than by the next one. At most one more
    // store call: maintain_locked() renews for a wish at most once per kFirstBackoff, and a
    // renewal just made (or failed) is the last attempt.
    return maintain_locked();
  }

  Binding* binding(std::uint64_t& generation, std::error_code& ec) noexcept {
    // No lock: mutex_ is held across whole store calls, and this is what the runtime's
    // generator(), accessors and metrics() read, in a forked child too (where a parent thread may
    // have held mutex_ at the fork, for good). Acquire pairs with the release in publish_locked():
    // the record and the binding it names are fully made.
    const Published* published = published_.load(std::memory_order_acquire);
    generation = published != nullptr ? published->generation : 0;
    if (published == nullptr || published->binding == nullptr) {
      ec = make_error_code(published != nullptr ? published->state : errc::slot_lost);
      return nullptr;
    }
    ec.clear();
    return published->binding;
  }

  // With closed_ set, a round still running (the owner stops the loop first) neither renews nor
  // leases again.
  bool close(const std::function<std::int64_t(const Binding&)>& last_issued, Status& status) {
    std::lock_guard<std::mutex> lock(mutex_);
    status.clear();
    if (closed_) return true;
    closed_ = true;
    publish_locked(nullptr, errc::closed);
    return release_locked(last_issued, status);
  }

  const Owner& owner() const noexcept { return owner_; }

  SlotLease lease() const {
    // Not mutex_, which a store call holds for as long as the store takes.
    std::lock_guard<std::mutex> lock(lease_mutex_);
    return lease_;
  }

  const KeeperOptions& options() const noexcept { return options_; }

  detail::KeeperStats stats() const noexcept {
    // Relaxed: independent counters that publish no other data.
    detail::KeeperStats stats;
    stats.acquisitions = acquisitions_.load(std::memory_order_relaxed);
    stats.renewals = renewals_.load(std::memory_order_relaxed);
    stats.renewal_failures = renewal_failures_.load(std::memory_order_relaxed);
    stats.losses = losses_.load(std::memory_order_relaxed);
    return stats;
  }

 private:
  // Tells the keeper that a generator waits at the ceiling of a binding.
  class CeilingWish final : public CeilingListener {
   public:
    explicit CeilingWish(Impl& keeper) : keeper_(keeper) {}
    void on_ceiling_wanted(std::int64_t /*needed_ms*/) noexcept override {
      keeper_.on_ceiling_wanted();
    }

   private:
    Impl& keeper_;
  };

  void on_ceiling_wanted() noexcept {
    // Relaxed: the flag publishes nothing; the ceiling a renewal brings is read through the
    // binding's own acquire.
    wanted_.store(true, std::memory_order_relaxed);
    // The loop's own lock, never held across a store call: this does not wait for the store.
    if (loop_ != nullptr) loop_->wake();
    // Without a thread the renewal is left to maintain(), whose next call renews at once (see
    // maintain_locked()), or to one running now, whose ceiling the generator sees when it lands.
    // It is never made here, on the generator's thread inside next(): a store call has no bound
    // that next()'s wait (GeneratorOptions::ceiling) could cover (the file store waits up to its
    // lock timeout for another process's lock, a remote store for the network), so next() would
    // block past its bound; and a renewal tried here on a try_lock was lost whenever any other
    // call held the lock, while the generator waited in vain.
  }

  // REQUIRES: mutex_ held.
  milliseconds maintain_locked() noexcept {
    if (closed_) return kMaxIdle;
    const std::int64_t now = clock_.monotonic_ns();
    if (current_ == nullptr) {
      if (now >= next_attempt_ns_) reacquire_locked();
    } else if (now >= next_attempt_ns_ || (wanted_.load(std::memory_order_relaxed) &&
                                           now >= last_attempt_ns_ + to_ns(kFirstBackoff))) {
      renew_locked();
    }
    const std::int64_t after = clock_.monotonic_ns();
    std::int64_t due = next_attempt_ns_;
    if (current_ != nullptr && wanted_.load(std::memory_order_relaxed)) {
      due = std::min(due, last_attempt_ns_ + to_ns(kFirstBackoff));
    }
    return ns_to_ms_ceil(due - after);
  }

  // One choose_slot(); on success installs the lease as the current binding. REQUIRES: mutex_.
  bool acquire_locked(SlotChoice& choice, Status& status) {
    SlotChoiceRequest request;
    request.name_space = options_.name_space;
    request.owner = owner_;
    request.terms = options_.terms;
    request.ttl = options_.ttl;
    request.has_preferred_slot = options_.preferred_slot.has_value();
    request.preferred_slot = options_.preferred_slot.value_or(0);
    const std::int64_t local_before = clock_.now_ms();
    const bool ok = choose_slot(store_, request, choice, status);
    const std::int64_t local_after = clock_.now_ms();
    for (const SlotRecord& other : choice.duplicate_key_holders) {
      emit(EventKind::kDuplicateOwnerKey, {},
           duplicate_owner_key_notice(owner_.key, options_.name_space, other), other.slot);
    }
    if (!ok) return false;
    check_skew(choice.lease.store_now, local_before, local_after);
    install_locked(choice.lease);
    return true;
  }

  // The lease becomes the current binding. REQUIRES: mutex_ held.
  void install_locked(const SlotLease& lease) {
    set_lease_locked(lease);
    // A new binding starts at or after the old one's ceiling: the runtime's ids keep growing
    // across a change of slot. Past not-before too. An empty window (floor above the lease's
    // ceiling) issues nothing until a renewal raises the ceiling past the floor.
    std::int64_t floor = std::max({lease.floor, previous_ceiling_, options_.not_before_ms});
    const std::int64_t ceiling = std::max(floor, lease.ceiling);
    bindings_.push_back(std::make_unique<Binding>(lease.slot, floor, ceiling, &ceiling_listener_));
    current_ = bindings_.back().get();
    ++generation_;
    publish_locked(current_, errc::slot_lost);
    acquisitions_.fetch_add(1, std::memory_order_relaxed);  // see stats()
    failures_ = 0;
    last_attempt_ns_ = clock_.monotonic_ns();
    next_attempt_ns_ = last_attempt_ns_ + to_ns(renew_every_);
    backoff_.succeeded();
    wanted_.store(false, std::memory_order_relaxed);
    emit(EventKind::kLeaseAcquired, {},
         lease_acquired_notice(lease, options_.name_space, owner_.key, floor), lease.slot,
         lease.ceiling);
  }

  // REQUIRES: mutex_ held and current_ set.
  void renew_locked() {
    last_attempt_ns_ = clock_.monotonic_ns();
    SlotLease renewed;
    const std::int64_t local_before = clock_.now_ms();
    Status status;
    const bool ok = store_.renew(lease_, options_.terms, options_.ttl, renewed, status);
    const std::error_code ec = status.code();
    const std::string why = status.message();
    const std::int64_t local_after = clock_.now_ms();
    if (ok) {
      check_skew(renewed.store_now, local_before, local_after);
      set_lease_locked(renewed);
      // Durable in the store: publish it (release, see Binding::ceiling_ms()).
      current_->raise_ceiling(renewed.ceiling);
      wanted_.store(false, std::memory_order_relaxed);
      next_attempt_ns_ = clock_.monotonic_ns() + to_ns(renew_every_);
      backoff_.succeeded();
      renewals_.fetch_add(1, std::memory_order_relaxed);  // see stats()
      if (failures_ > 0) {
        emit(EventKind::kLeaseRenewalRecovered, {},
             renewed_again_notice(lease_.slot, failures_, renewed.ceiling), lease_.slot,
             renewed.ceiling);
        failures_ = 0;
      }
      return;
    }
    if (ec == errc::lease_lost) {
      lose_locked(ec, why);
      reacquire_locked();
      return;
    }
    ++failures_;
    renewal_failures_.fetch_add(1, std::memory_order_relaxed);  // see stats()
    next_attempt_ns_ = clock_.monotonic_ns() + to_ns(backoff_.failed());
    emit(EventKind::kLeaseRenewalFailed, ec,
         renewal_failed_notice(lease_.slot, why, backoff_.current(), current_->ceiling_ms()),
         lease_.slot, current_->ceiling_ms());
  }

  // The lease is gone: every generator over the binding fails from now on. REQUIRES: mutex_.
  void lose_locked(std::error_code ec, const std::string& why) {
    current_->invalidate();
    losses_.fetch_add(1, std::memory_order_relaxed);  // see stats()
    previous_ceiling_ = std::max(previous_ceiling_, current_->ceiling_ms());
    current_ = nullptr;
    publish_locked(nullptr, errc::slot_lost);
    backoff_.succeeded();
    next_attempt_ns_ = clock_.monotonic_ns();
    emit(EventKind::kLeaseLost, ec, lease_lost_notice(lease_.slot, options_.name_space, why),
         lease_.slot, previous_ceiling_);
  }

  // After a loss: lease a new slot, or retry later with back-off. REQUIRES: mutex_ held.
  void reacquire_locked() {
    SlotChoice choice;
    Status status;
    last_attempt_ns_ = clock_.monotonic_ns();
    if (acquire_locked(choice, status)) return;
    ++failures_;
    renewal_failures_.fetch_add(1, std::memory_order_relaxed);  // see stats()
    next_attempt_ns_ = clock_.monotonic_ns() + to_ns(backoff_.failed());
    emit(EventKind::kLeaseRenewalFailed, status.code(),
         new_lease_failed_notice(status, backoff_.current()));
  }

  // REQUIRES: mutex_ held.
  bool release_locked(const std::function<std::int64_t(const Binding&)>& last_issued,
                      Status& status) {
    if (current_ == nullptr) return true;
    Binding& binding = *current_;
    // No generator may issue after the release hands the window on (they are closed already;
    // this also stops any the caller forgot).
    binding.invalidate();
    current_ = nullptr;
    const std::int64_t last =
        std::clamp(last_issued(binding), lease_.floor, std::max(lease_.floor, lease_.ceiling));
    if (!store_.release(lease_, options_.terms, last, status)) {
      return detail::fail(status, status.code(),
                          release_failed_message(lease_, options_.name_space, status));
    }
    emit(EventKind::kLeaseReleased, {}, released_notice(lease_.slot, options_.name_space, last),
         lease_.slot, lease_.ceiling);
    return true;
  }

  // What binding() returns from now on: `binding`, or null with `state`. REQUIRES: mutex_ held.
  void publish_locked(Binding* binding, errc state) {
    published_records_.push_back(
        std::make_unique<const Published>(Published{binding, generation_, state}));
    // Release pairs with the acquire in binding().
    published_.store(published_records_.back().get(), std::memory_order_release);
  }

  // REQUIRES: mutex_ held (lease() reads under lease_mutex_ alone).
  void set_lease_locked(const SlotLease& lease) {
    std::lock_guard<std::mutex> lock(lease_mutex_);
    lease_ = lease;
  }

  void check_skew(std::int64_t store_now, std::int64_t local_before, std::int64_t local_after) {
    // The store read its clock at some local instant of [local_before, local_after], which a slow
    // call (a long fsync) widens: the skew is the distance from store_now to that interval, the
    // part the round trip cannot explain, and 0 inside it.
    const std::int64_t earliest = std::min(local_before, local_after);
    const std::int64_t latest = std::max(local_before, local_after);
    const std::int64_t skew = store_now < earliest ? store_now - earliest
                              : store_now > latest ? store_now - latest
                                                   : 0;
    if (std::llabs(skew) * 2 <= options_.terms.tolerance.count()) return;
    emit(EventKind::kClockSkew, {},
         store_clock_skew_notice(store_now, skew, latest - earliest, options_.terms.tolerance),
         lease_.slot, 0, skew);
  }

  void emit(EventKind kind, std::error_code code, std::string message, std::uint32_t slot = 0,
            std::int64_t ceiling = 0, std::int64_t skew = 0) {
    if (listener_ == nullptr) return;
    detail::emit_event(listener_, Event{kind, code, std::move(message), ceiling, slot, skew});
  }

  SlotLeaseStore& store_;
  const KeeperOptions options_;
  Clock& clock_;
  EventListener* const listener_;
  detail::KeeperLoop* const loop_;
  CeilingWish ceiling_listener_;
  const milliseconds renew_every_;
  Owner owner_;

  // The locks (window_keeper.h has the whole order):
  //   mutex_         guards the store calls and every field below; held across a whole store
  //                  call (acquire, renew, release), so nothing a generator, an accessor or
  //                  metrics() calls takes it: binding() reads published_, lease() lease_mutex_,
  //                  stats() atomics, on_ceiling_wanted() only sets wanted_ and wakes the loop.
  //   lease_mutex_   guards writes of lease_ (made under mutex_) against lease(); held for a copy.
  // A forked child takes none of them: it only reads published_ and the records it points to.
  mutable std::mutex mutex_;
  mutable std::mutex lease_mutex_;
  SlotLease lease_;
  std::vector<std::unique_ptr<Binding>> bindings_;  // every binding made, for the keeper's life
  // What binding() reads without a lock: one immutable record per change (a lease, a loss,
  // close), each kept for the keeper's life like the bindings, so a reader never sees one freed.
  struct Published {
    Binding* binding;  // null after a loss and after close()
    std::uint64_t generation;
    errc state;  // binding() fails with it while binding is null
  };
  std::vector<std::unique_ptr<const Published>> published_records_;
  std::atomic<const Published*> published_{nullptr};
  Binding* current_ = nullptr;  // null between a loss and the next lease
  std::uint64_t generation_ = 0;
  std::int64_t previous_ceiling_ = 0;  // the largest ceiling of a lost binding
  std::int64_t next_attempt_ns_ = 0;   // monotonic: when to renew (or lease again) next
  std::int64_t last_attempt_ns_ = 0;
  detail::Backoff backoff_;
  int failures_ = 0;
  bool closed_ = false;
  std::atomic<bool> wanted_{false};  // a generator waits at the ceiling; set without the lock
  // Written under mutex_, read by stats() without it.
  std::atomic<std::uint64_t> acquisitions_{0};
  std::atomic<std::uint64_t> renewals_{0};
  std::atomic<std::uint64_t> renewal_failures_{0};
  std::atomic<std::uint64_t> losses_{0};
};

LeaseKeeper::LeaseKeeper() noexcept = default;
LeaseKeeper::~LeaseKeeper() = default;

std::unique_ptr<LeaseKeeper> LeaseKeeper::open(SlotLeaseStore& store, const KeeperOptions& options,
                                               Clock& clock, EventListener* listener,
                                               detail::KeeperLoop* loop, Status& status) {
  std::unique_ptr<LeaseKeeper> keeper(new LeaseKeeper());
  keeper->impl_ = std::make_unique<Impl>(store, options, clock, listener, loop);
  if (!keeper->impl_->start(status)) return nullptr;
  keeper->leased_ = true;
  return keeper;
}

std::unique_ptr<LeaseKeeper> LeaseKeeper::unstarted(std::shared_ptr<SlotLeaseStore> store,
                                                    const KeeperOptions& options, Clock& clock,
                                                    EventListener* listener,
                                                    detail::KeeperLoop* loop) {
  std::unique_ptr<LeaseKeeper> keeper(new LeaseKeeper());
  keeper->own_store_ = std::move(store);
  keeper->impl_ = std::make_unique<Impl>(*keeper->own_store_, options, clock, listener, loop);
  return keeper;
}

bool LeaseKeeper::start(const detail::FloorWait& wait_for_floor, Status& status) {
  if (!leased_) {
    if (!impl_->start(status)) return false;
    leased_ = true;
  }
  std::uint64_t generation = 0;
  std::error_code ec;
  const Binding* leased = impl_->binding(generation, ec);
  if (leased == nullptr) return detail::fail(status, ec, "");
  std::int64_t floor = leased->floor_ms();
  // On failure the owner's close() releases the lease: nothing was issued.
  return !wait_for_floor || wait_for_floor(floor, leased->slot(), status);
}

bool LeaseKeeper::maintain(Status& /*status*/) {
  (void)impl_->maintain();  // failures are retried by the keeper and reported as events
  return true;
}
detail::NextRound LeaseKeeper::round() noexcept { return {impl_->maintain(), true}; }
Binding* LeaseKeeper::binding(std::uint64_t& generation, std::error_code& ec) noexcept {
  return impl_->binding(generation, ec);
}
bool LeaseKeeper::close(const std::function<std::int64_t(const Binding&)>& last_issued,
                        Status& status) {
  return impl_->close(last_issued, status);
}
const Owner& LeaseKeeper::owner() const noexcept { return impl_->owner(); }
SlotLease LeaseKeeper::lease() const { return impl_->lease(); }
const KeeperOptions& LeaseKeeper::options() const noexcept { return impl_->options(); }
detail::KeeperStats LeaseKeeper::stats() const noexcept { return impl_->stats(); }

// The sentences.
namespace {

std::string no_incarnation_message(const Status& problem) {
  return "no random incarnation for the lease owner: " + problem.message();
}

std::string all_slots_held_text(const std::string& name_space, std::uint32_t slot_limit,
                                const SlotChoice& choice) {
  return "every slot of namespace " + name_space + " (" + std::to_string(slot_limit) +
         " slots) is held by a live lease; the earliest expires at " +
         detail::format_instant(choice.earliest_expiry) + " on the store's clock (" +
         std::to_string(choice.earliest_expiry - choice.store_now) + " ms after it was read)";
}

std::string acquire_gave_up_text(milliseconds timeout) {
  return "; gave up after the acquire timeout of " + detail::format_duration(timeout) +
         ": stop an instance, give the layout more slot bits, or retry later";
}

std::string acquire_retrying_notice(const std::string& why, milliseconds timeout) {
  return why + "; retrying for up to " + detail::format_duration(timeout);
}

std::string duplicate_owner_key_notice(const std::string& owner_key, const std::string& name_space,
                                       const SlotRecord& other) {
  return "owner key " + owner_key + " also holds slot " + std::to_string(other.slot) +
         " of namespace " + name_space + " under incarnation " +
         other.owner.incarnation.to_string() + " (expires " +
         detail::format_instant(other.expires_at) +
         "): another process runs with the same key, or a restart's old lease has not expired; "
         "that lease is left alone; give each process its own owner key";
}

// `floor`: the binding's, which may lie above the lease's (install_locked()).
std::string lease_acquired_notice(const SlotLease& lease, const std::string& name_space,
                                  const std::string& owner_key, std::int64_t floor) {
  return "leased slot " + std::to_string(lease.slot) + " of namespace " + name_space + " as " +
         owner_key + " (fence " + std::to_string(lease.fence) + "): window (" +
         detail::format_instant(floor) + ", " + detail::format_instant(lease.ceiling) + "]";
}

std::string renewed_again_notice(std::uint32_t slot, int failures, std::int64_t ceiling) {
  return "lease on slot " + std::to_string(slot) + " renewed again after " +
         std::to_string(failures) + " failures; ceiling " + detail::format_instant(ceiling);
}

std::string renewal_failed_notice(std::uint32_t slot, const std::string& why, milliseconds retry_in,
                                  std::int64_t ceiling) {
  return "renewing the lease on slot " + std::to_string(slot) + " failed (" + why +
         "); retrying in " + detail::format_duration(retry_in) +
         ", and ids are issued up to the ceiling " + detail::format_instant(ceiling) + " meanwhile";
}

std::string lease_lost_notice(std::uint32_t slot, const std::string& name_space,
                              const std::string& why) {
  return "the lease on slot " + std::to_string(slot) + " of namespace " + name_space +
         " is lost (" + why + "): its generators fail with slot_lost; leasing a new slot";
}

std::string new_lease_failed_notice(const Status& problem, milliseconds retry_in) {
  return "leasing a new slot after the loss failed (" + problem.message() + "); retrying in " +
         detail::format_duration(retry_in) + ", no ids are issued meanwhile";
}

std::string release_failed_message(const SlotLease& lease, const std::string& name_space,
                                   const Status& problem) {
  return "releasing slot " + std::to_string(lease.slot) + " of namespace " + name_space +
         " failed (" + problem.message() + "): the next holder starts after its ceiling " +
         detail::format_instant(lease.ceiling) + " instead";
}

std::string released_notice(std::uint32_t slot, const std::string& name_space, std::int64_t last) {
  return "released slot " + std::to_string(slot) + " of namespace " + name_space +
         " with last timestamp " + detail::format_instant(last);
}

// `skew`: the store's clock minus the local one, past the call's span of `call_ms`.
std::string store_clock_skew_notice(std::int64_t store_now, std::int64_t skew, std::int64_t call_ms,
                                    milliseconds tolerance) {
  return "the store's clock " + detail::format_instant(store_now) + " is at least " +
         detail::format_gap(std::llabs(skew)) + (skew > 0 ? " ahead of" : " behind") +
         " the local clock (the call took " + detail::format_gap(call_ms) +
         "), more than half the tolerance (" + detail::format_gap(tolerance.count()) +
         "): ids stay unique, but the generators may wait at the ceiling or the floor; "
         "synchronise the clocks (NTP)";
}

}  // namespace

}  // namespace lease
}  // namespace cosid
