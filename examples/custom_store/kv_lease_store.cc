// SPDX-License-Identifier: Apache-2.0
#include "kv_lease_store.h"

#include <sstream>

#include "cosid/lease/store_rules.h"

namespace example {
namespace {

using cosid::lease::SlotRecord;

// Key layout: "<ns>\x1fterms" and "<ns>\x1fslot\x1f<8-digit slot>" (the unit separator cannot
// appear in a namespace a user would choose; the padded slot keeps slots in key order).
std::string terms_key(const std::string& name_space) { return name_space + "\x1fterms"; }
std::string slot_prefix(const std::string& name_space) { return name_space + "\x1fslot\x1f"; }
std::string slot_key(const std::string& name_space, std::uint32_t slot) {
  std::string digits = std::to_string(slot);
  return slot_prefix(name_space) + std::string(8 - digits.size(), '0') + digits;
}

// Strings are written as "<length>:<bytes>", so keys may hold any byte.
void put_string(std::ostringstream& out, const std::string& text) {
  out << text.size() << ':' << text << ' ';
}
bool get_string(std::istringstream& in, std::string& text) {
  std::size_t size = 0;
  char colon = 0;
  if (!(in >> size >> colon) || colon != ':') return false;
  text.resize(size);
  return static_cast<bool>(in.read(&text[0], static_cast<std::streamsize>(size)));
}

std::string encode(const SlotRecord& r) {
  std::ostringstream out;
  out << r.slot << ' ' << r.held << ' ' << r.fence << ' ' << r.expires_at << ' ' << r.floor << ' '
      << r.ceiling << ' ' << r.next_floor << ' ';
  put_string(out, r.owner.incarnation.to_string());
  put_string(out, r.owner.key);
  put_string(out, r.last_owner_key);
  return out.str();
}

bool decode(const std::string& value, SlotRecord& r) {
  std::istringstream in(value);
  std::string incarnation;
  return static_cast<bool>(in >> r.slot >> r.held >> r.fence >> r.expires_at >> r.floor >>
                           r.ceiling >> r.next_floor) &&
         get_string(in, incarnation) &&
         cosid::lease::Incarnation::parse(incarnation, r.owner.incarnation) &&
         get_string(in, r.owner.key) && get_string(in, r.last_owner_key);
}

// A store reports a failure in the Status it is given: the code, and a message that says what
// happened and what to do. Return false after it.
bool corrupt(const std::string& key, cosid::Status& status) {
  status = cosid::Status(cosid::errc::store_corrupt,
                         "key-value store entry for a lease does not parse: " + key +
                             "; the entry was not written by this store: remove or repair it");
  return false;
}

// One slot read from the back end, with the version its compare-and-set must expect.
struct SlotEntry {
  SlotRecord record;
  std::uint64_t version = 0;
};

bool read_slot(VersionedKv& kv, const std::string& name_space, std::uint32_t slot, SlotEntry& entry,
               cosid::Status& status) {
  const std::string key = slot_key(name_space, slot);
  const auto value = kv.get(key);
  entry.version = value.second;
  entry.record = SlotRecord{};
  entry.record.slot = slot;
  if (entry.version == 0) return true;  // never used
  return decode(value.first, entry.record) || corrupt(key, status);
}

}  // namespace

std::pair<std::string, std::uint64_t> VersionedKv::get(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  return it == entries_.end() ? std::make_pair(std::string(), std::uint64_t{0}) : it->second;
}

bool VersionedKv::compare_and_set(const std::string& key, std::uint64_t expected,
                                  const std::string& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& entry = entries_[key];
  if (entry.second != expected) return false;
  entry = {value, expected + 1};
  return true;
}

std::vector<std::pair<std::string, std::string>> VersionedKv::list(const std::string& prefix) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::pair<std::string, std::string>> found;
  for (auto it = entries_.lower_bound(prefix);
       it != entries_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    if (it->second.second != 0) found.emplace_back(it->first, it->second.first);
  }
  return found;
}

bool KvLeaseStore::agree_terms(const std::string& name_space,
                               const cosid::lease::NamespaceTerms& terms, cosid::Status& status) {
  const std::string wanted =
      std::to_string(terms.slot_limit) + " " + std::to_string(terms.tolerance.count());
  for (;;) {
    const auto recorded = kv_->get(terms_key(name_space));
    if (recorded.second == 0) {
      if (kv_->compare_and_set(terms_key(name_space), 0, wanted)) return true;
      continue;  // someone else recorded them first: compare with theirs
    }
    std::istringstream in(recorded.first);
    cosid::lease::NamespaceTerms theirs;
    std::int64_t tolerance = 0;
    if (!(in >> theirs.slot_limit >> tolerance)) return corrupt(terms_key(name_space), status);
    theirs.tolerance = std::chrono::milliseconds(tolerance);
    return cosid::lease::check_recorded_terms(name_space, theirs, terms, status);
  }
}

