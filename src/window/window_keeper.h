// SPDX-License-Identifier: Apache-2.0
// Internal: a source of windows for one runtime (WindowKeeper), its two implementations (the state
// file's StateFileKeeper, state_file_keeper.h; the lease store's LeaseKeeper, lease/keeper.h), and
// the one background loop that drives either (KeeperLoop).
//
// A keeper starts by resolving the floor (the state file's ceiling, or a lease's floor), lets the
// runtime wait for the clock to pass it, makes the first ceiling durable and publishes a Binding.
// From then on maintain() and round() renew the ceiling when due (a new ceiling in the state file,
// a lease renewal in the store), each durable before it is published (Binding::raise_ceiling()).
// close() takes the last timestamp issued on each binding and records it (the clean-shutdown
// flag of the state file, the release of the lease). Both report through the runtime's one
// EventListener with the runtime's one EventKind.
//
// Lock order. Every lock of a runtime, its keeper and its loop (I/O: held across a sync or a
// store call; with: what may be held while taking it):
//
// clang-format off
//   lock                       guards                     taken by                        I/O  with
//   Runtime generators_mutex_  the generators, closed_    generator(), metrics(),         no   nothing
//                                                         close() step 1
//   StateFileKeeper mutex_     the file's writes, the     maintain(), round(), close();   one  nothing
//                              writer's fields            a waiting next() inline only    sync
//                                                         with try_lock
//   LeaseKeeper mutex_         the store calls, the       start(), maintain(), round(),   one  nothing
//                              keeper's state             close()                         call
//   LeaseKeeper lease_mutex_   the copy lease() returns   its writers, lease()            no   its mutex_
//   KeeperLoop mutex_          stop_, woken_              a waiting next() (wake()), the  no   nothing
//                                                         loop's sleep, close() (stop())
// clang-format on
//
// None nests with another, except lease_mutex_, taken under the LeaseKeeper's mutex_ for the copy
// alone; none but the keepers' mutex_ is held across I/O or a store call. generators_mutex_ is
// released before a keeper is called, and a keeper calls into no Runtime and no loop under its
// mutex_ (a binding's ceiling wish, which wakes the loop, runs on a generator's thread holding
// none of these). So:
//   - the two locks held across I/O (the keepers' mutex_) are taken only by calls that are
//     documented to do that I/O (maintain(), close(), the loop): generator(), next(), the
//     accessors and metrics() never wait for a sync or a store call (a waiting next() only
//     try-locks the state file keeper's, inline, and renews if it got it);
//   - a forked child takes none: Runtime's calls check the fork guard first, binding() and stats()
//     are lock-free (an atomic pointer, atomic counters, the atomic words of the state file
//     keeper's sync times, sync_times.h), metrics() only tries generators_mutex_,
//     and close() there joins nothing and writes nothing (fork_guard.h);
//   - close() waits only for the sync or the store call in progress: KeeperLoop::stop() joins the
//     loop's round in progress (one such call at most), and the keeper's close() takes its mutex_,
//     which a maintain() holds across one such call at most. The loop sleeps holding no lock a
//     round or close() needs, and its sleep, also the sleep until close() after a fatal failure
//     (kNever), ends at stop().
// How to check it: the TSan preset runs tests/window/keeper_freeze_test.cc, tests/runtime_test.cc,
// tests/lease/lease_runtime_test.cc and tests/lease/lease_keeper_test.cc; keeper_freeze_test
// freezes a state-file sync and a store call, inside the loop's round and inside an owner's
// maintain(), and calls every public method of Runtime from another thread meanwhile: each must
// return, and maintain() and close() must finish once the frozen call ends.
//
// Thread safety: as each class says.
#ifndef COSID_SRC_WINDOW_WINDOW_KEEPER_H_
#define COSID_SRC_WINDOW_WINDOW_KEEPER_H_

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "base/background_thread.h"
#include "base/fail.h"
#include "cosid/binding.h"
#include "cosid/error.h"
#include "cosid/events.h"

namespace cosid {
namespace detail {

// The back-off of a failed renewal (a write, a check, a store call), the same for both keepers:
// from kFirstBackoff, doubling, up to a keeper's maximum.
constexpr std::chrono::milliseconds kFirstBackoff{100};
// The loop looks at the clock at least this often, so a clock that jumps forward (or a suspended
// VM, or a test's ManualClock) is noticed even while nothing seemed due.
constexpr std::chrono::milliseconds kMaxIdle{200};
// A round's wait meaning "nothing is left to do until close()".
constexpr std::chrono::milliseconds kNever = std::chrono::milliseconds::max();

class Backoff {
 public:
  explicit Backoff(std::chrono::milliseconds max) noexcept : max_(std::max(kFirstBackoff, max)) {}
  // After a failure: the wait before the next attempt, doubled from the last one.
  std::chrono::milliseconds failed() noexcept {
    current_ = std::clamp(current_ * 2, kFirstBackoff, max_);
    return current_;
  }
  void succeeded() noexcept { current_ = std::chrono::milliseconds(0); }
  std::chrono::milliseconds current() const noexcept { return current_; }

