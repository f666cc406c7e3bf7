// SPDX-License-Identifier: Apache-2.0
// Internal: the record file of one key of a FileRangeStore (segment/file_range_store.h), its
// names and its text, so that tests can write a record as the store would (a key recreated
// behind the store) without the format being public. The format is described at the top of
// src/segment/file_range_store.cc.
//
// Thread safety: pure functions of their arguments.
#ifndef COSID_SRC_SEGMENT_FILE_RANGE_RECORD_H_
#define COSID_SRC_SEGMENT_FILE_RANGE_RECORD_H_

#include <string>
#include <string_view>

#include "cosid/segment/range_store.h"
#include "cosid/store/incarnation.h"

namespace cosid {
namespace segment {
namespace internal {

struct RangeRecord {
  std::string key;
  // Drawn at random when the key's record is created: a record with another identity was deleted
  // and created again behind the store that saw the first one.
  Incarnation identity;
  RangeState state;  // exists, next, sealed, version
};

// "range.KEY.rec", "range.KEY.lock", "range.KEY.tmp". REQUIRES: check_key(key) passed.
std::string record_file_name(const std::string& key);
std::string lock_file_name(const std::string& key);
std::string temp_file_name(const std::string& key);

// The record's text. REQUIRES: record.state.exists.
std::string format_range_record(const RangeRecord& record);
// The inverse, accepting only what format_range_record() writes; false with the reason in `why`.
bool parse_range_record(std::string_view text, RangeRecord& record, std::string& why);

}  // namespace internal
}  // namespace segment
}  // namespace cosid

#endif  // COSID_SRC_SEGMENT_FILE_RANGE_RECORD_H_
