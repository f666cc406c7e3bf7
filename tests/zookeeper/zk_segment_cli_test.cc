// SPDX-License-Identifier: Apache-2.0
// The real `cosid segment next --store zookeeper:...` against a real ZooKeeper server: four
// processes issuing ids of one key at once, and kill cycles of streaming processes. Every id read
// is kept and compared: none may come twice, and each process's increase.
//
// No timing is asserted; the deadlines of cli_process.h only keep a hung child from hanging the
// test.
#include <gtest/gtest.h>

#include <string>

#include "support/segment_cli_runs.h"
#include "support/temp_dir.h"
#include "zk_server.h"

namespace {

class ZooKeeperSegmentCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    COSID_REQUIRE_ZOOKEEPER();
    cosid::Status status;
    ASSERT_TRUE(server_.start(status)) << status.message() << "\n" << server_.log_tail();
  }

  // The store as a deployment makes it, once, before its first use.
  void init() { cosid::testing::init_store(dir_, store()); }

  std::string store() const { return "zookeeper:" + server_.connect_string(); }

  cosid::testing::ZkServer server_;
  TempDir dir_{"zk_segment_cli"};
};

TEST_F(ZooKeeperSegmentCliTest, FourProcessesAtOnceIssueDistinctIncreasingIds) {
  init();
  EXPECT_EQ(cosid::testing::run_at_once(dir_, store(), 4, 20000).size(), 80000u);
}

// Each cycle's processes open a session of their own; 40 cycles keep the server's load small.
TEST_F(ZooKeeperSegmentCliTest, SigkilledStreamingProcessesNeverRepeatAnId) {
  init();
  cosid::testing::run_kill_cycles(dir_, store(), 40);
}

// A store without its root (never made, or a chroot mistyped) is refused, with the node and the
// command that makes it, and no id; `cosid store init` makes it (the chroot must exist), and a
// second init changes nothing.
TEST_F(ZooKeeperSegmentCliTest, AStoreWithoutItsRootIsRefusedUntilStoreInitMakesIt) {
  cosid::testing::CliOutcome r =
      cosid::testing::run_cli(dir_, {"segment", "next", "orders", "-n", "3", "--store", store()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("cosid: segment next: the ZooKeeper store " + server_.connect_string() +
                       " has no node /cosid/range, and cosid never creates a store on first use"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("create it once with: cosid store init --store " + store() + "\n"),
            std::string::npos)
      << r.err;
  // A chroot that does not exist: refused as well, and init does not make the chroot.
  const std::string typo = store() + "/typo";
  r = cosid::testing::run_cli(dir_, {"store", "init", "--store", typo});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("does not exist: create it, or drop it from the connect string"),
            std::string::npos)
      << r.err;

  r = cosid::testing::run_cli(dir_, {"store", "init", "--store", store()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "ZooKeeper store " + server_.connect_string() +
                       ": created /cosid, /cosid/slot, /cosid/owner, /cosid/range\n");
  r = cosid::testing::run_cli(dir_, {"store", "init", "--store", store()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "ZooKeeper store " + server_.connect_string() + ": exists already, nothing changed\n");
  r = cosid::testing::run_cli(dir_, {"segment", "next", "orders", "-n", "3", "--store", store()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "1\n2\n3\n");
  EXPECT_NE(r.err.find("cosid: warning: segment key \"orders\" had no record in the ZooKeeper "
                       "range store " +
                       server_.connect_string() + ", so it starts at 1."),
            std::string::npos)
      << r.err;
  // And the lease store of the same ensemble opens: one init serves both.
  r = cosid::testing::run_cli(dir_, {"next", "-n", "2", "--store", store()});
  EXPECT_EQ(r.code, 0) << r.err;
}

}  // namespace
