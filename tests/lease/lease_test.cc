// SPDX-License-Identifier: Apache-2.0
// Incarnation, the store rules through MemoryLeaseStore, and the slot chooser. The full store-side
// table is the conformance kit's (lease_tck_test runs it on MemoryLeaseStore); these tests pin the
// parts the kit cannot see: the UUID bits and text, and why the chooser picked a slot.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "cosid/clock.h"
#include "cosid/lease/memory_store.h"
#include "cosid/lease/slot_choice.h"
#include "cosid/lease/store_rules.h"
#include "support/test_util.h"

namespace cosid::lease {
namespace {

using std::chrono::milliseconds;

Owner make_owner(const std::string& key) {
  Owner owner;
  owner.key = key;
  Status status;
  EXPECT_TRUE(Incarnation::random(owner.incarnation, status));
  return owner;
}

SlotChoiceRequest choice_request(const Owner& owner, std::uint32_t limit = 4) {
  SlotChoiceRequest request;
  request.name_space = "orders";
  request.owner = owner;
  request.terms.slot_limit = limit;
  request.terms.tolerance = milliseconds(1000);
  request.ttl = milliseconds(30000);
  return request;
}

TEST(Incarnation, RandomIsVersion4WithRfcVariantAndDiffers) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    Incarnation incarnation;
    Status status;
    ASSERT_TRUE(Incarnation::random(incarnation, status));
    EXPECT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(incarnation.bytes[6] >> 4, 4);
    EXPECT_EQ(incarnation.bytes[8] >> 6, 2);
    EXPECT_FALSE(incarnation.is_nil());
    seen.insert(incarnation.to_string());
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(Incarnation, TextRoundTripsInLowerCase) {
  Incarnation incarnation;
  for (std::size_t i = 0; i < 16; ++i) incarnation.bytes[i] = static_cast<std::uint8_t>(i * 17);
  const std::string text = incarnation.to_string();
  EXPECT_EQ(text, "00112233-4455-6677-8899-aabbccddeeff");
  Incarnation parsed;
  ASSERT_TRUE(Incarnation::parse(text, parsed));
  EXPECT_EQ(parsed, incarnation);
}

TEST(Incarnation, ParseRefusesEverythingElse) {
  Incarnation parsed;
  for (const char* text :
       {"", "00112233-4455-6677-8899-aabbccddeef", "00112233-4455-6677-8899-aabbccddeeff0",
        "00112233445566778899aabbccddeeff", "00112233-4455-6677-8899-AABBCCDDEEFF",
        "0011223g-4455-6677-8899-aabbccddeeff", "00112233-4455-6677-8899_aabbccddeeff"}) {
    EXPECT_FALSE(Incarnation::parse(text, parsed)) << text;
  }
  EXPECT_TRUE(parsed.is_nil());
}

TEST(StoreRules, CeilingNeverBelowFloorAfterTheStoreClockWentBack) {
  // A previous holder left next_floor far in the future (the store clock then ran ahead); the new
  // window starts there and is empty rather than reaching back.
  SlotRecord record;
  record.slot = 1;
  record.fence = 4;
  record.next_floor = 5000000;
  AcquireRequest request;
  request.name_space = "orders";
  request.slot = 1;
  request.owner = make_owner("a");
  request.terms.slot_limit = 4;
  SlotLease lease;
  ASSERT_EQ(apply_acquire(record, request, 1000, lease), AcquireOutcome::kAcquired);
  EXPECT_EQ(lease.fence, 5u);
  EXPECT_EQ(lease.floor, 5000000);
  EXPECT_EQ(lease.ceiling, 5000000);
  EXPECT_EQ(lease.expires_at, 31000);
  EXPECT_EQ(record.next_floor, 5000000);
}

TEST(StoreRules, BoundsOnTtlToleranceAndLimit) {
  Status status;
  NamespaceTerms terms;
  terms.slot_limit = kMaxSlotLimit + 1;
  EXPECT_FALSE(check_terms("orders", terms, status));
  EXPECT_STATUS(status, errc::invalid_argument);
  EXPECT_NE(status.message().find("4194305"), std::string::npos) << status.message();
  terms.slot_limit = 4;
  terms.tolerance = kMaxLeaseTolerance + milliseconds(1);
  EXPECT_FALSE(check_terms("orders", terms, status));
  EXPECT_STATUS(status, errc::invalid_argument);
  AcquireRequest request;
  request.name_space = "orders";
  request.owner = make_owner("a");
  request.ttl = kMaxLeaseTtl + milliseconds(1);
  EXPECT_FALSE(check_acquire(request, status));
  EXPECT_STATUS(status, errc::invalid_argument);
  EXPECT_NE(status.message().find("ttl"), std::string::npos) << status.message();
}

// The fence row over every kind of record and time: next_floor ends at max(next_floor, ceiling,
// TIME), never lower; an owner is always cleared with fence + 1; a second fence is kUnchanged.
TEST(StoreRules, FenceRaisesNeverLowersAndIsIdempotent) {
  const std::int64_t times[] = {0, 500, 1500, 2500, 9000};
  for (const bool held : {false, true}) {
    for (const std::int64_t next_floor : {0, 1000, 2000}) {
      for (const std::int64_t not_before : times) {
        SlotRecord record;
        record.slot = 2;
        record.held = held;
        if (held) record.owner = make_owner("a");
        record.fence = 3;
        record.floor = 0;
        record.ceiling = 2000;
        record.next_floor = held ? 2000 : next_floor;
        const SlotRecord before = record;
        SCOPED_TRACE("held " + std::to_string(held) + ", next floor " +
                     std::to_string(before.next_floor) + ", TIME " + std::to_string(not_before));
        const FenceResult first = apply_fence(record, true, not_before);
        const std::int64_t expected = std::max({before.next_floor, before.ceiling, not_before});
        EXPECT_EQ(record.next_floor, expected);
        EXPECT_GE(record.next_floor, before.next_floor);
        EXPECT_FALSE(record.held);
        EXPECT_EQ(record.fence, held ? 4u : 3u);
        EXPECT_EQ(record.last_owner_key, held ? "a" : "");
        EXPECT_EQ(first.outcome, held                            ? FenceOutcome::kEndedLease
                                 : expected != before.next_floor ? FenceOutcome::kRaised
                                                                 : FenceOutcome::kUnchanged);
        EXPECT_EQ(first.before.next_floor, before.next_floor);
        EXPECT_EQ(first.after.next_floor, expected);
        const SlotRecord once = record;
        const FenceResult second = apply_fence(record, true, not_before);
        EXPECT_EQ(second.outcome, FenceOutcome::kUnchanged);
        EXPECT_EQ(record.next_floor, once.next_floor);
        EXPECT_EQ(record.fence, once.fence);
      }
    }
  }
  SlotRecord never_used;
  never_used.slot = 5;
  const FenceResult created = apply_fence(never_used, false, 7000);
  EXPECT_EQ(created.outcome, FenceOutcome::kCreated);
  EXPECT_EQ(never_used.next_floor, 7000);
  EXPECT_EQ(never_used.fence, 0u);
  Status status;
  NamespaceTerms terms;
  terms.slot_limit = 4;
  EXPECT_FALSE(check_fence("orders", terms, 0, -1, status));
  EXPECT_STATUS(status, errc::invalid_argument);
  EXPECT_NE(status.message().find("-1 ms"), std::string::npos) << status.message();
  EXPECT_FALSE(check_fence("orders", terms, 4, 7000, status));
  EXPECT_STATUS(status, errc::invalid_argument);
}

class SlotChoiceTest : public ::testing::Test {
 protected:
  ManualClock clock_{1700000000000};
  MemoryLeaseStore store_{clock_};
};

TEST_F(SlotChoiceTest, FollowsTheSeedsOrder) {
  const Owner a = make_owner("host-a:1");
  SlotChoice choice;
  Status status;
  // 4: the lowest free slot.
  ASSERT_TRUE(choose_slot(store_, choice_request(a), choice, status)) << status.message();
  EXPECT_EQ(choice.lease.slot, 0u);
  EXPECT_EQ(choice.reason, ChoiceReason::kLowestFree);
  // 1: the slot this owner holds already, even when another slot is preferred.
  SlotChoiceRequest again = choice_request(a);
  again.has_preferred_slot = true;
  again.preferred_slot = 2;
  ASSERT_TRUE(choose_slot(store_, again, choice, status)) << status.message();
  EXPECT_EQ(choice.lease.slot, 0u);
  EXPECT_EQ(choice.reason, ChoiceReason::kAlreadyHeld);
  EXPECT_EQ(choice.lease.fence, 1u);
  // 2: the preferred slot, for another owner.
  const Owner b = make_owner("host-b:1");
  SlotChoiceRequest preferred = choice_request(b);
  preferred.has_preferred_slot = true;
  preferred.preferred_slot = 3;
  ASSERT_TRUE(choose_slot(store_, preferred, choice, status)) << status.message();
  EXPECT_EQ(choice.lease.slot, 3u);
  EXPECT_EQ(choice.reason, ChoiceReason::kPreferred);
  ASSERT_TRUE(store_.release(choice.lease, preferred.terms, choice.lease.floor, status));
  // 3: sticky. The same key, restarted (a new incarnation), gets back slot 3, its last, though
  // slots 1 and 2 are free and lower.
  const Owner b2 = make_owner("host-b:1");
  SlotChoiceRequest sticky = choice_request(b2);
  ASSERT_TRUE(choose_slot(store_, sticky, choice, status)) << status.message();
  EXPECT_EQ(choice.lease.slot, 3u);
  EXPECT_EQ(choice.reason, ChoiceReason::kSticky);
  EXPECT_TRUE(choice.duplicate_key_holders.empty());
}

TEST_F(SlotChoiceTest, PreferredSlotHeldByAnotherGivesTheLowestFree) {
  SlotChoice choice;
  Status status;
  SlotChoiceRequest first = choice_request(make_owner("a"));
  first.has_preferred_slot = true;
  first.preferred_slot = 2;
  ASSERT_TRUE(choose_slot(store_, first, choice, status));
  ASSERT_EQ(choice.lease.slot, 2u);
  SlotChoiceRequest second = choice_request(make_owner("b"));
  second.has_preferred_slot = true;
  second.preferred_slot = 2;
  ASSERT_TRUE(choose_slot(store_, second, choice, status));
  EXPECT_EQ(choice.lease.slot, 0u);
  EXPECT_EQ(choice.reason, ChoiceReason::kLowestFree);
}

TEST_F(SlotChoiceTest, LiveLeaseOfTheSameKeyIsNeverTakenOver) {
  const Owner first = make_owner("host-a:1");
  SlotChoice choice;
  Status status;
  ASSERT_TRUE(choose_slot(store_, choice_request(first), choice, status));
  ASSERT_EQ(choice.lease.slot, 0u);
  const Owner restarted = make_owner("host-a:1");
  ASSERT_TRUE(choose_slot(store_, choice_request(restarted), choice, status));
  EXPECT_EQ(choice.lease.slot, 1u);
  EXPECT_EQ(choice.reason, ChoiceReason::kLowestFree);
  ASSERT_EQ(choice.duplicate_key_holders.size(), 1u);
  EXPECT_EQ(choice.duplicate_key_holders[0].slot, 0u);
  EXPECT_EQ(choice.duplicate_key_holders[0].owner.incarnation, first.incarnation);
}

TEST_F(SlotChoiceTest, ExhaustedReportsTheEarliestExpiry) {
  SlotChoice choice;
  Status status;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(
        choose_slot(store_, choice_request(make_owner("k" + std::to_string(i))), choice, status));
    clock_.advance(milliseconds(10));  // slot i expires at base + 10 i + ttl
  }
  EXPECT_FALSE(choose_slot(store_, choice_request(make_owner("late")), choice, status));
  EXPECT_STATUS(status, errc::lease_exhausted);
  EXPECT_EQ(choice.earliest_expiry, 1700000000000 + 30000);
  EXPECT_EQ(choice.store_now, 1700000000040);
  EXPECT_NE(status.message().find("1700000030000"), std::string::npos) << status.message();
  // One millisecond past the earliest expiry, slot 0 is free again.
  clock_.set_ms(1700000030001);
  ASSERT_TRUE(choose_slot(store_, choice_request(make_owner("late")), choice, status));
  EXPECT_EQ(choice.lease.slot, 0u);
  EXPECT_EQ(choice.lease.fence, 2u);
  EXPECT_EQ(choice.lease.floor, 1700000000000 + 30000 + 1000);
}

TEST_F(SlotChoiceTest, RefusesAPreferredSlotAtTheLimit) {
  SlotChoiceRequest request = choice_request(make_owner("a"));
  request.has_preferred_slot = true;
  request.preferred_slot = 4;
  SlotChoice choice;
  Status status;
  EXPECT_FALSE(choose_slot(store_, request, choice, status));
  EXPECT_STATUS(status, errc::invalid_argument);
  EXPECT_NE(status.message().find("preferred slot 4"), std::string::npos) << status.message();
}

#if COSID_HAS_EXCEPTIONS
TEST_F(SlotChoiceTest, TheThrowingOverloadCarriesTheMessage) {
  SlotChoiceRequest request = choice_request(make_owner("a"));
  request.has_preferred_slot = true;
  request.preferred_slot = 4;
  try {
    (void)choose_slot(store_, request);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("preferred slot 4"), std::string::npos) << e.what();
  }
  EXPECT_EQ(choose_slot(store_, choice_request(make_owner("b"))).lease.slot, 0u);
}
#endif

