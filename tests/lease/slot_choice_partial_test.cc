// SPDX-License-Identifier: Apache-2.0
// Slot choice on a store whose reads are costly (reads_partially()): which reads choose_slot()
// makes (the owner index once, its slots and the preferred one in one read of at most 256, then
// the lowest free slot in batches of 32, 64, 128 and 256), that it chooses what the one-scan path
// chooses, that a broken answer is store_corrupt, and that a store that does not read partially
// is scanned exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "cosid/clock.h"
#include "cosid/lease/memory_store.h"
#include "cosid/lease/slot_choice.h"
#include "support/test_util.h"

namespace cosid::lease {
namespace {

using cosid::testing::kNow;
using std::chrono::milliseconds;
using Slots = std::vector<std::uint32_t>;

// A MemoryLeaseStore that says whether it reads partially and records every read the chooser asks
// of it. Its partial reads are the defaults, answered from the memory store's scan, which is not a
// scan() of this store: `scans` counts only the chooser's.
class RecordingStore final : public SlotLeaseStore {
 public:
  RecordingStore(Clock& clock, bool partial) : inner_(clock), partial_(partial) {}

  bool reads_partially() const noexcept override { return partial_; }

  bool scan(const std::string& name_space, const NamespaceTerms& terms,
            std::vector<SlotRecord>& records, std::int64_t& store_now, Status& status) override {
    ++scans;
    return inner_.scan(name_space, terms, records, store_now, status);
  }
  bool read_owner_index(const std::string& name_space, const NamespaceTerms& terms,
                        const std::string& owner_key, Slots& slots, std::int64_t& store_now,
                        Status& status) override {
    index_reads.push_back(owner_key);
    if (!inner_.read_owner_index(name_space, terms, owner_key, slots, store_now, status)) {
      return false;
    }
    if (reverse_index) std::reverse(slots.begin(), slots.end());
    return true;
  }
  bool read_slots(const std::string& name_space, const NamespaceTerms& terms, const Slots& slots,
                  std::vector<SlotRecord>& records, Status& status) override {
    slot_reads.push_back(slots);
    if (!inner_.read_slots(name_space, terms, slots, records, status)) return false;
    if (reverse_reads) std::reverse(records.begin(), records.end());
    return true;
  }
  bool acquire(const AcquireRequest& request, AcquireOutcome& outcome, SlotLease& lease,
               SlotRecord& record, Status& status) override {
    if (before_acquire) before_acquire(request.slot);
    return inner_.acquire(request, outcome, lease, record, status);
  }
  bool renew(const SlotLease& held, const NamespaceTerms& terms, milliseconds ttl,
             SlotLease& renewed, Status& status) override {
    return inner_.renew(held, terms, ttl, renewed, status);
  }
  bool release(const SlotLease& held, const NamespaceTerms& terms, std::int64_t last_issued,
               Status& status) override {
    return inner_.release(held, terms, last_issued, status);
  }
  bool fence(const std::string& name_space, const NamespaceTerms& terms, std::uint32_t slot,
             std::int64_t not_before, FenceResult& result, Status& status) override {
    return inner_.fence(name_space, terms, slot, not_before, result, status);
  }

  // The store behind, for set-up that is not the chooser's.
  MemoryLeaseStore& inner() { return inner_; }

  int scans = 0;
  std::vector<std::string> index_reads;  // the owner key of each read_owner_index()
  std::vector<Slots> slot_reads;         // the slots of each read_slots()
  // Answer the owner index, or every read, in descending order: a broken store.
  bool reverse_index = false;
  bool reverse_reads = false;
  // Called with the slot of every acquire(), before it (to lose a race on purpose).
  std::function<void(std::uint32_t)> before_acquire;

 private:
  MemoryLeaseStore inner_;
  const bool partial_;
};

Slots range(std::uint32_t begin, std::uint32_t end) {
  Slots slots(end - begin);
  std::iota(slots.begin(), slots.end(), begin);
  return slots;
}

class PartialSlotChoiceTest : public ::testing::Test {
 protected:
  static constexpr std::uint32_t kLimit = 1024;

