// SPDX-License-Identifier: Apache-2.0
// ZooKeeperLeaseStore: a SlotLeaseStore in a ZooKeeper ensemble (3.8 or later), shared by every
// process of every host that names the same ensemble. Target cosid::zookeeper, built with
// -DCOSID_WITH_ZOOKEEPER=ON; it links the ZooKeeper C client (libzookeeper_mt), which this header
// does not include.
//
// The nodes (src/zookeeper/NODES.md has every field and argues each rule):
//
//   /cosid/slot/{ns}              the namespace's terms: slot limit and tolerance
//   /cosid/slot/{ns}/{slot}       the slot as name=value lines: owner key, incarnation, last owner
//                                 key, fence, ttl, tolerance, floor, the expiry and ceiling lower
//                                 bounds, next floor (and the node's own czxid once it has one)
//   /cosid/slot/{ns}/.clock       written by each acquire: its mtime is the now of the expiry check
//   /cosid/owner/{ns}/{ownerKey}  the slots last owned by the key, written in the same multi as
//                                 each acquire (the key escaped for a path)
//
// Every change is a compare-and-set on the slot node's version; the fence lives in the data, so a
// node deleted and recreated cannot move it back: a recreated node (another czxid than the one the
// data or this store saw) is errc::store_corrupt and never used, and run-time code never deletes a
// slot node. Lease times come from the mtime of the write that produced them (expires_at =
// max(expiry lower bound, mtime + ttl), ceiling = max(ceiling lower bound, expires_at +
// tolerance)), the lower bounds from the replaced write, so neither goes down within a term
// whatever the servers' clocks do. A call returns success only for a write the ensemble
// acknowledged (a quorum has logged it) or a record it read back.
//
// Each call as a whole (its retries included) takes at most `timeout`; past it, or when the
// ensemble cannot be reached, it fails with errc::store_unavailable, and the outcome of a write may
// then be unknown: retrying is safe, as every change is idempotent or fenced. An expired session
// is replaced by a new one on the next call; leases are plain nodes, not ephemeral, and survive it.
//
// Operational precondition: if slot nodes are ever restored or rebuilt by hand, write them on a
// server whose clock is not behind the original nodes' mtime, or wait one ttl plus tolerance after
// the restore before starting any client (src/zookeeper/OPERATIONS.md).
//
// Thread safety: every call may come from any thread. A store is not usable in a child forked from
// the process that opened it (the client's threads are not forked), and such a child must not open
// one either: a lock the client's threads held at the fork (glibc's resolver lock, say) stays held
// in the child. Fork before opening any store, or exec; the conformance kit closes its store
// before it forks for that reason.
#ifndef COSID_ZOOKEEPER_LEASE_STORE_H_
#define COSID_ZOOKEEPER_LEASE_STORE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cosid/clock.h"
#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/events.h"
#include "cosid/export.h"
#include "cosid/lease/store.h"
#include "cosid/store_registry.h"

