// SPDX-License-Identifier: Apache-2.0
// MemoryLeaseStore: the reference SlotLeaseStore, kept in this process's memory.
//
// For tests, for a single process whose runtimes share one store, and as the model every other
// store is checked against (the conformance kit runs on it first). It forgets everything when it
// is destroyed, and it cannot be shared with another process: two processes with a memory store
// each would both get slot 0. Use FileLeaseStore for processes on one host.
//
// The store's clock is the Clock it is given (SystemClock in production, ManualClock in tests);
// every expiry is decided on it.
//
// Thread safety: every call may come from any thread; one mutex makes each call atomic.
#ifndef COSID_LEASE_MEMORY_STORE_H_
#define COSID_LEASE_MEMORY_STORE_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "cosid/clock.h"
#include "cosid/export.h"
#include "cosid/lease/store.h"

namespace cosid {
namespace lease {

class COSID_EXPORT MemoryLeaseStore final : public SlotLeaseStore {
 public:
  // REQUIRES: `clock` outlives the store.
  explicit MemoryLeaseStore(Clock& clock) noexcept : clock_(clock) {}

  bool scan(const std::string& name_space, const NamespaceTerms& terms,
            std::vector<SlotRecord>& records, std::int64_t& store_now, Status& status) override;
  bool acquire(const AcquireRequest& request, AcquireOutcome& outcome, SlotLease& lease,
               SlotRecord& record, Status& status) override;
  bool renew(const SlotLease& held, const NamespaceTerms& terms, std::chrono::milliseconds ttl,
             SlotLease& renewed, Status& status) override;
  bool release(const SlotLease& held, const NamespaceTerms& terms, std::int64_t last_issued,
               Status& status) override;
  bool fence(const std::string& name_space, const NamespaceTerms& terms, std::uint32_t slot,
             std::int64_t not_before, FenceResult& result, Status& status) override;

 private:
  struct Namespace {
    NamespaceTerms terms;
    std::map<std::uint32_t, SlotRecord> slots;  // only slots ever acquired
  };

  // The namespace, created with `terms` on first use; null with lease_terms_mismatch when it
  // records others. REQUIRES: mutex_ held.
  Namespace* find_or_create(const std::string& name_space, const NamespaceTerms& terms,
                            Status& status);

  Clock& clock_;
  std::mutex mutex_;
  std::map<std::string, Namespace> namespaces_;  // guarded by mutex_
};

}  // namespace lease
}  // namespace cosid

#endif  // COSID_LEASE_MEMORY_STORE_H_
