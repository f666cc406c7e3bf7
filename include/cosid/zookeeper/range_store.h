// SPDX-License-Identifier: Apache-2.0
// ZooKeeperRangeStore: a RangeStore in a ZooKeeper ensemble (3.8 or later), shared by every
// process of every host that names the same ensemble. Target cosid::zookeeper, with the lease
// store (zookeeper/lease_store.h), whose options it takes; it links the ZooKeeper C client, which
// this header does not include.
//
// The node, as every cosid store of a fleet writes it: /cosid/range/{key} holds the next value as
// decimal text, with ":sealed" appended once sealed (range_rules.h writes and reads it). A key's
// first claim creates the node, and reports it to options.listener (EventKind::kRangeKeyStarted);
// /cosid/range itself is made only by lease::init_zookeeper_store(). Every later change is a set on
// the version this store read, so the node's version is the record's version. The node is never
// deleted while any store uses the key. A node deleted behind the store, or recreated (another
// czxid than the one this store saw), is errc::store_corrupt and never used again by this store. A
// recreated node's first write cannot be taken back (the set succeeds on its version), only refused
// from then on.
//
// Each call as a whole (its retries included) takes at most options.timeout; past it, or when the
// ensemble cannot be reached, it fails with errc::store_unavailable. A claim retried inside the
// call after a lost connection reads the node again and claims anew, so a lost response costs a
// gap, never an overlap; a give_back retried inside the call sets on the version it read first,
// never on a fresh read.
//
// Thread safety: every call may come from any thread. As for the lease store, a child forked from
// a process with an open store must neither use it nor open one: fork before opening, or exec.
#ifndef COSID_ZOOKEEPER_RANGE_STORE_H_
#define COSID_ZOOKEEPER_RANGE_STORE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/export.h"
#include "cosid/segment/range_store.h"
#include "cosid/zookeeper/lease_store.h"

namespace cosid {
namespace segment {

class COSID_EXPORT ZooKeeperRangeStore final : public RangeStore {
 public:
  // Connects as ZooKeeperLeaseStore::open() does (options.clock is not used: ranges keep no time),
  // and checks that /cosid/range exists: errc::store_not_initialized when it does not (the
  // message names the node and the `cosid store init` that creates it).
  [[nodiscard]] static std::unique_ptr<ZooKeeperRangeStore> open(
      const lease::ZooKeeperStoreOptions& options, Status& status);
#if COSID_HAS_EXCEPTIONS
  static std::unique_ptr<ZooKeeperRangeStore> open(const lease::ZooKeeperStoreOptions& options);
#endif

  ~ZooKeeperRangeStore() override;
  ZooKeeperRangeStore(const ZooKeeperRangeStore&) = delete;
  ZooKeeperRangeStore& operator=(const ZooKeeperRangeStore&) = delete;

  bool claim(const RangeRequest& request, Range& range, Status& status) override;
  bool give_back(const std::string& key, const Range& unused, bool& returned,
                 Status& status) override;
  bool seal(const std::string& key, RangeState& state, Status& status) override;
  bool read(const std::string& key, RangeState& state, Status& status) override;

  // The current session's id and password, as ZooKeeperLeaseStore::session() gives them (so that
  // a test can expire it). False when not connected.
  bool session(lease::ZooKeeperLeaseStore::Session& out) const;
  // How many sessions this store has opened (1 after open(); +1 for each expired one replaced).
  std::uint64_t sessions_opened() const;

 private:
  class Impl;
  explicit ZooKeeperRangeStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace segment
}  // namespace cosid

#endif  // COSID_ZOOKEEPER_RANGE_STORE_H_
