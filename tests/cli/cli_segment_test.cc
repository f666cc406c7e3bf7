// SPDX-License-Identifier: Apache-2.0
// The real `cosid segment next` and `segment show` on a file range store: processes issuing ids
// of one key at once, streaming processes killed with SIGKILL and started again, a clean stop
// that hands the ids it did not issue back, and the commands' output and exit statuses.
//
// No timing is asserted; the deadlines of cli_process.h only keep a hung child from hanging the
// test. COSID_SEGMENT_KILL_CYCLES overrides the number of kill cycles.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/cli_process.h"
#include "support/segment_cli_runs.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace {

using cosid::testing::Cli;
using cosid::testing::expect_increasing;
using cosid::testing::segment_next;
using cosid::testing::to_ids;

// 200, or 40 in a sanitizer build, whose processes start and run several times slower.
int kill_cycles() {
  if (const char* text = std::getenv("COSID_SEGMENT_KILL_CYCLES")) return std::atoi(text);
#ifdef COSID_TEST_SANITIZED
  return 40;
#else
  return 200;
#endif
}

TEST(CliSegment, FourProcessesAtOnceIssueDistinctIncreasingIds) {
  const TempDir dir("cli_segment");
  ASSERT_FALSE(dir.path().empty());
  cosid::testing::init_store(dir, "file:" + dir.path() + "/ranges");
  EXPECT_EQ(cosid::testing::run_at_once(dir, "file:" + dir.path() + "/ranges", 4, 100000).size(),
            400000u);
}

// Streaming processes, two at a time on one key, killed with SIGKILL and started again: no id read
// from any of them is read twice, and each one's ids increase.
TEST(CliSegment, SigkilledStreamingProcessesNeverRepeatAnId) {
  const TempDir dir("cli_segment");
  ASSERT_FALSE(dir.path().empty());
  cosid::testing::init_store(dir, "file:" + dir.path() + "/ranges");
  cosid::testing::run_kill_cycles(dir, "file:" + dir.path() + "/ranges", kill_cycles());
}

TEST(CliSegment, ACleanStopHandsTheRestBackAndTheRestartResumes) {
  const TempDir dir("cli_segment");
  ASSERT_FALSE(dir.path().empty());
  const std::string store = "file:" + dir.path() + "/ranges";
  cosid::testing::init_store(dir, store);
  std::uint64_t last = 0;
  {
    Cli streaming(dir, segment_next(store, "0", {"--step", "1000"}));
    std::vector<std::uint64_t> ids = to_ids(streaming.lines(1500));  // into the second segment
    ASSERT_EQ(ids.size(), 1500u) << streaming.err();
    streaming.signal(SIGTERM);
    for (const std::uint64_t id : to_ids(streaming.rest())) ids.push_back(id);
    ASSERT_EQ(streaming.wait(), 0) << streaming.err();
    cosid::testing::expect_key_started_only(streaming.err(), "orders", dir.path() + "/ranges", 1);
    expect_increasing(ids, "the stopped process");
    EXPECT_EQ(ids.front(), 1u);
    last = ids.back();
  }
  // Nobody claimed meanwhile: the store's next value is the id after the last one issued.
  Cli show(dir, {"segment", "show", "orders", "--json", "--store", store});
  const std::vector<std::string> record = show.rest();
  ASSERT_EQ(show.wait(), 0) << show.err();
  ASSERT_EQ(record.size(), 1u);
  EXPECT_NE(record[0].find("\"exists\":true,\"next\":" + std::to_string(last + 1) + ","),
            std::string::npos)
      << record[0];
  Cli restart(dir, segment_next(store, "3", {"--step", "1000"}));
  const std::vector<std::uint64_t> ids = to_ids(restart.rest());
  ASSERT_EQ(restart.wait(), 0) << restart.err();
  EXPECT_EQ(restart.err(), "");  // the key exists now: no warning
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{last + 1, last + 2, last + 3}));
}

// The output of one finished run: its exit status, stdout and stderr.
struct Finished {
  int code;
  std::vector<std::string> out;
  std::string err;
};

