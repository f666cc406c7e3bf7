// SPDX-License-Identifier: Apache-2.0
// Internal to the conformance kit: the set-up every case shares, and the case lists.
#ifndef COSID_SRC_LEASE_TCK_HARNESS_H_
#define COSID_SRC_LEASE_TCK_HARNESS_H_

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cosid/clock.h"
#include "cosid/error.h"
#include "cosid/lease/conformance.h"
#include "cosid/lease/store.h"
#include "store/tck/kit_support.h"

namespace cosid {
namespace lease {
namespace tck {
namespace internal {

constexpr std::int64_t kStart = 1700000000000;  // the store clock when a case begins

// One case's store, clock and namespace (limit 8, tolerance 1 s, ttl 30 s).
class Harness {
 public:
  explicit Harness(const StoreKit& kit);

  const StoreKit& kit() const { return kit_; }
  ManualClock& clock() { return clock_; }
  SlotLeaseStore& store() { return *store_; }
  const std::string& name_space() const { return name_space_; }

  NamespaceTerms terms;
  std::chrono::milliseconds ttl{30000};

  // An owner with `key` and a fresh random incarnation.
  static Owner owner(const std::string& key);
  AcquireRequest request(std::uint32_t slot, const Owner& owner) const;
  // acquire() that must succeed with kAcquired (a failed expectation otherwise).
  SlotLease acquire(std::uint32_t slot, const Owner& owner);
  // The slot's record as scan() shows it; a never-used slot gives a record with only `slot` set.
  SlotRecord record_of(std::uint32_t slot);

  // Destroys the case's store, and makes it again. A process case closes it before it forks: a
  // store whose client runs threads (ZooKeeper's) would leave the children a copy of locks those
  // threads held (glibc's resolver lock, say), and a child that makes a store could deadlock.
  void close_store() { store_.reset(); }
  void open_store();

 private:
  const StoreKit& kit_;
  ManualClock clock_{kStart, ManualClock::OnSleep::kAdvanceBoth};
  std::unique_ptr<SlotLeaseStore> store_;
  std::string name_space_;
};

struct Case {
  const char* name;
  void (*run)(Harness& h);
};

std::vector<Case> table_cases();
std::vector<Case> choice_cases();
std::vector<Case> concurrency_cases();
std::vector<Case> fence_cases();

}  // namespace internal
}  // namespace tck
}  // namespace lease
}  // namespace cosid

#endif  // COSID_SRC_LEASE_TCK_HARNESS_H_
