// SPDX-License-Identifier: Apache-2.0
// MemoryRangeStore (segment/memory_range_store.h): the rules of range_rules.h under one mutex.
#include "cosid/segment/memory_range_store.h"

#include "cosid/segment/range_rules.h"

namespace cosid {
namespace segment {

bool MemoryRangeStore::claim(const RangeRequest& request, Range& range, Status& status) {
  if (!check_claim(request, status)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  RangeState state;
  const auto it = keys_.find(request.key);
  if (it != keys_.end()) state = it->second;
  if (!apply_claim(state, request, range, status)) return false;
  keys_[request.key] = state;
  status.clear();
  return true;
}

bool MemoryRangeStore::give_back(const std::string& key, const Range& unused, bool& returned,
                                 Status& status) {
  if (!check_give_back(key, unused, status)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  returned = false;
  const auto it = keys_.find(key);
  if (it != keys_.end()) apply_give_back(it->second, unused, returned);
  status.clear();
  return true;
}

bool MemoryRangeStore::seal(const std::string& key, RangeState& state, Status& status) {
  if (!check_key(key, status)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = keys_.find(key);
  RangeState current;
  if (it != keys_.end()) current = it->second;
  if (!apply_seal(current, key, status)) return false;
  keys_[key] = current;
  state = current;
  status.clear();
  return true;
}

bool MemoryRangeStore::read(const std::string& key, RangeState& state, Status& status) {
  if (!check_key(key, status)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = keys_.find(key);
  state = it != keys_.end() ? it->second : RangeState{};
  status.clear();
  return true;
}

}  // namespace segment
}  // namespace cosid
