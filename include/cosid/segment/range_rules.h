// SPDX-License-Identifier: Apache-2.0
// Range rules: the table of segment/range_store.h as pure functions over one key's RangeState.
//
// A store reads the key's record, lets these functions decide, and writes the result back only if
// nobody changed the record meanwhile (its compare-and-set). The memory and file range stores are
// built this way, and the ZooKeeper one decides with the same functions; the conformance kit
// (segment/conformance.h) checks the result either way. The record's text, as the file and
// ZooKeeper stores keep it (the ZooKeeper node's data: the next value in decimal, ":sealed"
// appended once sealed), is here too, so both read and write it alike.
//
// The apply_ functions set state.version to state.version + 1 on a change; a store whose versions
// come from elsewhere (ZooKeeper's Stat) overwrites it with its own.
//
// Thread safety: pure functions of their arguments; call them from any thread.
#ifndef COSID_SEGMENT_RANGE_RULES_H_
#define COSID_SEGMENT_RANGE_RULES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "cosid/error.h"
#include "cosid/events.h"
#include "cosid/export.h"
#include "cosid/segment/range_store.h"

namespace cosid {
namespace segment {

// The argument checks, each failing with errc::invalid_argument and a message naming the value.
// They leave `status` as it was when they pass.
// A key as range_store.h allows it.
COSID_EXPORT bool check_key(const std::string& key, Status& status);
// check_key, an offset of 0 or more, a count of 1 to kMaxClaim.
COSID_EXPORT bool check_claim(const RangeRequest& request, Status& status);
// check_key, and 1 <= unused.first < unused.end.
COSID_EXPORT bool check_give_back(const std::string& key, const Range& unused, Status& status);

// The claim row. `state` is the key's record (a default RangeState when it has none). On success
// fills `range` (its version the new state.version) and updates `state`; fails with range_sealed
// or range_exhausted, leaving `state` alone. REQUIRES: check_claim(request) passed.
COSID_EXPORT bool apply_claim(RangeState& state, const RangeRequest& request, Range& range,
                              Status& status);

// The give_back row: `returned` true and `state` updated when state.version == unused.version and
// the key is not sealed; else `returned` false and `state` left alone. Never fails.
// REQUIRES: check_give_back(key, unused) passed.
COSID_EXPORT void apply_give_back(RangeState& state, const Range& unused, bool& returned) noexcept;

// The seal row: fails with invalid_argument when the key has no record; a sealed key is left as
// it is (no version change).
COSID_EXPORT bool apply_seal(RangeState& state, const std::string& key, Status& status);

// The record's text: "NEXT" or "NEXT:sealed", NEXT in decimal without leading zeros.
COSID_EXPORT std::string format_range_value(const RangeState& state);
// The inverse: sets state.next and state.sealed (and state.exists) from exactly what
// format_range_value() writes; false for anything else (the caller reports store_corrupt, naming
// the record). A next value below 1 is refused too: no claim writes one.
COSID_EXPORT bool parse_range_value(std::string_view text, RangeState& state) noexcept;

// Reports that a claim created `key`'s record in the store `store` ("file range store
// /var/lib/cosid/ranges"), its first value `first`: EventKind::kRangeKeyStarted to `listener`
// (nothing when null), with the sentence every store gives. A store calls it once its create is
// durable, so that a key never meant to be new (a typo, a store moved) does not start over unseen.
COSID_EXPORT void report_key_started(EventListener* listener, const std::string& store,
                                     const std::string& key, std::int64_t first);

}  // namespace segment
}  // namespace cosid

#endif  // COSID_SEGMENT_RANGE_RULES_H_
