// SPDX-License-Identifier: Apache-2.0
// The fence row of lease/store.h: after fence(slot, TIME), no later holder of the slot issues a
// timestamp at or below TIME, nor at or below any ceiling a holder was given before.
#include "cosid/lease/store_rules.h"
#include "lease/tck/harness.h"

namespace cosid {
namespace lease {
namespace tck {
namespace internal {
namespace {

using std::chrono::milliseconds;

// Far past every window a case opens: the time a restore's fence is given.
constexpr std::int64_t kFenceTime = kStart + 3600000;

FenceResult fence(Harness& h, std::uint32_t slot, std::int64_t not_before) {
  FenceResult result;
  Status status;
  EXPECT_TRUE(h.store().fence(h.name_space(), h.terms, slot, not_before, result, status))
      << status.message();
  return result;
}

void fenced_free_slot_gives_the_next_holder_a_floor_at_the_fence(Harness& h) {
  const SlotLease first = h.acquire(1, Harness::owner("a"));
  Status status;
  TCK_ASSERT_OK(h.store().release(first, h.terms, first.floor + 10, status), status);
  const FenceResult result = fence(h, 1, kFenceTime);
  EXPECT_EQ(result.outcome, FenceOutcome::kRaised);
  EXPECT_EQ(result.before.next_floor, first.floor + 10);
  EXPECT_EQ(result.after.next_floor, kFenceTime);
  EXPECT_EQ(result.after.fence, result.before.fence);  // no owner to fence out
  EXPECT_EQ(h.record_of(1).next_floor, kFenceTime);
  const SlotLease next = h.acquire(1, Harness::owner("b"));
  EXPECT_GE(next.floor, kFenceTime);
  EXPECT_GE(next.ceiling, next.floor);
}

void fenced_held_slot_ends_the_lease(Harness& h) {
  const Owner a = Harness::owner("a");
  const SlotLease held = h.acquire(2, a);
  h.clock().advance(milliseconds(1000));
  // A time below the holder's ceiling: the fence still covers the ceiling.
  const FenceResult result = fence(h, 2, kStart + 5000);
  EXPECT_EQ(result.outcome, FenceOutcome::kEndedLease);
  EXPECT_TRUE(result.before.held);
  EXPECT_EQ(result.before.owner.incarnation, a.incarnation);
  EXPECT_FALSE(result.after.held);
  EXPECT_EQ(result.after.last_owner_key, "a");
  EXPECT_EQ(result.after.fence, held.fence + 1);
  EXPECT_EQ(result.after.next_floor, held.ceiling);

  SlotLease renewed;
  Status status;
  EXPECT_FALSE(h.store().renew(held, h.terms, h.ttl, renewed, status));
  TCK_EXPECT_ERRC(status, errc::lease_lost);
  TCK_EXPECT_MESSAGE(status);
  status.clear();
  EXPECT_FALSE(h.store().release(held, h.terms, held.floor, status));
  TCK_EXPECT_ERRC(status, errc::lease_lost);
  // The refused release handed nothing on: the next floor still covers the old ceiling.
  const SlotRecord record = h.record_of(2);
  EXPECT_FALSE(record.held);
  EXPECT_EQ(record.next_floor, held.ceiling);

  // The slot is free at once, and its next window starts at the fenced holder's ceiling.
  const SlotLease next = h.acquire(2, Harness::owner("b"));
  EXPECT_EQ(next.floor, held.ceiling);
  EXPECT_EQ(next.fence, held.fence + 2);
}

void fenced_expired_holder_hands_on_the_fence_time(Harness& h) {
  const SlotLease held = h.acquire(3, Harness::owner("a"));
  h.clock().set_ms(held.expires_at + 60000);  // the holder crashed long ago
  const FenceResult result = fence(h, 3, kFenceTime);
  EXPECT_EQ(result.outcome, FenceOutcome::kEndedLease);
  EXPECT_EQ(result.after.next_floor, kFenceTime);
  const SlotLease next = h.acquire(3, Harness::owner("b"));
  EXPECT_EQ(next.floor, kFenceTime);
  EXPECT_GT(next.floor, held.ceiling);
}

void fenced_slot_without_a_record_gets_one(Harness& h) {
  const FenceResult result = fence(h, 5, kFenceTime);
  EXPECT_EQ(result.outcome, FenceOutcome::kCreated);
  EXPECT_EQ(result.before.slot, 5u);
  EXPECT_FALSE(result.before.held);
  EXPECT_EQ(result.before.next_floor, 0);
  EXPECT_EQ(result.after.slot, 5u);
  EXPECT_FALSE(result.after.held);
  EXPECT_EQ(result.after.next_floor, kFenceTime);
  std::vector<SlotRecord> records;
  std::int64_t now = 0;
  Status status;
  TCK_ASSERT_OK(h.store().scan(h.name_space(), h.terms, records, now, status), status);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].slot, 5u);
  EXPECT_FALSE(records[0].held);
  EXPECT_EQ(records[0].next_floor, kFenceTime);
  const SlotLease next = h.acquire(5, Harness::owner("b"));
  EXPECT_EQ(next.floor, kFenceTime);
  EXPECT_EQ(next.fence, records[0].fence + 1);
}

void fence_never_lowers_the_next_floor(Harness& h) {
  const SlotLease held = h.acquire(4, Harness::owner("a"));
  // A time below everything: the lease still ends, and the next floor stays at the ceiling.
  const FenceResult low = fence(h, 4, 1);
  EXPECT_EQ(low.outcome, FenceOutcome::kEndedLease);
  EXPECT_EQ(low.after.next_floor, held.ceiling);
  const FenceResult high = fence(h, 4, kFenceTime);
  EXPECT_EQ(high.outcome, FenceOutcome::kRaised);
  EXPECT_EQ(high.after.next_floor, kFenceTime);
  const FenceResult lower_again = fence(h, 4, kFenceTime - 1);
  EXPECT_EQ(lower_again.outcome, FenceOutcome::kUnchanged);
  EXPECT_EQ(lower_again.after.next_floor, kFenceTime);
  EXPECT_EQ(h.record_of(4).next_floor, kFenceTime);
}

void acquire_renew_and_release_keep_the_raised_floor(Harness& h) {
  fence(h, 6, kFenceTime);
  const SlotLease b = h.acquire(6, Harness::owner("b"));
  EXPECT_EQ(b.floor, kFenceTime);
  SlotLease renewed;
  Status status;
  TCK_ASSERT_OK(h.store().renew(b, h.terms, h.ttl, renewed, status), status);
  EXPECT_EQ(renewed.floor, kFenceTime);
  EXPECT_GE(renewed.ceiling, kFenceTime);
  // Nothing issued, and a last timestamp below the floor besides: clamped up to the floor.
  TCK_ASSERT_OK(h.store().release(renewed, h.terms, kStart, status), status);
  EXPECT_EQ(h.record_of(6).next_floor, kFenceTime);
  const SlotLease c = h.acquire(6, Harness::owner("c"));
  EXPECT_EQ(c.floor, kFenceTime);
}

void fence_retried_changes_nothing_more(Harness& h) {
  const SlotLease held = h.acquire(7, Harness::owner("a"));
  const FenceResult first = fence(h, 7, kFenceTime);
  EXPECT_EQ(first.outcome, FenceOutcome::kEndedLease);
  const SlotRecord after_first = h.record_of(7);
  // Retried (its answer lost, or the whole command run again): not even the fence counter moves.
  const FenceResult again = fence(h, 7, kFenceTime);
  EXPECT_EQ(again.outcome, FenceOutcome::kUnchanged);
  const SlotRecord after_again = h.record_of(7);
  EXPECT_EQ(after_again.fence, held.fence + 1);
  EXPECT_EQ(after_again.fence, after_first.fence);
  EXPECT_EQ(after_again.next_floor, kFenceTime);
  EXPECT_FALSE(after_again.held);
  EXPECT_EQ(after_again.last_owner_key, "a");
  const FenceResult created = fence(h, 0, kFenceTime);
  EXPECT_EQ(created.outcome, FenceOutcome::kCreated);
  EXPECT_EQ(fence(h, 0, kFenceTime).outcome, FenceOutcome::kUnchanged);
  EXPECT_EQ(h.record_of(0).next_floor, kFenceTime);
}

void fence_arguments_are_checked(Harness& h) {
  FenceResult result;
  Status status;
  EXPECT_FALSE(h.store().fence(h.name_space(), h.terms, 8, kFenceTime, result, status));
  TCK_EXPECT_ERRC(status, errc::invalid_argument);
  TCK_EXPECT_MESSAGE(status);
  status.clear();
  EXPECT_FALSE(h.store().fence(h.name_space(), h.terms, 0, -1, result, status));
  TCK_EXPECT_ERRC(status, errc::invalid_argument);
  status.clear();
  EXPECT_FALSE(h.store().fence("", h.terms, 0, kFenceTime, result, status));
  TCK_EXPECT_ERRC(status, errc::invalid_argument);
  status.clear();
  // The first fence records the namespace's terms, like any call; other terms are refused.
  TCK_ASSERT_OK(h.store().fence(h.name_space(), h.terms, 0, kFenceTime, result, status), status);
  NamespaceTerms other = h.terms;
  other.tolerance = milliseconds(2000);
  EXPECT_FALSE(h.store().fence(h.name_space(), other, 0, kFenceTime, result, status));
  TCK_EXPECT_ERRC(status, errc::lease_terms_mismatch);
  EXPECT_EQ(h.record_of(0).next_floor, kFenceTime);
}

}  // namespace

std::vector<Case> fence_cases() {
  return {
      {"FencedFreeSlotGivesTheNextHolderAFloorAtTheFence",
       fenced_free_slot_gives_the_next_holder_a_floor_at_the_fence},
      {"FencedHeldSlotEndsTheLease", fenced_held_slot_ends_the_lease},
      {"FencedExpiredHolderHandsOnTheFenceTime", fenced_expired_holder_hands_on_the_fence_time},
      {"FencedSlotWithoutARecordGetsOne", fenced_slot_without_a_record_gets_one},
      {"FenceNeverLowersTheNextFloor", fence_never_lowers_the_next_floor},
      {"AcquireRenewAndReleaseKeepTheRaisedFloor", acquire_renew_and_release_keep_the_raised_floor},
      {"FenceRetriedChangesNothingMore", fence_retried_changes_nothing_more},
      {"FenceArgumentsAreChecked", fence_arguments_are_checked},
  };
}

}  // namespace internal
}  // namespace tck
}  // namespace lease
}  // namespace cosid
