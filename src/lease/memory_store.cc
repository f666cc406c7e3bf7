// SPDX-License-Identifier: Apache-2.0
#include "cosid/lease/memory_store.h"

#include "cosid/lease/store_rules.h"

namespace cosid {
namespace lease {

MemoryLeaseStore::Namespace* MemoryLeaseStore::find_or_create(const std::string& name_space,
                                                              const NamespaceTerms& terms,
                                                              Status& status) {
  auto it = namespaces_.find(name_space);
  if (it == namespaces_.end()) {
    it = namespaces_.emplace(name_space, Namespace{terms, {}}).first;
  } else if (!check_recorded_terms(name_space, it->second.terms, terms, status)) {
    return nullptr;
  }
  return &it->second;
}

bool MemoryLeaseStore::scan(const std::string& name_space, const NamespaceTerms& terms,
                            std::vector<SlotRecord>& records, std::int64_t& store_now,
                            Status& status) {
  if (!check_scan(name_space, terms, status)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  Namespace* ns = find_or_create(name_space, terms, status);
  if (ns == nullptr) return false;
  records.clear();
  records.reserve(ns->slots.size());
  for (const auto& entry : ns->slots) records.push_back(entry.second);
  store_now = clock_.now_ms();
  status.clear();
  return true;
}

bool MemoryLeaseStore::acquire(const AcquireRequest& request, AcquireOutcome& outcome,
                               SlotLease& lease, SlotRecord& record, Status& status) {
  if (!check_acquire(request, status)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  Namespace* ns = find_or_create(request.name_space, request.terms, status);
  if (ns == nullptr) return false;
  SlotRecord current;
  current.slot = request.slot;
  const auto it = ns->slots.find(request.slot);
  if (it != ns->slots.end()) current = it->second;
  outcome = apply_acquire(current, request, clock_.now_ms(), lease);
  if (outcome == AcquireOutcome::kAcquired) ns->slots[request.slot] = current;
  record = current;
  status.clear();
  return true;
}

bool MemoryLeaseStore::renew(const SlotLease& held, const NamespaceTerms& terms,
                             std::chrono::milliseconds ttl, SlotLease& renewed, Status& status) {
  if (!check_held(held, terms, ttl, status)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  Namespace* ns = find_or_create(held.name_space, terms, status);
  if (ns == nullptr) return false;
  // A slot never acquired cannot be renewed: apply_renew refuses the empty record, which is then
  // dropped, so a stray renewal leaves no trace.
  const auto it = ns->slots.find(held.slot);
  SlotRecord never_used;
  never_used.slot = held.slot;
  SlotRecord& record = it != ns->slots.end() ? it->second : never_used;
  return apply_renew(record, held, terms, ttl, clock_.now_ms(), renewed, status);
}

bool MemoryLeaseStore::release(const SlotLease& held, const NamespaceTerms& terms,
                               std::int64_t last_issued, Status& status) {
  // Any valid ttl: release does not use it.
  if (!check_held(held, terms, std::chrono::milliseconds(1), status)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  Namespace* ns = find_or_create(held.name_space, terms, status);
  if (ns == nullptr) return false;
  const auto it = ns->slots.find(held.slot);
  SlotRecord never_used;
  never_used.slot = held.slot;
  SlotRecord& record = it != ns->slots.end() ? it->second : never_used;
  return apply_release(record, held, last_issued, status);
}

bool MemoryLeaseStore::fence(const std::string& name_space, const NamespaceTerms& terms,
                             std::uint32_t slot, std::int64_t not_before, FenceResult& result,
                             Status& status) {
  if (!check_fence(name_space, terms, slot, not_before, status)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  Namespace* ns = find_or_create(name_space, terms, status);
  if (ns == nullptr) return false;
  const bool recorded = ns->slots.count(slot) != 0;
  SlotRecord& record = ns->slots[slot];
  record.slot = slot;
  result = apply_fence(record, recorded, not_before);
  status.clear();
  return true;
}

}  // namespace lease
}  // namespace cosid
