// SPDX-License-Identifier: Apache-2.0
// The store-side table of lease/store.h, row by row, with the argument checks and the terms.
#include "cosid/lease/store_rules.h"
#include "lease/tck/harness.h"

namespace cosid {
namespace lease {
namespace tck {
namespace internal {
namespace {

using std::chrono::milliseconds;

void acquire_free_slot_gives_the_first_window(Harness& h) {
  const Owner a = Harness::owner("a");
  const SlotLease lease = h.acquire(3, a);
  EXPECT_EQ(lease.name_space, h.name_space());
  EXPECT_EQ(lease.slot, 3u);
  EXPECT_EQ(lease.owner.key, "a");
  EXPECT_EQ(lease.owner.incarnation, a.incarnation);
  EXPECT_EQ(lease.fence, 1u);
  EXPECT_EQ(lease.floor, 0);
  EXPECT_EQ(lease.expires_at, kStart + 30000);
  EXPECT_EQ(lease.ceiling, kStart + 30000 + 1000);
  EXPECT_EQ(lease.store_now, kStart);
  const SlotRecord record = h.record_of(3);
  EXPECT_TRUE(record.held);
  EXPECT_EQ(record.owner.incarnation, a.incarnation);
  EXPECT_EQ(record.last_owner_key, "a");
  EXPECT_EQ(record.fence, 1u);
  EXPECT_EQ(record.next_floor, lease.ceiling);
}

void acquire_of_a_live_lease_is_taken(Harness& h) {
  const Owner a = Harness::owner("a");
  const SlotLease held = h.acquire(2, a);
  h.clock().advance(milliseconds(29999));
  AcquireOutcome outcome = AcquireOutcome::kAcquired;
  SlotLease lease;
  SlotRecord record;
  Status status;
  TCK_ASSERT_OK(
      h.store().acquire(h.request(2, Harness::owner("b")), outcome, lease, record, status), status);
  EXPECT_EQ(outcome, AcquireOutcome::kTaken);
  EXPECT_EQ(record.slot, 2u);
  EXPECT_TRUE(record.held);
  EXPECT_EQ(record.owner.incarnation, a.incarnation);
  EXPECT_EQ(record.fence, held.fence);
  EXPECT_EQ(record.expires_at, held.expires_at);
  EXPECT_EQ(h.record_of(2).fence, 1u);
}

void acquire_exactly_at_expiry_is_taken_one_ms_later_free(Harness& h) {
  const SlotLease first = h.acquire(1, Harness::owner("a"));
  const Owner b = Harness::owner("b");
  h.clock().set_ms(first.expires_at);  // not expired: now > expires_at is needed
  AcquireOutcome outcome = AcquireOutcome::kAcquired;
  SlotLease lease;
  SlotRecord record;
  Status status;
  TCK_ASSERT_OK(h.store().acquire(h.request(1, b), outcome, lease, record, status), status);
  EXPECT_EQ(outcome, AcquireOutcome::kTaken);
  h.clock().set_ms(first.expires_at + 1);
  const SlotLease second = h.acquire(1, b);
  EXPECT_EQ(second.fence, 2u);
  // The previous holder may have issued up to its ceiling: the new window starts there.
  EXPECT_EQ(second.floor, first.ceiling);
  EXPECT_EQ(second.expires_at, first.expires_at + 1 + 30000);
  EXPECT_EQ(second.ceiling, second.expires_at + 1000);
}

void acquire_retry_by_the_holder_returns_the_same_lease(Harness& h) {
  const Owner a = Harness::owner("a");
  const SlotLease first = h.acquire(4, a);
  h.clock().advance(milliseconds(500));
  const SlotLease again = h.acquire(4, a);
  EXPECT_EQ(again.fence, first.fence);
  EXPECT_EQ(again.floor, first.floor);
  EXPECT_EQ(again.ceiling, first.ceiling);
  EXPECT_EQ(again.expires_at, first.expires_at);
  EXPECT_EQ(again.store_now, kStart + 500);
  EXPECT_EQ(h.record_of(4).fence, 1u);
}

void acquire_by_the_same_key_under_another_incarnation_is_taken(Harness& h) {
  h.acquire(0, Harness::owner("host:1"));
  AcquireOutcome outcome = AcquireOutcome::kAcquired;
  SlotLease lease;
  SlotRecord record;
  Status status;
  TCK_ASSERT_OK(
      h.store().acquire(h.request(0, Harness::owner("host:1")), outcome, lease, record, status),
      status);
  EXPECT_EQ(outcome, AcquireOutcome::kTaken);
}

void renew_extends_and_keeps_the_fence(Harness& h) {
  const SlotLease held = h.acquire(0, Harness::owner("a"));
  h.clock().advance(milliseconds(10000));
  SlotLease renewed;
  Status status;
  TCK_ASSERT_OK(h.store().renew(held, h.terms, h.ttl, renewed, status), status);
  EXPECT_EQ(renewed.fence, held.fence);
  EXPECT_EQ(renewed.floor, held.floor);
  EXPECT_EQ(renewed.expires_at, kStart + 10000 + 30000);
  EXPECT_EQ(renewed.ceiling, kStart + 10000 + 30000 + 1000);
  EXPECT_EQ(renewed.store_now, kStart + 10000);
  EXPECT_EQ(renewed.owner.incarnation, held.owner.incarnation);
  EXPECT_EQ(h.record_of(0).next_floor, renewed.ceiling);
}

void replayed_renewal_succeeds_and_never_lowers(Harness& h) {
  const SlotLease held = h.acquire(0, Harness::owner("a"));
  h.clock().advance(milliseconds(10000));
  SlotLease renewed;
  Status status;
  TCK_ASSERT_OK(h.store().renew(held, h.terms, h.ttl, renewed, status), status);
  // The same request again (its answer was lost, or a network replayed it), later and with a
  // shorter ttl: it succeeds, and nothing goes down.
  h.clock().advance(milliseconds(1));
  SlotLease replayed;
  TCK_ASSERT_OK(h.store().renew(held, h.terms, milliseconds(5000), replayed, status), status);
  EXPECT_EQ(replayed.fence, held.fence);
  EXPECT_EQ(replayed.expires_at, renewed.expires_at);
  EXPECT_EQ(replayed.ceiling, renewed.ceiling);
}

void renew_of_an_expired_untaken_lease_succeeds(Harness& h) {
  // The fence still matches, so nobody else held the slot meanwhile.
  const SlotLease held = h.acquire(0, Harness::owner("a"));
  h.clock().set_ms(held.expires_at + 5000);
  SlotLease renewed;
  Status status;
  TCK_ASSERT_OK(h.store().renew(held, h.terms, h.ttl, renewed, status), status);
  EXPECT_EQ(renewed.fence, held.fence);
  EXPECT_EQ(renewed.floor, held.floor);
  EXPECT_EQ(renewed.expires_at, held.expires_at + 5000 + 30000);
}

void renew_and_release_after_a_takeover_are_lost(Harness& h) {
  const SlotLease old_lease = h.acquire(6, Harness::owner("a"));
  h.clock().set_ms(old_lease.expires_at + 1);
  const SlotLease taken = h.acquire(6, Harness::owner("b"));
  SlotLease renewed;
  Status status;
  EXPECT_FALSE(h.store().renew(old_lease, h.terms, h.ttl, renewed, status));
  TCK_EXPECT_ERRC(status, errc::lease_lost);
  TCK_EXPECT_MESSAGE(status);
  EXPECT_FALSE(h.store().release(old_lease, h.terms, old_lease.ceiling, status));
  TCK_EXPECT_ERRC(status, errc::lease_lost);
  const SlotRecord record = h.record_of(6);
  EXPECT_EQ(record.fence, taken.fence);
  EXPECT_EQ(record.owner.key, "b");
  EXPECT_EQ(record.ceiling, taken.ceiling);
}

void renew_with_another_fence_or_incarnation_is_lost(Harness& h) {
  const SlotLease held = h.acquire(0, Harness::owner("a"));
  SlotLease forged = held;
  forged.fence = held.fence + 1;
  SlotLease renewed;
  Status status;
  EXPECT_FALSE(h.store().renew(forged, h.terms, h.ttl, renewed, status));
  TCK_EXPECT_ERRC(status, errc::lease_lost);
  forged = held;
  forged.owner.incarnation = Harness::owner("a").incarnation;
  EXPECT_FALSE(h.store().renew(forged, h.terms, h.ttl, renewed, status));
  TCK_EXPECT_ERRC(status, errc::lease_lost);
  EXPECT_FALSE(h.store().release(forged, h.terms, held.floor, status));
  TCK_EXPECT_ERRC(status, errc::lease_lost);
  // A slot never used holds no lease to renew.
  forged = held;
  forged.slot = 7;
  EXPECT_FALSE(h.store().renew(forged, h.terms, h.ttl, renewed, status));
  TCK_EXPECT_ERRC(status, errc::lease_lost);
  EXPECT_TRUE(h.record_of(0).held);
  EXPECT_EQ(h.record_of(0).fence, held.fence);
}

void release_hands_the_exact_last_timestamp_to_the_next_holder(Harness& h) {
  const SlotLease held = h.acquire(5, Harness::owner("a"));
  const std::int64_t last_issued = kStart + 1234;
  Status status;
  TCK_ASSERT_OK(h.store().release(held, h.terms, last_issued, status), status);
  const SlotRecord released = h.record_of(5);
  EXPECT_FALSE(released.held);
  EXPECT_EQ(released.fence, held.fence + 1);
  EXPECT_EQ(released.last_owner_key, "a");
  EXPECT_EQ(released.next_floor, last_issued);
  // Free at once, long before the old expiry; the next window starts right after last_issued.
  h.clock().advance(milliseconds(2000));
  const SlotLease next = h.acquire(5, Harness::owner("b"));
  EXPECT_EQ(next.fence, held.fence + 2);
  EXPECT_EQ(next.floor, last_issued);
  EXPECT_EQ(next.ceiling, kStart + 2000 + 30000 + 1000);
}

void release_clamps_last_issued_into_the_window(Harness& h) {
  Status status;
  // Above the ceiling: the next floor is the ceiling, never beyond what the window allowed...
  SlotLease held = h.acquire(1, Harness::owner("a"));
  TCK_ASSERT_OK(h.store().release(held, h.terms, held.ceiling + 99999, status), status);
  EXPECT_EQ(h.record_of(1).next_floor, held.ceiling);
  // ...and below the floor (nothing issued): the next floor is the floor, never lower.
  held = h.acquire(1, Harness::owner("b"));
  ASSERT_EQ(held.floor, h.record_of(1).floor);
  TCK_ASSERT_OK(h.store().release(held, h.terms, held.floor - 99999, status), status);
  EXPECT_EQ(h.record_of(1).next_floor, held.floor);
}

void replayed_release_fails_safely(Harness& h) {
  const SlotLease held = h.acquire(2, Harness::owner("a"));
  Status status;
  TCK_ASSERT_OK(h.store().release(held, h.terms, kStart + 10, status), status);
  const SlotLease next = h.acquire(2, Harness::owner("b"));
  // The first release's answer was lost and it is sent again: refused, and the new holder's
  // lease is untouched.
  EXPECT_FALSE(h.store().release(held, h.terms, kStart + 10, status));
  TCK_EXPECT_ERRC(status, errc::lease_lost);
  const SlotRecord record = h.record_of(2);
  EXPECT_TRUE(record.held);
  EXPECT_EQ(record.owner.key, "b");
  EXPECT_EQ(record.fence, next.fence);
}

void fence_grows_on_every_change_of_ownership(Harness& h) {
  std::uint64_t last = 0;
  Status status;
  for (int round = 0; round < 4; ++round) {
    const SlotLease held = h.acquire(0, Harness::owner("k" + std::to_string(round)));
    EXPECT_GT(held.fence, last);
    last = held.fence;
    SlotLease renewed;
    TCK_ASSERT_OK(h.store().renew(held, h.terms, h.ttl, renewed, status), status);
    EXPECT_EQ(renewed.fence, last);
    if (round % 2 == 0) {
      TCK_ASSERT_OK(h.store().release(held, h.terms, held.floor, status), status);
      EXPECT_GT(h.record_of(0).fence, last);
      last = h.record_of(0).fence;
    } else {
      h.clock().set_ms(renewed.expires_at + 1);  // expires; the next owner takes it over
    }
  }
}

void store_clock_jumps_never_lower_floor_or_ceiling(Harness& h) {
  const Owner a = Harness::owner("a");
  const SlotLease first = h.acquire(0, a);
  Status status;
  // Back an hour (a failover to a store whose clock is behind): a renewal keeps the window.
  h.clock().step_ms(-3600000);
  SlotLease renewed;
  TCK_ASSERT_OK(h.store().renew(first, h.terms, h.ttl, renewed, status), status);
  EXPECT_EQ(renewed.expires_at, first.expires_at);
  EXPECT_EQ(renewed.ceiling, first.ceiling);
  // Forward two hours: the lease has expired; the next holder starts at the old ceiling.
  h.clock().step_ms(7200000);
  const SlotLease second = h.acquire(0, Harness::owner("b"));
  EXPECT_GE(second.floor, first.ceiling);
  EXPECT_GE(second.ceiling, second.floor);
  // Back three hours: the second holder's renewal does not lower its window either, and a third
  // owner cannot take the slot (it looks live for longer, which costs availability only).
  h.clock().step_ms(-10800000);
  SlotLease second_renewed;
  TCK_ASSERT_OK(h.store().renew(second, h.terms, h.ttl, second_renewed, status), status);
  EXPECT_EQ(second_renewed.ceiling, second.ceiling);
  EXPECT_EQ(second_renewed.expires_at, second.expires_at);
  AcquireOutcome outcome = AcquireOutcome::kAcquired;
  SlotLease lease;
  SlotRecord record;
  TCK_ASSERT_OK(
      h.store().acquire(h.request(0, Harness::owner("c")), outcome, lease, record, status), status);
  EXPECT_EQ(outcome, AcquireOutcome::kTaken);
  // Released with nothing issued, while the clock is far behind: the third window still starts at
  // the second one's floor, and its ceiling is never below its floor.
  TCK_ASSERT_OK(h.store().release(second, h.terms, second.floor, status), status);
  const SlotLease third = h.acquire(0, Harness::owner("c"));
  EXPECT_GE(third.floor, second.floor);
  EXPECT_GE(third.ceiling, third.floor);
  EXPECT_GE(h.record_of(0).next_floor, third.floor);
}

void scan_lists_the_used_slots_in_order(Harness& h) {
  h.acquire(5, Harness::owner("five"));
  const SlotLease one = h.acquire(1, Harness::owner("one"));
  Status status;
  TCK_ASSERT_OK(h.store().release(one, h.terms, one.floor, status), status);
  h.clock().advance(milliseconds(77));
  std::vector<SlotRecord> records;
  std::int64_t now = 0;
  TCK_ASSERT_OK(h.store().scan(h.name_space(), h.terms, records, now, status), status);
  EXPECT_EQ(now, kStart + 77);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].slot, 1u);
  EXPECT_FALSE(records[0].held);
  EXPECT_EQ(records[0].last_owner_key, "one");
  EXPECT_EQ(records[1].slot, 5u);
  EXPECT_TRUE(records[1].held);
  EXPECT_EQ(records[1].owner.key, "five");
}

void namespace_terms_are_recorded_and_others_refused(Harness& h) {
  std::vector<SlotRecord> records;
  std::int64_t now = 0;
  Status status;
  TCK_ASSERT_OK(h.store().scan(h.name_space(), h.terms, records, now, status), status);
  EXPECT_TRUE(records.empty());
  const SlotLease held = h.acquire(0, Harness::owner("a"));
  NamespaceTerms other_tolerance = h.terms;
  other_tolerance.tolerance = milliseconds(2000);
  NamespaceTerms other_limit = h.terms;
  other_limit.slot_limit = 16;
  for (const NamespaceTerms& other : {other_tolerance, other_limit}) {
    EXPECT_FALSE(h.store().scan(h.name_space(), other, records, now, status));
    TCK_EXPECT_ERRC(status, errc::lease_terms_mismatch);
    TCK_EXPECT_MESSAGE(status);
    AcquireRequest request = h.request(1, Harness::owner("b"));
    request.terms = other;
    AcquireOutcome outcome = AcquireOutcome::kTaken;
    SlotLease lease;
    SlotRecord record;
    EXPECT_FALSE(h.store().acquire(request, outcome, lease, record, status));
    TCK_EXPECT_ERRC(status, errc::lease_terms_mismatch);
    SlotLease renewed;
    EXPECT_FALSE(h.store().renew(held, other, h.ttl, renewed, status));
    TCK_EXPECT_ERRC(status, errc::lease_terms_mismatch);
    EXPECT_FALSE(h.store().release(held, other, held.floor, status));
    TCK_EXPECT_ERRC(status, errc::lease_terms_mismatch);
  }
  EXPECT_TRUE(h.record_of(0).held);
  EXPECT_FALSE(h.record_of(1).held);
}

void invalid_arguments_are_refused(Harness& h) {
  const Owner a = Harness::owner("a");
  Status status;
  AcquireOutcome outcome = AcquireOutcome::kTaken;
  SlotLease lease;
  SlotRecord record;
  auto expect_refused = [&](const AcquireRequest& request, const char* what) {
    status.clear();
    EXPECT_FALSE(h.store().acquire(request, outcome, lease, record, status)) << what;
    TCK_EXPECT_ERRC(status, errc::invalid_argument) << what;
    TCK_EXPECT_MESSAGE(status) << what;
  };
  AcquireRequest request = h.request(8, a);
  expect_refused(request, "slot at the limit");
  request = h.request(0, a);
  request.name_space.clear();
  expect_refused(request, "empty namespace");
  expect_refused(h.request(0, Owner{"", a.incarnation}), "empty key");
  expect_refused(h.request(0, Owner{"a", Incarnation{}}), "nil incarnation");
  request = h.request(0, a);
  request.ttl = milliseconds(0);
  expect_refused(request, "zero ttl");
  request.ttl = milliseconds(-5);
  expect_refused(request, "negative ttl");
  request = h.request(0, a);
  request.terms.tolerance = milliseconds(-1);
  expect_refused(request, "negative tolerance");
  request = h.request(0, a);
  request.terms.slot_limit = 0;
  expect_refused(request, "slot limit 0");

  std::vector<SlotRecord> records;
  std::int64_t now = 0;
  EXPECT_FALSE(h.store().scan("", h.terms, records, now, status));
  TCK_EXPECT_ERRC(status, errc::invalid_argument);
  const SlotLease held = h.acquire(0, a);
  SlotLease renewed;
  EXPECT_FALSE(h.store().renew(held, h.terms, milliseconds(0), renewed, status));
  TCK_EXPECT_ERRC(status, errc::invalid_argument);
  SlotLease out_of_range = held;
  out_of_range.slot = 8;
  EXPECT_FALSE(h.store().release(out_of_range, h.terms, held.floor, status));
  TCK_EXPECT_ERRC(status, errc::invalid_argument);
  // None of the refused calls left a trace.
  TCK_ASSERT_OK(h.store().scan(h.name_space(), h.terms, records, now, status), status);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].fence, 1u);
}

}  // namespace