  static NamespaceTerms terms(std::uint32_t limit) {
    NamespaceTerms result;
    result.slot_limit = limit;
    result.tolerance = milliseconds(1000);
    return result;
  }

  // A choice for a new owner (a fresh incarnation) of `key`.
  static SlotChoiceRequest request(const std::string& key, std::uint32_t limit = kLimit) {
    SlotChoiceRequest result;
    result.name_space = "orders";
    result.owner.key = key;
    Status status;
    EXPECT_TRUE(Incarnation::random(result.owner.incarnation, status)) << status.message();
    result.terms = terms(limit);
    result.ttl = milliseconds(30000);
    return result;
  }

  // `slot` acquired for a new owner of `key` in the store behind `store`: no read of the chooser.
  static SlotLease hold(RecordingStore& store, std::uint32_t slot, const std::string& key,
                        std::uint32_t limit = kLimit) {
    const SlotChoiceRequest wanted = request(key, limit);
    AcquireRequest attempt;
    attempt.name_space = wanted.name_space;
    attempt.slot = slot;
    attempt.owner = wanted.owner;
    attempt.terms = wanted.terms;
    attempt.ttl = wanted.ttl;
    AcquireOutcome outcome = AcquireOutcome::kTaken;
    SlotLease lease;
    SlotRecord holder;
    Status status;
    EXPECT_TRUE(store.inner().acquire(attempt, outcome, lease, holder, status)) << status.message();
    EXPECT_EQ(outcome, AcquireOutcome::kAcquired) << "slot " << slot;
    return lease;
  }

  static void release(RecordingStore& store, const SlotLease& lease, std::uint32_t limit = kLimit) {
    Status status;
    EXPECT_TRUE(store.inner().release(lease, terms(limit), lease.floor, status))
        << status.message();
  }

  // Every slot below the limit held by a key of its own; slot 700 was taken 1 ms before the
  // others, so it expires first.
  void exhaust(RecordingStore& store) {
    clock_.set_ms(kNow);
    hold(store, 700, "early");
    clock_.set_ms(kNow + 1);
    for (std::uint32_t slot = 0; slot < kLimit; ++slot) {
      if (slot != 700) hold(store, slot, "k" + std::to_string(slot));
    }
  }

  // What a choice gave, in words, so that a scenario's steps compare at once.
  static std::string outcome(bool chosen, const SlotChoice& choice, const Status& status) {
    if (!chosen) return status.message();
    static const char* const kReasons[] = {"already held", "preferred", "sticky", "lowest free"};
    std::string text = std::string(kReasons[static_cast<int>(choice.reason)]) + " " +
                       std::to_string(choice.lease.slot);
    for (const SlotRecord& holder : choice.duplicate_key_holders) {
      text += ", the key holds " + std::to_string(holder.slot);
    }
    return text;
  }

  // The cases of the one-scan chooser's tests, on a store that reads partially or not: the
  // order, a live lease of the key, and races lost (in the first batch and across batches, on the
  // preferred slot, on a sticky slot).
  std::vector<std::string> run_the_order(bool partial) {
    constexpr std::uint32_t kSmall = 64;
    clock_.set_ms(kNow);
    RecordingStore store(clock_, partial);
    std::vector<std::string> steps;
    SlotChoice choice;
    Status status;
    auto choose = [&](const SlotChoiceRequest& wanted) {
      const bool chosen = choose_slot(store, wanted, choice, status);
      steps.push_back(outcome(chosen, choice, status));
    };
    std::uint32_t steal = kSmall;  // the slot another owner takes just before the chooser's try
    store.before_acquire = [&](std::uint32_t slot) {
      if (slot != steal) return;
      steal = kSmall;
      hold(store, slot, "thief", kSmall);
    };

    const SlotChoiceRequest a = request("a", kSmall);
    choose(a);
    SlotChoiceRequest again = a;
    again.has_preferred_slot = true;
    again.preferred_slot = 2;
    choose(again);
    SlotChoiceRequest b = request("b", kSmall);
    b.has_preferred_slot = true;
    b.preferred_slot = 3;
    choose(b);
    release(store, choice.lease, kSmall);
    choose(request("b", kSmall));
    const SlotLease sticky = choice.lease;
    choose(request("a", kSmall));

    hold(store, 2, "o2", kSmall);
    for (std::uint32_t slot = 4; slot <= 40; ++slot) {
      if (slot != 31) hold(store, slot, "o" + std::to_string(slot), kSmall);
    }
    steal = 31;  // the last free slot of the first batch
    choose(request("d", kSmall));
    SlotChoiceRequest e = request("e", kSmall);
    e.has_preferred_slot = true;
    e.preferred_slot = 50;
    steal = 50;
    choose(e);
    release(store, sticky, kSmall);
    steal = 3;
    choose(request("b", kSmall));
    return steps;
  }

