// SPDX-License-Identifier: Apache-2.0
// Test seams that freeze a runtime's I/O inside a call, so a test can call the runtime from
// another thread meanwhile: LatchedStore (a store whose next renewal stops in a Gate), FrozenSyncFs
// (a MemoryFs whose next sync stops in one), add_latched_store(), and returns_without_waiting() (a
// bounded wait for a call that must not wait for the frozen one). And SlowSyncFs, whose fdatasyncs
// take as long as the test says on a ManualClock, without waiting.
#ifndef COSID_TESTS_SUPPORT_FROZEN_CALLS_H_
#define COSID_TESTS_SUPPORT_FROZEN_CALLS_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "cosid/clock.h"
#include "cosid/lease/memory_store.h"
#include "cosid/lease/store.h"
#include "cosid/store_registry.h"
#include "gate.h"
#include "memory_fs.h"

namespace cosid::testing {

// A MemoryLeaseStore whose next renewal after block_next_renewal() stops in `gate` until the test
// opens it: a store call that takes as long as the test wants, with the keeper's lock held.
class LatchedStore final : public lease::SlotLeaseStore {
 public:
  explicit LatchedStore(Clock& clock) : inner_(clock) {}

  bool scan(const std::string& name_space, const lease::NamespaceTerms& terms,
            std::vector<lease::SlotRecord>& records, std::int64_t& store_now,
            Status& status) override {
    return inner_.scan(name_space, terms, records, store_now, status);
  }
  bool acquire(const lease::AcquireRequest& request, lease::AcquireOutcome& outcome,
               lease::SlotLease& lease, lease::SlotRecord& record, Status& status) override {
    return inner_.acquire(request, outcome, lease, record, status);
  }
  bool renew(const lease::SlotLease& held, const lease::NamespaceTerms& terms,
             std::chrono::milliseconds ttl, lease::SlotLease& renewed, Status& status) override {
    renewals_.fetch_add(1);
    if (block_.exchange(false)) gate.pass();
    return inner_.renew(held, terms, ttl, renewed, status);
  }
  bool release(const lease::SlotLease& held, const lease::NamespaceTerms& terms,
               std::int64_t last_issued, Status& status) override {
    return inner_.release(held, terms, last_issued, status);
  }
  bool fence(const std::string& name_space, const lease::NamespaceTerms& terms, std::uint32_t slot,
             std::int64_t not_before, lease::FenceResult& result, Status& status) override {
    return inner_.fence(name_space, terms, slot, not_before, result, status);
  }

  void block_next_renewal() { block_.store(true); }
  int renewals() const { return renewals_.load(); }

  Gate gate;

 private:
  lease::MemoryLeaseStore inner_;
  std::atomic<bool> block_{false};
  std::atomic<int> renewals_{0};
};

// Runs `call` on a thread of its own and waits for it, at most kHangBound: true if it returned
// within the bound (kHangBound unless given). If it did not, `unblock` runs (so the thread can
// finish) and false is returned.
inline bool returns_without_waiting(const std::function<void()>& call,
                                    const std::function<void()>& unblock,
                                    std::chrono::milliseconds bound = kHangBound) {
  std::mutex mutex;
  std::condition_variable changed;
  bool done = false;
  std::thread thread([&] {
    call();
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    changed.notify_all();
  });
  bool in_time = false;
  {
    std::unique_lock<std::mutex> lock(mutex);
    in_time = changed.wait_for(lock, bound, [&] { return done; });
  }
  if (!in_time) unblock();
  thread.join();
  return in_time;
}

// Registers `store` in `stores` under the type "latched".
inline bool add_latched_store(StoreRegistry& stores, std::shared_ptr<LatchedStore> store) {
  Status status;
  return stores.add(
      "latched", [store](const StoreContext&, Status&) { return store; }, status);
}

// A MemoryFs whose next sync (sync or sync_data) after freeze_next_sync() stops in `gate` until
// the test opens it: a sync that takes as long as the test wants, inside whatever call made it.
class FrozenSyncFs final : public MemoryFs {
 public:
  std::error_code sync(int fd) override {
    if (armed_.exchange(false)) gate.pass();
    return MemoryFs::sync(fd);
  }
  std::error_code sync_data(int fd) override {
    if (armed_.exchange(false)) gate.pass();
    return MemoryFs::sync_data(fd);
  }

  void freeze_next_sync() { armed_.store(true); }

  Gate gate;

 private:
  std::atomic<bool> armed_{false};
};

// A MemoryFs whose every fdatasync (sync_data) lets a chosen time pass on a ManualClock before it
// returns: a slow disk, as the state file keeper's monotonic measurement sees it, at no cost in
// real time. A ceiling's write makes two fdatasyncs (one per block): it takes twice the time.
class SlowSyncFs final : public MemoryFs {
 public:
  // From now on every fdatasync lets `each` pass on `clock` (0: none). `clock` outlives the calls.
  void slow_syncs(ManualClock& clock, std::chrono::nanoseconds each) {
    std::lock_guard<std::mutex> lock(mutex_);
    clock_ = &clock;
    each_ = each;
  }

  std::error_code sync_data(int fd) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (clock_ != nullptr && each_.count() > 0) clock_->advance(each_);
    }
    return MemoryFs::sync_data(fd);
  }

 private:
  std::mutex mutex_;
  ManualClock* clock_ = nullptr;
  std::chrono::nanoseconds each_{0};
};

}  // namespace cosid::testing

#endif  // COSID_TESTS_SUPPORT_FROZEN_CALLS_H_
