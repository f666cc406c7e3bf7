// SPDX-License-Identifier: Apache-2.0
// The real `cosid next` and `cosid segment next` at the end of a pipe: a reader that closes its
// end (as `| head -1` does) ends a stream (-n 0) cleanly with status 0, the state file or the
// range store closed as after SIGTERM; the same close during -n N is status 1 with a message
// that says how many ids got out. SIGHUP stops a stream like SIGTERM; --rate paces a stream.
//
// No timing is asserted; the deadlines of cli_process.h only keep a hung child from hanging the
// test.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "support/cli_process.h"
#include "support/segment_cli_runs.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace {

using cosid::testing::Cli;
using cosid::testing::segment_next;
using cosid::testing::to_id;
using cosid::testing::to_ids;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::string> next_args(const TempDir& dir, const std::string& count) {
  return {"next", "-n", count, "--slot", "13", "--state-file", dir.path() + "/state"};
}

// Whether `cosid state show --json` says the current block of the state file was written by a
// clean shutdown.
void expect_clean_close(const TempDir& dir) {
  Cli show(dir, {"state", "show", dir.path() + "/state", "--json"});
  const std::vector<std::string> out = show.rest();
  ASSERT_EQ(show.wait(), 0) << show.err();
  ASSERT_EQ(out.size(), 1u);
  const std::string& json = out[0];
  const std::string marker = "\"current\":\"";
  const std::size_t at = json.find(marker);
  ASSERT_NE(at, std::string::npos) << json;
  const std::string block = "{\"block\":\"" + json.substr(at + marker.size(), 1) + "\"";
  const std::size_t start = json.find(block);
  ASSERT_NE(start, std::string::npos) << json;
  const std::string current = json.substr(start, json.find('}', start) - start);
  EXPECT_TRUE(contains(current, "\"clean_shutdown\":true")) << json;
}

// The first id of a new one-id run of next.
std::uint64_t first_id_of_next_run(const TempDir& dir) {
  Cli again(dir, next_args(dir, "1"));
  const std::vector<std::string> out = again.rest();
  EXPECT_EQ(again.wait(), 0) << again.err();
  if (out.size() != 1) {
    ADD_FAILURE() << "the next run printed " << out.size() << " lines; " << again.err();
    return 0;
  }
  return to_id(out[0]);
}

TEST(CliStream, ClosedPipeEndsAStreamCleanly) {
  const TempDir dir("cli_stream");
  ASSERT_FALSE(dir.path().empty());
  Cli cli(dir, next_args(dir, "0"));
  const std::vector<std::string> line = cli.lines(1);
  ASSERT_EQ(line.size(), 1u) << cli.err();
  const std::uint64_t read = to_id(line[0]);
  cli.close_output();
  EXPECT_EQ(cli.wait(), 0) << cli.err();
  EXPECT_FALSE(contains(cli.err(), "cosid: next:")) << cli.err();  // only the new file's warning
  expect_clean_close(dir);
  EXPECT_GT(first_id_of_next_run(dir), read);
}

TEST(CliStream, ClosedPipeDuringACountFailsAndSaysHowManyIdsGotOut) {
  const TempDir dir("cli_stream");
  ASSERT_FALSE(dir.path().empty());
  Cli cli(dir, next_args(dir, "1000000"));
  const std::vector<std::string> lines = cli.lines(10);
  ASSERT_EQ(lines.size(), 10u) << cli.err();
  cli.close_output();
  EXPECT_EQ(cli.wait(), 1) << cli.err();
  const std::string err = cli.err();
  const std::string prefix = "cosid: next: standard output closed after ";
  const std::size_t at = err.find(prefix);
  ASSERT_NE(at, std::string::npos) << err;
  const std::string rest = err.substr(at + prefix.size());
  const std::uint64_t k = to_id(rest.substr(0, rest.find(' ')));
  EXPECT_GE(k, 10u) << err;  // at least the lines read got out
  EXPECT_LT(k, 1000000u) << err;
  EXPECT_TRUE(contains(rest, std::to_string(k) +
                                 " of 1000000 ids: the reader stopped reading. Read all the ids "
                                 "asked for, or ask for fewer (-n), or use -n 0 to stream until "
                                 "the reader goes\n"))
      << err;
  expect_clean_close(dir);  // the state file is closed cleanly all the same
}

TEST(CliStream, SighupEndsAStreamCleanly) {
  const TempDir dir("cli_stream");
  ASSERT_FALSE(dir.path().empty());
  Cli cli(dir, next_args(dir, "0"));
  const std::vector<std::string> lines = cli.lines(5);
  ASSERT_EQ(lines.size(), 5u) << cli.err();
  cli.signal(SIGHUP);
  std::vector<std::string> all = lines;
  for (const std::string& line : cli.rest()) all.push_back(line);
  EXPECT_EQ(cli.wait(), 0) << cli.err();
  EXPECT_FALSE(contains(cli.err(), "cosid: next:")) << cli.err();
  expect_clean_close(dir);
  EXPECT_GT(first_id_of_next_run(dir), to_id(all.back()));
}

