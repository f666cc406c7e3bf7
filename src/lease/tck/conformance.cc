// SPDX-License-Identifier: Apache-2.0
#include "cosid/lease/conformance.h"

#include "lease/tck/harness.h"

namespace cosid {
namespace lease {
namespace tck {
namespace internal {
namespace {

// A random suffix, so that runs and cases never share a namespace even on a shared store.
std::string random_suffix() {
  Incarnation random;
  Status status;
  if (!Incarnation::random(random, status)) ADD_FAILURE() << status.message();
  return random.to_string().substr(0, 8);
}

}  // namespace

Harness::Harness(const StoreKit& kit) : kit_(kit) {
  terms.slot_limit = 8;
  terms.tolerance = std::chrono::milliseconds(1000);
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  name_space_ =
      std::string("tck-") + (info != nullptr ? info->name() : "case") + "-" + random_suffix();
  open_store();
}

void Harness::open_store() {
  store_ = kit_.make_store(clock_);
  if (store_ == nullptr) ADD_FAILURE() << "the store factory of " << kit_.name << " returned null";
}

Owner Harness::owner(const std::string& key) {
  Owner result;
  result.key = key;
  Status status;
  EXPECT_TRUE(Incarnation::random(result.incarnation, status)) << status.message();
  return result;
}

AcquireRequest Harness::request(std::uint32_t slot, const Owner& owner) const {
  AcquireRequest request;
  request.name_space = name_space_;
  request.slot = slot;
  request.owner = owner;
  request.terms = terms;
  request.ttl = ttl;
  return request;
}

SlotLease Harness::acquire(std::uint32_t slot, const Owner& owner) {
  AcquireOutcome outcome = AcquireOutcome::kTaken;
  SlotLease lease;
  SlotRecord record;
  Status status;
  EXPECT_TRUE(store_->acquire(request(slot, owner), outcome, lease, record, status))
      << status.message();
  EXPECT_EQ(outcome, AcquireOutcome::kAcquired)
      << "slot " << slot << " held by " << record.owner.key;
  return lease;
}

SlotRecord Harness::record_of(std::uint32_t slot) {
  std::vector<SlotRecord> records;
  std::int64_t now = 0;
  Status status;
  EXPECT_TRUE(store_->scan(name_space_, terms, records, now, status)) << status.message();
  for (const SlotRecord& record : records) {
    if (record.slot == slot) return record;
  }
  SlotRecord never_used;
  never_used.slot = slot;
  return never_used;
}

}  // namespace internal

bool register_conformance_tests(const StoreKit& kit) {
  return tck_support::register_kit<internal::Harness>(
      "SlotLeaseStoreConformance/" + kit.name, kit,
      {internal::table_cases(), internal::choice_cases(), internal::concurrency_cases(),
       internal::fence_cases()});
}

}  // namespace tck
}  // namespace lease
}  // namespace cosid
