// Slot choice through the store: the order of src/lease/PROTOCOL.md, never taking over a key,
// exhaustion, and a compare-and-set whose answer was lost.
#include "cosid/lease/slot_choice.h"
#include "harness.h"

namespace cosid {
namespace lease {
namespace tck {
namespace internal {
namespace {

using std::chrono::milliseconds;

SlotChoiceRequest choice_request(const Harness& h, const Owner& owner) {
  SlotChoiceRequest request;
  request.name_space = h.name_space();
  request.owner = owner;
  request.terms = h.terms;
  request.ttl = h.ttl;
  return request;
}

void choice_follows_the_seeds_order(Harness& h) {
  Status status;
  SlotChoice choice;
  const Owner a = Harness::owner("a");
  TCK_ASSERT_OK(choose_slot(h.store(), choice_request(h, a), choice, status), status);
  EXPECT_EQ(choice.lease.slot, 0u);
  EXPECT_EQ(choice.reason, ChoiceReason::kLowestFree);
  SlotChoiceRequest retry = choice_request(h, a);
  retry.has_preferred_slot = true;
  retry.preferred_slot = 6;
  TCK_ASSERT_OK(choose_slot(h.store(), retry, choice, status), status);
  EXPECT_EQ(choice.lease.slot, 0u);
  EXPECT_EQ(choice.reason, ChoiceReason::kAlreadyHeld);
  const Owner b = Harness::owner("b");
  SlotChoiceRequest preferred = choice_request(h, b);
  preferred.has_preferred_slot = true;
  preferred.preferred_slot = 6;
  TCK_ASSERT_OK(choose_slot(h.store(), preferred, choice, status), status);
  EXPECT_EQ(choice.lease.slot, 6u);
  EXPECT_EQ(choice.reason, ChoiceReason::kPreferred);
  TCK_ASSERT_OK(h.store().release(choice.lease, h.terms, choice.lease.floor, status), status);
  TCK_ASSERT_OK(choose_slot(h.store(), choice_request(h, Harness::owner("b")), choice, status),
                status);
  EXPECT_EQ(choice.lease.slot, 6u);
  EXPECT_EQ(choice.reason, ChoiceReason::kSticky);
  TCK_ASSERT_OK(choose_slot(h.store(), choice_request(h, Harness::owner("c")), choice, status),
                status);
  EXPECT_EQ(choice.lease.slot, 1u);
  EXPECT_EQ(choice.reason, ChoiceReason::kLowestFree);
}

void choice_never_takes_over_a_live_lease_of_the_same_key(Harness& h) {
  Status status;
  SlotChoice first;
  TCK_ASSERT_OK(choose_slot(h.store(), choice_request(h, Harness::owner("host:7")), first, status),
                status);
  SlotChoice second;
  TCK_ASSERT_OK(choose_slot(h.store(), choice_request(h, Harness::owner("host:7")), second, status),
                status);
  EXPECT_NE(second.lease.slot, first.lease.slot);
  ASSERT_EQ(second.duplicate_key_holders.size(), 1u);
  EXPECT_EQ(second.duplicate_key_holders[0].slot, first.lease.slot);
  EXPECT_EQ(h.record_of(first.lease.slot).owner.incarnation, first.lease.owner.incarnation);
}

void choice_when_exhausted_reports_the_earliest_expiry(Harness& h) {
  Status status;
  SlotChoice choice;
  for (std::uint32_t i = 0; i < h.terms.slot_limit; ++i) {
    h.clock().set_ms(kStart + 100 - static_cast<std::int64_t>(i));  // the last one expires first
    TCK_ASSERT_OK(choose_slot(h.store(), choice_request(h, Harness::owner("k" + std::to_string(i))),
                              choice, status),
                  status);
  }
  h.clock().set_ms(kStart + 200);
  EXPECT_FALSE(choose_slot(h.store(), choice_request(h, Harness::owner("late")), choice, status));
  TCK_EXPECT_ERRC(status, errc::lease_exhausted);
  EXPECT_EQ(choice.earliest_expiry, kStart + 100 - 7 + 30000);
  EXPECT_EQ(choice.store_now, kStart + 200);
  EXPECT_NE(status.message().find(std::to_string(kStart + 93 + 30000)), std::string::npos)
      << status.message();
}

void lost_acquire_response_never_grants_the_slot_twice(Harness& h) {
  // The owner's compare-and-set was applied but its answer was lost: it does not know its fence.
  const Owner a = Harness::owner("a");
  const SlotLease unseen = h.acquire(3, a);
  h.clock().advance(milliseconds(100));
  // Another owner cannot get the slot meanwhile...
  AcquireOutcome outcome = AcquireOutcome::kAcquired;
  SlotLease lease;
  SlotRecord record;
  Status status;
  TCK_ASSERT_OK(
      h.store().acquire(h.request(3, Harness::owner("b")), outcome, lease, record, status), status);
  EXPECT_EQ(outcome, AcquireOutcome::kTaken);
  // ...and the owner's retry, or its next choice, finds the same lease: one window, one fence.
  const SlotLease retried = h.acquire(3, a);
  EXPECT_EQ(retried.fence, unseen.fence);
  EXPECT_EQ(retried.floor, unseen.floor);
  EXPECT_EQ(retried.ceiling, unseen.ceiling);
  SlotChoice choice;
  TCK_ASSERT_OK(choose_slot(h.store(), choice_request(h, a), choice, status), status);
  EXPECT_EQ(choice.lease.slot, 3u);
  EXPECT_EQ(choice.reason, ChoiceReason::kAlreadyHeld);
  EXPECT_EQ(choice.lease.fence, unseen.fence);
  std::vector<SlotRecord> records;
  std::int64_t now = 0;
  TCK_ASSERT_OK(h.store().scan(h.name_space(), h.terms, records, now, status), status);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].fence, unseen.fence);
}

void lost_renew_response_is_retried_safely(Harness& h) {
  const SlotLease held = h.acquire(0, Harness::owner("a"));
  h.clock().advance(milliseconds(10000));
  SlotLease applied;
  Status status;
  TCK_ASSERT_OK(h.store().renew(held, h.terms, h.ttl, applied, status), status);
  // The holder never saw `applied`; it retries with the lease it knows, and gets at least as much.
  SlotLease retried;
  TCK_ASSERT_OK(h.store().renew(held, h.terms, h.ttl, retried, status), status);
  EXPECT_EQ(retried.fence, held.fence);
  EXPECT_GE(retried.ceiling, applied.ceiling);
  EXPECT_EQ(h.record_of(0).ceiling, retried.ceiling);
}

}  // namespace

std::vector<Case> choice_cases() {
  return {
      {"ChoiceFollowsTheSeedsOrder", choice_follows_the_seeds_order},
      {"ChoiceNeverTakesOverALiveLeaseOfTheSameKey",
       choice_never_takes_over_a_live_lease_of_the_same_key},
      {"ChoiceWhenExhaustedReportsTheEarliestExpiry",
       choice_when_exhausted_reports_the_earliest_expiry},
      {"LostAcquireResponseNeverGrantsTheSlotTwice",
       lost_acquire_response_never_grants_the_slot_twice},
      {"LostRenewResponseIsRetriedSafely", lost_renew_response_is_retried_safely},
  };
}

}  // namespace internal
}  // namespace tck
}  // namespace lease
}  // namespace cosid
