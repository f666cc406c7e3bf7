// SPDX-License-Identifier: Apache-2.0
// The real `cosid` on the inputs a new user gets wrong: each message names what was given and what
// to give instead, with the exit status src/cli/README.md ("Exit status") promises.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "support/cli_process.h"
#include "support/temp_dir.h"

namespace {

using cosid::testing::Cli;

struct Ended {
  int code;
  std::string out;
  std::string err;
};

Ended run(const TempDir& dir, const std::vector<std::string>& args) {
  Cli cli(dir, args);
  std::string out;
  for (const std::string& line : cli.rest()) out += line + "\n";
  const int code = cli.wait();
  return {code, out, cli.err()};
}

TEST(CliMessages, LeaseListWithoutStoreAsksForAStoreNotASlot) {
  const TempDir dir("cli_messages");
  const Ended listed = run(dir, {"lease", "list"});
  EXPECT_EQ(listed.code, 2);
  EXPECT_NE(listed.err.find("cosid: lease list: no lease store is configured"), std::string::npos)
      << listed.err;
  EXPECT_NE(listed.err.find("--store file:DIR"), std::string::npos) << listed.err;
  EXPECT_EQ(listed.err.find("no slot"), std::string::npos) << listed.err;
}

TEST(CliMessages, EpochInSecondsIsHintedAsTheValueTimesAThousand) {
  const TempDir dir("cli_messages");
  const Ended layout = run(dir, {"layout", "--unit", "s", "--epoch", "1577203"});
  EXPECT_EQ(layout.code, 2);
  EXPECT_NE(layout.err.find("such as 1577203000, or unit ms"), std::string::npos) << layout.err;
}

TEST(CliMessages, DirectoryAsStateFileSaysItIsADirectory) {
  const TempDir dir("cli_messages");
  const std::string state = dir.file("state");
  ASSERT_EQ(mkdir(state.c_str(), 0700), 0);
  const Ended next = run(dir, {"next", "--slot", "1", "--state-file", state});
  EXPECT_EQ(next.code, 1);
  EXPECT_NE(next.err.find("it is a directory; give the path of a file inside it, such as " + state +
                          "/cosid.state"),
            std::string::npos)
      << next.err;
  EXPECT_EQ(next.err.find("permissions"), std::string::npos) << next.err;
}

TEST(CliMessages, EmptyVariableInTheSlotIsNamed) {
  const TempDir dir("cli_messages");
  const std::string config = dir.file("cosid.yaml");
  std::ofstream(config) << std::string(
      "cosid:\n  machine:\n    static:\n      slot: ${POD_ORDINAL}\n");
  Cli cli(dir, {"config", "check", "--config", config}, {"POD_ORDINAL="});
  (void)cli.rest();
  EXPECT_EQ(cli.wait(), 2);  // a malformed value, wherever it came from, is a usage error
  const std::string err = cli.err();
  EXPECT_NE(err.find("cosid.yaml:4, where ${POD_ORDINAL} gave an empty value (a variable set to "
                     "\"\")) is not a whole number"),
            std::string::npos)
      << err;
}

TEST(CliMessages, NotBeforeYearsAheadFailsAtOnceWithTheGapInDays) {
  const TempDir dir("cli_messages");
  const Ended next = run(dir, {"next", "--slot", "1", "--state-file", dir.file("cosid.state"),
                               "--not-before", "2080-01-01T00:00:00Z"});
  EXPECT_EQ(next.code, 1);
  EXPECT_NE(next.err.find(" days short of the first tick after the floor 2080-01-01T00:00:00.000Z"),
            std::string::npos)
      << next.err;
  EXPECT_NE(next.err.find("more than the start wait of 11 s"), std::string::npos) << next.err;
  EXPECT_EQ(next.err.find("after waiting"), std::string::npos) << next.err;
}

TEST(CliMessages, NewStateFileWithoutNotBeforeShowsTheLayoutsEpochAsItsFloor) {
  const TempDir dir("cli_messages");
  const Ended next = run(dir, {"next", "--slot", "1", "--state-file", dir.file("a.state")});
  EXPECT_EQ(next.code, 0);
  EXPECT_NE(next.err.find("with floor 2019-12-24T16:00:00.000Z (the layout's epoch): if this slot"),
            std::string::npos)
      << next.err;
  const Ended init = run(dir, {"state", "init", dir.file("b.state"), "--slot", "1"});
  EXPECT_EQ(init.code, 0);
  EXPECT_EQ(init.out, "created " + dir.file("b.state") +
                          " for slot 1 with floor 2019-12-24T16:00:00.000Z (the layout's epoch)\n");
}

}  // namespace