 private:
  const std::chrono::milliseconds max_;
  std::chrono::milliseconds current_{0};
};

// What a round of the loop asks of it: sleep up to `wait` (at most kMaxIdle, at least 1 ms; kNever:
// until stop), cut short by a wake() only when `wakeable` (a back-off is not: the retry waits it
// out whatever a generator wants).
struct NextRound {
  std::chrono::milliseconds wait;
  bool wakeable = true;
};

// Counts of what a keeper did; every field but state_sync_max_us only grows. The state file
// keeper fills the first four, the lease keeper the rest (metrics.h names each).
struct KeeperStats {
  std::uint64_t state_writes = 0;          // ceilings made durable, the first one included
  std::uint64_t state_write_failures = 0;  // failed writes and failed identity checks
  std::uint64_t state_slow_syncs = 0;      // attempts to write a ceiling that took > ahead/4
  std::int64_t state_sync_max_us = 0;      // the longest attempt of the last minute (us)
  std::uint64_t acquisitions = 0;          // slots leased: 1 at start, +1 after every loss
  std::uint64_t renewals = 0;              // renewals that succeeded
  std::uint64_t renewal_failures = 0;      // renewals (and new leases after a loss) that failed
  std::uint64_t losses = 0;                // leases found gone
};

// Lets the runtime wait for the clock to pass a keeper's floor at start (and refuse a floor past
// the layout). May raise `floor` (to the epoch's); fails with the refusal.
using FloorWait = std::function<bool(std::int64_t& floor, std::uint32_t slot, Status& status)>;

// Passes an event to `listener`, if there is one, on the calling thread.
inline void emit_event(EventListener* listener, const Event& event) noexcept {
  if (listener != nullptr) listener->on_event(event);
}

class WindowKeeper {
 public:
  virtual ~WindowKeeper() = default;

  // Resolves the floor, calls `wait_for_floor` (may be empty) with it, makes the first window
  // durable and publishes its binding. On failure nothing was issued; close() then records
  // nothing that could roll a ceiling back.
  virtual bool start(const FloorWait& wait_for_floor, Status& status) = 0;

  // The current binding, and its generation (1 for the first, +1 for every new one after a
  // lost lease); null with slot_lost between a loss and the next lease, with closed after close().
  // Lock-free (one atomic load): never waits for a sync or a store call; safe in a forked child.
  // The pointer stays valid for the keeper's life.
  virtual Binding* binding(std::uint64_t& generation, std::error_code& ec) noexcept = 0;

  // The owner's maintain(): does what is due now (a new ceiling, a renewal, a new lease), with no
  // back-off, and reports a failure it cannot retry itself. May do one sync or store call.
  virtual bool maintain(Status& status) = 0;

  // One round of the background loop: does what is due now, retries after a back-off, and says
  // when the next round is due. Failures are reported as events and retried.
  virtual NextRound round() noexcept = 0;

  // Ordered shutdown, after every generator was closed and the loop stopped: `last_issued(b)` is
  // the last timestamp issued under binding b (its floor if none). Idempotent. A failure is
  // reported but harmless: the durable ceiling is at least every timestamp issued.
  virtual bool close(const std::function<std::int64_t(const Binding&)>& last_issued,
                     Status& status) = 0;

  // Whether the keeper has rounds to run (a background loop to start): false for a static slot
  // without a state file, whose window never changes.
  virtual bool has_rounds() const noexcept = 0;

  // In a forked child, instead of close(): takes no lock, writes and releases nothing (the window
  // is the parent's), and drops the child's copies of the descriptors.
  virtual void abandon_in_forked_child() noexcept = 0;

  // Lock-free, each counter exact at some moment during the call.
  virtual KeeperStats stats() const noexcept = 0;
};

// The one background thread of a runtime: round() when due, then sleep until the next round is
// due, a wake(), or stop().
//
// Thread safety: wake() may be called from any thread, start() and stop() by the owner. mutex_
// guards stop_ and woken_ alone and is never held across a round (a sync or a store call).
class KeeperLoop {
 public:
  KeeperLoop() = default;
  ~KeeperLoop() { stop(); }
  KeeperLoop(const KeeperLoop&) = delete;
  KeeperLoop& operator=(const KeeperLoop&) = delete;

  // Starts the thread over `keeper`. On failure (generic category, EAGAIN under a low `ulimit -u`)
  // no thread runs and the message names `whose` thread it is ("runtime's", "lease keeper's").
  // REQUIRES: `keeper` outlives the loop's thread (stop() ends it).
  bool start(WindowKeeper& keeper, const char* whose, Status& status) {
    keeper_ = &keeper;
    auto thread = std::make_unique<BackgroundThread>();
    if (std::error_code failed = thread->start<KeeperLoop, &KeeperLoop::run>(this)) {
      return fail(status, failed, thread_start_failure(whose, failed));
    }
    thread_ = std::move(thread);
    return true;
  }

  // A generator waits at the ceiling: the next round runs now, unless a back-off is being waited
  // out. Cannot be lost: woken_ stays set until the loop's next round begins.
  void wake() noexcept {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      woken_ = true;
    }
    wake_.notify_one();
  }

  // Ends the loop after its round in progress (one sync or one store call at most) and joins the
  // thread. Idempotent.
  void stop() noexcept {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_) thread_->join();
    thread_.reset();
  }

  // In a forked child: the thread is the parent's; neither join it nor let its destructor run.
  void abandon_in_forked_child() noexcept { (void)thread_.release(); }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      woken_ = false;
      lock.unlock();
      const NextRound next = keeper_->round();  // no lock of the loop's across the I/O
      lock.lock();
      if (next.wait == kNever) {
        // Nothing is left to do: a wake() must not end this wait (it once did, and the writer
        // spun, holding the lock close() needed).
        wake_.wait(lock, [this] { return stop_; });
      } else {
        const auto idle = std::clamp(next.wait, std::chrono::milliseconds(1), kMaxIdle);
        const bool wakeable = next.wakeable;
        wake_.wait_for(lock, idle, [this, wakeable] { return stop_ || (wakeable && woken_); });
      }
    }
  }

  WindowKeeper* keeper_ = nullptr;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool woken_ = false;
  std::unique_ptr<BackgroundThread> thread_;
};

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_WINDOW_WINDOW_KEEPER_H_