std::vector<Case> table_cases() {
  return {
      {"AcquireFreeSlotGivesTheFirstWindow", acquire_free_slot_gives_the_first_window},
      {"AcquireOfALiveLeaseIsTaken", acquire_of_a_live_lease_is_taken},
      {"AcquireExactlyAtExpiryIsTakenOneMsLaterFree",
       acquire_exactly_at_expiry_is_taken_one_ms_later_free},
      {"AcquireRetryByTheHolderReturnsTheSameLease",
       acquire_retry_by_the_holder_returns_the_same_lease},
      {"AcquireBySameKeyOtherIncarnationIsTaken",
       acquire_by_the_same_key_under_another_incarnation_is_taken},
      {"RenewExtendsAndKeepsTheFence", renew_extends_and_keeps_the_fence},
      {"ReplayedRenewalSucceedsAndNeverLowers", replayed_renewal_succeeds_and_never_lowers},
      {"RenewOfAnExpiredUntakenLeaseSucceeds", renew_of_an_expired_untaken_lease_succeeds},
      {"RenewAndReleaseAfterATakeoverAreLost", renew_and_release_after_a_takeover_are_lost},
      {"RenewWithAnotherFenceOrIncarnationIsLost", renew_with_another_fence_or_incarnation_is_lost},
      {"ReleaseHandsTheExactLastTimestampOn",
       release_hands_the_exact_last_timestamp_to_the_next_holder},
      {"ReleaseClampsLastIssuedIntoTheWindow", release_clamps_last_issued_into_the_window},
      {"ReplayedReleaseFailsSafely", replayed_release_fails_safely},
      {"FenceGrowsOnEveryChangeOfOwnership", fence_grows_on_every_change_of_ownership},
      {"StoreClockJumpsNeverLowerFloorOrCeiling", store_clock_jumps_never_lower_floor_or_ceiling},
      {"ScanListsTheUsedSlotsInOrder", scan_lists_the_used_slots_in_order},
      {"NamespaceTermsAreRecordedAndOthersRefused",
       namespace_terms_are_recorded_and_others_refused},
      {"InvalidArgumentsAreRefused", invalid_arguments_are_refused},
  };
}

}  // namespace internal
}  // namespace tck
}  // namespace lease
}  // namespace cosid