  ManualClock clock_{kNow};
};

TEST_F(PartialSlotChoiceTest, AFreePreferredSlotTakesOneIndexReadAndOneReadOfItsSlots) {
  RecordingStore store(clock_, true);
  release(store, hold(store, 5, "k"));
  hold(store, 7, "other");
  hold(store, 12, "k");  // a live lease of the key under another incarnation
  SlotChoiceRequest wanted = request("k");
  wanted.has_preferred_slot = true;
  wanted.preferred_slot = 9;
  SlotChoice choice;
  Status status;
  ASSERT_TRUE(choose_slot(store, wanted, choice, status)) << status.message();
  EXPECT_EQ(choice.lease.slot, 9u);
  EXPECT_EQ(choice.reason, ChoiceReason::kPreferred);
  ASSERT_EQ(choice.duplicate_key_holders.size(), 1u);
  EXPECT_EQ(choice.duplicate_key_holders[0].slot, 12u);
  EXPECT_EQ(store.index_reads, std::vector<std::string>{"k"});
  EXPECT_EQ(store.slot_reads, (std::vector<Slots>{{5, 9, 12}}));
  EXPECT_EQ(store.scans, 0);
}

TEST_F(PartialSlotChoiceTest, AnOwnerIndexOfMoreThan256SlotsIsReadInParts) {
  RecordingStore store(clock_, true);
  for (std::uint32_t slot = 0; slot < 300; ++slot) release(store, hold(store, slot, "k"));
  SlotChoice choice;
  Status status;
  ASSERT_TRUE(choose_slot(store, request("k"), choice, status)) << status.message();
  EXPECT_EQ(choice.lease.slot, 0u);
  EXPECT_EQ(choice.reason, ChoiceReason::kSticky);
  EXPECT_EQ(store.slot_reads, (std::vector<Slots>{range(0, 256), range(256, 300)}));
}

// Slots 0 to 40 held by others: a store that reads partially is read in batches [0, 32) and
// [32, 96); one that does not is scanned exactly once, and nothing else.
TEST_F(PartialSlotChoiceTest, TheLowestFreeSlotIsSearchedInGrowingBatchesOrInOneScan) {
  for (const bool partial : {true, false}) {
    SCOPED_TRACE(partial ? "partial reads" : "one scan");
    RecordingStore store(clock_, partial);
    for (std::uint32_t slot = 0; slot <= 40; ++slot) hold(store, slot, "o" + std::to_string(slot));
    SlotChoice choice;
    Status status;
    ASSERT_TRUE(choose_slot(store, request("new"), choice, status)) << status.message();
    EXPECT_EQ(choice.lease.slot, 41u);
    EXPECT_EQ(choice.reason, ChoiceReason::kLowestFree);
    if (partial) {
      // The key is new and no slot is preferred: no read of listed slots, only the batches.
      EXPECT_EQ(store.index_reads, std::vector<std::string>{"new"});
      EXPECT_EQ(store.slot_reads, (std::vector<Slots>{range(0, 32), range(32, 96)}));
      EXPECT_EQ(store.scans, 0);
    } else {
      EXPECT_TRUE(store.index_reads.empty());
      EXPECT_TRUE(store.slot_reads.empty());
      EXPECT_EQ(store.scans, 1);
    }
  }
}

TEST_F(PartialSlotChoiceTest, AnExhaustedNamespaceIsReadOnceInBatchesOfAtMost256) {
  RecordingStore store(clock_, true);
  exhaust(store);
  SlotChoiceRequest wanted = request("late");
  wanted.has_preferred_slot = true;
  wanted.preferred_slot = 100;  // held: read first, then skipped by its batch, [96, 224)
  SlotChoice choice;
  Status status;
  EXPECT_FALSE(choose_slot(store, wanted, choice, status));
  EXPECT_STATUS(status, errc::lease_exhausted);
  EXPECT_EQ(choice.earliest_expiry, kNow + 30000);
  EXPECT_EQ(choice.store_now, kNow + 1);
  EXPECT_NE(status.message().find(std::to_string(kNow + 30000)), std::string::npos)
      << status.message();

  std::vector<std::size_t> sizes;
  std::vector<int> times_read(kLimit, 0);
  for (const Slots& read : store.slot_reads) {
    sizes.push_back(read.size());
    for (const std::uint32_t slot : read) ++times_read.at(slot);
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 32, 64, 127, 256, 256, 256, 32}));
  EXPECT_EQ(std::count(times_read.begin(), times_read.end(), 1), static_cast<long>(kLimit));
  EXPECT_EQ(store.scans, 0);

