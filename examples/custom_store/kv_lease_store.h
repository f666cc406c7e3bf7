// SPDX-License-Identifier: Apache-2.0
// A user's SlotLeaseStore over a versioned key-value store: how to plug etcd, Consul, Redis or a
// SQL table with a version column into cosid.
//
// The back end only needs two things: read a key with its version, and write a key only if its
// version is still the one read (compare-and-set). Each lease change reads one slot's key, lets
// cosid's store rules (cosid/lease/store_rules.h) decide, and writes the result with one
// compare-and-set; when another writer got there first, it reads again and decides again. Here the
// back end is a toy in memory (VersionedKv) so the example runs anywhere.
//
// Every call reports a failure in its last parameter, `cosid::Status& status`, and returns false:
// the store rules fill it for the checks and the lost leases, and the store sets it itself for
// its own failures (an entry that does not parse: store_corrupt; a back end that cannot be
// reached would be store_unavailable), with a message that says what happened and what to do.
//
// Thread safety: VersionedKv has one mutex; KvLeaseStore keeps no state of its own but the clock.
#ifndef COSID_EXAMPLES_CUSTOM_STORE_KV_LEASE_STORE_H_
#define COSID_EXAMPLES_CUSTOM_STORE_KV_LEASE_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cosid/clock.h"
#include "cosid/error.h"
#include "cosid/lease/store.h"

namespace example {

// The stand-in for etcd: string keys, string values, a version per key (0: absent).
class VersionedKv {
 public:
  // The value and version of `key`; version 0 and an empty value when it is absent.
  std::pair<std::string, std::uint64_t> get(const std::string& key);
  // Writes `value` if `key`'s version is still `expected` (0: the key must be absent).
  bool compare_and_set(const std::string& key, std::uint64_t expected, const std::string& value);
  // Every key starting with `prefix`, in key order, with its value.
  std::vector<std::pair<std::string, std::string>> list(const std::string& prefix);

 private:
  std::mutex mutex_;
  std::map<std::string, std::pair<std::string, std::uint64_t>> entries_;
};

class KvLeaseStore final : public cosid::lease::SlotLeaseStore {
 public:
  // The back end is shared: a real store would hold a client connection here.
  KvLeaseStore(std::shared_ptr<VersionedKv> kv, cosid::Clock& clock)
      : kv_(std::move(kv)), clock_(clock) {}

  bool scan(const std::string& name_space, const cosid::lease::NamespaceTerms& terms,
            std::vector<cosid::lease::SlotRecord>& records, std::int64_t& store_now,
            cosid::Status& status) override;
  bool acquire(const cosid::lease::AcquireRequest& request, cosid::lease::AcquireOutcome& outcome,
               cosid::lease::SlotLease& lease, cosid::lease::SlotRecord& record,
               cosid::Status& status) override;
  bool renew(const cosid::lease::SlotLease& held, const cosid::lease::NamespaceTerms& terms,
             std::chrono::milliseconds ttl, cosid::lease::SlotLease& renewed,
             cosid::Status& status) override;
  bool release(const cosid::lease::SlotLease& held, const cosid::lease::NamespaceTerms& terms,
               std::int64_t last_issued, cosid::Status& status) override;
  bool fence(const std::string& name_space, const cosid::lease::NamespaceTerms& terms,
             std::uint32_t slot, std::int64_t not_before, cosid::lease::FenceResult& result,
             cosid::Status& status) override;

 private:
  // Records `terms` for a new namespace (one compare-and-set on "<ns>/terms"), or checks them.
  bool agree_terms(const std::string& name_space, const cosid::lease::NamespaceTerms& terms,
                   cosid::Status& status);

  const std::shared_ptr<VersionedKv> kv_;
  cosid::Clock& clock_;
};

}  // namespace example

#endif  // COSID_EXAMPLES_CUSTOM_STORE_KV_LEASE_STORE_H_
