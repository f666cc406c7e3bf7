// SPDX-License-Identifier: Apache-2.0
#include "cosid/runtime.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/fail.h"
#include "base/fork_guard.h"
#include "base/parse_util.h"
#include "config/options_values.h"
#include "runtime_floor.h"
#include "runtime_keeper.h"
#include "window/state_file_keeper.h"
#include "window/window_keeper.h"

namespace cosid {

namespace {

// The sentences of this file's refusals, at its end, so that each path reads without stepping
// over text.
std::string forked_child_message();
// generator()'s, for a binding it cannot hand a generator out over.
std::string no_binding_message(std::error_code ec);
std::string static_slot_with_store_message(const std::string& store_type);

// What makes the window's ceiling durable, for the generators' ceiling_reached message: the state
// file or the lease store actually in use (empty without either: the ceiling is the layout's end).
std::string ceiling_keeper(const Options& options) {
  if (options.uses_store()) {
    const bool file = options.store_type == "file" && !options.store_directory.empty();
    return "the lease store " + options.store_type + (file ? ":" + options.store_directory : "");
  }
  return options.state_file.empty() ? std::string() : "the state file " + options.state_file;
}

// The generators' options: the caller's, with max_step_back lowered to what the window covers
// between renewals, and max_drift to half that, so that ids borrowing ahead of the clock (set back,
// or under a burst) never reach the durable ceiling before a renewal could raise it. A state
// file's ceiling is renewed to now + ahead once it is less than ahead / 2 ahead of the clock; a
// lease's every ttl / 3, to about now + ttl. Lowering either costs throughput at most, never
// uniqueness, which the ceiling alone keeps.
GeneratorOptions generator_options(const Options& options, GeneratorOptions generator) {
  const std::chrono::milliseconds covered =
      options.uses_store() ? options.ttl / 4 : options.ahead / 2;
  generator.max_step_back = std::min(generator.max_step_back, covered);
  generator.max_drift = std::min(generator.max_drift, covered / 2);
  generator.ceiling_keeper = ceiling_keeper(options);
  return generator;
}

// open_static()'s check of the options: a static slot's, as validate_options() checks them and
// with its messages, and no store (whose keeper open_static() does not link).
bool validate_static_slot(const Options& options, Status& status) {
  if (options.uses_store()) {
    return detail::fail(status, make_error_code(errc::invalid_argument),
                        static_slot_with_store_message(options.store_type));
  }
  return detail::validate_static_options(options, status);
}

}  // namespace

namespace detail {

std::unique_ptr<WindowKeeper> open_state_file_keeper(const Options& options,
                                                     const RuntimeEnvironment& environment,
                                                     Clock& clock, FileSystem& fs,
                                                     ForkGuard& fork_guard, KeeperLoop* loop,
                                                     Status& /*status*/) {
  return std::make_unique<StateFileKeeper>(options, clock, fs, environment.listener, fork_guard,
                                           loop, environment.cancel);
}

}  // namespace detail

// The Runtime: one keeper (the state file's or the lease store's, window_keeper.h), the generator
// over the keeper's binding, and one background loop that drives the keeper.
class COSID_NO_EXPORT Runtime::Impl final {
 public:
  Impl(const Options& options, const RuntimeEnvironment& environment)
      : options_(options),
        environment_(environment),
        generator_options_(generator_options(options, environment.generator)),
        clock_(environment.clock != nullptr ? *environment.clock : system_clock_),
        fs_(environment.fs != nullptr ? *environment.fs : posix_file_system()) {}

  ~Impl() {
    Status ignored;
    (void)close(ignored);
    // The generators go before the keeper that owns their bindings.
    generator_.reset();
    retired_.clear();
  }

