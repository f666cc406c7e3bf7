// SPDX-License-Identifier: Apache-2.0
// Slot choice: which slot of a namespace a runtime leases (src/lease/PROTOCOL.md, "Choosing a
// slot").
//
// choose_slot() reads the namespace and then tries acquire() on one slot at a time, in this order
// of preference:
//
//   1. the slot this (key, incarnation) already holds: an idempotent retry;
//   2. the preferred slot, if it is free (a StatefulSet ordinal, say);
//   3. a free slot whose last owner had the same key ("sticky"), lowest first;
//   4. the lowest free slot;
//   5. none: errc::lease_exhausted, with the earliest expiry to wait for.
//
// How it reads depends on the store. A store whose reads are cheap (reads_partially() false, the
// memory and file stores) is read with one scan(). A store whose reads are costly (ZooKeeper) is
// read in part: read_owner_index() once, for the store's clock and the slots whose record names
// the key (steps 1 and 3, and the key's live leases); then one read_slots() of those slots and
// the preferred one (more if they are more than 256); then, for step 4, read_slots() of slots 0
// to 31, the next 64, the next 128, and then 256 at a time, each without the slots read already,
// the next batch only when no slot of this one could be acquired. No read asks for more than 256
// slots, and only an exhausted namespace is read in full. Both ways choose the same slot from the
// same records; what the store answers must be in slot order and below the limit
// (errc::store_corrupt otherwise).
//
// Free means never used (no record), released, or expired on the store's clock. Each try is one
// atomic compare-and-set; a try that loses a race (kTaken) moves on to the next candidate, so the
// order is only a preference and two runtimes never get the same slot. A live lease of the same
// key but another incarnation is never taken over: another slot is chosen and the choice lists
// the slots that key holds (the keeper reports them as a duplicate owner key).
//
// Thread safety: choose_slot() keeps no state of its own; it is as safe as the store it is given.
#ifndef COSID_LEASE_SLOT_CHOICE_H_
#define COSID_LEASE_SLOT_CHOICE_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/export.h"
#include "cosid/lease/store.h"

namespace cosid {
namespace lease {

struct SlotChoiceRequest {
  std::string name_space;
  Owner owner;
  NamespaceTerms terms;
  std::chrono::milliseconds ttl{30000};
  bool has_preferred_slot = false;
  std::uint32_t preferred_slot = 0;  // used when has_preferred_slot; must be below the limit
};

// Why a slot was chosen: the step of the order above that gave it.
enum class ChoiceReason {
  kAlreadyHeld,  // 1: this owner held it already
  kPreferred,    // 2: the preferred slot
  kSticky,       // 3: the last owner had the same key
  kLowestFree,   // 4: the lowest free slot
};

struct SlotChoice {
  SlotLease lease;  // on success: the lease acquired
  ChoiceReason reason = ChoiceReason::kLowestFree;
  // Live leases of the same key under another incarnation, seen while choosing (another runtime
  // with this key is running, or a restarted one's old lease has not expired yet). Filled on
  // success and on failure.
  std::vector<SlotRecord> duplicate_key_holders;
  // On lease_exhausted: the earliest expires_at of the live leases seen (store clock, Unix ms),
  // and the store's clock when they were read; wait about earliest_expiry - store_now, then retry.
  std::int64_t earliest_expiry = 0;
  std::int64_t store_now = 0;
};

// Chooses and acquires a slot of request.name_space for request.owner (header comment). Fails
// with invalid_argument (including a preferred slot at or above the limit), lease_exhausted, or
// whatever the store's reads and acquire() report (store_unavailable, store_corrupt,
// lease_terms_mismatch).
COSID_EXPORT bool choose_slot(SlotLeaseStore& store, const SlotChoiceRequest& request,
                              SlotChoice& choice, Status& status);
#if COSID_HAS_EXCEPTIONS
// Throws cosid::Error with the message.
COSID_EXPORT SlotChoice choose_slot(SlotLeaseStore& store, const SlotChoiceRequest& request);
#endif

}  // namespace lease
}  // namespace cosid

#endif  // COSID_LEASE_SLOT_CHOICE_H_