namespace cosid {
namespace lease {

// The store's options, with their defaults; the names in comments are the keys of a store
// instance (cosid.stores.NAME.*), which parse_zookeeper_options() reads.
struct ZooKeeperStoreOptions {
  // options.connectString: "HOST:PORT[,HOST:PORT...][/CHROOT]".
  std::string connect_string = "localhost:2181";
  // options.sessionTimeout: asked of the server, which clamps it to [2, 20] x its tickTime (a
  // server with the usual tickTime of 2 s grants 40 s for the 60 s asked);
  // session_timeout_granted() says what it granted. Leases do not depend on it (their nodes are
  // not ephemeral): it only decides how long a client cut off from the ensemble keeps its session.
  std::chrono::milliseconds session_timeout{60000};
  // options.connectionTimeout: how long one session may go without a connection before the store
  // gives it up and starts a new one.
  std::chrono::milliseconds connection_timeout{15000};
  // options.blockUntilConnectedWait: how long open() waits for the first connection.
  std::chrono::milliseconds block_until_connected_wait{10000};
  // options.retry.baseSleepTime / maxRetries / maxSleep: a call that meets a connection loss is
  // retried after base, doubling to max, at most maxRetries times, all within `timeout`.
  std::chrono::milliseconds retry_base_sleep{100};
  int retry_max_retries = 5;
  std::chrono::milliseconds retry_max_sleep{500};
  // timeout: each store call as a whole, retries included.
  std::chrono::milliseconds timeout{3000};
  // Lease times from this clock instead of the servers' mtimes (the conformance kit drives time
  // so); null in production. REQUIRES: outlives the store.
  Clock* clock = nullptr;
  // Receives the client library's warnings and errors as EventKind::kStoreLog (each distinct line
  // at most once a minute: a server that is down makes the client repeat itself every second);
  // null: they are dropped. REQUIRES: outlives the store.
  EventListener* listener = nullptr;
};

// Reads a store instance's keys into `options` (defaults for keys not given): timeout,
// options.connectString, options.sessionTimeout, options.connectionTimeout,
// options.blockUntilConnectedWait, options.retry.baseSleepTime, options.retry.maxRetries,
// options.retry.maxSleep. Fails with invalid_value (a value out of its range, named with its
// origin) or config_unknown_key (any other key).
[[nodiscard]] COSID_EXPORT bool parse_zookeeper_options(StoreSettings& settings,
                                                        ZooKeeperStoreOptions& options,
                                                        Status& status);

// Creates the store's root nodes that are missing, as `cosid store init --store zookeeper:CONNECT`
// does: /cosid, /cosid/slot, /cosid/owner and /cosid/range under the connect string's chroot
// (which must exist), each empty and persistent. A lease or range store opened on an ensemble
// without them fails with errc::store_not_initialized: a mistyped chroot must not be a second,
// empty store. report.created lists the nodes made (empty: the store existed, nothing changed).
// Namespaces and range keys inside the store are still made on first use. Fails with
// invalid_argument (an option) or store_unavailable (the ensemble, or a missing chroot).
[[nodiscard]] COSID_EXPORT bool init_zookeeper_store(const ZooKeeperStoreOptions& options,
                                                     StoreInitReport& report, Status& status);

// Registers the store in `registry` as "zookeeper", as a lease store and as a range store
// (zookeeper/range_store.h), with init_zookeeper_store() as its initializer: each
// runtime, and each open_range(), with a ZooKeeper store instance (or --store zookeeper:CONNECT)
// gets a store, and a session, of its own.
[[nodiscard]] COSID_EXPORT bool add_zookeeper_store(StoreRegistry& registry, Status& status);

class COSID_EXPORT ZooKeeperLeaseStore final : public SlotLeaseStore {
 public:
  // Connects to the ensemble, waiting up to block_until_connected_wait for the first connection,
  // and checks that the store's root exists (/cosid/slot and /cosid/owner; never created here:
  // init_zookeeper_store). Fails with invalid_argument (an option out of range, an empty connect
  // string), store_not_initialized (no root: the message names the node and the init command) or
  // store_unavailable (no server answered in time; the message names the connect string).
  [[nodiscard]] static std::unique_ptr<ZooKeeperLeaseStore> open(
      const ZooKeeperStoreOptions& options, Status& status);
#if COSID_HAS_EXCEPTIONS
  // Throws cosid::Error with the message.
  static std::unique_ptr<ZooKeeperLeaseStore> open(const ZooKeeperStoreOptions& options);
#endif

  ~ZooKeeperLeaseStore() override;
  ZooKeeperLeaseStore(const ZooKeeperLeaseStore&) = delete;
  ZooKeeperLeaseStore& operator=(const ZooKeeperLeaseStore&) = delete;

  bool scan(const std::string& name_space, const NamespaceTerms& terms,
            std::vector<SlotRecord>& records, std::int64_t& store_now, Status& status) override;
  bool acquire(const AcquireRequest& request, AcquireOutcome& outcome, SlotLease& lease,
               SlotRecord& record, Status& status) override;
  bool renew(const SlotLease& held, const NamespaceTerms& terms, std::chrono::milliseconds ttl,
             SlotLease& renewed, Status& status) override;
  bool release(const SlotLease& held, const NamespaceTerms& terms, std::int64_t last_issued,
               Status& status) override;
  bool fence(const std::string& name_space, const NamespaceTerms& terms, std::uint32_t slot,
             std::int64_t not_before, FenceResult& result, Status& status) override;

  bool reads_partially() const noexcept override { return true; }
  bool read_owner_index(const std::string& name_space, const NamespaceTerms& terms,
                        const std::string& owner_key, std::vector<std::uint32_t>& slots,
                        std::int64_t& store_now, Status& status) override;
  bool read_slots(const std::string& name_space, const NamespaceTerms& terms,
                  const std::vector<std::uint32_t>& slots, std::vector<SlotRecord>& records,
                  Status& status) override;

  // The session timeout the server granted (0 before the first connection).
  std::chrono::milliseconds session_timeout_granted() const;

  // The current session's id and password, so that a test can expire it (a second handle with
  // the same id, closed). False when not connected.
  struct Session {
    std::int64_t id = 0;
    std::string password;
  };
  bool session(Session& out) const;

  // How many sessions this store has opened (1 after open(); +1 for each expired one replaced).
  std::uint64_t sessions_opened() const;

 private:
  class Impl;
  explicit ZooKeeperLeaseStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lease
}  // namespace cosid

#endif  // COSID_ZOOKEEPER_LEASE_STORE_H_