  // `how`: the check of the options and the keeper this start may open (runtime_keeper.h).
  bool start(const detail::RuntimeStart& how, Status& status) {
    if (!how.validate(options_, status)) return false;
    if (!options_.layout.validate_at(clock_.now_ms(), status)) return false;
    if (!go_on("before anything was opened", status)) return false;
    detail::KeeperLoop* loop = environment_.background_thread ? &loop_ : nullptr;
    keeper_ = how.open_keeper(options_, environment_, clock_, fs_, fork_guard_, loop, status);
    if (!keeper_) return false;
    if (options_.uses_store() && !go_on("once the lease store was opened", status)) return false;
    const detail::FloorWait wait = [this](std::int64_t& floor, std::uint32_t slot,
                                          Status& failure) {
      return floor_.reach(floor, slot, failure);
    };
    // On failure close() (from the destructor) records nothing that could roll a window back:
    // nothing was issued. A cancel after the start made its first window durable is undone the
    // same way: close() then records the floor as the last timestamp (the state file's clean
    // shutdown, the lease's release), which nothing issued lies above.
    if (!keeper_->start(wait, status) || !go_on("once the first window was durable", status)) {
      return false;
    }
    if (loop != nullptr && keeper_->has_rounds() &&
        !loop_.start(*keeper_, options_.uses_store() ? "lease keeper's" : "runtime's", status)) {
      return false;
    }
    std::uint64_t generation = 0;
    std::error_code ignored;  // a keeper that started has a binding
    latest_.store(keeper_->binding(generation, ignored), std::memory_order_relaxed);
    return true;
  }

  Generator* generator(std::string_view name, Status& status) {
    // Before the lock: in a forked child a parent thread may have held it at the fork.
    if (fork_guard_.forked()) {
      detail::fail(status, make_error_code(errc::forked_process), forked_child_message());
      return nullptr;
    }
    std::lock_guard<std::mutex> lock(generators_mutex_);
    if (closed_) {
      detail::fail(status, make_error_code(errc::closed),
                   "the runtime was closed: no generator is handed out any more");
      return nullptr;
    }
    (void)name;  // every name shares the one generator: see runtime.h
    return generator_locked(status);
  }

  bool maintain(Status& status) {
    // Before any lock: in a forked child a parent thread may have held one at the fork; and the
    // window being maintained is the parent's.
    if (fork_guard_.forked()) {
      return detail::fail(status, make_error_code(errc::forked_process), forked_child_message());
    }
    return keeper_ == nullptr || keeper_->maintain(status);
  }

  // Ordered shutdown: every generator closed and its last timestamp taken, the loop
  // stopped (it waits for the round in progress, one sync or store call at most), then the
  // keeper records the last timestamps (the clean-shutdown flag, the release of the lease).
  bool close(Status& status) {
    if (fork_guard_.forked()) return close_in_forked_child();
    std::vector<std::pair<const Binding*, std::int64_t>> lasts;
    {
      std::lock_guard<std::mutex> lock(generators_mutex_);
      if (closed_) return true;
      closed_ = true;
      // Every generator stops and reports its last timestamp (the floor if it issued none),
      // so the lasts bound every id this runtime returned.
      if (generator_) lasts.emplace_back(generator_binding_, generator_->close());
      for (auto& retired : retired_) lasts.emplace_back(retired.first, retired.second->close());
    }
    // Nothing raises a window any more once the loop stopped.
    loop_.stop();
    if (keeper_ == nullptr) return true;
    return keeper_->close(
        [&lasts](const Binding& binding) {
          std::int64_t last = binding.floor_ms();
          for (const auto& entry : lasts) {
            if (entry.first == &binding) last = std::max(last, entry.second);
          }
          return last;
        },
        status);
  }

  const Options& options() const noexcept { return options_; }
  bool forked() const noexcept { return fork_guard_.forked(); }

