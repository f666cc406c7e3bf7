// SPDX-License-Identifier: Apache-2.0
// Runtime: a process's hold on one slot (static, or leased from a store), and the generators that
// issue ids on it.
//
// Runtime::open() resolves the window for the slot: with a state file, floor = max(ceiling in
// the file, not-before), then it waits (within Options::start_wait) for the clock to pass the
// floor, makes ceiling = max(floor, now) + ahead durable, and only then hands out generators (with
// Options::start = StartMode::kBorrow and a floor at most ahead ahead of the clock it does not
// wait: the generator issues from the first tick past the floor, ids' time ahead of the clock by at
// most that gap; event kBorrowingAhead). A background thread writes the next ceiling whenever less
// than ahead/2 remains, and at once when a generator waits at the ceiling; a failed write keeps
// the old ceiling and is retried whole with back-off. Before every write, and about once a second
// besides, the writer checks that the file is still the one at its path: once it was removed,
// renamed, replaced, linked or resized, no ceiling is written any more (a restart would not read
// it) and every generator fails with errc::state_file_replaced, also below the durable ceiling; a
// stat that fails (EIO) is retried like a failed write. Without a state file the window is
// (not-before, end of layout]: nothing then protects against a clock set back across a restart, and
// a warning event says so.
//
// close() is ordered: every generator is closed and reports its last timestamp, the
// background thread stops (after the write in progress, if any), the largest timestamp is written
// as the ceiling with the clean-shutdown flag (so a clean restart issues at once), and the file is
// closed, releasing its lock.
//
// With a lease store (Options::store_type other than "static") the slot is leased instead: the
// store is opened through the StoreRegistry of the environment, the runtime's lease keeper
// leases a slot, renews it on the background thread and publishes each renewed ceiling; start-up
// waits for the clock to pass the lease's floor as above. When the lease is lost, the generator
// handed out so far fails with errc::slot_lost for good, and generator() hands out a new one over
// the new slot once the keeper has leased it (null with slot_lost until then). close() closes every
// generator, stops the thread (after the store call in progress, if any), then releases the lease
// with the last timestamp.
//
// Thread safety: generator(), the accessors and close() may be called from any thread. The
// generators it hands out follow generator.h. Destroying the Runtime closes it; no generator may
// be in use then. generator(), the accessors and metrics() never wait for a store call or a
// sync in progress; maintain() and close() wait at most for the one in progress. In a child forked
// from the process that opened it, no call waits for a lock (a parent thread may have held one at
// the fork): generator() and maintain() fail with errc::forked_process, close() writes and releases
// nothing (the window is the parent's), and destroying the Runtime there leaks it rather than close
// what belongs to the parent.
#ifndef COSID_RUNTIME_H_
#define COSID_RUNTIME_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>

#include "cosid/clock.h"
#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/events.h"
#include "cosid/export.h"
#include "cosid/fs.h"
#include "cosid/generator.h"
#include "cosid/metrics.h"
#include "cosid/options.h"

