// SPDX-License-Identifier: Apache-2.0
#include "cosid/lease/slot_choice.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "base/fail.h"
#include "base/parse_util.h"
#include "cosid/lease/store_rules.h"

namespace cosid {
namespace lease {
namespace internal {

// Defined in src/lease/store.cc, where the default partial reads use them too: the one filter by
// which a scan answers the owner index and a read of some slots.
void owner_index_from_scan(const std::vector<SlotRecord>& records, const std::string& owner_key,
                           std::vector<std::uint32_t>& slots);
void slots_from_scan(const std::vector<SlotRecord>& records,
                     const std::vector<std::uint32_t>& slots, std::vector<SlotRecord>& selected);

}  // namespace internal

namespace {

using detail::fail;

// The lowest free slot is searched for in batches of slots [0, 32), the next 64, the next 128,
// then 256 at a time; no read asks for more than kMaxBatch slots. A free slot is usually low, so a
// store whose reads are costly reads a few dozen slots, and only an exhausted namespace is read in
// full, in reads small enough for one request each.
constexpr std::uint32_t kFirstBatch = 32;
constexpr std::uint32_t kMaxBatch = 256;

bool same_owner(const Owner& a, const Owner& b) noexcept {
  return a.key == b.key && a.incarnation == b.incarnation;
}

// The sentences of this file's refusals, at its end, so that the choice reads without stepping
// over text.
std::string broken_answer_message(const SlotChoiceRequest& request, const std::string& what,
                                  std::uint32_t slot, bool was_read);
std::string every_slot_held_message(const SlotChoiceRequest& request, std::int64_t earliest_expiry,
                                    std::int64_t store_now);
std::string preferred_slot_above_limit_message(const SlotChoiceRequest& request);

std::uint32_t slot_of(std::uint32_t slot) { return slot; }
std::uint32_t slot_of(const SlotRecord& record) { return record.slot; }

// Refuses, as store_corrupt, an answer of the store whose slots are not ascending and below the
// limit or, for a read (`asked` not null), not among the slots asked for. The chooser indexes
// slots by number and walks them in order: a store that breaks its promise must not make it read
// out of bounds.
template <typename Item>
bool check_answer(const SlotChoiceRequest& request, const std::string& what,
                  const std::vector<Item>& items, const std::vector<std::uint32_t>* asked,
                  Status& status) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::uint32_t slot = slot_of(items[i]);
    if (slot < request.terms.slot_limit && (i == 0 || slot > slot_of(items[i - 1])) &&
        (asked == nullptr || std::binary_search(asked->begin(), asked->end(), slot))) {
      continue;
    }
    return fail(status, errc::store_corrupt,
                broken_answer_message(request, what, slot, asked != nullptr));
  }
  return true;
}

// How the chooser reads the namespace: the owner index once, which gives the store's clock for
// every free check of the choice, then sets of slots (ascending, below the limit, each at most
// once). The answers are checked by the chooser, not here.
class NamespaceReader {
 public:
  NamespaceReader(SlotLeaseStore& store, const SlotChoiceRequest& request)
      : store_(store), request_(request) {}
  virtual ~NamespaceReader() = default;
  virtual bool owner_index(std::vector<std::uint32_t>& slots, std::int64_t& store_now,
                           Status& status) = 0;
  virtual bool read(const std::vector<std::uint32_t>& slots, std::vector<SlotRecord>& records,
                    Status& status) = 0;

 protected:
  SlotLeaseStore& store_;
  const SlotChoiceRequest& request_;
};

// For a store whose reads are cheap: one scan(), taken by owner_index(), and every answer from
// it, with the filters of the default partial reads.
class ScanView final : public NamespaceReader {
 public:
  using NamespaceReader::NamespaceReader;

  bool owner_index(std::vector<std::uint32_t>& slots, std::int64_t& store_now,
                   Status& status) override {
    if (!store_.scan(request_.name_space, request_.terms, records_, store_now, status) ||
        !check_answer(request_, "scan", records_, nullptr, status)) {
      return false;
    }
    internal::owner_index_from_scan(records_, request_.owner.key, slots);
    return true;
  }
  bool read(const std::vector<std::uint32_t>& slots, std::vector<SlotRecord>& records,
            Status&) override {
    internal::slots_from_scan(records_, slots, records);
    return true;
  }

 private:
  std::vector<SlotRecord> records_;  // the scan, checked: ascending and below the limit
};

// For a store whose reads are costly (reads_partially()): every read is the store's.
class ReadView final : public NamespaceReader {
 public:
  using NamespaceReader::NamespaceReader;

