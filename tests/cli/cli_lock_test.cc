// SPDX-License-Identifier: Apache-2.0
// The real `cosid next` on a state file that another process holds: refused at once by default,
// with the holder's pid in the message; with --lock-wait, processes that run one after another
// on one slot (as `xargs -P 8` starts them) all get their turn, and no id is issued twice.
//
// No timing is asserted; the deadlines of cli_process.h only keep a hung child from hanging the
// test.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "support/cli_process.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace {

using cosid::testing::Cli;
using cosid::testing::to_ids;

std::vector<std::string> next_args(const std::string& state, const std::string& count,
                                   const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = {"next", "-n", count, "--slot", "13", "--state-file", state};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(CliLock, TheInUseMessageNamesTheHoldersPid) {
  const TempDir dir("cli_lock");
  ASSERT_FALSE(dir.path().empty());
  const std::string state = dir.path() + "/state";
  Cli holder(dir, next_args(state, "0"));
  ASSERT_EQ(holder.lines(1).size(), 1u) << holder.err();
  Cli second(dir, next_args(state, "1"));
  EXPECT_TRUE(second.rest().empty());
  EXPECT_EQ(second.wait(), 1);
  const std::string expected = "cosid: next: state file " + state + " is in use by process " +
                               std::to_string(holder.pid()) +
                               ": each running instance needs its own slot and its own state "
                               "file; to run short processes on one slot one after another, set "
                               "lock-wait (--lock-wait DUR)";
  EXPECT_NE(second.err().find(expected), std::string::npos) << second.err();
  holder.signal(SIGTERM);
  (void)holder.rest();
  EXPECT_EQ(holder.wait(), 0) << holder.err();
}

// 20 runs, 8 at a time: every one waits its turn for the lock and issues its id.
TEST(CliLock, LockWaitLetsConcurrentRunsTakeTurns) {
  const TempDir dir("cli_lock");
  ASSERT_FALSE(dir.path().empty());
  const std::string state = dir.path() + "/state";
  std::set<std::uint64_t> seen;
  int started = 0;
  while (started < 20) {
    std::vector<std::unique_ptr<Cli>> batch;
    for (int i = 0; i < 8 && started < 20; ++i, ++started) {
      batch.push_back(std::make_unique<Cli>(dir, next_args(state, "1", {"--lock-wait", "10s"})));
    }
    for (const std::unique_ptr<Cli>& cli : batch) {
      const std::vector<std::uint64_t> ids = to_ids(cli->rest());
      EXPECT_EQ(cli->wait(), 0) << cli->err();
      ASSERT_EQ(ids.size(), 1u) << cli->err();
      EXPECT_TRUE(seen.insert(ids[0]).second) << "id " << ids[0] << " was issued twice";
    }
  }
  EXPECT_EQ(seen.size(), 20u);
}

TEST(CliLock, MalformedLockWaitIsRefused) {
  const TempDir dir("cli_lock");
  ASSERT_FALSE(dir.path().empty());
  Cli cli(dir, next_args(dir.path() + "/state", "1", {"--lock-wait", "2h"}));
  EXPECT_TRUE(cli.rest().empty());
  const int code = cli.wait();
  EXPECT_NE(cli.err().find("lock-wait"), std::string::npos) << cli.err();
  EXPECT_NE(cli.err().find("out of range: lock-wait is from 0"), std::string::npos) << cli.err();
  // The same status as a malformed --ahead: one class of error for every malformed value.
  Cli ahead(dir, next_args(dir.path() + "/state", "1", {"--ahead", "48h"}));
  EXPECT_TRUE(ahead.rest().empty());
  EXPECT_EQ(code, ahead.wait()) << ahead.err();
  EXPECT_NE(code, 0);
}

}  // namespace
