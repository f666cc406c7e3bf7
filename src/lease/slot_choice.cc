#include "cosid/lease/slot_choice.h"

#include <algorithm>
#include <limits>

#include "cosid/lease/store_rules.h"
#include "fail.h"
#include "parse_util.h"

namespace cosid {
namespace lease {
namespace {

using detail::fail;

bool same_owner(const Owner& a, const Owner& b) noexcept {
  return a.key == b.key && a.incarnation == b.incarnation;
}

// The namespace as scan() showed it: the records by slot, and which slots were free then.
class Candidates {
 public:
  Candidates(std::vector<SlotRecord> records, std::int64_t store_now)
      : records_(std::move(records)), now_(store_now) {}

  const SlotRecord* find(std::uint32_t slot) const {
    const auto it = std::lower_bound(
        records_.begin(), records_.end(), slot,
        [](const SlotRecord& record, std::uint32_t wanted) { return record.slot < wanted; });
    return it != records_.end() && it->slot == slot ? &*it : nullptr;
  }

  bool free(std::uint32_t slot) const {
    const SlotRecord* record = find(slot);
    return record == nullptr || is_free(*record, now_);
  }

  const std::vector<SlotRecord>& records() const { return records_; }
  std::int64_t now() const { return now_; }

 private:
  std::vector<SlotRecord> records_;  // in slot order, as scan() returns them
  std::int64_t now_;
};

// A live lease of `owner`'s key under another incarnation: never taken over.
bool is_duplicate_key(const SlotRecord& record, const Owner& owner, std::int64_t now) {
  return !is_free(record, now) && record.owner.key == owner.key &&
         record.owner.incarnation != owner.incarnation;
}

// The result of one compare-and-set.
enum class Try { kNext, kChosen, kFailed };

void note_duplicate(SlotChoice& choice, const SlotRecord& record) {
  for (SlotRecord& known : choice.duplicate_key_holders) {
    if (known.slot == record.slot) {
      known = record;
      return;
    }
  }
  choice.duplicate_key_holders.push_back(record);
}

}  // namespace

bool choose_slot(SlotLeaseStore& store, const SlotChoiceRequest& request, SlotChoice& choice,
                 Status& status) {
  choice = SlotChoice{};
  AcquireRequest attempt;
  attempt.name_space = request.name_space;
  attempt.owner = request.owner;
  attempt.terms = request.terms;
  attempt.ttl = request.ttl;
  // Slot 0 is below every valid limit: this checks everything but the slot.
  if (!check_acquire(attempt, status)) return false;
  if (request.has_preferred_slot && request.preferred_slot >= request.terms.slot_limit) {
    return fail(status, errc::invalid_argument,
                "preferred slot " + std::to_string(request.preferred_slot) + " in namespace " +
                    detail::quote(request.name_space) + " is at or above the slot limit " +
                    std::to_string(request.terms.slot_limit) + ": give a slot from 0 to " +
                    std::to_string(request.terms.slot_limit - 1));
  }

  std::vector<SlotRecord> records;
  std::int64_t store_now = 0;
  if (!store.scan(request.name_space, request.terms, records, store_now, status)) {
    return false;
  }
  // The candidates below index slots by number and search them in order: a store that breaks
  // scan()'s promise must not make the chooser read out of bounds.
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (records[i].slot >= request.terms.slot_limit ||
        (i > 0 && records[i].slot <= records[i - 1].slot)) {
      return fail(status, errc::store_corrupt,
                  "the store's scan of namespace " + detail::quote(request.name_space) +
                      " returned slot " + std::to_string(records[i].slot) +
                      " out of order or at or above the slot limit " +
                      std::to_string(request.terms.slot_limit) +
                      ": the store is broken; run the conformance kit against it");
    }
  }
  const Candidates candidates(std::move(records), store_now);
  std::int64_t earliest_expiry = std::numeric_limits<std::int64_t>::max();
  for (const SlotRecord& record : candidates.records()) {
    if (is_duplicate_key(record, request.owner, store_now)) note_duplicate(choice, record);
    if (!is_free(record, store_now)) earliest_expiry = std::min(earliest_expiry, record.expires_at);
  }

  std::vector<bool> tried(request.terms.slot_limit, false);
  auto attempt_slot = [&](std::uint32_t slot, ChoiceReason reason) {
    if (tried[slot]) return Try::kNext;
    tried[slot] = true;
    attempt.slot = slot;
    AcquireOutcome outcome = AcquireOutcome::kTaken;
    SlotRecord holder;
    if (!store.acquire(attempt, outcome, choice.lease, holder, status)) return Try::kFailed;
    if (outcome == AcquireOutcome::kAcquired) {
      choice.reason = reason;
      return Try::kChosen;
    }
    // Lost a race since the scan: the holder's lease is live on the store's clock. Remember it
    // and move on.
    if (holder.owner.key == request.owner.key) note_duplicate(choice, holder);
    earliest_expiry = std::min(earliest_expiry, holder.expires_at);
    return Try::kNext;
  };

  Try result = Try::kNext;
  for (const SlotRecord& record : candidates.records()) {
    if (record.held && same_owner(record.owner, request.owner)) {
      result = attempt_slot(record.slot, ChoiceReason::kAlreadyHeld);
      if (result != Try::kNext) return result == Try::kChosen;
    }
  }
  if (request.has_preferred_slot && candidates.free(request.preferred_slot)) {
    result = attempt_slot(request.preferred_slot, ChoiceReason::kPreferred);
    if (result != Try::kNext) return result == Try::kChosen;
  }
  for (const SlotRecord& record : candidates.records()) {
    if (record.last_owner_key == request.owner.key && is_free(record, store_now)) {
      result = attempt_slot(record.slot, ChoiceReason::kSticky);
      if (result != Try::kNext) return result == Try::kChosen;
    }
  }
  for (std::uint32_t slot = 0; slot < request.terms.slot_limit; ++slot) {
    if (candidates.free(slot)) {
      result = attempt_slot(slot, ChoiceReason::kLowestFree);
      if (result != Try::kNext) return result == Try::kChosen;
    }
  }

  choice.earliest_expiry = earliest_expiry;
  choice.store_now = store_now;
  return fail(status, errc::lease_exhausted,
              "every one of the " + std::to_string(request.terms.slot_limit) +
                  " slots of namespace " + detail::quote(request.name_space) +
                  " is held by a live lease; the earliest expires at " +
                  std::to_string(earliest_expiry) + " (store clock " + std::to_string(store_now) +
                  ", in " + std::to_string(earliest_expiry - store_now) +
                  " ms): wait for it, or give the namespace more slot bits");
}

#if COSID_HAS_EXCEPTIONS
SlotChoice choose_slot(SlotLeaseStore& store, const SlotChoiceRequest& request) {
  SlotChoice choice;
  Status status;
  (void)choose_slot(store, request, choice, status);
  detail::throw_if_failed(status);
  return choice;
}
#endif

}  // namespace lease
}  // namespace cosid