  // The current binding, or after a lost lease the latest one. Takes no lock (the keeper's
  // binding() is one atomic load), so it never waits for a sync or a store call, and is safe in
  // a forked child.
  const Binding& binding() const noexcept {
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
    const detail::KeeperStats keeper = keeper_->stats();
    metrics.state_writes = keeper.state_writes;
    metrics.state_write_failures = keeper.state_write_failures;
    metrics.state_slow_syncs = keeper.state_slow_syncs;
    metrics.state_sync_max_us = keeper.state_sync_max_us;
    metrics.lease_renewals = keeper.renewals;
    metrics.lease_renewal_failures = keeper.renewal_failures;
    metrics.lease_losses = keeper.losses;
    const Binding& window = binding();
    metrics.slot = window.slot();
    metrics.floor_ms = window.floor_ms();
    metrics.ceiling_ms = window.ceiling_ms();
    return metrics;
  }

 private:
  // The generator over the keeper's current binding, made on first use and anew after a lost
  // lease. The one it replaces is kept, closed at close(): a caller may still hold it (it fails
  // with slot_lost). REQUIRES: generators_mutex_ held. The keeper's binding() takes no lock, so
  // generators_mutex_ is never held while a sync or a store call runs.
  Generator* generator_locked(Status& status) {
    std::uint64_t generation = 0;
    std::error_code ec;
    Binding* current = keeper_->binding(generation, ec);
    if (current == nullptr) {
      detail::fail(status, ec, no_binding_message(ec));
      return nullptr;
    }
    // A binding the keeper is losing right now (it invalidates the binding, then publishes that
    // none is current) is no generator to hand out: one over it would fail at once, and a caller
    // told "call generator() again after slot_lost" would take that for the new slot's. A binding
    // invalidated for another reason (a replaced state file) stays current: its generator reports
    // that reason.
    if (!current->valid() && current->invalid_reason() == errc::slot_lost) {
      detail::fail(status, make_error_code(errc::slot_lost), no_binding_message(errc::slot_lost));
      return nullptr;
    }
    latest_.store(current, std::memory_order_relaxed);
    if (generator_ && generation == generator_generation_) {
      status.clear();
      return generator_.get();
    }
    GeneratorOptions wanted = generator_options_;
    wanted.floor_reason =
        floor_.floor_reason(current->floor_ms(), current->slot(), generator_binding_);
    // A start that borrowed (StartFloor::reach()) has its generator issue from the first tick past
    // the floor while the clock is still behind it, instead of waiting for the clock.
    if (floor_.borrowed()) wanted.start_at_floor = true;
    std::unique_ptr<Generator> made =
        Generator::create(options_.layout, *current, clock_, wanted, status);
    if (!made) return nullptr;
    if (generator_) retired_.emplace_back(generator_binding_, std::move(generator_));
    generator_ = std::move(made);
    generator_binding_ = current;
    generator_generation_ = generation;
    return generator_.get();
  }

  // In a child forked from the process that opened the runtime: the loop's thread does not exist
  // here and the window belongs to the parent, whose ceiling a write from here could roll back and
  // whose lease a release from here would hand on while the parent issues in it. So nothing is
  // joined, written or released; the keeper drops the child's copies of its descriptors.
  //
  // Takes no lock: a parent thread may have held any of them at the fork (generators_mutex_ in
  // generator(), a keeper's across a sync or a store call), and in the child no thread is left to
  // unlock it. Nor does it need one: the child has one thread, and what it touches was set in
  // start() and not changed since. Idempotent. window_keeper.h has the whole lock order.
  bool close_in_forked_child() {
    if (closed_) return true;
    closed_ = true;  // single-threaded here: no other thread reads it in the child
    loop_.abandon_in_forked_child();
    // Not closed, and not destroyed either (~Runtime leaks the Impl in a forked child), which
    // keeps binding() and metrics() working here.
    if (keeper_) keeper_->abandon_in_forked_child();
    return true;
  }

  // The start's look at RuntimeEnvironment::cancel between its steps (runtime_floor.h).
  bool go_on(const char* when, Status& status) const {
    return detail::start_goes_on(environment_.cancel, when, status);
  }

