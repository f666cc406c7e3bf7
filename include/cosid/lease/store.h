// SPDX-License-Identifier: Apache-2.0
// Slot lease stores: the plug-in interface through which a fleet leases slots instead of
// configuring them (src/lease/PROTOCOL.md, "The lease" and "Store-side table").
//
// A lease is the exclusive right to issue timestamps in a window (floor, ceiling] on one slot of a
// namespace. The store keeps, per slot, the invariant that makes ids unique: the next holder's
// floor is at least the largest ceiling the previous holder could have used. It does so by making
// every change one atomic compare-and-set on one slot, with these effects (times on the store's
// clock, in Unix ms):
//
//   acquire  the slot is free or expired      fence + 1; floor = next_floor;
//            (or already held by this exact   expires_at = now + ttl;
//             owner: an idempotent retry)      ceiling = max(expires_at + tolerance, floor);
//                                              next_floor = ceiling
//   renew    incarnation and fence match      expires_at = max(expires_at, now + ttl); ceiling
//                                              and next_floor follow, never down; fence kept,
//                                              so a replayed renewal succeeds
//   release  incarnation and fence match      owner cleared (its key kept as last_owner_key);
//                                              next_floor = max(floor, min(last_issued, ceiling));
//                                              fence + 1
//   fence    always (a slot without a record   next_floor = max(next_floor, ceiling, not_before);
//            gets one)                         if an owner is recorded (live or expired): owner
//                                              cleared (its key kept as last_owner_key), fence + 1
//
// fence is for a store restored from a backup, or any record that may be older than the ids
// issued on its slot: it makes every later holder start above TIME (a timestamp at least the
// largest one issued) without trusting any clock. A fenced holder's next renew or release fails
// with lease_lost; until then it issues only up to the ceiling it already had, which the raised
// next_floor covers. Repeated with the same TIME it changes nothing, not even the fence counter.
//
// A slot is expired when the store's now > expires_at. A live lease of the same key with another
// incarnation is never taken over. Which slot to try is not the store's business: the chooser in
// slot_choice.h reads scan() and tries slots one at a time in the order of src/lease/PROTOCOL.md,
// "Choosing a slot".
//
// A namespace records its terms {slot limit, tolerance} when first used; every call that carries
// other terms is refused with errc::lease_terms_mismatch (the namespace-terms rule of
// src/lease/PROTOCOL.md): two runtimes that disagree on the tolerance would disagree on the
// ceilings.
//
// Errors: lease_lost (renew/release whose fence or incarnation no longer match: the lease is
// gone), lease_exhausted (never from acquire itself: a slot that is held gives `taken`),
// lease_terms_mismatch, store_unavailable (I/O, lock or timeout: the outcome of a change may be
// unknown, and retrying it is safe because every change is idempotent or fenced),
// store_corrupt, invalid_argument (a slot at or above the limit, an empty namespace or key, a
// non-positive ttl, a negative tolerance, a nil incarnation). Messages name the namespace, the slot
// and the values. A store never throws into the library; every call is noexcept in practice and
// reports through its last parameter, `Status& status` (cosid/error.h): true with `status` ok on
// success, false with the code and the message on failure.
//
// store_rules.h holds the table above as pure functions over one SlotRecord, so a store only has
// to provide the atomic compare-and-set around them; lease/conformance.h (the TCK, target
// cosid::tck) checks that a store keeps every row.
//
// Thread safety: a SlotLeaseStore must accept calls from any number of threads and processes at
// once (each store says which processes can share it); each call is atomic with respect to all
// others on the same slot.
#ifndef COSID_LEASE_STORE_H_
#define COSID_LEASE_STORE_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "cosid/error.h"
#include "cosid/export.h"
#include "cosid/store/incarnation.h"

