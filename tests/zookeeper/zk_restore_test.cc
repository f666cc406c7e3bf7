// SPDX-License-Identifier: Apache-2.0
// The case 0.6 was found on: a slot node restored from an early backup onto a server whose clock
// lags 4 s, the documented wait of one ttl plus tolerance, a crashed holder whose clock ran 5.8 s
// ahead and a new holder 4 s behind. Lease times come from the servers' mtimes (no store clock).
// Holder A issues, as its generator would, every timestamp of its clock inside its window and
// renews as its keeper would; after the restore the namespace is fenced at A's largest timestamp,
// and holder B's first timestamp (its floor + 1, or its clock if later) lies above every one of
// A's. (Without the fence B's floor comes from the restored node's mtime on the lagging server,
// about 2.5 s below A's largest timestamp here.)
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "cosid/clock.h"
#include "cosid/zookeeper/lease_store.h"
#include "zk_raw_client.h"
#include "zk_server.h"
#include "zk_store_init.h"

namespace cosid {
namespace {

using lease::AcquireOutcome;
using lease::NamespaceTerms;
using lease::SlotLease;
using lease::ZooKeeperLeaseStore;
using std::chrono::milliseconds;
using testing::RawClient;
using testing::ZkServer;

constexpr char kNamespace[] = "restore";
constexpr char kNode[] = "/cosid/slot/restore";
constexpr char kSlotNode[] = "/cosid/slot/restore/0";

std::unique_ptr<ZooKeeperLeaseStore> open_store(const std::string& connect_string) {
  lease::ZooKeeperStoreOptions options;
  options.connect_string = connect_string;
  options.timeout = milliseconds(10000);
  options.block_until_connected_wait = milliseconds(20000);
  Status status;
  auto store = ZooKeeperLeaseStore::open(options, status);
  EXPECT_NE(store, nullptr) << status.message();
  return store;
}

lease::AcquireRequest request(const std::string& key, const NamespaceTerms& terms) {
  lease::AcquireRequest request;
  request.name_space = kNamespace;
  request.slot = 0;
  request.owner.key = key;
  Status status;
  EXPECT_TRUE(lease::Incarnation::random(request.owner.incarnation, status));
  request.terms = terms;
  request.ttl = milliseconds(6000);
  return request;
}

// The node's text without its `node=` line: how NODES.md says to rebuild a node on a new server.
std::string without_node_line(const std::string& text) {
  const std::size_t at = text.find("node=");
  if (at == std::string::npos) return text;
  return text.substr(0, at) + text.substr(text.find('\n', at) + 1);
}

TEST(ZkRestore, AFencedRestoreOnALaggingServerLeavesNoTimestampTwice) {
  COSID_REQUIRE_ZOOKEEPER();
  std::string why;
  testing::ZkServerOptions lag;
  lag.env = testing::faketime_env("-4s", why);
  if (lag.env.empty()) GTEST_SKIP() << why;
  ZkServer original;
  ZkServer lagging(lag);
  Status status;
  ASSERT_TRUE(original.start(status)) << status.message();
  ASSERT_TRUE(lagging.start(status)) << status.message();

  NamespaceTerms terms;
  terms.slot_limit = 8;
  terms.tolerance = milliseconds(1000);
  SystemClock host;
  const std::int64_t ahead = 5800;
  const std::int64_t behind = -4000;

  // A leases slot 0 on the original server; the backup is taken at once.
  ASSERT_TRUE(testing::init_zk_store(original.connect_string()));
  auto a = open_store(original.connect_string());
  ASSERT_NE(a, nullptr);
  lease::AcquireRequest a_request = request("a", terms);
  AcquireOutcome outcome = AcquireOutcome::kTaken;
  SlotLease lease;
  lease::SlotRecord record;
  ASSERT_TRUE(a->acquire(a_request, outcome, lease, record, status)) << status.message();
  ASSERT_EQ(outcome, AcquireOutcome::kAcquired);
  std::string terms_text;
  std::string slot_text;
  {
    RawClient backup(original.connect_string(), nullptr);
    Stat stat{};
    int rc = ZOK;
    ASSERT_TRUE(backup.get(kNode, terms_text, stat, rc)) << rc;
    ASSERT_TRUE(backup.get(kSlotNode, slot_text, stat, rc)) << rc;
  }

  // A issues for 4 s: every reading of its clock inside (floor, ceiling], renewing when its clock
  // reaches the ceiling or a third of the ttl passed, as its keeper does.
  std::int64_t a_last = 0;
  auto renewed_at = std::chrono::steady_clock::now();
  for (const auto start = std::chrono::steady_clock::now();
       std::chrono::steady_clock::now() - start < milliseconds(4000);
       std::this_thread::sleep_for(milliseconds(20))) {
    const std::int64_t t = host.now_ms() + ahead;
    if (t > lease.ceiling || std::chrono::steady_clock::now() - renewed_at > milliseconds(2000)) {
      SlotLease renewed;
      ASSERT_TRUE(a->renew(lease, terms, a_request.ttl, renewed, status)) << status.message();
      lease = renewed;
      renewed_at = std::chrono::steady_clock::now();
      continue;
    }
    if (t > lease.floor) a_last = std::max(a_last, t);
  }
  ASSERT_GT(a_last, 0);
  // A crashes here: no release, no renewal.

  // The backup restored on the lagging server (a store made there first, as on any new server),
  // the node rebuilt without its `node=` line.
  ASSERT_TRUE(testing::init_zk_store(lagging.connect_string()));
  {
    RawClient restore(lagging.connect_string(), nullptr);
    ASSERT_TRUE(restore.connected());
    EXPECT_EQ(restore.create("/cosid/owner/restore", ""), ZOK);
    ASSERT_EQ(restore.create(kNode, terms_text), ZOK);
    ASSERT_EQ(restore.create(kSlotNode, without_node_line(slot_text)), ZOK);
  }
  std::this_thread::sleep_for(a_request.ttl + terms.tolerance);  // the documented wait

  auto b = open_store(lagging.connect_string());
  ASSERT_NE(b, nullptr);
  for (std::uint32_t slot = 0; slot < terms.slot_limit; ++slot) {
    lease::FenceResult fenced;
    ASSERT_TRUE(b->fence(kNamespace, terms, slot, a_last, fenced, status)) << status.message();
    EXPECT_GE(fenced.after.next_floor, a_last);
    if (slot == 0) {
      EXPECT_EQ(fenced.outcome, lease::FenceOutcome::kEndedLease);
    } else {
      EXPECT_EQ(fenced.outcome, lease::FenceOutcome::kCreated);
    }
  }

  const lease::AcquireRequest b_request = request("b", terms);
  SlotLease b_lease;
  ASSERT_TRUE(b->acquire(b_request, outcome, b_lease, record, status)) << status.message();
  ASSERT_EQ(outcome, AcquireOutcome::kAcquired);
  // B's clock lies about 2 s below A's last timestamp here: only the floor keeps B above it.
  const std::int64_t b_clock = host.now_ms() + behind;
  const std::int64_t b_first = std::max(b_lease.floor + 1, b_clock);
  EXPECT_GE(b_lease.floor, a_last);
  EXPECT_GT(b_first, a_last);
}

}  // namespace
}  // namespace cosid