  const Options options_;
  const RuntimeEnvironment environment_;
  const GeneratorOptions generator_options_;
  SystemClock system_clock_;
  Clock& clock_;
  FileSystem& fs_;
  detail::ForkGuard fork_guard_;
  detail::StartFloor floor_{options_, environment_, clock_, generator_options_.max_drift};
  // Declared before the keeper, which wakes it, and stopped by close() before the keeper closes.
  detail::KeeperLoop loop_;
  std::unique_ptr<detail::WindowKeeper> keeper_;
  mutable std::atomic<const Binding*> latest_{nullptr};  // for the accessors

  std::mutex generators_mutex_;  // guards the fields below
  bool closed_ = false;
  std::unique_ptr<Generator> generator_;
  // The binding and generation generator_ was made for, and the generators of lost leases.
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
    Status ignored;
    (void)impl_->close(ignored);
    (void)impl_.release();
  }
}

std::unique_ptr<Runtime> Runtime::open_with(const detail::RuntimeStart& how, const Options& options,
                                            const RuntimeEnvironment& environment, Status& status) {
  status.clear();  // every path below sets it only on failure
  auto impl = std::make_unique<Impl>(options, environment);
  if (!impl->start(how, status)) return nullptr;
  return std::unique_ptr<Runtime>(new Runtime(std::move(impl)));
}

std::unique_ptr<Runtime> Runtime::open_static(const Options& options,
                                              const RuntimeEnvironment& environment,
                                              Status& status) {
  static constexpr detail::RuntimeStart kStaticSlot{&validate_static_slot,
                                                    &detail::open_state_file_keeper};
  return open_with(kStaticSlot, options, environment, status);
}

#if COSID_HAS_EXCEPTIONS
std::unique_ptr<Runtime> Runtime::open_static(const Options& options,
                                              const RuntimeEnvironment& environment) {
  Status status;
  auto runtime = open_static(options, environment, status);
  detail::throw_if_failed(status);
  return runtime;
}

void Runtime::close() {
  Status status;
  (void)close(status);
  detail::throw_if_failed(status);
}

Generator& Runtime::generator(std::string_view name) {
  Status status;
  Generator* generator = impl_->generator(name, status);
  detail::throw_if_failed(status);
  return *generator;
}
#endif

Generator* Runtime::generator(std::string_view name, Status& status) {
  return impl_->generator(name, status);
}

// Cleared first: the paths of both set `status` only on failure.
bool Runtime::maintain(Status& status) {
  status.clear();
  return impl_->maintain(status);
}
bool Runtime::close(Status& status) {
  status.clear();
  return impl_->close(status);
}
std::uint32_t Runtime::slot() const noexcept { return impl_->binding().slot(); }
std::int64_t Runtime::floor_ms() const noexcept { return impl_->binding().floor_ms(); }
std::int64_t Runtime::ceiling_ms() const noexcept { return impl_->binding().ceiling_ms(); }
const Options& Runtime::options() const noexcept { return impl_->options(); }
RuntimeMetrics Runtime::metrics() const noexcept { return impl_->metrics(); }

// The sentences.
namespace {

std::string forked_child_message() {
  return "this runtime was opened in the parent of this forked process, whose window it holds: "
         "open a new runtime in the child, with its own slot and state file";
}

std::string no_binding_message(std::error_code ec) {
  if (ec == errc::slot_lost) {
    return "the lease was lost and no new slot is leased yet: call generator() again once it is "
           "(the runtime leases one on its own)";
  }
  return ec.message();
}

std::string static_slot_with_store_message(const std::string& store_type) {
  return "Runtime::open_static() opens a static slot, but Options::store_type is " +
         detail::quote(store_type) + ": open a slot leased from a store with Runtime::open()";
}

}  // namespace

}  // namespace cosid