  // The one-scan path reports the same.
  RecordingStore scanned(clock_, false);
  exhaust(scanned);
  SlotChoice scan_choice;
  Status scan_status;
  EXPECT_FALSE(choose_slot(scanned, wanted, scan_choice, scan_status));
  EXPECT_STATUS(scan_status, errc::lease_exhausted);
  EXPECT_EQ(scan_status.message(), status.message());
  EXPECT_EQ(scan_choice.earliest_expiry, choice.earliest_expiry);
  EXPECT_EQ(scan_choice.store_now, choice.store_now);
  EXPECT_EQ(scanned.scans, 1);
}

TEST_F(PartialSlotChoiceTest, ChoosesWhatTheScanPathChooses) {
  const std::vector<std::string> expected = {
      "lowest free 0",
      "already held 0",
      "preferred 3",
      "sticky 3",
      "lowest free 1, the key holds 0",
      "lowest free 41",  // 31, the last free slot of [0, 32), was lost to another owner
      "lowest free 42",  // the preferred 50 was lost
      "lowest free 43",  // the sticky 3 was lost
  };
  EXPECT_EQ(run_the_order(true), expected);
  EXPECT_EQ(run_the_order(false), expected);
}

TEST_F(PartialSlotChoiceTest, AnAnswerOutOfOrderIsStoreCorrupt) {
  struct Broken {
    bool index;  // the owner index out of order, else the read of its slots
    const char* what;
    std::vector<Slots> reads;
  };
  for (const Broken& broken : {Broken{true, "owner index for key \"k\"", {}},
                               Broken{false, "read of 2 slots", {{5, 9}}}}) {
    SCOPED_TRACE(broken.what);
    RecordingStore store(clock_, true);
    release(store, hold(store, 5, "k"));
    hold(store, 9, "k");
    store.reverse_index = broken.index;
    store.reverse_reads = !broken.index;
    int acquires = 0;
    store.before_acquire = [&](std::uint32_t) { ++acquires; };
    SlotChoice choice;
    Status status;
    EXPECT_FALSE(choose_slot(store, request("k"), choice, status));
    EXPECT_STATUS(status, errc::store_corrupt);
    EXPECT_NE(status.message().find(broken.what), std::string::npos) << status.message();
    EXPECT_NE(status.message().find("returned slot 5 out of order"), std::string::npos)
        << status.message();
    EXPECT_EQ(store.slot_reads, broken.reads);
    EXPECT_EQ(acquires, 0);
  }
}

}  // namespace
}  // namespace cosid::lease
