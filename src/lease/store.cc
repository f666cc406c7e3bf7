// The partial reads of SlotLeaseStore, answered from scan() for a store that has nothing cheaper.
#include "cosid/lease/store.h"

#include <algorithm>

namespace cosid {
namespace lease {

bool SlotLeaseStore::read_owner_index(const std::string& name_space, const NamespaceTerms& terms,
                                      const std::string& owner_key,
                                      std::vector<std::uint32_t>& slots, std::int64_t& store_now,
                                      Status& status) {
  std::vector<SlotRecord> records;
  if (!scan(name_space, terms, records, store_now, status)) return false;
  slots.clear();
  for (const SlotRecord& record : records) {
    if ((record.held && record.owner.key == owner_key) || record.last_owner_key == owner_key) {
      slots.push_back(record.slot);
    }
  }
  return true;
}

bool SlotLeaseStore::read_slots(const std::string& name_space, const NamespaceTerms& terms,
                                const std::vector<std::uint32_t>& slots,
                                std::vector<SlotRecord>& records, Status& status) {
  std::vector<SlotRecord> all;
  std::int64_t store_now = 0;
  if (!scan(name_space, terms, all, store_now, status)) return false;
  records.clear();
  for (SlotRecord& record : all) {
    if (std::binary_search(slots.begin(), slots.end(), record.slot)) {
      records.push_back(std::move(record));
    }
  }
  return true;
}

}  // namespace lease
}  // namespace cosid
