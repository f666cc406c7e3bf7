#include "cosid/runtime.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

#include "background_thread.h"
#include "cosid/lease/keeper.h"
#include "cosid/lease/store_registry.h"
#include "cosid/state_file.h"
#include "fork_guard.h"
#include "time_format.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kFirstBackoff{100};
// The background thread looks at the clock at least this often, so a clock that jumps forward
// is noticed even while the ceiling seemed far away.
constexpr milliseconds kMaxIdle{200};
// Besides before every write, the state file's identity (removed, replaced) is checked once every
// this many rounds of the writer loop, which wakes at least every kMaxIdle: so a change is noticed
// within about a second even while no write is due, at the cost of two stats.
constexpr int kIdentityRounds = 5;

}  // namespace

class COSID_NO_EXPORT Runtime::Impl final : public CeilingListener {
 public:
  Impl(const Options& options, const RuntimeEnvironment& environment)
      : options_(options),
        environment_(environment),
        clock_(environment.clock != nullptr ? *environment.clock : system_clock_),
        fs_(environment.fs != nullptr ? *environment.fs : posix_file_system()) {}

  ~Impl() override {
    (void)close(nullptr);
    // The generators go before the keeper that owns their bindings.
    generator_.reset();
    retired_.clear();
  }

  bool start(std::error_code& ec, std::string* message) {
    if (Status status; !validate_options(options_, status)) {
      ec = status.code();
      if (message != nullptr) *message = status.message();
      return false;
    }
    if (!options_.layout.validate_at(clock_.now_ms(), ec, message)) return false;
    if (options_.uses_store()) return start_leased(ec, message);
    std::int64_t floor = options_.not_before_ms;
    if (!options_.state_file.empty()) {
      StateFileOpenOptions open_options;
      open_options.create_if_missing = !options_.require_state_file;
      open_options.not_before_ms = options_.not_before_ms;
      file_ =
          StateFile::open(fs_, clock_, options_.state_file,
                          StateFileOwner{options_.slot, options_.layout, options_.namespace_name},
                          open_options, ec, message);
      if (!file_) return false;
      floor = file_->floor_ms();
      if (file_->created()) {
        emit(EventKind::kStateFileCreated, {},
             "created state file " + options_.state_file + " with floor " +
                 detail::format_instant(floor) +
                 " (not-before): if this slot issued ids before, their state file is lost and "
                 "not-before must lie after the last of them");
      }
      // Reported whenever it happens, although the start goes on: a block that a torn write or
      // the disk damaged once says something about the disk (DURABILITY.md, "Open").
      if (!file_->damaged_block().empty()) {
        emit(EventKind::kStateFileDamaged, make_error_code(errc::state_file_corrupt),
             file_->damaged_block());
      }
    } else {
      emit(EventKind::kNoStateFile, {},
           "no state file configured for slot " + std::to_string(options_.slot) +
               ": nothing protects against a clock set back across a restart; set state-file");
    }
    floor = std::max(floor, options_.layout.epoch_ms() - 1);
    if (!check_floor(floor, options_.slot, ec, message) ||
        !wait_for_floor(floor, options_.slot, ec, message)) {
      return false;
    }

    std::int64_t ceiling = options_.layout.end_ms() - 1;
    if (file_ && !write_first_ceiling(floor, ec, message)) return false;
    if (file_) ceiling = file_->durable_ceiling_ms();
    binding_ = std::make_unique<Binding>(options_.slot, floor, ceiling, this);
    if (file_ && environment_.background_thread) {
      // On failure close() (from the destructor) records the floor as a clean shutdown: nothing
      // was issued.
      auto thread = std::make_unique<detail::BackgroundThread>();
      if (std::error_code failed = thread->start<Impl, &Impl::run_writer>(this)) {
        ec = failed;
        if (message != nullptr) *message = detail::thread_start_failure("runtime's", failed);
        return false;
      }
      thread_ = std::move(thread);
    }
    ec.clear();
    return true;
  }

