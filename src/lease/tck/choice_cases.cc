// SPDX-License-Identifier: Apache-2.0
// Slot choice through the store: the order of src/lease/PROTOCOL.md, never taking over a key,
// exhaustion, the partial reads the chooser makes, and a compare-and-set whose answer was lost.
#include <algorithm>

#include "cosid/lease/slot_choice.h"
#include "lease/tck/harness.h"

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

void expect_same_record(const SlotRecord& read, const SlotRecord& scanned) {
  EXPECT_EQ(read.slot, scanned.slot);
  EXPECT_EQ(read.held, scanned.held) << "slot " << scanned.slot;
  EXPECT_EQ(read.owner.key, scanned.owner.key) << "slot " << scanned.slot;
  EXPECT_EQ(read.owner.incarnation, scanned.owner.incarnation) << "slot " << scanned.slot;
  EXPECT_EQ(read.last_owner_key, scanned.last_owner_key) << "slot " << scanned.slot;
  EXPECT_EQ(read.fence, scanned.fence) << "slot " << scanned.slot;
  EXPECT_EQ(read.expires_at, scanned.expires_at) << "slot " << scanned.slot;
  EXPECT_EQ(read.floor, scanned.floor) << "slot " << scanned.slot;
  EXPECT_EQ(read.ceiling, scanned.ceiling) << "slot " << scanned.slot;
  EXPECT_EQ(read.next_floor, scanned.next_floor) << "slot " << scanned.slot;
}

// What choose_slot() reads of a store that reads partially, its owner index and its reads of some
// slots, shows what scan() shows: the index lists every slot whose record names the key (else a
// restarted runtime would not find its sticky slot, or would not see its key's live lease), and
// a read gives the scan's records of the slots asked for.
void partial_reads_show_what_the_scan_shows(Harness& h) {
  const Owner k = Harness::owner("k");
  const SlotLease released = h.acquire(1, k);
  Status status;
  TCK_ASSERT_OK(h.store().release(released, h.terms, released.floor, status), status);
  h.acquire(3, Harness::owner("other"));
  h.acquire(5, Harness::owner("k"));  // the key under another incarnation
  h.acquire(6, k);
  h.clock().advance(milliseconds(77));

  std::vector<std::uint32_t> listed;
  std::int64_t now = 0;
  TCK_ASSERT_OK(h.store().read_owner_index(h.name_space(), h.terms, "k", listed, now, status),
                status);
  EXPECT_EQ(now, kStart + 77);
  for (std::size_t i = 0; i < listed.size(); ++i) {
    EXPECT_LT(listed[i], h.terms.slot_limit);
    EXPECT_TRUE(i == 0 || listed[i - 1] < listed[i]) << "the owner index is not ascending";
  }
  for (const std::uint32_t slot : {1u, 5u, 6u}) {
    EXPECT_NE(std::find(listed.begin(), listed.end(), slot), listed.end())
        << "the owner index of key \"k\" leaves out slot " << slot;
  }

  std::vector<SlotRecord> scanned;
  TCK_ASSERT_OK(h.store().scan(h.name_space(), h.terms, scanned, now, status), status);
  ASSERT_EQ(scanned.size(), 4u);  // slots 1, 3, 5, 6
  std::vector<SlotRecord> read;
  TCK_ASSERT_OK(
      h.store().read_slots(h.name_space(), h.terms, {0, 1, 2, 3, 4, 5, 6, 7}, read, status),
      status);
  ASSERT_EQ(read.size(), scanned.size());
  for (std::size_t i = 0; i < read.size(); ++i) expect_same_record(read[i], scanned[i]);
  // A slot never used (4) has no record; the others come in slot order.
  TCK_ASSERT_OK(h.store().read_slots(h.name_space(), h.terms, {3, 4, 6}, read, status), status);
  ASSERT_EQ(read.size(), 2u);
  expect_same_record(read[0], scanned[1]);
  expect_same_record(read[1], scanned[3]);

  NamespaceTerms other = h.terms;
  other.slot_limit = 16;
  EXPECT_FALSE(h.store().read_owner_index(h.name_space(), other, "k", listed, now, status));
  TCK_EXPECT_ERRC(status, errc::lease_terms_mismatch);
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
      {"PartialReadsShowWhatTheScanShows", partial_reads_show_what_the_scan_shows},
      {"LostAcquireResponseNeverGrantsTheSlotTwice",
       lost_acquire_response_never_grants_the_slot_twice},
      {"LostRenewResponseIsRetriedSafely", lost_renew_response_is_retried_safely},
  };
}

}  // namespace internal
}  // namespace tck
}  // namespace lease
}  // namespace cosid
