// SPDX-License-Identifier: Apache-2.0
// Store rules: the store-side table of lease/store.h as pure functions over one slot's record.
//
// A store's only job is to make each change one atomic compare-and-set on one slot: read the
// record (and the namespace's recorded terms), let these functions decide, and write the result
// back only if nobody changed the record meanwhile. Every store of cosid (memory, file) is built
// this way, and a user's store can be too; the conformance kit (lease/conformance.h) checks the
// result either way.
//
// Bounds beyond the table, so that no sum overflows: a ttl of 1 ms to 30 days, a tolerance of
// 0 to 30 days, a slot limit of 1 to 2^22 (the widest slot field a 63-bit layout leaves room for
// with a 41-bit timestamp is far smaller; the bound only keeps scans finite).
//
// Thread safety: pure functions of their arguments; call them from any thread.
#ifndef COSID_LEASE_STORE_RULES_H_
#define COSID_LEASE_STORE_RULES_H_

#include <chrono>
#include <cstdint>
#include <string>

#include "cosid/error.h"
#include "cosid/export.h"
#include "cosid/lease/store.h"

namespace cosid {
namespace lease {

constexpr std::chrono::milliseconds kMaxLeaseTtl{30LL * 24 * 3600 * 1000};
constexpr std::chrono::milliseconds kMaxLeaseTolerance{30LL * 24 * 3600 * 1000};
constexpr std::uint32_t kMaxSlotLimit = 1u << 22;

// Argument checks, each failing with errc::invalid_argument and a message naming the value. The
// fallible functions here take `Status& status` last (cosid/error.h): false with the code and the
// message on failure; true on success, where the checks leave `status` as it was and the apply_
// functions clear it.
// Terms: a slot limit of 1 to kMaxSlotLimit, a tolerance of 0 to kMaxLeaseTolerance.
COSID_EXPORT bool check_terms(const std::string& name_space, const NamespaceTerms& terms,
                              Status& status);
// A namespace that is not empty, valid terms, a ttl of 1 ms to kMaxLeaseTtl.
COSID_EXPORT bool check_scan(const std::string& name_space, const NamespaceTerms& terms,
                             Status& status);
// check_scan, plus: a slot below the limit, an owner key that is not empty, an incarnation that
// is not nil, a ttl of 1 ms to kMaxLeaseTtl.
COSID_EXPORT bool check_acquire(const AcquireRequest& request, Status& status);
// The same checks for a held lease given to renew (with its ttl) or release (ttl unused: pass
// any valid one).
COSID_EXPORT bool check_held(const SlotLease& held, const NamespaceTerms& terms,
                             std::chrono::milliseconds ttl, Status& status);
// A fence's arguments: check_scan, a slot below the limit, a not_before of 0 or more.
COSID_EXPORT bool check_fence(const std::string& name_space, const NamespaceTerms& terms,
                              std::uint32_t slot, std::int64_t not_before, Status& status);

// Compares the terms a namespace recorded with those of a call: errc::lease_terms_mismatch,
// with both in the message, when they differ.
COSID_EXPORT bool check_recorded_terms(const std::string& name_space,
                                       const NamespaceTerms& recorded,
                                       const NamespaceTerms& requested, Status& status);

// Whether another owner may take the slot at store time `now`: never used, released, or expired
// (now > expires_at).
COSID_EXPORT bool is_free(const SlotRecord& record, std::int64_t now) noexcept;

// The lease a record describes, as acquire() and renew() return it.
COSID_EXPORT SlotLease lease_of(const std::string& name_space, const SlotRecord& record,
                                std::int64_t now);

// The acquire row. `record` is the slot's current record (a never-used slot: SlotRecord with
// only `slot` set). Returns kAcquired and updates `record` and `lease` when the slot is free (a
// new lease: fence + 1, the next floor) or held by request.owner (the existing lease, unchanged:
// an idempotent retry, whose store_now is `now`); returns kTaken and leaves both alone when
// another owner's live lease holds it. REQUIRES: check_acquire(request) passed.
COSID_EXPORT AcquireOutcome apply_acquire(SlotRecord& record, const AcquireRequest& request,
                                          std::int64_t now, SlotLease& lease);

// The renew row: fails with errc::lease_lost when `record` is not held by held.owner under
// held.fence (the record is then left alone); else raises expires_at to now + ttl, ceiling and
// next_floor with it, never lowering any of them, and fills `renewed`.
// REQUIRES: check_held(held, terms, ttl) passed and the recorded terms match.
COSID_EXPORT bool apply_renew(SlotRecord& record, const SlotLease& held,
                              const NamespaceTerms& terms, std::chrono::milliseconds ttl,
                              std::int64_t now, SlotLease& renewed, Status& status);

// The release row: fails with errc::lease_lost like apply_renew; else clears the owner (keeping
// its key in last_owner_key), sets next_floor = max(floor, min(last_issued, ceiling)) and
// increments the fence.
COSID_EXPORT bool apply_release(SlotRecord& record, const SlotLease& held, std::int64_t last_issued,
                                Status& status);

// The fence row. `record` is the slot's current record, `recorded` whether the store had one (a
// slot without one: SlotRecord with only `slot` set). Raises next_floor to max(next_floor,
// ceiling, not_before) and, when an owner is recorded, clears it (its key kept as last_owner_key)
// and increments the fence, so that its renew and release fail with lease_lost. Never lowers
// next_floor; applied again with the same not_before it changes nothing (kUnchanged), so a store
// need not write then. Returns the record before and after, and what changed.
// REQUIRES: check_fence() passed.
COSID_EXPORT FenceResult apply_fence(SlotRecord& record, bool recorded, std::int64_t not_before);

}  // namespace lease
}  // namespace cosid

#endif  // COSID_LEASE_STORE_RULES_H_
