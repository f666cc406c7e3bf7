// SPDX-License-Identifier: Apache-2.0
// The real `cosid next` and `cosid segment next` stopped by SIGTERM at each moment that once killed
// them or held them: the wait for the floor, a slow first sync, a lease acquire that waits for a
// free slot, the wait for a state file another process holds, a segment claim that waits for the
// store's lock, and a full pipe whose reader stopped reading. Each ends cleanly: a stream (-n 0)
// with status 0, a batch (-n N) with 128 + SIGTERM and "stopped by SIGTERM after K of N ids";
// nothing is left held (no lease, no claimed range), and no id is issued at or below one issued
// before.
//
// The bounds only keep a hung child from hanging the test (cli_process.h's hang guard), except
// where the promise under test is a bound: the claim's wait ends long before its lock timeout,
// and a blocked stream ends well within the generous kStopBound of SIGTERM.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cosid/layout.h"
#include "support/cli_process.h"
#include "support/cli_run.h"
#include "support/segment_cli_runs.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace {

using cosid::testing::Cli;
using cosid::testing::init_store;
using cosid::testing::read_file;
using cosid::testing::segment_next;
using cosid::testing::Steady;
using cosid::testing::to_ids;

// The promise is 2 s; the bound asserted leaves room for a loaded 2-core machine.
constexpr double kStopBoundMs = 10000;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Waits (up to the hang guard) until `ready` holds.
bool await(const std::function<bool()>& ready) {
  const Steady::time_point deadline = Steady::now() + cosid::testing::kHangGuard;
  while (!ready()) {
    if (Steady::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Whether process `pid` has the file at `path` open (one of its /proc/PID/fd links names it).
bool has_open(pid_t pid, const std::string& path) {
  char real[PATH_MAX];
  if (realpath(path.c_str(), real) == nullptr) return false;
  const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
  DIR* dir = opendir(fds.c_str());
  if (dir == nullptr) return false;
  bool found = false;
  while (const dirent* entry = readdir(dir)) {
    char target[4096];
    const std::string link = fds + "/" + entry->d_name;
    const ssize_t size = readlink(link.c_str(), target, sizeof target - 1);
    if (size > 0 && std::string(target, static_cast<std::size_t>(size)) == real) found = true;
  }
  closedir(dir);
  return found;
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The number after "KEY": in `json`; -1 if absent.
std::int64_t json_number(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  return std::strtoll(json.c_str() + at + key.size() + 3, nullptr, 10);
}

// The current block of `cosid state show FILE --json`, as its JSON object's text.
std::string current_block(const TempDir& dir, const std::string& state) {
  Cli show(dir, {"state", "show", state, "--json"});
  const std::vector<std::string> out = show.rest();
  EXPECT_EQ(show.wait(), 0) << show.err();
  if (out.size() != 1) return "";
  const std::string& json = out[0];
  const std::string marker = "\"current\":\"";
  const std::size_t at = json.find(marker);
  if (at == std::string::npos) return "";
  const std::string block = "{\"block\":\"" + json.substr(at + marker.size(), 1) + "\"";
  const std::size_t start = json.find(block);
  if (start == std::string::npos) return "";
  return json.substr(start, json.find('}', start) - start);
}

// `cosid state init STATE --slot SLOT --not-before NOT_BEFORE`.
void init_state(const TempDir& dir, const std::string& state, int slot, std::int64_t not_before) {
  Cli init(dir, {"state", "init", state, "--slot", std::to_string(slot), "--not-before",
                 std::to_string(not_before)});
  (void)init.rest();
  ASSERT_EQ(init.wait(), 0) << init.err();
}

std::vector<std::string> next_args(const std::string& state, int slot, const std::string& count) {
  return {"next", "-n", count, "--slot", std::to_string(slot), "--state-file", state};
}

// SIGTERM, then the exit status; the lines the process still wrote go to `lines`.
int terminate(Cli& cli, std::vector<std::string>* lines = nullptr) {
  cli.signal(SIGTERM);
  const std::vector<std::string> rest = cli.rest();
  if (lines != nullptr) lines->insert(lines->end(), rest.begin(), rest.end());
  return cli.wait();
}

// A state file whose floor lies a minute ahead of the clock: the start waits for it (--ahead 2m
// makes the start wait 2 min 1 s; a larger gap would be refused at once), and a SIGTERM during
// the wait changes nothing in the file.
void stop_during_floor_wait(const std::string& count, int expected_status) {
  const TempDir dir("cli_signal");
  ASSERT_FALSE(dir.path().empty());
  const std::string state = dir.path() + "/state";
  const std::int64_t floor = now_ms() + 60000;
  init_state(dir, state, 21, floor);
  const std::string before = current_block(dir, state);
  std::vector<std::string> args = next_args(state, 21, count);
  args.insert(args.end(), {"--ahead", "2m"});
  Cli cli(dir, args);
  ASSERT_TRUE(await([&] { return contains(cli.err(), "waiting for it"); })) << cli.err();
  std::vector<std::string> lines;
  EXPECT_EQ(terminate(cli, &lines), expected_status) << cli.err();
  EXPECT_TRUE(lines.empty());
  EXPECT_EQ(cli.partial(), "");
  // Nothing was written: the floor a restart waits for is the one it had.
  EXPECT_EQ(current_block(dir, state), before);
  EXPECT_EQ(json_number(before, "ceiling_ms"), floor) << before;
  if (expected_status != 0) {
    EXPECT_TRUE(contains(cli.err(), "cosid: next: stopped by SIGTERM after 0 of " + count +
                                        " ids: the run shut down cleanly"))
        << cli.err();
  } else {
    EXPECT_FALSE(contains(cli.err(), "cosid: next:")) << cli.err();
  }
}

TEST(CliSignal, SigtermDuringTheFloorWaitEndsAStreamWithStatus0) { stop_during_floor_wait("0", 0); }

TEST(CliSignal, SigtermDuringTheFloorWaitEndsABatchWith128PlusSigterm) {
  stop_during_floor_wait("3", 128 + SIGTERM);
}

std::size_t lines_in(const std::string& path) {
  const std::string text = read_file(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The variables that preload tests/support/disk_fault_preload.cc: every sync marks `mark`, then
// waits `delay_ms` (its fault file `fault` says so; none when 0).
std::vector<std::string> slow_syncs(const std::string& mark, const std::string& fault,
                                    int delay_ms) {
  if (delay_ms > 0) std::ofstream(fault, std::ios::trunc) << "slow-sync " << delay_ms;
  return {std::string("LD_PRELOAD=") + COSID_DISK_FAULT_LIB, "COSID_TEST_DISK_FAULT=" + fault,
          "COSID_TEST_SYNC_MARK=" + mark};
}

// Every sync of the process takes 1 s (tests/support/disk_fault_preload.cc). A run of one id on a
// state file like this one, with no delay, counts the syncs: the last is the clean shutdown's, the
// one before it the first ceiling's. SIGTERM once that one began: the sync runs to its end, then
// the start is undone: the state file closed with the clean-shutdown flag at the floor (nothing was
// issued above it).
void stop_during_slow_sync(const std::string& count, int expected_status) {
#ifdef COSID_TEST_SANITIZED
  GTEST_SKIP() << "a sanitizer runtime must come first: nothing is preloaded into sanitizer builds";
#endif
  if (std::string(COSID_DISK_FAULT_LIB).empty()) {
    GTEST_SKIP() << "no slow-sync library in this build (a cross or static build)";
  }
  const TempDir dir("cli_signal");
  ASSERT_FALSE(dir.path().empty());
  const std::string state = dir.path() + "/state";
  const std::int64_t floor = now_ms() - 1000;
  init_state(dir, state, 22, floor);
  const std::string other = dir.path() + "/other";
  init_state(dir, other, 25, floor);
  const std::string counted = dir.path() + "/counted";
  {
    Cli one(dir, next_args(other, 25, "1"), slow_syncs(counted, dir.path() + "/no-fault", 0));
    ASSERT_EQ(one.rest().size(), 1u);
    ASSERT_EQ(one.wait(), 0) << one.err();
  }
  ASSERT_GE(lines_in(counted), 2u);
  const std::size_t first_ceiling = lines_in(counted) - 1;
  const std::string mark = dir.path() + "/syncs";
  Cli cli(dir, next_args(state, 22, count), slow_syncs(mark, dir.path() + "/fault", 1000));
  ASSERT_TRUE(await([&] { return lines_in(mark) >= first_ceiling; })) << cli.err();
  std::vector<std::string> lines;
  EXPECT_EQ(terminate(cli, &lines), expected_status) << cli.err();
  EXPECT_TRUE(lines.empty());
  const std::string block = current_block(dir, state);
  EXPECT_EQ(json_number(block, "ceiling_ms"), floor) << block;
  // The first ceiling's sync ran to its end, then one more: the clean close's.
  EXPECT_EQ(lines_in(mark), first_ceiling + 1);
  EXPECT_TRUE(contains(block, "\"clean_shutdown\":true")) << block;
  if (expected_status != 0) {
    EXPECT_TRUE(contains(cli.err(), "cosid: next: stopped by SIGTERM after 0 of " + count + " ids"))
        << cli.err();
  }
  // The restart issues at once, above the floor.
  Cli again(dir, next_args(state, 22, "1"));
  const std::vector<std::uint64_t> ids = to_ids(again.rest());
  ASSERT_EQ(again.wait(), 0) << again.err();
  ASSERT_EQ(ids.size(), 1u);
  const cosid::Layout layout = cosid::layouts::kDefault;
  EXPECT_GT(layout.tick_start_ms(layout.parse(ids[0]).timestamp), floor);
}

TEST(CliSignal, SigtermDuringASlowFirstSyncEndsAStreamCleanly) { stop_during_slow_sync("0", 0); }

TEST(CliSignal, SigtermDuringASlowFirstSyncEndsABatchWith128PlusSigterm) {
  stop_during_slow_sync("2", 128 + SIGTERM);
}

// Another process holds the state file: the start waits for its lock (--lock-wait 30s); SIGTERM
// ends the wait at once with status 0, and the holder goes on issuing.
TEST(CliSignal, SigtermWhileWaitingForTheStateFilesLockEndsTheWait) {
  const TempDir dir("cli_signal");
  ASSERT_FALSE(dir.path().empty());
  const std::string state = dir.path() + "/state";
  Cli holder(dir, next_args(state, 26, "0"));
  ASSERT_EQ(holder.lines(1).size(), 1u) << holder.err();
  std::vector<std::string> args = next_args(state, 26, "0");
  args.insert(args.end(), {"--lock-wait", "30s"});
  Cli waiting(dir, args);
  // No event tells when the start waits for the lock. It has the state file open from its first
  // try on, and by then its stop handlers are in place; a slow start (qemu, a loaded machine)
  // would otherwise take SIGTERM before them and die of it.
  ASSERT_TRUE(await([&] { return has_open(waiting.pid(), state); })) << waiting.err();
  std::vector<std::string> lines;
  EXPECT_EQ(terminate(waiting, &lines), 0) << waiting.err();
  EXPECT_TRUE(lines.empty());
  EXPECT_LT(waiting.ms_to_end(), 30000);  // not the end of the lock wait
  EXPECT_FALSE(contains(waiting.err(), "cosid: next:")) << waiting.err();
  EXPECT_EQ(holder.lines(100).size(), 100u) << holder.err();
  EXPECT_EQ(terminate(holder), 0) << holder.err();
}

std::vector<std::string> leased(const std::string& leases) {
  return {"next", "-n", "0", "--store", "file:" + leases, "--slot-bits", "1", "--ttl", "30s"};
}

// Both slots of a two-slot namespace are held by live streams: a third start waits in
// kLeaseWaiting for up to the ttl (30 s); SIGTERM ends it at once with status 0, holding nothing.
TEST(CliSignal, SigtermWhileEverySlotIsHeldEndsTheWaitWithNoLease) {
  const TempDir dir("cli_signal");
  ASSERT_FALSE(dir.path().empty());
  const std::string leases = dir.path() + "/leases";
  init_store(dir, "file:" + leases);
  Cli first(dir, leased(leases));
  ASSERT_EQ(first.lines(1).size(), 1u) << first.err();
  Cli second(dir, leased(leases));
  ASSERT_EQ(second.lines(1).size(), 1u) << second.err();
  Cli waiting(dir, leased(leases));
  ASSERT_TRUE(await([&] { return contains(waiting.err(), "every slot of namespace cosid"); }))
      << waiting.err();
  std::vector<std::string> lines;
  EXPECT_EQ(terminate(waiting, &lines), 0) << waiting.err();
  EXPECT_TRUE(lines.empty());
  EXPECT_LT(waiting.ms_to_end(), 30000);  // not the end of the acquire timeout
  Cli list(dir, {"lease", "list", "--json", "--store", "file:" + leases, "--slot-bits", "1"});
  const std::vector<std::string> records = list.rest();
  ASSERT_EQ(list.wait(), 0) << list.err();
  ASSERT_EQ(records.size(), 2u);
  for (const std::string& record : records) {
    EXPECT_TRUE(contains(record, "\"state\":\"held\"")) << record;
    EXPECT_FALSE(contains(record, ":" + std::to_string(waiting.pid()) + "\"")) << record;
  }
  EXPECT_EQ(terminate(first), 0) << first.err();
  EXPECT_EQ(terminate(second), 0) << second.err();
}

// The file range store's record of orders in `store` (`segment show --json`).
std::string segment_record(const TempDir& dir, const std::string& store) {
  Cli show(dir, {"segment", "show", "orders", "--json", "--store", store});
  const std::vector<std::string> out = show.rest();
  EXPECT_EQ(show.wait(), 0) << show.err();
  return out.size() == 1 ? out[0] : "";
}

// The test holds the key's lock file (an OFD lock, as the store takes it): the first claim waits
// for it (up to the store's lock timeout, 10 s); SIGTERM ends the wait, and the record is as it
// was: nothing claimed, so nothing skipped.
void stop_during_claim(const std::string& count, int expected_status) {
  const TempDir dir("cli_signal");
  ASSERT_FALSE(dir.path().empty());
  const std::string store = "file:" + dir.path() + "/ranges";
  init_store(dir, store);
  Cli first(dir, segment_next(store, "1"));
  ASSERT_EQ(to_ids(first.rest()), std::vector<std::uint64_t>{1});
  ASSERT_EQ(first.wait(), 0) << first.err();
  const std::string before = segment_record(dir, store);
  const int lock = open((dir.path() + "/ranges/range.orders.lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(lock, 0);
  struct flock whole {};
  whole.l_type = F_WRLCK;
  whole.l_whence = SEEK_SET;
  ASSERT_EQ(fcntl(lock, F_OFD_SETLK, &whole), 0);
  Cli waiting(dir, segment_next(store, count));
  // No event tells when the claim waits; it does from its start until the lock goes.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::vector<std::string> lines;
  const Steady::time_point signalled = Steady::now();
  EXPECT_EQ(terminate(waiting, &lines), expected_status) << waiting.err();
  EXPECT_LT(cosid::testing::ms_since(signalled), 8000);  // not the lock timeout's end
  close(lock);
  EXPECT_TRUE(lines.empty());
  EXPECT_EQ(segment_record(dir, store), before);
  if (expected_status != 0) {
    EXPECT_TRUE(contains(waiting.err(),
                         "cosid: segment next: stopped by SIGTERM after 0 of " + count + " ids"))
        << waiting.err();
  } else {
    EXPECT_EQ(waiting.err(), "");
  }
}

TEST(CliSignal, SigtermDuringASegmentClaimEndsAStreamWithNothingClaimed) {
  stop_during_claim("0", 0);
}

TEST(CliSignal, SigtermDuringASegmentClaimEndsABatchWith128PlusSigterm) {
  stop_during_claim("5", 128 + SIGTERM);
}

// Reads one line of `cli`'s stream, then stalls until the pipe is full (a Linux pipe holds 64 KiB:
// full once it stops near that) and the writer blocked on it, then sends SIGTERM. Expects the
// process to end with `expected_status` within kStopBoundMs and to leave no half line; returns
// every line it wrote (the one read, then what the pipe held).
std::vector<std::string> stall_then_sigterm(Cli& cli, int expected_status) {
  std::vector<std::string> lines = cli.lines(1);
  EXPECT_EQ(lines.size(), 1u) << cli.err();
  EXPECT_TRUE(await([&] { return cli.unread_bytes() >= 60000; })) << cli.unread_bytes();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // blocked in the write now
  const Steady::time_point signalled = Steady::now();
  cli.signal(SIGTERM);
  EXPECT_EQ(cli.wait(), expected_status) << cli.err();
  const double stop_ms = cosid::testing::ms_since(signalled);
  EXPECT_LT(stop_ms, kStopBoundMs);
  std::printf("stopped %.1f ms after SIGTERM with %zu bytes in the pipe\n", stop_ms,
              cli.unread_bytes());
  const std::vector<std::string> rest = cli.rest();
  lines.insert(lines.end(), rest.begin(), rest.end());
  EXPECT_EQ(cli.partial(), "");  // no half line
  return lines;
}

// A reader that takes one line and stalls: the pipe fills, the stream blocks on it, and SIGTERM
// still ends it cleanly. The ids the pipe holds are whole lines, the state file's clean record
// covers every one of them, and the restart issues above them all.
TEST(CliSignal, SigtermWhileTheReaderStallsEndsAStreamCleanly) {
  const TempDir dir("cli_signal");
  ASSERT_FALSE(dir.path().empty());
  const std::string state = dir.path() + "/state";
  Cli cli(dir, next_args(state, 23, "0"));
  const std::vector<std::string> lines = stall_then_sigterm(cli, 0);
  EXPECT_FALSE(contains(cli.err(), "cosid: next:")) << cli.err();
  const std::vector<std::uint64_t> ids = to_ids(lines);
  ASSERT_GT(ids.size(), 1000u);
  EXPECT_EQ(std::set<std::uint64_t>(ids.begin(), ids.end()).size(), ids.size());
  const cosid::Layout layout = cosid::layouts::kDefault;
  std::uint64_t largest = 0;
  std::int64_t latest_ms = 0;
  for (const std::uint64_t id : ids) {
    largest = std::max(largest, id);
    latest_ms = std::max(latest_ms, layout.tick_start_ms(layout.parse(id).timestamp));
  }
  const std::string block = current_block(dir, state);
  EXPECT_TRUE(contains(block, "\"clean_shutdown\":true")) << block;
  EXPECT_GE(json_number(block, "ceiling_ms"), latest_ms) << block;
  Cli again(dir, next_args(state, 23, "1"));
  const std::vector<std::uint64_t> next = to_ids(again.rest());
  ASSERT_EQ(again.wait(), 0) << again.err();
  ASSERT_EQ(next.size(), 1u);
  EXPECT_GT(next[0], largest);
  EXPECT_GT(layout.tick_start_ms(layout.parse(next[0]).timestamp), latest_ms);
}

// The same for segment ids: the values in the pipe are whole lines, and the restart's first value
// lies above every one of them (the abandoned ones are a gap, never a repeat).
TEST(CliSignal, SigtermWhileTheReaderStallsEndsASegmentStreamCleanly) {
  const TempDir dir("cli_signal");
  ASSERT_FALSE(dir.path().empty());
  const std::string store = "file:" + dir.path() + "/ranges";
  init_store(dir, store);
  Cli cli(dir, segment_next(store, "0"));
  const std::vector<std::string> lines = stall_then_sigterm(cli, 0);
  // Standard error holds the new key's warning (its first claim) and nothing else.
  const std::string err = cli.err();
  EXPECT_EQ(err.rfind("cosid: warning: segment key \"orders\" had no record", 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  const std::vector<std::uint64_t> ids = to_ids(lines);
  cosid::testing::expect_increasing(ids, "the stalled stream");
  Cli again(dir, segment_next(store, "1"));
  const std::vector<std::uint64_t> next = to_ids(again.rest());
  ASSERT_EQ(again.wait(), 0) << again.err();
  ASSERT_EQ(next.size(), 1u);
  EXPECT_GT(next[0], ids.back());
}

// -n N whose reader stalls: SIGTERM ends it with 128 + SIGTERM, and the message's K is exactly
// the number of ids the reader can read.
TEST(CliSignal, SigtermWhileTheReaderStallsStopsABatchAndSaysHowManyGotOut) {
  const TempDir dir("cli_signal");
  ASSERT_FALSE(dir.path().empty());
  Cli cli(dir, next_args(dir.path() + "/state", 24, "100000000"));
  const std::vector<std::string> lines = stall_then_sigterm(cli, 128 + SIGTERM);
  EXPECT_TRUE(contains(cli.err(), "cosid: next: stopped by SIGTERM after " +
                                      std::to_string(lines.size()) + " of 100000000 ids"))
      << cli.err() << " (" << lines.size() << " lines read)";
}

}  // namespace
