#include "cosid/lease/keeper.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "background_thread.h"
#include "cosid/lease/slot_choice.h"
#include "cosid/slot_source.h"
#include "fail.h"
#include "parse_util.h"
#include "time_format.h"

namespace cosid {
namespace lease {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

constexpr milliseconds kFirstBackoff{100};
// The thread looks at the schedule at least this often, so a monotonic clock that a test (or a
// suspended VM) moves in a jump is noticed soon.
constexpr milliseconds kMaxIdle{200};

std::int64_t to_ns(milliseconds value) { return detail::to_nanos(value); }

milliseconds ns_to_ms_ceil(std::int64_t ns) {
  return milliseconds(ns <= 0 ? 0 : (ns + 999999) / 1000000);
}

}  // namespace

bool default_owner_key(std::string& key, std::error_code& ec, std::string* message) {
  std::string host;
  Status found;  // seam: local_hostname() reports in a Status
  if (!local_hostname(host, found)) return detail::to_legacy(found, ec, message);
  key = host + ":" + std::to_string(static_cast<long long>(getpid()));
  ec.clear();
  return true;
}

class LeaseKeeper::Impl {
 public:
  Impl(SlotLeaseStore& store, const KeeperOptions& options, Clock& clock, KeeperListener* listener)
      : store_(store),
        options_(options),
        clock_(clock),
        listener_(listener),
        ceiling_listener_(*this),
        renew_every_(std::max(options.ttl / 3, milliseconds(1))),
        max_backoff_(std::max(kFirstBackoff, options.ttl / 6)) {}

  ~Impl() {
    (void)close([](const Binding& binding) { return binding.floor_ms(); }, nullptr);
  }

  bool start(std::error_code& ec, std::string* message) {
    if (options_.owner_key.empty()) {
      if (!default_owner_key(owner_.key, ec, message)) return false;
    } else {
      owner_.key = options_.owner_key;
    }
    if (!Incarnation::random(owner_.incarnation, ec)) {
      if (message != nullptr) {
        *message =
            "no random incarnation for the lease owner: the kernel's random source "
            "cannot be read (" +
            ec.message() + ")";
      }
      return false;
    }
    const milliseconds timeout =
        options_.acquire_timeout.count() < 0 ? options_.ttl : options_.acquire_timeout;
    const std::int64_t begin = clock_.monotonic_ns();
    milliseconds backoff{0};
    bool reported = false;
    std::lock_guard<std::mutex> lock(mutex_);
    for (;;) {
      SlotChoice choice;
      std::string why;
      if (acquire_locked(choice, ec, &why)) return true;
      const bool retryable = ec == errc::lease_exhausted || ec == errc::store_unavailable;
      const std::int64_t waited = clock_.monotonic_ns() - begin;
      if (ec == errc::lease_exhausted) {
        why = "every slot of namespace " + options_.name_space + " (" +
              std::to_string(options_.terms.slot_limit) +
              " slots) is held by a live lease; the earliest expires at " +
              detail::format_instant(choice.earliest_expiry) + " on the store's clock (" +
              std::to_string(choice.earliest_expiry - choice.store_now) + " ms after it was read)";
      }
      if (!retryable || waited >= to_ns(timeout)) {
        if (message != nullptr) {
          *message = why;
          if (retryable) {
            *message += "; gave up after the acquire timeout of " +
                        detail::format_duration(timeout) +
                        ": stop an instance, give the layout more slot bits, or retry later";
          }
        }
        return false;
      }
      if (!reported) {
        emit({KeeperEventKind::kWaitingForSlot, ec,
              why + "; retrying for up to " + detail::format_duration(timeout)});
        reported = true;
      }
      backoff = std::clamp(backoff * 2, kFirstBackoff, max_backoff_);
      const std::int64_t left = to_ns(timeout) - waited;
      clock_.sleep_for(nanoseconds(std::min<std::int64_t>(to_ns(backoff), left)));
    }
  }