Finished run(const TempDir& dir, const std::vector<std::string>& args) {
  Cli cli(dir, args);
  Finished result;
  result.out = cli.rest();
  result.code = cli.wait();
  result.err = cli.err();
  return result;
}

TEST(CliSegment, FormatsOffsetsAndTheRecord) {
  const TempDir dir("cli_segment");
  ASSERT_FALSE(dir.path().empty());
  const std::string store = "file:" + dir.path() + "/ranges";
  Finished r = run(dir, {"segment", "show", "orders", "--store", store});
  EXPECT_EQ(r.code, 1);  // a reading does not make the store's directory
  EXPECT_NE(r.err.find("cosid: segment show: the file range store's directory " + dir.path() +
                       "/ranges does not exist"),
            std::string::npos)
      << r.err;
  cosid::testing::init_store(dir, store);
  r = run(dir, segment_next(store, "2", {"--offset", "1000", "--format", "json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, (std::vector<std::string>{"{\"key\":\"orders\",\"id\":1001}",
                                             "{\"key\":\"orders\",\"id\":1002}"}));
  r = run(dir, segment_next(store, "1", {"--format", "radix62"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, (std::vector<std::string>{"000000000GB"}));  // 1003 = 16 * 62 + 11
  r = run(dir, segment_next(store, "1", {"--format", "radix36"}));
  EXPECT_EQ(r.out, (std::vector<std::string>{"00000000000rw"}));  // 1004 = 27 * 36 + 32
  r = run(dir, {"segment", "show", "orders", "--store", store});
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(r.out.size(), 5u);
  EXPECT_EQ(r.out[0], "key: orders");
  EXPECT_EQ(r.out[1], "exists: true");
  EXPECT_EQ(r.out[2], "next: 1005");
  EXPECT_EQ(r.out[3], "sealed: false");
  // A key without a record: exists false, and the first id its first claim would hand out.
  r = run(dir, {"segment", "show", "codes", "--json", "--store", store});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, (std::vector<std::string>{"{\"key\":\"codes\",\"exists\":false,\"next\":1,"
                                             "\"sealed\":false,\"version\":0}"}));
}

TEST(CliSegment, TheConfigFileDefinesTheStoreAndTheKeys) {
  const TempDir dir("cli_segment");
  ASSERT_FALSE(dir.path().empty());
  const std::string config = dir.path() + "/cosid.yaml";
  std::FILE* file = std::fopen(config.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fprintf(file,
               "cosid:\n  segment:\n    distributor:\n      type: file\n      file:\n"
               "        directory: %s/ranges\n    provider:\n      orders:\n        offset: 500\n",
               dir.path().c_str());
  std::fclose(file);
  // Without --store, store init creates the range store the config file names.
  Finished r = run(dir, {"store", "init", "--config", config});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, (std::vector<std::string>{"file store " + dir.path() + "/ranges: created " +
                                             dir.path() + "/ranges"}));
  r = run(dir, {"segment", "next", "orders", "-n", "2", "--config", config});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, (std::vector<std::string>{"501", "502"}));
  // A flag wins over the file's entry.
  r = run(dir, {"segment", "next", "codes", "--offset", "70", "--config", config});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, (std::vector<std::string>{"71"}));
}