TEST_F(SlotChoiceTest, RefusesANilIncarnation) {
  Owner nil_owner;
  nil_owner.key = "a";
  SlotChoice choice;
  Status status;
  EXPECT_FALSE(choose_slot(store_, choice_request(nil_owner), choice, status));
  EXPECT_STATUS(status, errc::invalid_argument);
}

// A store whose scan() breaks its promise (a slot beyond the limit) is reported, not trusted.
class SlotBeyondTheLimitStore final : public SlotLeaseStore {
 public:
  bool scan(const std::string&, const NamespaceTerms&, std::vector<SlotRecord>& records,
            std::int64_t& store_now, Status& status) override {
    SlotRecord record;
    record.slot = 9;
    records = {record};
    store_now = 0;
    status.clear();
    return true;
  }
  bool acquire(const AcquireRequest&, AcquireOutcome&, SlotLease&, SlotRecord&,
               Status& status) override {
    return unavailable(status);
  }
  bool renew(const SlotLease&, const NamespaceTerms&, std::chrono::milliseconds, SlotLease&,
             Status& status) override {
    return unavailable(status);
  }
  bool release(const SlotLease&, const NamespaceTerms&, std::int64_t, Status& status) override {
    return unavailable(status);
  }
  bool fence(const std::string&, const NamespaceTerms&, std::uint32_t, std::int64_t, FenceResult&,
             Status& status) override {
    return unavailable(status);
  }

 private:
  static bool unavailable(Status& status) {
    status = Status(errc::store_unavailable, "the test store only scans");
    return false;
  }
};

TEST(SlotChoice, AScanBeyondTheLimitIsStoreCorrupt) {
  SlotBeyondTheLimitStore store;
  SlotChoice choice;
  Status status;
  EXPECT_FALSE(choose_slot(store, choice_request(make_owner("a")), choice, status));
  EXPECT_STATUS(status, errc::store_corrupt);
  EXPECT_NE(status.message().find("slot 9"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace cosid::lease