  std::error_code start_thread(std::string* message) {
    std::lock_guard<std::mutex> lock(thread_mutex_);
    if (thread_ || stop_) return {};
    auto thread = std::make_unique<detail::BackgroundThread>();
    if (std::error_code failed = thread->start<Impl, &Impl::run>(this)) {
      if (message != nullptr) *message = detail::thread_start_failure("lease keeper's", failed);
      return failed;
    }
    thread_ = std::move(thread);
    return {};
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

  std::error_code close(const std::function<std::int64_t(const Binding&)>& last_issued,
                        std::string* message) {
    std::error_code result;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!closed_) {
        closed_ = true;
        publish_locked(nullptr, errc::closed);
        result = release_locked(last_issued, message);
      }
    }
    // The thread stops last: with closed_ set it neither renews nor leases again.
    {
      std::lock_guard<std::mutex> lock(thread_mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    std::unique_ptr<detail::BackgroundThread> thread;
    {
      std::lock_guard<std::mutex> lock(thread_mutex_);
      thread = std::move(thread_);
    }
    if (thread) thread->join();
    return result;
  }

  const Owner& owner() const noexcept { return owner_; }

  SlotLease lease() const {
    // Not mutex_, which a store call holds for as long as the store takes.
    std::lock_guard<std::mutex> lock(lease_mutex_);
    return lease_;
  }

  const KeeperOptions& options() const noexcept { return options_; }

  KeeperStats stats() const noexcept {
    // Relaxed: independent counters that publish no other data.
    KeeperStats stats;
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
    bool threaded = false;
    {
      std::lock_guard<std::mutex> lock(thread_mutex_);
      threaded = thread_ != nullptr;
    }
    if (threaded) wake_.notify_one();
    // Without a thread the renewal is left to maintain(), whose next call renews at once (see
    // maintain_locked()), or to one running now, whose ceiling the generator sees when it lands.
    // It is never made here, on the generator's thread inside next(): a store call has no bound
    // that next()'s wait (GeneratorOptions::ceiling) could cover (the file store waits up to its
    // lock timeout for another process's lock, a remote store for the network), so next() would
    // block past its bound; and a renewal tried here on a try_lock was lost whenever any other
    // call held the lock, while the generator waited in vain.
  }

  void run() {
    for (;;) {
      const milliseconds due = maintain();
      std::unique_lock<std::mutex> lock(thread_mutex_);
      if (stop_) return;
      wake_.wait_for(lock, std::clamp(due, milliseconds(1), kMaxIdle));
      if (stop_) return;
    }
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
  bool acquire_locked(SlotChoice& choice, std::error_code& ec, std::string* message) {
    SlotChoiceRequest request;
    request.name_space = options_.name_space;
    request.owner = owner_;
    request.terms = options_.terms;
    request.ttl = options_.ttl;
    request.has_preferred_slot = options_.preferred_slot.has_value();
    request.preferred_slot = options_.preferred_slot.value_or(0);
    const std::int64_t local_before = clock_.now_ms();
    const bool ok = choose_slot(store_, request, choice, ec, message);
    const std::int64_t local_after = clock_.now_ms();
    for (const SlotRecord& other : choice.duplicate_key_holders) {
      emit({KeeperEventKind::kDuplicateOwnerKey,
            {},
            "owner key " + owner_.key + " also holds slot " + std::to_string(other.slot) +
                " of namespace " + options_.name_space + " under incarnation " +
                other.owner.incarnation.to_string() + " (expires " +
                detail::format_instant(other.expires_at) +
                "): another process runs with the same key, or a restart's old lease has not "
                "expired; that lease is left alone; give each process its own owner key",
            other.slot});
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
    backoff_ = milliseconds(0);
    wanted_.store(false, std::memory_order_relaxed);
    emit({KeeperEventKind::kAcquired,
          {},
          "leased slot " + std::to_string(lease.slot) + " of namespace " + options_.name_space +
              " as " + owner_.key + " (fence " + std::to_string(lease.fence) + "): window (" +
              detail::format_instant(floor) + ", " + detail::format_instant(lease.ceiling) + "]",
          lease.slot,
          lease.ceiling});
  }

  // REQUIRES: mutex_ held and current_ set.
  void renew_locked() {
    last_attempt_ns_ = clock_.monotonic_ns();
    SlotLease renewed;
    std::error_code ec;
    std::string why;
    const std::int64_t local_before = clock_.now_ms();
    const bool ok = store_.renew(lease_, options_.terms, options_.ttl, renewed, ec, &why);
    const std::int64_t local_after = clock_.now_ms();
    if (ok) {
      check_skew(renewed.store_now, local_before, local_after);
      set_lease_locked(renewed);
      // Durable in the store: publish it (release, see Binding::ceiling_ms()).
      current_->raise_ceiling(renewed.ceiling);
      wanted_.store(false, std::memory_order_relaxed);
      next_attempt_ns_ = clock_.monotonic_ns() + to_ns(renew_every_);
      backoff_ = milliseconds(0);
      renewals_.fetch_add(1, std::memory_order_relaxed);  // see stats()
      if (failures_ > 0) {
        emit({KeeperEventKind::kRenewalRecovered,
              {},
              "lease on slot " + std::to_string(lease_.slot) + " renewed again after " +
                  std::to_string(failures_) + " failures; ceiling " +
                  detail::format_instant(renewed.ceiling),
              lease_.slot,
              renewed.ceiling});
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
    backoff_ = std::clamp(backoff_ * 2, kFirstBackoff, max_backoff_);
    next_attempt_ns_ = clock_.monotonic_ns() + to_ns(backoff_);
    emit({KeeperEventKind::kRenewalFailed, ec,
          "renewing the lease on slot " + std::to_string(lease_.slot) + " failed (" + why +
              "); retrying in " + detail::format_duration(backoff_) +
              ", and ids are issued up to the ceiling " +
              detail::format_instant(current_->ceiling_ms()) + " meanwhile",
          lease_.slot, current_->ceiling_ms()});
  }

  // The lease is gone: every generator over the binding fails from now on. REQUIRES: mutex_.
  void lose_locked(std::error_code ec, const std::string& why) {
    current_->invalidate();
    losses_.fetch_add(1, std::memory_order_relaxed);  // see stats()
    previous_ceiling_ = std::max(previous_ceiling_, current_->ceiling_ms());
    current_ = nullptr;
    publish_locked(nullptr, errc::slot_lost);
    backoff_ = milliseconds(0);
    next_attempt_ns_ = clock_.monotonic_ns();
    emit({KeeperEventKind::kLost, ec,
          "the lease on slot " + std::to_string(lease_.slot) + " of namespace " +
              options_.name_space + " is lost (" + why +
              "): its generators fail with slot_lost; leasing a new slot",
          lease_.slot, previous_ceiling_});
  }

  // After a loss: lease a new slot, or retry later with back-off. REQUIRES: mutex_ held.
  void reacquire_locked() {
    SlotChoice choice;
    std::error_code ec;
    std::string why;
    last_attempt_ns_ = clock_.monotonic_ns();
    if (acquire_locked(choice, ec, &why)) return;
    ++failures_;
    renewal_failures_.fetch_add(1, std::memory_order_relaxed);  // see stats()
    backoff_ = std::clamp(backoff_ * 2, kFirstBackoff, max_backoff_);
    next_attempt_ns_ = clock_.monotonic_ns() + to_ns(backoff_);
    emit({KeeperEventKind::kRenewalFailed, ec,
          "leasing a new slot after the loss failed (" + why + "); retrying in " +
              detail::format_duration(backoff_) + ", no ids are issued meanwhile"});
  }

  // REQUIRES: mutex_ held.
  std::error_code release_locked(const std::function<std::int64_t(const Binding&)>& last_issued,
                                 std::string* message) {
    if (current_ == nullptr) return {};
    Binding& binding = *current_;
    // No generator may issue after the release hands the window on (they are closed already;
    // this also stops any the caller forgot).
    binding.invalidate();
    current_ = nullptr;
    const std::int64_t last =
        std::clamp(last_issued(binding), lease_.floor, std::max(lease_.floor, lease_.ceiling));
    std::error_code ec;
    std::string why;
    if (!store_.release(lease_, options_.terms, last, ec, &why)) {
      if (message != nullptr) {
        *message = "releasing slot " + std::to_string(lease_.slot) + " of namespace " +
                   options_.name_space + " failed (" + why +
                   "): the next holder starts after its ceiling " +
                   detail::format_instant(lease_.ceiling) + " instead";
      }
      return ec;
    }
    emit({KeeperEventKind::kReleased,
          {},
          "released slot " + std::to_string(lease_.slot) + " of namespace " + options_.name_space +
              " with last timestamp " + detail::format_instant(last),
          lease_.slot,
          lease_.ceiling});
    return {};
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
    KeeperEvent event{KeeperEventKind::kClockSkew,
                      {},
                      "the store's clock " + detail::format_instant(store_now) + " is at least " +
                          std::to_string(std::llabs(skew)) + " ms " +
                          (skew > 0 ? "ahead of" : "behind") + " the local clock (the call took " +
                          std::to_string(latest - earliest) +
                          " ms), more than half the tolerance (" +
                          std::to_string(options_.terms.tolerance.count()) +
                          " ms): ids stay unique, but the generators may wait at the ceiling or "
                          "the floor; synchronise the clocks (NTP)",
                      lease_.slot,
                      0,
                      skew};
    emit(event);
  }

  void emit(KeeperEvent event) {
    if (listener_ != nullptr) listener_->on_keeper_event(event);
  }

  SlotLeaseStore& store_;
  const KeeperOptions options_;
  Clock& clock_;
  KeeperListener* const listener_;
  CeilingWish ceiling_listener_;
  const milliseconds renew_every_;
  const milliseconds max_backoff_;
  Owner owner_;

  // Lock order, and what each lock may be held across:
  //   mutex_         guards the store calls and every field below; held across a whole store
  //                  call (acquire, renew, release), so nothing a generator, an accessor or
  //                  metrics() calls takes it: binding() reads published_, lease() lease_mutex_,
  //                  stats() atomics, on_ceiling_wanted() only sets wanted_.
  //   lease_mutex_   guards writes of lease_ (made under mutex_) against lease(); held for a copy.
  //   thread_mutex_  guards thread_ and stop_; never held across a store call, nor with mutex_.
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
  milliseconds backoff_{0};
  int failures_ = 0;
  bool closed_ = false;
  std::atomic<bool> wanted_{false};  // a generator waits at the ceiling; set without the lock
  // Written under mutex_, read by stats() without it.
  std::atomic<std::uint64_t> acquisitions_{0};
  std::atomic<std::uint64_t> renewals_{0};
  std::atomic<std::uint64_t> renewal_failures_{0};
  std::atomic<std::uint64_t> losses_{0};

  std::mutex thread_mutex_;  // guards thread_ and stop_
  std::condition_variable wake_;
  std::unique_ptr<detail::BackgroundThread> thread_;
  bool stop_ = false;
};

LeaseKeeper::LeaseKeeper(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
LeaseKeeper::~LeaseKeeper() = default;

std::unique_ptr<LeaseKeeper> LeaseKeeper::start(SlotLeaseStore& store, const KeeperOptions& options,
                                                Clock& clock, KeeperListener* listener,
                                                std::error_code& ec, std::string* message) {
  auto impl = std::make_unique<Impl>(store, options, clock, listener);
  if (!impl->start(ec, message)) return nullptr;
  ec.clear();
  return std::unique_ptr<LeaseKeeper>(new LeaseKeeper(std::move(impl)));
}

#if COSID_HAS_EXCEPTIONS
std::unique_ptr<LeaseKeeper> LeaseKeeper::start(SlotLeaseStore& store, const KeeperOptions& options,
                                                Clock& clock, KeeperListener* listener) {
  std::error_code ec;
  std::string message;
  auto keeper = start(store, options, clock, listener, ec, &message);
  if (!keeper) detail::throw_error(ec, message);
  return keeper;
}
#endif

std::error_code LeaseKeeper::start_thread(std::string* message) {
  return impl_->start_thread(message);
}
std::chrono::milliseconds LeaseKeeper::maintain() noexcept { return impl_->maintain(); }
Binding* LeaseKeeper::binding(std::uint64_t& generation, std::error_code& ec) noexcept {
  return impl_->binding(generation, ec);
}
std::error_code LeaseKeeper::close(const std::function<std::int64_t(const Binding&)>& last_issued,
                                   std::string* message) {
  return impl_->close(last_issued, message);
}
const Owner& LeaseKeeper::owner() const noexcept { return impl_->owner(); }
SlotLease LeaseKeeper::lease() const { return impl_->lease(); }
const KeeperOptions& LeaseKeeper::options() const noexcept { return impl_->options(); }
KeeperStats LeaseKeeper::stats() const noexcept { return impl_->stats(); }

}  // namespace lease
}  // namespace cosid