  Generator* generator(std::string_view name, std::error_code& ec) {
    // Before the lock: in a forked child a parent thread may have held it at the fork.
    if (fork_guard_.forked()) {
      ec = make_error_code(errc::forked_process);
      return nullptr;
    }
    std::lock_guard<std::mutex> lock(generators_mutex_);
    if (closed_) {
      ec = make_error_code(errc::closed);
      return nullptr;
    }
    (void)name;  // every name shares the one generator: see runtime.h
    if (keeper_) return leased_generator_locked(ec);
    if (!generator_) {
      generator_ =
          Generator::create(options_.layout, *binding_, clock_, environment_.generator, ec);
      if (!generator_) return nullptr;
    }
    ec.clear();
    return generator_.get();
  }

  std::error_code maintain(std::string* message) {
    if (keeper_) {
      (void)keeper_->maintain();  // failures are retried by the keeper and reported as events
      return {};
    }
    std::lock_guard<std::mutex> lock(writer_mutex_);
    if (!file_) return {};
    if (replaced_) return replaced_error(message);
    const std::int64_t remaining = binding_->ceiling_ms() - clock_.now_ms();
    if (remaining >= options_.ahead.count() / 2 && !wanted_.load(std::memory_order_relaxed)) {
      // Without the background thread this is where a removed or replaced file is noticed while
      // no write is due (with it, run_writer() looks about once a second).
      return environment_.background_thread ? std::error_code() : check_identity_locked(message);
    }
    return advance_locked(message);  // which checks the file's identity first
  }