TEST(CliStream, RatePacedStreamStopsOnSigtermWithDistinctIds) {
  const TempDir dir("cli_stream");
  ASSERT_FALSE(dir.path().empty());
  std::vector<std::string> args = next_args(dir, "0");
  args.insert(args.end(), {"--rate", "50"});
  Cli cli(dir, args);
  std::vector<std::string> lines = cli.lines(10);
  ASSERT_EQ(lines.size(), 10u) << cli.err();
  cli.signal(SIGTERM);
  for (const std::string& line : cli.rest()) lines.push_back(line);
  EXPECT_EQ(cli.wait(), 0) << cli.err();
  const std::vector<std::uint64_t> ids = to_ids(lines);
  EXPECT_EQ(std::set<std::uint64_t>(ids.begin(), ids.end()).size(), ids.size());
  expect_clean_close(dir);
}

TEST(CliStream, MalformedRateIsAUsageError) {
  const TempDir dir("cli_stream");
  ASSERT_FALSE(dir.path().empty());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"0", "cosid: next: --rate: 0 ids per second issues nothing: give at least 1"},
      {"x", "cosid: next: --rate: \"x\" is not a whole number: give digits only, such as 10"},
      {"1000001", "cosid: next: --rate: \"1000001\" is too large: give at most 1000000"},
  };
  for (const auto& [value, message] : cases) {
    std::vector<std::string> args = next_args(dir, "0");
    args.insert(args.end(), {"--rate", value});
    Cli cli(dir, args);
    EXPECT_TRUE(cli.rest().empty());
    EXPECT_EQ(cli.wait(), 2) << value;
    EXPECT_TRUE(contains(cli.err(), message)) << cli.err();
  }
  std::vector<std::string> args = next_args(dir, "5");
  args.insert(args.end(), {"--rate", "10"});
  Cli counted(dir, args);
  EXPECT_TRUE(counted.rest().empty());
  EXPECT_EQ(counted.wait(), 2);
  EXPECT_TRUE(contains(counted.err(),
                       "cosid: next: --rate paces a stream: give it with -n 0, or leave it out "
                       "with -n 5"))
      << counted.err();
}

// The segment ids in `store`'s record of orders: its next value.
std::uint64_t store_next(const TempDir& dir, const std::string& store) {
  Cli show(dir, {"segment", "show", "orders", "--json", "--store", store});
  const std::vector<std::string> record = show.rest();
  EXPECT_EQ(show.wait(), 0) << show.err();
  if (record.size() != 1) return 0;
  const std::string marker = "\"next\":";
  const std::size_t at = record[0].find(marker);
  if (at == std::string::npos) return 0;
  const std::string rest = record[0].substr(at + marker.size());
  return to_id(rest.substr(0, rest.find(',')));
}

// A stream whose reader closed the pipe (after SIGHUP too, in `stop`) hands the claimed tail back:
// the store's next value lies inside the first segment of 1000000, just after the ids that went
// into the pipe, and the restart begins there.
void segment_stream_stops_cleanly(bool by_closing) {
  const TempDir dir("cli_stream");
  ASSERT_FALSE(dir.path().empty());
  const std::string store = "file:" + dir.path() + "/ranges";
  cosid::testing::init_store(dir, store);
  Cli cli(dir, segment_next(store, "0", {"--step", "1000000"}));
  std::vector<std::string> lines = cli.lines(3);
  ASSERT_EQ(lines.size(), 3u) << cli.err();
  if (by_closing) {
    cli.close_output();
  } else {
    cli.signal(SIGHUP);
    for (const std::string& line : cli.rest()) lines.push_back(line);
  }
  EXPECT_EQ(cli.wait(), 0) << cli.err();
  cosid::testing::expect_key_started_only(cli.err(), "orders", dir.path() + "/ranges", 1);
  const std::uint64_t last = to_id(lines.back());
  const std::uint64_t next = store_next(dir, store);
  EXPECT_GT(next, last);
  EXPECT_LE(next, 1000000u);  // given back: without it the next run would begin at 1000001
  if (!by_closing) {
    EXPECT_EQ(next, last + 1);  // every id issued was read
  }
  Cli restart(dir, segment_next(store, "1", {"--step", "1000000"}));
  const std::vector<std::uint64_t> ids = to_ids(restart.rest());
  ASSERT_EQ(restart.wait(), 0) << restart.err();
  EXPECT_EQ(ids, std::vector<std::uint64_t>{next});
}

TEST(CliStream, SegmentStreamEndsCleanlyWhenThePipeCloses) { segment_stream_stops_cleanly(true); }

TEST(CliStream, SegmentStreamEndsCleanlyOnSighup) { segment_stream_stops_cleanly(false); }

TEST(CliStream, SegmentCountFailsWhenThePipeCloses) {
  const TempDir dir("cli_stream");
  ASSERT_FALSE(dir.path().empty());
  const std::string store = "file:" + dir.path() + "/ranges";
  cosid::testing::init_store(dir, store);
  Cli cli(dir, segment_next(store, "1000000"));
  ASSERT_EQ(cli.lines(10).size(), 10u) << cli.err();
  cli.close_output();
  EXPECT_EQ(cli.wait(), 1) << cli.err();
  EXPECT_TRUE(contains(cli.err(), "cosid: segment next: standard output closed after "))
      << cli.err();
  EXPECT_TRUE(contains(cli.err(), " of 1000000 ids: the reader stopped reading.")) << cli.err();
}

}  // namespace
