// SPDX-License-Identifier: Apache-2.0
// MemoryRangeStore: the reference RangeStore, kept in this process's memory.
//
// For tests, for the generators of one process, and as the model every other range store is
// checked against (the conformance kit runs on it first). It forgets every key when it is
// destroyed and cannot be shared with another process: a restarted process would hand its values
// out again. Use FileRangeStore (segment/file_range_store.h) for the processes of one host and
// ZooKeeperRangeStore for a fleet.
//
// Thread safety: every call may come from any thread; one mutex makes each call atomic.
#ifndef COSID_SEGMENT_MEMORY_RANGE_STORE_H_
#define COSID_SEGMENT_MEMORY_RANGE_STORE_H_

#include <map>
#include <mutex>
#include <string>

#include "cosid/export.h"
#include "cosid/segment/range_store.h"

namespace cosid {
namespace segment {

class COSID_EXPORT MemoryRangeStore final : public RangeStore {
 public:
  MemoryRangeStore() = default;
  MemoryRangeStore(const MemoryRangeStore&) = delete;
  MemoryRangeStore& operator=(const MemoryRangeStore&) = delete;

  bool claim(const RangeRequest& request, Range& range, Status& status) override;
  bool give_back(const std::string& key, const Range& unused, bool& returned,
                 Status& status) override;
  bool seal(const std::string& key, RangeState& state, Status& status) override;
  bool read(const std::string& key, RangeState& state, Status& status) override;

 private:
  std::mutex mutex_;
  std::map<std::string, RangeState> keys_;  // guarded by mutex_; only keys ever claimed
};

}  // namespace segment
}  // namespace cosid

#endif  // COSID_SEGMENT_MEMORY_RANGE_STORE_H_