  bool owner_index(std::vector<std::uint32_t>& slots, std::int64_t& store_now,
                   Status& status) override {
    return store_.read_owner_index(request_.name_space, request_.terms, request_.owner.key, slots,
                                   store_now, status);
  }
  bool read(const std::vector<std::uint32_t>& slots, std::vector<SlotRecord>& records,
            Status& status) override {
    return store_.read_slots(request_.name_space, request_.terms, slots, records, status);
  }
};

// A live lease of `owner`'s key under another incarnation: never taken over.
bool is_duplicate_key(const SlotRecord& record, const Owner& owner, std::int64_t now) {
  return !is_free(record, now) && record.owner.key == owner.key &&
         record.owner.incarnation != owner.incarnation;
}

void note_duplicate(SlotChoice& choice, const SlotRecord& record) {
  for (SlotRecord& known : choice.duplicate_key_holders) {
    if (known.slot == record.slot) {
      known = record;
      return;
    }
  }
  choice.duplicate_key_holders.push_back(record);
}

// The result of one compare-and-set.
enum class Try { kNext, kChosen, kFailed };

// One choice: the order of slot_choice.h over what `reader` shows, each try a compare-and-set on
// `store`.
class Chooser {
 public:
  // `attempt` is the compare-and-set of every try, its slot to be set; checked already.
  Chooser(SlotLeaseStore& store, NamespaceReader& reader, const SlotChoiceRequest& request,
          AcquireRequest attempt, SlotChoice& choice)
      : store_(store),
        reader_(reader),
        request_(request),
        attempt_(std::move(attempt)),
        choice_(choice),
        read_(request.terms.slot_limit, false),
        free_(request.terms.slot_limit, false),
        tried_(request.terms.slot_limit, false) {}

  bool run(Status& status) {
    std::vector<std::uint32_t> first;
    if (!reader_.owner_index(first, now_, status) ||
        !check_answer(request_, "owner index for key " + detail::quote(request_.owner.key), first,
                      nullptr, status)) {
      return false;
    }
    if (request_.has_preferred_slot) {
      const auto at = std::lower_bound(first.begin(), first.end(), request_.preferred_slot);
      if (at == first.end() || *at != request_.preferred_slot) {
        first.insert(at, request_.preferred_slot);
      }
    }
    std::vector<SlotRecord> records;
    if (!read(first, &records, status)) return false;

    Try result = Try::kNext;
    for (const SlotRecord& record : records) {
      if (record.held && same_owner(record.owner, request_.owner)) {
        result = attempt(record.slot, ChoiceReason::kAlreadyHeld, status);
        if (result != Try::kNext) return result == Try::kChosen;
      }
    }
    if (request_.has_preferred_slot && free_[request_.preferred_slot]) {
      result = attempt(request_.preferred_slot, ChoiceReason::kPreferred, status);
      if (result != Try::kNext) return result == Try::kChosen;
    }
    for (const SlotRecord& record : records) {
      if (record.last_owner_key == request_.owner.key && is_free(record, now_)) {
        result = attempt(record.slot, ChoiceReason::kSticky, status);
        if (result != Try::kNext) return result == Try::kChosen;
      }
    }
    const std::uint32_t limit = request_.terms.slot_limit;
    std::uint32_t size = kFirstBatch;
    for (std::uint32_t begin = 0; begin < limit;
         begin += size, size = std::min(2 * size, kMaxBatch)) {
      const std::uint32_t end = std::min(limit, begin + size);
      std::vector<std::uint32_t> unread;
      for (std::uint32_t slot = begin; slot < end; ++slot) {
        if (!read_[slot]) unread.push_back(slot);
      }
      if (!read(unread, nullptr, status)) return false;
      for (std::uint32_t slot = begin; slot < end; ++slot) {
        if (free_[slot]) {
          result = attempt(slot, ChoiceReason::kLowestFree, status);
          if (result != Try::kNext) return result == Try::kChosen;
        }
      }
    }

    choice_.earliest_expiry = earliest_expiry_;
    choice_.store_now = now_;
    return fail(status, errc::lease_exhausted,
                every_slot_held_message(request_, earliest_expiry_, now_));
  }