  std::error_code close(std::string* message) {
    if (fork_guard_.forked()) return close_in_forked_child();
    if (keeper_) return close_leased(message);
    std::int64_t last = 0;
    {
      std::lock_guard<std::mutex> lock(generators_mutex_);
      if (closed_) return {};
      closed_ = true;
      // 1. Every generator stops and reports its exact last timestamp (the floor if it issued
      //    none), so `last` bounds every id this runtime returned.
      if (binding_ == nullptr) {
        // start() failed: no id was issued, and the file must keep the ceiling it has. A clean
        // record here would roll it back.
        std::lock_guard<std::mutex> writer(writer_mutex_);
        file_.reset();
        return {};
      }
      last = binding_->floor_ms();
      if (generator_) last = std::max(last, generator_->close());
    }
    // 2. The writer thread stops, so nothing raises the ceiling any more.
    {
      std::lock_guard<std::mutex> lock(writer_mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_) thread_->join();
    // 3. The exact last timestamp, flagged clean: the next start need not wait out `ahead`.
    //    Under writer_mutex_, since maintain() or an inline renewal may still be running.
    std::lock_guard<std::mutex> lock(writer_mutex_);
    std::error_code result;
    if (file_ && !replaced_) result = file_->write_clean_shutdown(last, message);
    // 4. Closing the file releases its lock.
    file_.reset();
    return result;
  }

  // Called by a generator that waits at the ceiling (on its thread).
  void on_ceiling_wanted(std::int64_t needed_ms) noexcept override {
    emit(EventKind::kWaitingAtCeiling, {},
         "a generator waits at the ceiling " + detail::format_instant(binding_->ceiling_ms()) +
             " for " + detail::format_instant(needed_ms),
         needed_ms);
    // Never block here: the writer holds writer_mutex_ across a whole fdatasync, and a waiting
    // generator must give up at its own bound however slow the disk is. Relaxed order on wanted_
    // throughout: the flag publishes no other data, and the ceiling it asks for is read through
    // the binding's own acquire.
    wanted_.store(true, std::memory_order_relaxed);
    std::unique_lock<std::mutex> lock(writer_mutex_, std::try_to_lock);
    if (environment_.background_thread) {
      // With the lock, the writer is asleep in wait_for and this wake-up cannot be lost. Without
      // it, the writer is busy and sees wanted_ before it sleeps again; in the narrow gap between
      // its check and its sleep the wake-up is only delayed, by at most kMaxIdle. A writer that
      // found the file replaced sleeps until close() whatever wanted_ says (run_writer()).
      if (lock.owns_lock()) lock.unlock();
      wake_.notify_one();
    } else if (lock.owns_lock() && file_ && !replaced_) {
      // Inline mode: the waiting thread renews, after the identity check advance_locked() makes.
      // A replaced file invalidates the binding there, which ends this generator's wait.
      (void)advance_locked(nullptr);
    }  // else another thread is renewing right now
  }

  const Options& options() const noexcept { return options_; }
  bool forked() const noexcept { return fork_guard_.forked(); }
  // The static binding, or the latest leased one. Takes no lock (the keeper's binding() is one
  // atomic load), so it never waits for a store call, and is safe in a forked child.
  const Binding& binding() const noexcept {
    if (!keeper_) return *binding_;
    std::uint64_t generation = 0;
    std::error_code ignored;
    if (const Binding* current = keeper_->binding(generation, ignored)) {
      latest_.store(current, std::memory_order_relaxed);
    }
    // Relaxed: the pointer is to a binding the keeper keeps for its life, whose own fields are
    // read with their own orders.
    return *latest_.load(std::memory_order_relaxed);
  }

  RuntimeMetrics metrics() noexcept {
    RuntimeMetrics metrics;
    metrics.namespace_name = options_.namespace_name;
    {
      // Generators are made on first use, and after a lost lease replaced, under this lock; once
      // made each lives as long as the runtime (closed or retired, its counters stay readable),
      // so the counts are those of every generator the runtime ever had. The lock is never held
      // across I/O or a store call (generator() reads the keeper's binding without a lock), so
      // this waits for no disk and no store. In a forked child a parent thread may have held it
      // at the fork, and then holds it for good: the child only tries it and, if it is taken,
      // counts no generator (their counts are the parent's, copied at the fork, anyway).
      std::unique_lock<std::mutex> lock(generators_mutex_, std::defer_lock);
      if (fork_guard_.forked()) {
        (void)lock.try_lock();
      } else {
        lock.lock();
      }
      const auto add = [&metrics](const Generator& generator) {
        const GeneratorStats stats = generator.stats();
        metrics.ids_issued += stats.ids_issued;
        metrics.sequence_waits += stats.sequence_waits;
        metrics.ceiling_waits += stats.ceiling_waits;
        metrics.clock_backwards += stats.clock_backwards;
        metrics.floor_waits += stats.floor_waits;
        metrics.generator_failures += stats.failures;
      };
      if (lock.owns_lock()) {
        if (generator_) add(*generator_);
        for (const auto& retired : retired_) add(*retired.second);
      }
    }
    metrics.state_writes = state_writes_.load(std::memory_order_relaxed);
    metrics.state_write_failures = state_write_failures_.load(std::memory_order_relaxed);
    if (keeper_) {
      const lease::KeeperStats lease = keeper_->stats();
      metrics.lease_renewals = lease.renewals;
      metrics.lease_renewal_failures = lease.renewal_failures;
      metrics.lease_losses = lease.losses;
    }
    const Binding& window = binding();
    metrics.slot = window.slot();
    metrics.floor_ms = window.floor_ms();
    metrics.ceiling_ms = window.ceiling_ms();
    return metrics;
  }

 private:
  // Passes the keeper's events on as the runtime's.
  class KeeperEvents final : public lease::KeeperListener {
   public:
    explicit KeeperEvents(Impl& runtime) : runtime_(runtime) {}
    void on_keeper_event(const lease::KeeperEvent& event) noexcept override {
      runtime_.emit_lease(event);
    }

   private:
    Impl& runtime_;
  };

  bool start_leased(std::error_code& ec, std::string* message) {
    lease::StoreRegistry* stores = environment_.stores;
    if (stores == nullptr) {
      if (options_.store_type == "memory") {
        ec = make_error_code(errc::unknown_store_type);
        if (message != nullptr) {
          *message =
              "the memory store needs a lease::StoreRegistry in RuntimeEnvironment::stores, "
              "shared by every runtime that should lease from it: a memory store of one runtime "
              "alone would give each runtime of the process the same slot";
        }
        return false;
      }
      own_stores_ = std::make_unique<lease::StoreRegistry>();
      stores = own_stores_.get();
    }
    store_ = stores->open(lease::StoreContext{options_, clock_}, ec, message);
    if (!store_) return false;
    lease::KeeperOptions keeper;
    keeper.name_space = options_.namespace_name;
    keeper.owner_key = options_.owner_key;
    // validate_options() holds slot_bits to 31 for a store.
    keeper.terms.slot_limit = std::uint32_t{1} << options_.layout.slot_bits;
    keeper.terms.tolerance = options_.tolerance;
    keeper.ttl = options_.ttl;
    keeper.preferred_slot = options_.preferred_slot;
    keeper.not_before_ms = options_.not_before_ms;
    keeper_ = lease::LeaseKeeper::start(*store_, keeper, clock_, &keeper_events_, ec, message);
    if (!keeper_) return false;
    std::uint64_t generation = 0;
    const Binding* leased = keeper_->binding(generation, ec);
    latest_.store(leased, std::memory_order_relaxed);
    const std::int64_t floor = std::max(leased->floor_ms(), options_.layout.epoch_ms() - 1);
    if (!check_floor(floor, leased->slot(), ec, message) ||
        !wait_for_floor(floor, leased->slot(), ec, message)) {
      return false;  // the destructor releases the lease: nothing was issued
    }
    if (environment_.background_thread) {
      // On failure the destructor releases the lease: nothing was issued.
      if (std::error_code failed = keeper_->start_thread(message)) {
        ec = failed;
        return false;
      }
    }
    ec.clear();
    return true;
  }

  // The generator over the keeper's current binding, made anew after a loss. The one it replaces
  // is kept, closed at close(): a caller may still hold it (it fails with slot_lost).
  // REQUIRES: generators_mutex_ held. The keeper's binding() takes no lock, so generators_mutex_
  // is never held while a store call runs (the keeper holds its own lock across those).
  Generator* leased_generator_locked(std::error_code& ec) {
    std::uint64_t generation = 0;
    Binding* current = keeper_->binding(generation, ec);
    if (current == nullptr) return nullptr;
    // A binding the keeper is losing right now (it invalidates the binding, then publishes that
    // none is current) is no generator to hand out: one over it would fail at once, and a caller
    // told "call generator() again after slot_lost" would take that for the new slot's.
    if (!current->valid()) {
      ec = make_error_code(errc::slot_lost);
      return nullptr;
    }
    latest_.store(current, std::memory_order_relaxed);
    if (generator_ && generation == generator_generation_) {
      ec.clear();
      return generator_.get();
    }
    std::unique_ptr<Generator> made =
        Generator::create(options_.layout, *current, clock_, environment_.generator, ec);
    if (!made) return nullptr;
    if (generator_) retired_.emplace_back(generator_binding_, std::move(generator_));
    generator_ = std::move(made);
    generator_binding_ = current;
    generator_generation_ = generation;
    return generator_.get();
  }

  // Ordered shutdown with a lease: generators closed, lease released with the exact last
  // timestamp of its binding, then the keeper's thread stops (inside LeaseKeeper::close()).
  std::error_code close_leased(std::string* message) {
    std::vector<std::pair<const Binding*, std::int64_t>> lasts;
    {
      std::lock_guard<std::mutex> lock(generators_mutex_);
      if (closed_) return {};
      closed_ = true;
      if (generator_) lasts.emplace_back(generator_binding_, generator_->close());
      for (auto& retired : retired_) lasts.emplace_back(retired.first, retired.second->close());
    }
    return keeper_->close(
        [&lasts](const Binding& binding) {
          std::int64_t last = binding.floor_ms();
          for (const auto& entry : lasts) {
            if (entry.first == &binding) last = std::max(last, entry.second);
          }
          return last;
        },
        message);
  }

  // The runtime's event for a keeper's. A switch, not a table indexed by the enum, so that a new
  // KeeperEventKind left out here is a compiler warning (-Wswitch), not a wrong event.
  static EventKind event_kind_of(lease::KeeperEventKind kind) noexcept {
    switch (kind) {
      case lease::KeeperEventKind::kAcquired:
        return EventKind::kLeaseAcquired;
      case lease::KeeperEventKind::kWaitingForSlot:
        return EventKind::kLeaseWaiting;
      case lease::KeeperEventKind::kDuplicateOwnerKey:
        return EventKind::kDuplicateOwnerKey;
      case lease::KeeperEventKind::kClockSkew:
        return EventKind::kClockSkew;
      case lease::KeeperEventKind::kRenewalFailed:
        return EventKind::kLeaseRenewalFailed;
      case lease::KeeperEventKind::kRenewalRecovered:
        return EventKind::kLeaseRenewalRecovered;
      case lease::KeeperEventKind::kLost:
        return EventKind::kLeaseLost;
      case lease::KeeperEventKind::kReleased:
        break;
    }
    return EventKind::kLeaseReleased;
  }

  void emit_lease(const lease::KeeperEvent& event) {
    if (environment_.listener == nullptr) return;
    Event out{event_kind_of(event.kind), event.code, event.message,
              event.ceiling_ms,          event.slot, event.skew_ms};
    environment_.listener->on_event(out);
  }

  // Fails with timestamp_overflow when no id can lie above `floor` in the layout.
  bool check_floor(std::int64_t floor, std::uint32_t slot, std::error_code& ec,
                   std::string* message) {
    if (floor < options_.layout.end_ms() - 1) return true;
    ec = make_error_code(errc::timestamp_overflow);
    if (message != nullptr) {
      *message = "the floor " + std::to_string(floor) + " of slot " + std::to_string(slot) +
                 " lies at or past the end of the layout (" +
                 detail::format_instant(options_.layout.end_ms()) +
                 "): no id can be issued; check not-before and the state file's or the lease "
                 "store's ceiling";
    }
    return false;
  }

  bool wait_for_floor(std::int64_t floor, std::uint32_t slot, std::error_code& ec,
                      std::string* message) {
    const std::int64_t start = clock_.monotonic_ns();
    const std::int64_t bound_ns = detail::to_nanos(options_.start_wait);
    bool reported = false;
    // The first tick that lies wholly after the floor must have begun (for a second-unit layout
    // that can be up to a second after the floor itself).
    const Layout& layout = options_.layout;
    const std::int64_t usable_ms = layout.tick_start_ms(layout.tick_of(floor) + 1);
    while (clock_.now_ms() < usable_ms) {
      const std::int64_t now = clock_.now_ms();
      const std::int64_t waited_ns = clock_.monotonic_ns() - start;
      // A clock running at its rate cannot close a gap larger than the wait left, so that is
      // known at once: fail now rather than at the end of the wait.
      const std::int64_t left_ms = (bound_ns - std::min(waited_ns, bound_ns)) / 1000000;
      if (usable_ms - now > left_ms) {
        ec = make_error_code(errc::clock_behind_floor);
        if (message != nullptr) {
          *message = "the clock " + detail::format_instant(now) + " is " +
                     detail::format_gap(usable_ms - now) +
                     " short of the first tick after the floor " + detail::format_instant(floor) +
                     " of slot " + std::to_string(slot) +
                     (reported ? " after waiting " + detail::format_gap(waited_ns / 1000000)
                               : ", more than the start wait of " +
                                     detail::format_gap(options_.start_wait.count())) +
                     ": ids up to the floor may exist, so none can be issued before " +
                     detail::format_instant(usable_ms) + "; " +
                     (options_.uses_store()
                          ? std::string("wait until then and start again")
                          : "use another slot (with its own state file), or wait until then and "
                            "start again") +
                     ", and check the clock if it should not be behind";
        }
        return false;
      }
      if (!reported) {
        emit(EventKind::kWaitingForFloor, {},
             "the clock " + detail::format_instant(now) + " is " +
                 detail::format_gap(usable_ms - now) + " short of the first tick after the floor " +
                 detail::format_instant(floor) + "; waiting for it");
        reported = true;
      }
      clock_.sleep_for(milliseconds(1));
    }
    return true;
  }

  // The write-ahead of start(): no id before this ceiling is durable. Fails, with a message of
  // its own (nothing was issued, the start failed), when the file is no longer the one at its
  // path or the write fails. REQUIRES: file_, and no other thread yet.
  bool write_first_ceiling(std::int64_t floor, std::error_code& ec, std::string* message) {
    const std::int64_t wanted = std::max(floor, clock_.now_ms()) + options_.ahead.count();
    std::string why;
    // Like every write (advance_locked()): a ceiling written into a file that a restart will not
    // read covers nothing.
    if (std::error_code problem = file_->check_identity(&why)) {
      ec = problem;
      if (message != nullptr) {
        *message = why + ": nothing was issued and the start failed; " +
                   (problem == errc::state_file_replaced
                        ? "undo the change, and start again"
                        : "check the disk and the kernel log, then start again");
      }
      return false;
    }
    if (std::error_code io = file_->advance(wanted, &why)) {
      ec = io;
      if (message != nullptr) {
        // The advance's own message speaks of a runtime that runs on up to its ceiling; at the
        // start there is none, so only its cause is passed on (or all of it, for the one failure
        // that is not a disk's: the generation counter used up, whose remedy it states).
        *message = "state file " + options_.state_file + ": the first ceiling " +
                   detail::format_instant(wanted) + " could not be made durable: " +
                   (io == std::errc::value_too_large ? why : io.message()) +
                   "; nothing was issued and the start failed: free space or fix the disk "
                   "(see the kernel log), then start again";
      }
      return false;
    }
    // Counted like every later ceiling (metrics.h). Relaxed: see state_writes_.
    state_writes_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  // In a child forked from the process that opened the runtime: the writer thread does not exist
  // here and the file belongs to the parent, whose ceiling a write from here could roll back. So
  // nothing is joined and nothing written; the child's copies of the descriptors are closed,
  // which leaves the parent's lock in place (it belongs to the open file description).
  //
  // Takes no lock: a parent thread may have held any of them at the fork (generators_mutex_ in
  // generator(), writer_mutex_ across a sync, the keeper's across a store call), and in the child
  // no thread is left to unlock it. Nor does it need one: the child has one thread, and what it
  // touches was set in start() and not changed since (keeper_, thread_, file_, which only close()
  // resets, and close() here is this function). Idempotent: file_ is null the second time.
  // DURABILITY.md, "Threads and locks", has the whole lock order.
  std::error_code close_in_forked_child() {
    closed_ = true;  // single-threaded here: no other thread reads it in the child
    // The lease is the parent's: releasing it from here would hand its window on while the parent
    // issues in it, and the keeper's thread is the parent's too. So the keeper is left alone: not
    // closed, and not destroyed either (~Runtime leaks the Impl in a forked child), which keeps
    // binding() and metrics() working here.
    // The thread object refers to a thread of the parent: neither join it nor let its destructor
    // (which would terminate the child) run.
    (void)thread_.release();
    file_.reset();
    return {};
  }

  // Writes the next ceiling, once the file is known to be still the one at its path.
  // REQUIRES: writer_mutex_ held.
  std::error_code advance_locked(std::string* message) {
    if (fork_guard_.forked()) return make_error_code(errc::forked_process);
    if (replaced_) return replaced_error(message);
    // Before every write, not only now and then: a ceiling written into a file that a restart will
    // not read would let ids out that nothing covers (DURABILITY.md, "A replaced file").
    if (std::error_code problem = check_identity_locked(message)) return problem;
    const std::int64_t wanted =
        std::max(binding_->floor_ms(), clock_.now_ms()) + options_.ahead.count();
    std::string why;
    if (std::error_code io = file_->advance(wanted, &why)) {
      ++failures_;
      state_write_failures_.fetch_add(1, std::memory_order_relaxed);  // see state_writes_
      emit(EventKind::kStateWriteFailed, io, why);
      if (message != nullptr) *message = why;
      return io;
    }
    // Durable now: publish it (release, see Binding::ceiling_ms()).
    binding_->raise_ceiling(file_->durable_ceiling_ms());
    state_writes_.fetch_add(1, std::memory_order_relaxed);  // see state_writes_
    // A request that arrived during the write is served too: the ceiling just made durable is
    // max(floor, now) + ahead, past any tick a generator can want now.
    wanted_.store(false, std::memory_order_relaxed);
    if (failures_ > 0) {
      emit(EventKind::kStateWriteRecovered, {},
           "state file " + options_.state_file + " written again after " +
               std::to_string(failures_) + " failures");
      failures_ = 0;
    }
    emit(EventKind::kCeilingAdvanced, {},
         "ceiling " + detail::format_instant(file_->durable_ceiling_ms()),
         file_->durable_ceiling_ms());
    return {};
  }

  void run_writer() {
    std::unique_lock<std::mutex> lock(writer_mutex_);
    milliseconds backoff{0};  // 0 while writes and checks succeed
    int rounds = 0;
    bool check_due = false;
    while (!stop_) {
      if (replaced_) {
        // No more ceilings go into a file no restart will read, and every generator fails already
        // (the binding is invalidated): nothing is left to do until close(). wanted_ may stay
        // set, so it must not end this wait (it did once, and the loop spun holding the lock
        // close() needs).
        wake_.wait(lock, [this] { return stop_; });
        break;
      }
      const std::int64_t half = options_.ahead.count() / 2;
      const bool due = wanted_.load(std::memory_order_relaxed) ||
                       binding_->ceiling_ms() - clock_.now_ms() < half;
      if (due || check_due) {
        // A failed write or check is retried whole after a back-off from 100 ms doubling to
        // ahead/4; the generators go on up to the durable ceiling meanwhile.
        const std::error_code failed =
            due ? advance_locked(nullptr) : check_identity_locked(nullptr);
        if (replaced_) continue;
        backoff = failed ? std::clamp(backoff * 2, kFirstBackoff,
                                      std::max(kFirstBackoff, options_.ahead / 4))
                         : milliseconds(0);
        check_due = failed && !due;  // a failed check is retried as a failed write is
      }
      if (++rounds % kIdentityRounds == 0) check_due = true;
      if (backoff.count() > 0) {
        wake_.wait_for(lock, backoff, [this] { return stop_; });
      } else {
        const std::int64_t until_due = binding_->ceiling_ms() - clock_.now_ms() - half;
        const milliseconds idle = std::clamp(milliseconds(until_due), milliseconds(1), kMaxIdle);
        wake_.wait_for(lock, idle,
                       [this] { return stop_ || wanted_.load(std::memory_order_relaxed); });
      }
    }
  }

  // Checks that the state file is still the one at its path. A real change (removed, renamed,
  // replaced, linked, resized) stops all further writes for good and fails every generator with
  // state_file_replaced; a failed stat is only a failed attempt, reported and retried like a
  // failed write. REQUIRES: writer_mutex_ held, !replaced_.
  std::error_code check_identity_locked(std::string* message) {
    std::string why;
    const std::error_code problem = file_->check_identity(&why);
    if (!problem) return {};
    if (problem == errc::state_file_replaced) {
      replaced_ = true;
      replaced_why_ = why;
      // Also the ids below the durable ceiling stop: that ceiling lives in a file a restart will
      // not read, so ids issued under it from now on could be issued again after a restart.
      binding_->invalidate(errc::state_file_replaced);
      emit(EventKind::kStateFileReplaced, problem, replaced_message());
      return replaced_error(message);
    }
    ++failures_;
    state_write_failures_.fetch_add(1, std::memory_order_relaxed);  // see state_writes_
    why +=
        "; no ceiling is written until the check succeeds (it is retried): ids go on up to "
        "the durable ceiling " +
        detail::format_instant(file_->durable_ceiling_ms()) + " meanwhile";
    emit(EventKind::kStateWriteFailed, problem, why);
    if (message != nullptr) *message = why;
    return problem;
  }

  std::string replaced_message() const {
    return replaced_why_ +
           ": no more ceilings are written and no more ids are issued; stop the process, undo the "
           "change (the file alone under its name, 8192 bytes) or create a new file with `cosid "
           "state init` and a not-before after the last id issued, and restart";
  }

  // REQUIRES: writer_mutex_ held, replaced_.
  std::error_code replaced_error(std::string* message) const {
    if (message != nullptr) *message = replaced_message();
    return make_error_code(errc::state_file_replaced);
  }

  void emit(EventKind kind, std::error_code code, std::string text, std::int64_t ceiling = 0) {
    if (environment_.listener == nullptr) return;
    Event event{kind, code, std::move(text), ceiling};
    environment_.listener->on_event(event);
  }

  const Options options_;
  const RuntimeEnvironment environment_;
  SystemClock system_clock_;
  Clock& clock_;
  FileSystem& fs_;
  std::unique_ptr<StateFile> file_;
  std::unique_ptr<Binding> binding_;

  std::mutex generators_mutex_;  // guards generator_ and closed_
  std::unique_ptr<Generator> generator_;
  bool closed_ = false;

  std::mutex writer_mutex_;  // guards file_ writes and the fields below
  std::condition_variable wake_;
  bool stop_ = false;
  std::atomic<bool> wanted_{false};  // set without the lock by a waiting generator
  bool replaced_ = false;
  std::string replaced_why_;  // what check_identity() said, once replaced_
  int failures_ = 0;
  // Written under writer_mutex_ (or in start(), before any other thread), read by metrics()
  // without it. Relaxed: each is a counter that publishes no other data, and a snapshot promises
  // no order between its fields, only that each was exact at some moment during the call.
  std::atomic<std::uint64_t> state_writes_{0};
  std::atomic<std::uint64_t> state_write_failures_{0};
  std::unique_ptr<detail::BackgroundThread> thread_;
  detail::ForkGuard fork_guard_;

  // With a lease store (start_leased()); the static fields above are then unused.
  std::unique_ptr<lease::StoreRegistry> own_stores_;  // when the environment gives none
  std::shared_ptr<lease::SlotLeaseStore> store_;
  KeeperEvents keeper_events_{*this};
  std::unique_ptr<lease::LeaseKeeper> keeper_;
  mutable std::atomic<const Binding*> latest_{nullptr};  // for the accessors
  // Under generators_mutex_: the binding and generation generator_ was made for, and the
  // generators of lost leases.
  Binding* generator_binding_ = nullptr;
  std::uint64_t generator_generation_ = 0;
  std::vector<std::pair<const Binding*, std::unique_ptr<Generator>>> retired_;
};

Runtime::Runtime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Runtime::~Runtime() {
  // In a forked child, close as close() does there (no lock, nothing written) and leak the rest:
  // destroying it would destroy the keeper (which releases the parent's lease), and the locks and
  // condition variables a parent thread may have held or waited on at the fork (destroying a
  // condition variable with a waiter blocks in glibc, and that waiter is not in the child).
  if (impl_ != nullptr && impl_->forked()) {
    (void)impl_->close(nullptr);
    (void)impl_.release();
  }
}

std::unique_ptr<Runtime> Runtime::open(const Options& options,
                                       const RuntimeEnvironment& environment, std::error_code& ec,
                                       std::string* message) {
  auto impl = std::make_unique<Impl>(options, environment);
  if (!impl->start(ec, message)) return nullptr;
  return std::unique_ptr<Runtime>(new Runtime(std::move(impl)));
}

#if COSID_HAS_EXCEPTIONS
std::unique_ptr<Runtime> Runtime::open(const Options& options,
                                       const RuntimeEnvironment& environment) {
  std::error_code ec;
  std::string message;
  auto runtime = open(options, environment, ec, &message);
  if (!runtime) detail::throw_error(ec, message);
  return runtime;
}

Generator& Runtime::generator(std::string_view name) {
  std::error_code ec;
  Generator* generator = impl_->generator(name, ec);
  if (generator == nullptr) detail::throw_error(ec, "");
  return *generator;
}
#endif

Generator* Runtime::generator(std::string_view name, std::error_code& ec) noexcept {
  return impl_->generator(name, ec);
}

std::error_code Runtime::maintain(std::string* message) {
  // Before any lock: in a forked child a parent thread may have held one at the fork; and the
  // window being maintained is the parent's.
  if (impl_->forked()) {
    if (message != nullptr) {
      *message =
          "this runtime was opened in the parent of this forked process, whose window it holds: "
          "open a new runtime in the child, with its own slot and state file";
    }
    return make_error_code(errc::forked_process);
  }
  return impl_->maintain(message);
}
std::error_code Runtime::close(std::string* message) { return impl_->close(message); }
std::uint32_t Runtime::slot() const noexcept { return impl_->binding().slot(); }
std::int64_t Runtime::floor_ms() const noexcept { return impl_->binding().floor_ms(); }
std::int64_t Runtime::ceiling_ms() const noexcept { return impl_->binding().ceiling_ms(); }
const Options& Runtime::options() const noexcept { return impl_->options(); }
RuntimeMetrics Runtime::metrics() const noexcept { return impl_->metrics(); }

}  // namespace cosid
