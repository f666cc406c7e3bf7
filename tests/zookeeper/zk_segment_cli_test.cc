// SPDX-License-Identifier: Apache-2.0
// The real `cosid segment next --store zookeeper:...` against a real ZooKeeper server: four
// processes issuing ids of one key at once, and kill cycles of streaming processes. Every id read
// is kept and compared: none may come twice, and each process's increase.
//
// No timing is asserted; the deadlines of cli_process.h only keep a hung child from hanging the
// test.
#include <gtest/gtest.h>

#include <string>

#include "segment_cli_runs.h"
#include "temp_dir.h"
#include "zk_server.h"

namespace {

class ZooKeeperSegmentCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    COSID_REQUIRE_ZOOKEEPER();
    cosid::Status status;
    ASSERT_TRUE(server_.start(status)) << status.message() << "\n" << server_.log_tail();
  }

  std::string store() const { return "zookeeper:" + server_.connect_string(); }

  cosid::testing::ZkServer server_;
  TempDir dir_{"zk_segment_cli"};
};

TEST_F(ZooKeeperSegmentCliTest, FourProcessesAtOnceIssueDistinctIncreasingIds) {
  EXPECT_EQ(cosid::testing::run_at_once(dir_, store(), 4, 20000).size(), 80000u);
}

// Each cycle's processes open a session of their own; 40 cycles keep the server's load small.
TEST_F(ZooKeeperSegmentCliTest, SigkilledStreamingProcessesNeverRepeatAnId) {
  cosid::testing::run_kill_cycles(dir_, store(), 40);
}

}  // namespace
