// SPDX-License-Identifier: Apache-2.0
// The partial reads of SlotLeaseStore, answered from scan() for a store that has nothing cheaper.
#include "cosid/lease/store.h"

#include <algorithm>

namespace cosid {
namespace lease {
namespace internal {

// The two filters below are also how the slot chooser answers these reads from its one scan()
// of a store that does not read partially (src/lease/slot_choice.cc), so that both give the same
// answer from the same records. They have no header of their own: slot_choice.cc declares them
// with these signatures (a mismatch does not link).

// The slots of `records` (a scan: in slot order) whose record names `owner_key` as its owner or
// its last owner, ascending.
void owner_index_from_scan(const std::vector<SlotRecord>& records, const std::string& owner_key,
                           std::vector<std::uint32_t>& slots) {
  slots.clear();
  for (const SlotRecord& record : records) {
    if ((record.held && record.owner.key == owner_key) || record.last_owner_key == owner_key) {
      slots.push_back(record.slot);
    }
  }
}

// The records of `records` (a scan: in slot order) for `slots` (ascending), in slot order. Each
// slot is searched for from where the previous one was found: a batch costs its own size times
// log n, not a pass over the whole namespace.
void slots_from_scan(const std::vector<SlotRecord>& records,
                     const std::vector<std::uint32_t>& slots, std::vector<SlotRecord>& selected) {
  selected.clear();
  auto from = records.begin();
  for (const std::uint32_t slot : slots) {
    from = std::lower_bound(
        from, records.end(), slot,
        [](const SlotRecord& record, std::uint32_t wanted) { return record.slot < wanted; });
    if (from == records.end()) return;
    if (from->slot == slot) selected.push_back(*from);
  }
}

}  // namespace internal

bool SlotLeaseStore::read_owner_index(const std::string& name_space, const NamespaceTerms& terms,
                                      const std::string& owner_key,
                                      std::vector<std::uint32_t>& slots, std::int64_t& store_now,
                                      Status& status) {
  std::vector<SlotRecord> records;
  if (!scan(name_space, terms, records, store_now, status)) return false;
  internal::owner_index_from_scan(records, owner_key, slots);
  return true;
}

bool SlotLeaseStore::read_slots(const std::string& name_space, const NamespaceTerms& terms,
                                const std::vector<std::uint32_t>& slots,
                                std::vector<SlotRecord>& records, Status& status) {
  std::vector<SlotRecord> all;
  std::int64_t store_now = 0;
  if (!scan(name_space, terms, all, store_now, status)) return false;
  internal::slots_from_scan(all, slots, records);
  return true;
}

}  // namespace lease
}  // namespace cosid