namespace cosid {

class StoreRegistry;  // cosid/store_registry.h
namespace detail {
struct RuntimeStart;  // src/runtime_keeper.h
}  // namespace detail

// The seams and knobs a program or a test may set. Every pointer may be null for the default and
// must otherwise outlive the Runtime.
struct COSID_EXPORT RuntimeEnvironment {
  Clock* clock = nullptr;             // default: the system clock
  FileSystem* fs = nullptr;           // default: posix_file_system()
  EventListener* listener = nullptr;  // default: events are dropped
  // With false, no thread is started: the ceiling is renewed by maintain() and, when a generator
  // reaches it, by the waiting thread itself. For tools that want no threads. With a lease store
  // a waiting generator makes no store call (no store call has a bound its wait could cover): it
  // waits, within GeneratorOptions::ceiling, for a renewal running now or for the next
  // maintain(), which then renews at once; call maintain() at least every ttl/3.
  bool background_thread = true;
  GeneratorOptions generator;  // wait bounds and drift of the generators
  // The lease stores Options::store_type may name. Default: a registry of this runtime alone,
  // which knows file but refuses memory (a memory store private to one runtime would give every
  // runtime of the process slot 0: runtimes share a memory store through one registry).
  StoreRegistry* stores = nullptr;
  // Cancels open(): once *cancel is true, open() stops at its next look (before each step of the
  // start, in every slice of the wait for the floor and of the wait for the state file's lock
  // (lock_wait), between the retries of a lease acquire that found every slot held; a sync or a
  // store call in progress runs to its end, and the look comes right after it), undoes what it
  // did and fails with errc::cancelled: a lease acquired is released with nothing issued (so the
  // slot's next floor stays where it was safe), a first ceiling written is closed with the
  // clean-shutdown flag at the floor, and the state file's lock is released. A std::atomic<bool>
  // is lock-free on every target cosid builds for, so a signal handler may set it (relaxed is
  // enough: the flag publishes no data). Read only during open(); null: open() cannot be
  // cancelled.
  const std::atomic<bool>* cancel = nullptr;
};

class COSID_EXPORT Runtime {
 public:
  // Opens the slot's window as the header comment says. Fails with the state file's errors,
  // errc::clock_behind_floor (the clock is at or before the floor, by more than start_wait could
  // make up: at once for a gap larger than start_wait, else once start_wait ran out; the message
  // states the gap and when ids can be issued), a layout error, errc::slot_out_of_range, or the
  // errno of a background thread that cannot be started (generic category: EAGAIN under a low
  // `ulimit -u`); with a store also unknown_store_type, lease_exhausted, lease_terms_mismatch,
  // store_unavailable or store_corrupt; with errc::cancelled once RuntimeEnvironment::cancel was
  // set; then returns null and `status` explains. Nothing was issued then.
  [[nodiscard]] static std::unique_ptr<Runtime> open(const Options& options,
                                                     const RuntimeEnvironment& environment,
                                                     Status& status);
#if COSID_HAS_EXCEPTIONS
  static std::unique_ptr<Runtime> open(const Options& options,
                                       const RuntimeEnvironment& environment = {});
#endif
  // open() for a static slot only (fails with invalid_argument when Options::store_type names a
  // store): the same checks, messages and start, but a program that calls no open() links no
  // lease store, store registry or store option check (tests/size/README.md).
  [[nodiscard]] static std::unique_ptr<Runtime> open_static(const Options& options,
                                                            const RuntimeEnvironment& environment,
                                                            Status& status);
#if COSID_HAS_EXCEPTIONS
  static std::unique_ptr<Runtime> open_static(const Options& options,
                                              const RuntimeEnvironment& environment = {});
#endif
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // The generator for `name`, made on first use. Every name gets the same generator: the slot's
  // window admits one sequence of (timestamp, sequence) pairs, and two generators each running
  // their own sequence on one slot would issue equal ids. So ids are unique across the whole
  // runtime whatever names are used; the name is reserved for per-name metrics. Null with
  // errc::closed after close(). The pointer stays valid for the Runtime's life. With a store, a
  // generator whose lease was lost fails with slot_lost; call generator() again for the one over
  // the new slot (null with slot_lost until the new slot is leased). On failure `status` says
  // why, and the throwing overload throws it.
  [[nodiscard]] Generator* generator(std::string_view name, Status& status);
#if COSID_HAS_EXCEPTIONS
  Generator& generator(std::string_view name = "default");
#endif

  // Renews the ceiling if less than ahead/2 remains (with a store: renews the lease, or leases a
  // new slot, when due). Only needed without a background thread. May wait for a sync or a store
  // call in progress. False with the failure in `status` (a write that failed, a replaced state
  // file, forked_process); with a store always true, since the keeper retries failed renewals and
  // reports them as events.
  bool maintain(Status& status);

  // Ordered shutdown (header comment). Idempotent. Waits at most for the sync or the store call in
  // progress. A failure here is reported but harmless: the durable ceiling on disk is at least
  // every timestamp issued.
  bool close(Status& status);
#if COSID_HAS_EXCEPTIONS
  // The same; throws cosid::Error with the message on failure (the runtime is closed either way).
  void close();
#endif

  // The slot and window of the current binding (with a store: the latest lease's, which after a
  // loss is the lost one until a new slot is leased).
  std::uint32_t slot() const noexcept;
  std::int64_t floor_ms() const noexcept;
  std::int64_t ceiling_ms() const noexcept;
  const Options& options() const noexcept;

  // A snapshot of the counters, the window and the slot (metrics.h), for a scrape or a log line;
  // to_prometheus() prints it. Takes a short lock shared with generator(), never one the
  // generators' next() takes, nor one held across a sync or a store call. The lease fields stay
  // 0 for a static slot, the state-file fields with a store. Valid after close() too (the counts
  // are final then).
  RuntimeMetrics metrics() const noexcept;

 private:
  class Impl;
  explicit Runtime(std::unique_ptr<Impl> impl);
  // What open() and open_static() share; `how` is the check and the keeper each allows.
  COSID_NO_EXPORT static std::unique_ptr<Runtime> open_with(const detail::RuntimeStart& how,
                                                            const Options& options,
                                                            const RuntimeEnvironment& environment,
                                                            Status& status);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosid

#endif  // COSID_RUNTIME_H_