bool KvLeaseStore::scan(const std::string& name_space, const cosid::lease::NamespaceTerms& terms,
                        std::vector<SlotRecord>& records, std::int64_t& store_now,
                        cosid::Status& status) {
  if (!cosid::lease::check_scan(name_space, terms, status) ||
      !agree_terms(name_space, terms, status)) {
    return false;
  }
  records.clear();
  for (const auto& entry : kv_->list(slot_prefix(name_space))) {
    SlotRecord record;
    if (!decode(entry.second, record)) return corrupt(entry.first, status);
    records.push_back(record);
  }
  store_now = clock_.now_ms();
  status.clear();
  return true;
}

bool KvLeaseStore::acquire(const cosid::lease::AcquireRequest& request,
                           cosid::lease::AcquireOutcome& outcome, cosid::lease::SlotLease& lease,
                           SlotRecord& record, cosid::Status& status) {
  if (!cosid::lease::check_acquire(request, status) ||
      !agree_terms(request.name_space, request.terms, status)) {
    return false;
  }
  for (;;) {  // until our compare-and-set lands on the version we decided on
    SlotEntry entry;
    if (!read_slot(*kv_, request.name_space, request.slot, entry, status)) return false;
    const std::uint64_t fence_before = entry.record.fence;
    outcome = cosid::lease::apply_acquire(entry.record, request, clock_.now_ms(), lease);
    record = entry.record;
    const bool changed =
        outcome == cosid::lease::AcquireOutcome::kAcquired && entry.record.fence != fence_before;
    if (!changed || kv_->compare_and_set(slot_key(request.name_space, request.slot), entry.version,
                                         encode(entry.record))) {
      status.clear();
      return true;
    }
  }
}

bool KvLeaseStore::renew(const cosid::lease::SlotLease& held,
                         const cosid::lease::NamespaceTerms& terms, std::chrono::milliseconds ttl,
                         cosid::lease::SlotLease& renewed, cosid::Status& status) {
  if (!cosid::lease::check_held(held, terms, ttl, status) ||
      !agree_terms(held.name_space, terms, status)) {
    return false;
  }
  for (;;) {
    SlotEntry entry;
    if (!read_slot(*kv_, held.name_space, held.slot, entry, status)) return false;
    if (!cosid::lease::apply_renew(entry.record, held, terms, ttl, clock_.now_ms(), renewed,
                                   status)) {
      return false;
    }
    if (kv_->compare_and_set(slot_key(held.name_space, held.slot), entry.version,
                             encode(entry.record))) {
      return true;
    }
  }
}

bool KvLeaseStore::release(const cosid::lease::SlotLease& held,
                           const cosid::lease::NamespaceTerms& terms, std::int64_t last_issued,
                           cosid::Status& status) {
  if (!cosid::lease::check_held(held, terms, std::chrono::milliseconds(1), status) ||
      !agree_terms(held.name_space, terms, status)) {
    return false;
  }
  for (;;) {
    SlotEntry entry;
    if (!read_slot(*kv_, held.name_space, held.slot, entry, status)) return false;
    if (!cosid::lease::apply_release(entry.record, held, last_issued, status)) return false;
    if (kv_->compare_and_set(slot_key(held.name_space, held.slot), entry.version,
                             encode(entry.record))) {
      return true;
    }
  }
}

bool KvLeaseStore::fence(const std::string& name_space, const cosid::lease::NamespaceTerms& terms,
                         std::uint32_t slot, std::int64_t not_before,
                         cosid::lease::FenceResult& result, cosid::Status& status) {
  if (!cosid::lease::check_fence(name_space, terms, slot, not_before, status) ||
      !agree_terms(name_space, terms, status)) {
    return false;
  }
  for (;;) {
    SlotEntry entry;
    if (!read_slot(*kv_, name_space, slot, entry, status)) return false;
    const cosid::lease::FenceResult fenced =
        cosid::lease::apply_fence(entry.record, entry.version != 0, not_before);
    // Nothing changed (a retry, or a slot fenced already): nothing to write.
    if (fenced.outcome == cosid::lease::FenceOutcome::kUnchanged ||
        kv_->compare_and_set(slot_key(name_space, slot), entry.version, encode(entry.record))) {
      result = fenced;
      status.clear();
      return true;
    }
  }
}

}  // namespace example
