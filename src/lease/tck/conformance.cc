#include "cosid/lease/conformance.h"

#include <list>

#include "harness.h"

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

class ConformanceTest : public ::testing::Test {
 public:
  ConformanceTest(const StoreKit& kit, Case test_case) : kit_(kit), case_(test_case) {}
  void TestBody() override {
    Harness harness(kit_);
    if (::testing::Test::HasFailure()) return;  // no store to test
    case_.run(harness);
  }

 private:
  const StoreKit& kit_;
  const Case case_;
};

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
  // Kept for the life of the program: the registered tests refer to it. A list never moves its
  // elements, and a function-local static is destroyed only after the tests ran.
  static std::list<StoreKit> kits;
  kits.push_back(kit);
  const StoreKit* kept = &kits.back();
  const std::string suite = "SlotLeaseStoreConformance/" + kit.name;
  std::vector<internal::Case> cases = internal::table_cases();
  for (const auto& more : {internal::choice_cases(), internal::concurrency_cases()}) {
    cases.insert(cases.end(), more.begin(), more.end());
  }
  for (const internal::Case& test_case : cases) {
    ::testing::RegisterTest(suite.c_str(), test_case.name, nullptr, nullptr, __FILE__, __LINE__,
                            [kept, test_case]() -> ::testing::Test* {
                              return new internal::ConformanceTest(*kept, test_case);
                            });
  }
  return true;
}

}  // namespace tck
}  // namespace lease
}  // namespace cosid
