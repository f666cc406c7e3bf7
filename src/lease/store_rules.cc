// SPDX-License-Identifier: Apache-2.0
#include "cosid/lease/store_rules.h"

#include <algorithm>
#include <limits>

#include "base/fail.h"
#include "base/parse_util.h"

namespace cosid {
namespace lease {
namespace {

using detail::fail;

// now + ttl (+ tolerance) for a store clock anywhere in int64: saturates instead of overflowing,
// so an absurd clock reading gives a far expiry rather than undefined behaviour.
std::int64_t add_ms(std::int64_t a, std::int64_t b) noexcept {
  if (b > 0 && a > std::numeric_limits<std::int64_t>::max() - b) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return a + b;
}

std::string in_namespace(const std::string& name_space) {
  return " in namespace " + detail::quote(name_space);
}

std::string slot_text(const std::string& name_space, std::uint32_t slot) {
  return "slot " + std::to_string(slot) + in_namespace(name_space);
}

// The sentences of this file's refusals, at its end, so that each check reads without stepping
// over text. Each names the values and what to give instead.
std::string ttl_out_of_range_message(const std::string& name_space, std::chrono::milliseconds ttl);
std::string empty_owner_key_message(const std::string& name_space, std::uint32_t slot);
std::string nil_incarnation_message(const std::string& name_space, std::uint32_t slot,
                                    const Owner& owner);
std::string slot_above_limit_message(const std::string& name_space, std::uint32_t slot,
                                     const NamespaceTerms& terms);
std::string lease_gone_message(const SlotRecord& record, const SlotLease& held,
                               const char* operation);
std::string slot_limit_out_of_range_message(const std::string& name_space,
                                            const NamespaceTerms& terms);
std::string tolerance_out_of_range_message(const std::string& name_space,
                                           const NamespaceTerms& terms);
std::string negative_fence_time_message(const std::string& name_space, std::uint32_t slot,
                                        std::int64_t not_before);
std::string terms_mismatch_message(const std::string& name_space, const NamespaceTerms& recorded,
                                   const NamespaceTerms& requested);

bool check_ttl(const std::string& name_space, std::chrono::milliseconds ttl, Status& status) {
  if (ttl.count() < 1 || ttl > kMaxLeaseTtl) {
    return fail(status, errc::invalid_argument, ttl_out_of_range_message(name_space, ttl));
  }
  return true;
}

bool check_owner(const std::string& name_space, std::uint32_t slot, const Owner& owner,
                 Status& status) {
  if (owner.key.empty()) {
    return fail(status, errc::invalid_argument, empty_owner_key_message(name_space, slot));
  }
  if (owner.incarnation.is_nil()) {
    return fail(status, errc::invalid_argument, nil_incarnation_message(name_space, slot, owner));
  }
  return true;
}

bool check_slot(const std::string& name_space, std::uint32_t slot, const NamespaceTerms& terms,
                Status& status) {
  if (slot >= terms.slot_limit) {
    return fail(status, errc::invalid_argument, slot_above_limit_message(name_space, slot, terms));
  }
  return true;
}

bool same_owner(const Owner& a, const Owner& b) noexcept {
  return a.key == b.key && a.incarnation == b.incarnation;
}

// Whether `record` is still the lease `held`: held by the same owner under the same fence.
bool check_still_held(const SlotRecord& record, const SlotLease& held, const char* operation,
                      Status& status) {
  if (record.held && record.fence == held.fence && same_owner(record.owner, held.owner)) {
    return true;
  }
  return fail(status, errc::lease_lost, lease_gone_message(record, held, operation));
}

}  // namespace

bool check_terms(const std::string& name_space, const NamespaceTerms& terms, Status& status) {
  if (terms.slot_limit < 1 || terms.slot_limit > kMaxSlotLimit) {
    return fail(status, errc::invalid_argument, slot_limit_out_of_range_message(name_space, terms));
  }
  if (terms.tolerance.count() < 0 || terms.tolerance > kMaxLeaseTolerance) {
    return fail(status, errc::invalid_argument, tolerance_out_of_range_message(name_space, terms));
  }
  return true;
}

bool check_scan(const std::string& name_space, const NamespaceTerms& terms, Status& status) {
  if (name_space.empty()) {
    return fail(status, errc::invalid_argument,
                "the lease namespace is empty: give a namespace such as the service's name");
  }
  return check_terms(name_space, terms, status);
}

bool check_acquire(const AcquireRequest& request, Status& status) {
  return check_scan(request.name_space, request.terms, status) &&
         check_slot(request.name_space, request.slot, request.terms, status) &&
         check_owner(request.name_space, request.slot, request.owner, status) &&
         check_ttl(request.name_space, request.ttl, status);
}

bool check_held(const SlotLease& held, const NamespaceTerms& terms, std::chrono::milliseconds ttl,
                Status& status) {
  return check_scan(held.name_space, terms, status) &&
         check_slot(held.name_space, held.slot, terms, status) &&
         check_owner(held.name_space, held.slot, held.owner, status) &&
         check_ttl(held.name_space, ttl, status);
}

bool check_fence(const std::string& name_space, const NamespaceTerms& terms, std::uint32_t slot,
                 std::int64_t not_before, Status& status) {
  if (!check_scan(name_space, terms, status) || !check_slot(name_space, slot, terms, status)) {
    return false;
  }
  if (not_before < 0) {
    return fail(status, errc::invalid_argument,
                negative_fence_time_message(name_space, slot, not_before));
  }
  return true;
}

bool check_recorded_terms(const std::string& name_space, const NamespaceTerms& recorded,
                          const NamespaceTerms& requested, Status& status) {
  if (recorded.slot_limit == requested.slot_limit && recorded.tolerance == requested.tolerance) {
    return true;
  }
  return fail(status, errc::lease_terms_mismatch,
              terms_mismatch_message(name_space, recorded, requested));
}

bool is_free(const SlotRecord& record, std::int64_t now) noexcept {
  return !record.held || now > record.expires_at;
}

SlotLease lease_of(const std::string& name_space, const SlotRecord& record, std::int64_t now) {
  SlotLease lease;
  lease.name_space = name_space;
  lease.slot = record.slot;
  lease.owner = record.owner;
  lease.fence = record.fence;
  lease.expires_at = record.expires_at;
  lease.floor = record.floor;
  lease.ceiling = record.ceiling;
  lease.store_now = now;
  return lease;
}

AcquireOutcome apply_acquire(SlotRecord& record, const AcquireRequest& request, std::int64_t now,
                             SlotLease& lease) {
  // The same owner retrying (its first answer was lost) gets the lease it already has, as long as
  // it is live; an expired one is taken anew below like any free slot, with a new window.
  const bool retry = record.held && same_owner(record.owner, request.owner);
  if (retry && now <= record.expires_at) {
    lease = lease_of(request.name_space, record, now);
    return AcquireOutcome::kAcquired;
  }
  if (!is_free(record, now)) return AcquireOutcome::kTaken;
  record.held = true;
  record.owner = request.owner;
  record.last_owner_key = request.owner.key;
  record.fence += 1;
  record.floor = record.next_floor;
  record.expires_at = add_ms(now, request.ttl.count());
  // The window never ends before it starts, whatever the store's clock did since the last holder.
  record.ceiling =
      std::max(add_ms(record.expires_at, request.terms.tolerance.count()), record.floor);
  record.next_floor = record.ceiling;
  lease = lease_of(request.name_space, record, now);
  return AcquireOutcome::kAcquired;
}

bool apply_renew(SlotRecord& record, const SlotLease& held, const NamespaceTerms& terms,
                 std::chrono::milliseconds ttl, std::int64_t now, SlotLease& renewed,
                 Status& status) {
  if (!check_still_held(record, held, "renew", status)) return false;
  // Only up: a store clock that went back, or a replayed renewal, never shortens the window.
  record.expires_at = std::max(record.expires_at, add_ms(now, ttl.count()));
  record.ceiling = std::max(record.ceiling, add_ms(record.expires_at, terms.tolerance.count()));
  record.next_floor = std::max(record.next_floor, record.ceiling);
  renewed = lease_of(held.name_space, record, now);
  status.clear();
  return true;
}

bool apply_release(SlotRecord& record, const SlotLease& held, std::int64_t last_issued,
                   Status& status) {
  if (!check_still_held(record, held, "release", status)) return false;
  record.held = false;
  record.last_owner_key = record.owner.key;
  record.owner = Owner{};
  // The next holder starts right after the last timestamp really issued, which lies in
  // (floor, ceiling]; a value outside is clamped into the window, never beyond it.
  record.next_floor = std::max(record.floor, std::min(last_issued, record.ceiling));
  record.fence += 1;
  status.clear();
  return true;
}

FenceResult apply_fence(SlotRecord& record, bool recorded, std::int64_t not_before) {
  FenceResult result;
  result.before = record;
  // The ceiling counts too: a holder recorded here may have issued up to it, and a released slot's
  // next_floor may lie below it; so does next_floor itself, which the fence never lowers.
  const std::int64_t raised = std::max({record.next_floor, record.ceiling, not_before});
  if (record.held) {
    // Ending the lease makes its holder's next renew or release fail; until then it issues at
    // most up to its ceiling, which `raised` covers.
    record.held = false;
    record.last_owner_key = record.owner.key;
    record.owner = Owner{};
    record.fence += 1;
    result.outcome = FenceOutcome::kEndedLease;
  } else if (!recorded) {
    result.outcome = FenceOutcome::kCreated;
  } else if (raised != record.next_floor) {
    result.outcome = FenceOutcome::kRaised;
  }
  record.next_floor = raised;
  result.after = record;
  return result;
}

// The sentences.
namespace {

std::string ttl_out_of_range_message(const std::string& name_space, std::chrono::milliseconds ttl) {
  return "lease ttl " + std::to_string(ttl.count()) + " ms" + in_namespace(name_space) +
         " is outside 1 ms to " + std::to_string(kMaxLeaseTtl.count()) +
         " ms: give a ttl such as 30s";
}

std::string empty_owner_key_message(const std::string& name_space, std::uint32_t slot) {
  return "the owner key for " + slot_text(name_space, slot) +
         " is empty: give a key such as host:pid";
}

std::string nil_incarnation_message(const std::string& name_space, std::uint32_t slot,
                                    const Owner& owner) {
  return "the incarnation of owner " + detail::quote(owner.key) + " for " +
         slot_text(name_space, slot) +
         " is nil: make one with Incarnation::random() at every start";
}

std::string slot_above_limit_message(const std::string& name_space, std::uint32_t slot,
                                     const NamespaceTerms& terms) {
  return "slot " + std::to_string(slot) + in_namespace(name_space) +
         " is at or above the slot limit " + std::to_string(terms.slot_limit) +
         ": give a slot from 0 to " + std::to_string(terms.slot_limit - 1);
}

// What the slot's record says now, then that the lease `held` is gone.
std::string lease_gone_message(const SlotRecord& record, const SlotLease& held,
                               const char* operation) {
  const std::string now_text = record.held
                                   ? "it is held by " + detail::quote(record.owner.key) +
                                         " (incarnation " + record.owner.incarnation.to_string() +
                                         ") under fence " + std::to_string(record.fence)
                                   : "it is free, fence " + std::to_string(record.fence);
  return std::string("cannot ") + operation + " the lease on " +
         slot_text(held.name_space, held.slot) + " of " + detail::quote(held.owner.key) +
         " (incarnation " + held.owner.incarnation.to_string() + ", fence " +
         std::to_string(held.fence) + "): " + now_text +
         "; the lease is gone: stop issuing under it and acquire a slot anew";
}

std::string slot_limit_out_of_range_message(const std::string& name_space,
                                            const NamespaceTerms& terms) {
  return "slot limit " + std::to_string(terms.slot_limit) + in_namespace(name_space) +
         " is outside 1 to " + std::to_string(kMaxSlotLimit) +
         ": give 2^slot_bits of the layout, such as 1024";
}

std::string tolerance_out_of_range_message(const std::string& name_space,
                                           const NamespaceTerms& terms) {
  return "tolerance " + std::to_string(terms.tolerance.count()) + " ms" + in_namespace(name_space) +
         " is outside 0 to " + std::to_string(kMaxLeaseTolerance.count()) +
         " ms: give one such as 1s";
}

std::string negative_fence_time_message(const std::string& name_space, std::uint32_t slot,
                                        std::int64_t not_before) {
  return "the fence time " + std::to_string(not_before) + " ms for " + slot_text(name_space, slot) +
         " is negative: give Unix ms after the largest timestamp issued";
}

std::string terms_mismatch_message(const std::string& name_space, const NamespaceTerms& recorded,
                                   const NamespaceTerms& requested) {
  return "namespace " + detail::quote(name_space) + " records slot limit " +
         std::to_string(recorded.slot_limit) + " and tolerance " +
         std::to_string(recorded.tolerance.count()) + " ms, this runtime asks for " +
         std::to_string(requested.slot_limit) + " and " +
         std::to_string(requested.tolerance.count()) +
         " ms: every runtime of a namespace must use the same slot bits and tolerance, else they "
         "disagree on ceilings; configure them alike or use another namespace";
}

}  // namespace

}  // namespace lease
}  // namespace cosid