TEST(CliSegment, ExitStatuses) {
  const TempDir dir("cli_segment");
  ASSERT_FALSE(dir.path().empty());
  struct Case {
    std::vector<std::string> args;
    int code;
    const char* err;
  };
  const Case cases[] = {
      // A missing or malformed setting, wherever given, is a usage error.
      {{"segment", "next", "orders"},
       2,
       "cosid: segment next: no range store is configured for segment ids: give "
       "cosid.segment.distributor.type"},
      {{"segment", "next", "a/b", "--store", "memory"}, 2, "segment key \"a/b\" holds \"/\""},
      {{"segment", "next", "--store", "memory"}, 2, "no KEY given"},
      {{"segment", "next", "a", "b", "--store", "memory"}, 2, "unexpected argument \"b\""},
      {{"segment", "next", "orders", "-n", "x", "--store", "memory"}, 2, "--count: \"x\""},
      {{"segment", "next", "orders", "--format", "friendly", "--store", "memory"},
       2,
       "unknown format \"friendly\""},
      {{"segment", "next", "orders", "--step", "0", "--store", "memory"},
       2,
       "cosid.segment.provider.orders.step = \"0\" (flag --step): below the minimum, 1"},
      {{"segment", "next", "orders", "--store", "etcd"},
       2,
       "no range store is registered as \"etcd\""},
      {{"segment", "show", "orders", "--store", "memory:x"},
       2,
       "cosid.segment.distributor.type = \"memory:x\" (flag --store)"},
      {{"segment", "show", "orders", "--store", "memory", "--bogus"}, 2, "--bogus"},
  };
  for (const Case& c : cases) {
    std::string line;
    for (const std::string& word : c.args) line += word + " ";
    SCOPED_TRACE(line);
    const Finished r = run(dir, c.args);
    EXPECT_EQ(r.code, c.code) << r.err;
    EXPECT_NE(r.err.find(c.err), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  const Finished memory = run(dir, {"segment", "next", "orders", "-n", "3", "--store", "memory"});
  EXPECT_EQ(memory.code, 0) << memory.err;
  EXPECT_EQ(memory.out, (std::vector<std::string>{"1", "2", "3"}));
  const Finished help = run(dir, {"help", "segment"});
  EXPECT_EQ(help.code, 0);
  ASSERT_FALSE(help.out.empty());
  EXPECT_EQ(help.out.front().rfind("Usage: cosid segment next KEY", 0), 0u) << help.out.front();
}

// A mistyped store name: the same command with a store that does not exist exits 1 with what to
// do, prints no id and creates nothing; with the store made by `cosid store init` it issues.
TEST(CliSegment, AMistypedStoreIsRefusedAndNothingIsCreated) {
  const TempDir dir("cli_segment");
  ASSERT_FALSE(dir.path().empty());
  const std::string ranges = dir.path() + "/ranges";
  cosid::testing::init_store(dir, "file:" + ranges);
  Finished r = run(dir, {"segment", "next", "orders", "-n", "3", "--store", "file:" + ranges});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, (std::vector<std::string>{"1", "2", "3"}));
  const std::string typo = dir.path() + "/nonexist";
  r = run(dir, {"segment", "next", "orders", "-n", "3", "--store", "file:" + typo});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err, "cosid: segment next: the file range store's directory " + typo +
                       " does not exist, and cosid never creates a store on first use: a new "
                       "store starts every key from zero, so if this store existed, it was moved "
                       "or the path is mistyped, and ids would repeat. Check the path; if the "
                       "store is meant to be new, create it once with: cosid store init --store "
                       "file:" +
                       typo + "\n");
  struct stat st {};
  EXPECT_NE(::stat(typo.c_str(), &st), 0) << typo << " was created";
  // The real store goes on where it was.
  r = run(dir, {"segment", "next", "orders", "-n", "1", "--store", "file:" + ranges});
  EXPECT_EQ(r.out, (std::vector<std::string>{"4"}));
}

// A key with no record starts, but says so once on stderr (the key, the store, its first value);
// the next run of the key, and another key's record, do not repeat it.
TEST(CliSegment, ANewKeyIsAWarningOnce) {
  const TempDir dir("cli_segment");
  ASSERT_FALSE(dir.path().empty());
  const std::string ranges = dir.path() + "/ranges";
  cosid::testing::init_store(dir, "file:" + ranges);
  // 250 ids in segments of 10: 25 claims and more, of which the first alone creates the record.
  Finished r = run(dir, segment_next("file:" + ranges, "250", {"--step", "10", "--offset", "40"}));
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(r.out.size(), 250u);
  EXPECT_EQ(r.out.front(), "41");
  cosid::testing::expect_key_started_only(r.err, "orders", ranges, 41);
  r = run(dir, segment_next("file:" + ranges, "3"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.front(), "291");
}

}  // namespace