namespace cosid {
namespace lease {

// The incarnation of the runtime that holds a lease (cosid/store/incarnation.h).
using Incarnation = ::cosid::Incarnation;

// Who holds a lease: a logical key (configured, else "host:pid") and the incarnation of the
// runtime that holds it.
struct COSID_EXPORT Owner {
  std::string key;
  Incarnation incarnation;
};

// What every caller of a namespace must agree on.
struct COSID_EXPORT NamespaceTerms {
  std::uint32_t slot_limit = 1024;            // slots 0 .. slot_limit - 1 (2^bits)
  std::chrono::milliseconds tolerance{1000};  // how far past expires_at a holder may issue
};

// A held lease, as acquire() and renew() return it.
struct COSID_EXPORT SlotLease {
  std::string name_space;  // "namespace" is a keyword
  std::uint32_t slot = 0;
  Owner owner;
  std::uint64_t fence = 0;      // +1 on every change of ownership; renewals keep it
  std::int64_t expires_at = 0;  // store clock, ms: when someone else may take the slot
  std::int64_t floor = 0;       // ms, excluded: this holder's timestamps are > floor
  std::int64_t ceiling = 0;     // ms, included: this holder's timestamps are <= ceiling
  std::int64_t store_now = 0;   // the store's clock when it made the change
};

// One slot as the store holds it, for choosing a slot and for `cosid lease list`.
struct COSID_EXPORT SlotRecord {
  std::uint32_t slot = 0;
  bool held = false;           // an owner is recorded (it may have expired: see expires_at)
  Owner owner;                 // meaningful when held
  std::string last_owner_key;  // the key of the last owner, kept after release ("sticky")
  std::uint64_t fence = 0;
  std::int64_t expires_at = 0;
  std::int64_t floor = 0;
  std::int64_t ceiling = 0;
  std::int64_t next_floor = 0;  // the floor of the next holder
};

struct COSID_EXPORT AcquireRequest {
  std::string name_space;
  std::uint32_t slot = 0;  // the one slot this compare-and-set is about
  Owner owner;
  NamespaceTerms terms;
  std::chrono::milliseconds ttl{30000};
};

// What fence() did to one slot.
enum class FenceOutcome {
  kUnchanged,   // next_floor was already at least max(ceiling, not_before) and no owner recorded
  kRaised,      // a free slot's next_floor was raised
  kEndedLease,  // an owner was recorded (live or expired): cleared, fence + 1, next_floor raised
  kCreated,     // the slot had no record: one was made, free, next_floor = not_before
};

// A slot before and after fence(); `before` of a slot without a record has only `slot` set.
struct COSID_EXPORT FenceResult {
  FenceOutcome outcome = FenceOutcome::kUnchanged;
  SlotRecord before;
  SlotRecord after;
};

enum class AcquireOutcome {
  kAcquired,  // `lease` holds the new (or, for a retry by the same owner, the existing) lease
  kTaken,     // a live lease of another owner holds the slot; `record` shows it
};

class COSID_EXPORT SlotLeaseStore {
 public:
  virtual ~SlotLeaseStore() = default;

  // The slots of `name_space` the store has a record of (a slot never used has none and is free
  // with next_floor 0), in slot order, and the store's clock. Records terms for a new namespace,
  // refuses other terms.
  [[nodiscard]] virtual bool scan(const std::string& name_space, const NamespaceTerms& terms,
                                  std::vector<SlotRecord>& records, std::int64_t& store_now,
                                  Status& status) = 0;

  // One compare-and-set on request.slot (header comment). On kTaken, `record` is the holder's.
  [[nodiscard]] virtual bool acquire(const AcquireRequest& request, AcquireOutcome& outcome,
                                     SlotLease& lease, SlotRecord& record, Status& status) = 0;

  // Extends `held` (header comment); `renewed` receives the new lease. lease_lost when the slot's
  // fence or incarnation no longer match.
  [[nodiscard]] virtual bool renew(const SlotLease& held, const NamespaceTerms& terms,
                                   std::chrono::milliseconds ttl, SlotLease& renewed,
                                   Status& status) = 0;

  // Gives `held` back; `last_issued` is the last timestamp issued under it (Unix ms), or
  // held.floor if none was. lease_lost when fence or incarnation no longer match.
  [[nodiscard]] virtual bool release(const SlotLease& held, const NamespaceTerms& terms,
                                     std::int64_t last_issued, Status& status) = 0;

  // Raises the next floor of `slot` to at least `not_before` (Unix ms) and ends any lease on it,
  // in one compare-and-set (header comment); a slot without a record gets one. Records terms for a
  // new namespace and refuses other terms, like scan(). invalid_argument for a slot at or above
  // the limit or a negative not_before. Retrying it is safe: a fence applied twice is applied
  // once.
  [[nodiscard]] virtual bool fence(const std::string& name_space, const NamespaceTerms& terms,
                                   std::uint32_t slot, std::int64_t not_before, FenceResult& result,
                                   Status& status) = 0;

  // Partial reads, for a store where reading every slot is costly (ZooKeeper). When
  // reads_partially() is true, choose_slot() (slot_choice.h) reads the owner index, then only the
  // slots it lists and the preferred one, then the lowest free slots in growing batches (32, 64,
  // ... up to 256 a read), so that only an exhausted namespace is read in full; otherwise it calls
  // scan() once. The defaults answer both reads from scan(), so a store need override nothing.
  virtual bool reads_partially() const noexcept { return false; }

  // The store's clock now (the now of every free check in this choice), and, ascending and below
  // the limit, the slots whose record may name `owner_key` as its owner or its last owner: every
  // such slot, and perhaps more (an index a store keeps may list slots it once recorded for the
  // key). Records terms for a new namespace and refuses other terms, like scan().
  [[nodiscard]] virtual bool read_owner_index(const std::string& name_space,
                                              const NamespaceTerms& terms,
                                              const std::string& owner_key,
                                              std::vector<std::uint32_t>& slots,
                                              std::int64_t& store_now, Status& status);

  // The records of `slots` (ascending, each below the limit) that the store has, in slot order; a
  // slot without one is left out (never used: free, next floor 0).
  [[nodiscard]] virtual bool read_slots(const std::string& name_space, const NamespaceTerms& terms,
                                        const std::vector<std::uint32_t>& slots,
                                        std::vector<SlotRecord>& records, Status& status);
};

}  // namespace lease
}  // namespace cosid

#endif  // COSID_LEASE_STORE_H_
