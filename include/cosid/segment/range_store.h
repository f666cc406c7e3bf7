// SPDX-License-Identifier: Apache-2.0
// Range stores: where segment ids come from (src/segment/RANGES.md).
//
// A key (an order number sequence, say) has one record in the store: the next value it will hand
// out, whether it is sealed, and a version that changes with every change of the record and never
// repeats for the key. claim() takes the next `count` values of a key at once, as the range
// [first, end), and moves the next value to `end`; a SegmentGenerator (segment/generator.h) hands
// the values of its ranges out from memory. Every change is one atomic compare-and-set on one key:
//
//   claim      not sealed, and next + count       first = max(next, offset + 1) (a new key starts
//              stays at most 2^63 - 1             at offset + 1); next = first + count; version
//                                                 changes
//   give_back  the record's version is the one    next = unused.first: the values [unused.first,
//              the caller's claim of `unused`     unused.end) are handed out again by the next
//              produced (nobody changed the key   claim; version changes. Otherwise nothing
//              since), and not sealed             changes, and `returned` is false
//   seal       the key has a record               sealed; version changes; later claims fail
//                                                 with errc::range_sealed
//
// Every value a claim hands out is above every value an earlier claim of the key handed out,
// except values a give_back returned, which no one used (its version check proves nobody claimed
// past them). So ranges of one key never overlap, whatever the threads, processes and hosts that
// claim, and a store never lowers a key's next value but by a give_back. What a caller must never
// do is give back a value it used, or give back one range twice; a give_back that failed is not
// retried (its outcome may be unknown): the values are then skipped, never reused.
//
// A call returns success only for a change it has seen durable (a store says what that means for
// it). A claim whose response was lost leaves its range unused, and the retry claims another: a
// lost range is a gap, never an overlap. A record that was deleted or recreated behind a store
// (another identity than the one the store saw) is errc::store_corrupt, never used: a recreated
// record would start the key over and hand out values again.
//
// Keys: 1 to 200 bytes of [A-Za-z0-9_.-], not "." or ".." (a ZooKeeper node name and a file name
// as they are). Errors: invalid_argument (a bad key, a negative offset, a count below 1 or above
// kMaxClaim), range_sealed, range_exhausted (the message says how many values are left and what to
// do), store_unavailable (I/O, lock or timeout: the outcome of a claim may be unknown, and claiming
// again is safe), store_corrupt. Messages name the key and the values. A store never throws into
// the library; each call reports through its last parameter, `Status& status` (cosid/error.h).
//
// range_rules.h holds the table above as pure functions over one RangeState, so that a store only
// provides the atomic compare-and-set around them; segment/conformance.h (the kit, target
// cosid::tck) checks that a store keeps every row.
//
// Thread safety: a RangeStore must accept calls from any number of threads at once (and of
// processes and hosts, as far as the store is shared: each says); each call is atomic with respect
// to all others on the same key.
#ifndef COSID_SEGMENT_RANGE_STORE_H_
#define COSID_SEGMENT_RANGE_STORE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cosid/error.h"
#include "cosid/export.h"

namespace cosid {
namespace segment {

constexpr std::size_t kMaxKeyBytes = 200;
// The most values one claim may take: 2^40, far more than any prefetch needs, and small enough that
// no sum of a next value and a count can overflow before the 2^63 - 1 check.
constexpr std::int64_t kMaxClaim = std::int64_t{1} << 40;

// A key's record, as read() and seal() return it.
struct COSID_EXPORT RangeState {
  bool exists = false;    // false: never claimed; a claim will start at offset + 1
  std::int64_t next = 0;  // the first value the next claim hands out (when exists)
  bool sealed = false;
  // Changes with every change of the record and never repeats for the key (a store-defined value:
  // a counter, ZooKeeper's node version).
  std::uint64_t version = 0;
};

struct COSID_EXPORT RangeRequest {
  std::string key;
  // Where a new key starts: its first value is offset + 1 (CosId's meaning: offset 0 gives 1, 2,
  // 3, ...). A key whose next value is below offset + 1 jumps up to it; a lower offset than the
  // key's next value has no effect.
  std::int64_t offset = 0;
  std::int64_t count = 100;  // how many values: 1 to kMaxClaim
  // Null, or a flag the caller may set (from a signal handler: a lock-free atomic) to cancel the
  // claim while it waits before it changes anything (the file store for another's lock): it then
  // fails with errc::cancelled and claims nothing. A change begun runs to its end. A store that
  // does not wait may ignore it.
  const std::atomic<bool>* cancel = nullptr;
};

// Values [first, end) of one key, and the version of the record the claim that took them wrote.
struct COSID_EXPORT Range {
  std::int64_t first = 0;
  std::int64_t end = 0;  // excluded
  std::uint64_t version = 0;
  std::int64_t size() const noexcept { return end - first; }
};

class COSID_EXPORT RangeStore {
 public:
  virtual ~RangeStore() = default;

  // Takes the next request.count values of request.key (header comment); `range` receives them.
  [[nodiscard]] virtual bool claim(const RangeRequest& request, Range& range, Status& status) = 0;

  // Hands `unused` back: the unused tail [unused.first, unused.end) of a range this caller
  // claimed, with unused.end and unused.version as that claim returned them. `returned` says
  // whether the key's next value is now unused.first (true) or the key changed since the claim
  // and the values are skipped (false, and success). REQUIRES: the caller used none of the
  // values; unused.first < unused.end.
  [[nodiscard]] virtual bool give_back(const std::string& key, const Range& unused, bool& returned,
                                       Status& status) = 0;

  // Seals `key`: every later claim fails with errc::range_sealed. Sealing a sealed key changes
  // nothing and succeeds; a key without a record fails with invalid_argument. `state` receives
  // the record as sealed.
  [[nodiscard]] virtual bool seal(const std::string& key, RangeState& state, Status& status) = 0;

  // The record of `key` (state.exists false when it has none).
  [[nodiscard]] virtual bool read(const std::string& key, RangeState& state, Status& status) = 0;
};

}  // namespace segment
}  // namespace cosid

#endif  // COSID_SEGMENT_RANGE_STORE_H_