 private:
  // Reads `slots` (ascending, none read yet) in reads of at most kMaxBatch slots, checks each
  // answer, and notes what it shows: which slots are free now (a slot without a record is), the
  // live leases of the key under another incarnation, the earliest expiry. Appends the records
  // to `records` if it is not null.
  bool read(const std::vector<std::uint32_t>& slots, std::vector<SlotRecord>* records,
            Status& status) {
    for (std::size_t begin = 0; begin < slots.size(); begin += kMaxBatch) {
      const std::vector<std::uint32_t> asked(
          slots.begin() + static_cast<std::ptrdiff_t>(begin),
          slots.begin() + static_cast<std::ptrdiff_t>(std::min(slots.size(), begin + kMaxBatch)));
      std::vector<SlotRecord> answer;
      if (!reader_.read(asked, answer, status) ||
          !check_answer(request_, "read of " + std::to_string(asked.size()) + " slots", answer,
                        &asked, status)) {
        return false;
      }
      for (const std::uint32_t slot : asked) {
        read_[slot] = true;
        free_[slot] = true;
      }
      for (SlotRecord& record : answer) {
        free_[record.slot] = is_free(record, now_);
        if (is_duplicate_key(record, request_.owner, now_)) note_duplicate(choice_, record);
        if (!free_[record.slot]) earliest_expiry_ = std::min(earliest_expiry_, record.expires_at);
        if (records != nullptr) records->push_back(std::move(record));
      }
    }
    return true;
  }

  Try attempt(std::uint32_t slot, ChoiceReason reason, Status& status) {
    if (tried_[slot]) return Try::kNext;
    tried_[slot] = true;
    attempt_.slot = slot;
    AcquireOutcome outcome = AcquireOutcome::kTaken;
    SlotRecord holder;
    if (!store_.acquire(attempt_, outcome, choice_.lease, holder, status)) return Try::kFailed;
    if (outcome == AcquireOutcome::kAcquired) {
      choice_.reason = reason;
      return Try::kChosen;
    }
    // Lost a race since the read: the holder's lease is live on the store's clock. Remember it
    // and move on.
    if (holder.owner.key == request_.owner.key) note_duplicate(choice_, holder);
    earliest_expiry_ = std::min(earliest_expiry_, holder.expires_at);
    return Try::kNext;
  }

  SlotLeaseStore& store_;
  NamespaceReader& reader_;
  const SlotChoiceRequest& request_;
  AcquireRequest attempt_;
  SlotChoice& choice_;
  std::int64_t now_ = 0;  // the store's clock, from the owner index
  std::int64_t earliest_expiry_ = std::numeric_limits<std::int64_t>::max();
  std::vector<bool> read_;   // by slot: read already
  std::vector<bool> free_;   // by slot, once read: free at now_
  std::vector<bool> tried_;  // by slot: a compare-and-set was tried
};

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
    return fail(status, errc::invalid_argument, preferred_slot_above_limit_message(request));
  }
  ScanView scan_view(store, request);
  ReadView read_view(store, request);
  NamespaceReader& reader =
      store.reads_partially() ? static_cast<NamespaceReader&>(read_view) : scan_view;
  return Chooser(store, reader, request, std::move(attempt), choice).run(status);
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

// The sentences.
namespace {

// `was_read`: the answer was to a read of some slots, which must name only those.
std::string broken_answer_message(const SlotChoiceRequest& request, const std::string& what,
                                  std::uint32_t slot, bool was_read) {
  return "the store's " + what + " of namespace " + detail::quote(request.name_space) +
         " returned slot " + std::to_string(slot) + " out of order or at or above the slot limit " +
         std::to_string(request.terms.slot_limit) +
         (was_read ? ", or not one of the slots asked for" : "") +
         ": the store is broken; run the conformance kit against it";
}

std::string every_slot_held_message(const SlotChoiceRequest& request, std::int64_t earliest_expiry,
                                    std::int64_t store_now) {
  return "every one of the " + std::to_string(request.terms.slot_limit) + " slots of namespace " +
         detail::quote(request.name_space) + " is held by a live lease; the earliest expires at " +
         std::to_string(earliest_expiry) + " (store clock " + std::to_string(store_now) + ", in " +
         std::to_string(earliest_expiry - store_now) +
         " ms): wait for it, or give the namespace more slot bits";
}

std::string preferred_slot_above_limit_message(const SlotChoiceRequest& request) {
  return "preferred slot " + std::to_string(request.preferred_slot) + " in namespace " +
         detail::quote(request.name_space) + " is at or above the slot limit " +
         std::to_string(request.terms.slot_limit) + ": give a slot from 0 to " +
         std::to_string(request.terms.slot_limit - 1);
}

}  // namespace

}  // namespace lease
}  // namespace cosid
