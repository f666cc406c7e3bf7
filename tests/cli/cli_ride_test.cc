// SPDX-License-Identifier: Apache-2.0
// The real `cosid next -n 0` and `cosid segment next -n 0` riding out trouble that passes
// (src/cli/stream_wait.h): a state file whose disk fails or stalls (a preloaded library,
// tests/support/disk_fault_preload.cc, fails or slows its writes and syncs while a file says so), a
// lease store and a range store whose lock file the test holds for longer than ttl + tolerance. The
// stream warns, keeps running and resumes with ids above every earlier one; --give-up-after ends
// it with the last failure; `cosid state check` says not ready while it waits.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_process.h"
#include "support/cli_run.h"
#include "support/temp_dir.h"

namespace cosid {
namespace testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Waits (generously: a loaded machine) until the process's standard error contains `part`.
bool wait_for_err(const Cli& cli, const std::string& part,
                  std::chrono::seconds limit = std::chrono::seconds(30)) {
  const Steady::time_point deadline = Steady::now() + limit;
  while (Steady::now() < deadline) {
    if (contains(cli.err(), part)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

// The variables that preload the disk-fault library, its switch the file `fault`.
std::vector<std::string> disk_fault_env(const std::string& fault) {
  std::string asan = "ASAN_OPTIONS=verify_asan_link_order=0";  // the library comes first
  if (const char* options = std::getenv("ASAN_OPTIONS")) asan += std::string(":") + options;
  return {std::string("LD_PRELOAD=") + COSID_DISK_FAULT_LIB, "COSID_TEST_DISK_FAULT=" + fault,
          asan};
}

// Whether this build can preload the library into the `cosid` it runs; else the reason to skip.
const char* no_preload_reason() {
#if defined(COSID_TEST_UNDER_EMULATOR)
  return "a cross build's cosid runs under qemu-user, which a host library cannot be preloaded "
         "into";
#else
  return access(COSID_DISK_FAULT_LIB, R_OK) == 0 ? nullptr : "the disk-fault library is missing";
#endif
}

// `ids` strictly increasing: no id repeats, and none after the wait lies at or below an earlier.
void expect_increasing(const std::vector<std::uint64_t>& ids) {
  for (std::size_t i = 1; i < ids.size(); ++i) {
    ASSERT_GT(ids[i], ids[i - 1]) << "id " << i << " of " << ids.size();
  }
}

// After a wait on `part`: the stream says it resumed, is still running (more ids come), ends
// cleanly on SIGTERM, and every id of the run is above the earlier ones. `ids`: the ones read
// before, to which the rest are appended.
void expect_resumed(Cli& cli, const std::string& part, std::vector<std::uint64_t>& ids) {
  ASSERT_TRUE(wait_for_err(cli, "cosid: warning: next: resumed after ")) << cli.err();
  EXPECT_TRUE(contains(cli.err(), ": " + part + " answers again")) << cli.err();
  const std::vector<std::uint64_t> after = to_ids(cli.lines(200));
  ASSERT_EQ(after.size(), 200u) << cli.err();
  cli.signal(SIGTERM);
  const std::vector<std::uint64_t> rest = to_ids(cli.rest());
  EXPECT_EQ(cli.wait(), 0) << cli.err();
  ids.insert(ids.end(), after.begin(), after.end());
  ids.insert(ids.end(), rest.begin(), rest.end());
  expect_increasing(ids);
}

std::vector<std::string> static_stream(const std::string& state,
                                       const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"next", "-n",      "0",  "--slot", "1",   "--state-file",
                                   state,  "--ahead", "1s", "--rate", "200", "--report-every",
                                   "1s"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Holds the OFD write lock of a store's lock file, as a process that hangs inside the store
// would: every call of the store waits for it, then fails with store_unavailable.
class LockHolder {
 public:
  explicit LockHolder(const std::string& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    // SETLKW: the stream may hold the lock for a moment; wait for its call to end.
    locked_ = fd_ >= 0 && ::fcntl(fd_, F_OFD_SETLKW, &lock) == 0;
  }
  ~LockHolder() { release(); }
  LockHolder(const LockHolder&) = delete;
  LockHolder& operator=(const LockHolder&) = delete;
  bool locked() const { return locked_; }
  void release() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
  bool locked_ = false;
};

// A static stream on a state file in a fresh directory, its disk failed or slowed through the
// file `fault_` (disk_fault_preload.cc).
class CliRideDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* reason = no_preload_reason()) GTEST_SKIP() << reason;
    ASSERT_FALSE(dir_.path().empty());
  }
  const TempDir dir_{"cli_ride"};
  const std::string state_ = dir_.path() + "/state";
  const std::string fault_ = dir_.path() + "/fault";
};

// A static stream whose state file writes fail: it warns when the wait starts and again every
// --report-every, naming the state file and the write's error, keeps running, and resumes once
// the disk does, with ids above every earlier one; meanwhile `state check` says not ready.
TEST_F(CliRideDisk, StaticStreamWaitsOutAFailingDiskAndResumes) {
  Cli cli(dir_, static_stream(state_), disk_fault_env(fault_));
  std::vector<std::uint64_t> ids = to_ids(cli.lines(5));
  ASSERT_EQ(ids.size(), 5u) << cli.err();

  write_text(fault_, "fail");
  const std::string waiting =
      "cosid: warning: next: waiting for the state file " + state_ + " since ";
  ASSERT_TRUE(wait_for_err(cli, waiting)) << cli.err();
  ASSERT_TRUE(wait_for_err(cli, "cosid: warning: next: still waiting for the state file " + state_))
      << cli.err();
  const std::string err = cli.err();
  EXPECT_TRUE(contains(err, "last error: writing state file " + state_ +
                                " failed: Input/output "
                                "error"))
      << err;
  EXPECT_TRUE(contains(err, "making the next ceiling durable in the state file " + state_)) << err;
  EXPECT_FALSE(contains(err, "resumed after")) << err;

  const CliOutcome check = run_cli(dir_, {"state", "check", state_, "--slot", "1"});
  EXPECT_EQ(check.code, 1) << check.out << check.err;
  EXPECT_TRUE(contains(check.err, "cosid: state check: not ready: ")) << check.err;

  ASSERT_EQ(::unlink(fault_.c_str()), 0);
  expect_resumed(cli, "the state file " + state_, ids);
}

// A sync that takes longer than the ceiling's lead stops ids as surely as a failed one: the
// stream waits, and `state check` reports not ready until the disk is fast again.
TEST_F(CliRideDisk, StateCheckIsNotReadyWhileAStreamWaitsOnASlowDisk) {
  Cli cli(dir_, static_stream(state_), disk_fault_env(fault_));
  ASSERT_EQ(cli.lines(5).size(), 5u) << cli.err();
  const CliOutcome before = run_cli(dir_, {"state", "check", state_, "--slot", "1"});
  EXPECT_EQ(before.code, 0) << before.err;

  write_text(fault_, "slow 4000");  // each write and sync 4 s: four times the ahead of 1 s
  ASSERT_TRUE(wait_for_err(cli, "cosid: warning: next: waiting for the state file " + state_))
      << cli.err();
  const CliOutcome during = run_cli(dir_, {"state", "check", state_, "--slot", "1"});
  EXPECT_EQ(during.code, 1) << during.out << during.err;
  EXPECT_TRUE(contains(during.err, "not ready: the ceiling ")) << during.err;

  ASSERT_EQ(::unlink(fault_.c_str()), 0);
  ASSERT_TRUE(wait_for_err(cli, "cosid: warning: next: resumed after ")) << cli.err();
  ASSERT_EQ(cli.lines(5).size(), 5u) << cli.err();
  cli.signal(SIGTERM);
  (void)cli.rest();
  EXPECT_EQ(cli.wait(), 0) << cli.err();
}

// --give-up-after ends a wait that lasts: status 1, the last failure and how long it waited.
TEST_F(CliRideDisk, GiveUpAfterEndsAStreamWithTheLastFailure) {
  Cli cli(dir_, static_stream(state_, {"--give-up-after", "2s"}), disk_fault_env(fault_));
  ASSERT_EQ(cli.lines(5).size(), 5u) << cli.err();
  write_text(fault_, "fail");
  const Steady::time_point failing = Steady::now();
  (void)cli.rest();
  EXPECT_EQ(cli.wait(), 1) << cli.err();
  // At least the 2 s it was told to wait (after the ceiling ran out), and not stuck far past it.
  EXPECT_GE(ms_since(failing), 2000.0);
  EXPECT_LT(ms_since(failing), 20000.0);
  const std::string err = cli.err();
  EXPECT_TRUE(contains(err, "cosid: warning: next: waiting for the state file " + state_)) << err;
  EXPECT_TRUE(contains(err, "cosid: next: gave up after waiting ")) << err;
  EXPECT_TRUE(contains(err, " (--give-up-after 2s) for the state file " + state_ + ": ")) << err;
  EXPECT_TRUE(contains(err, "Input/output error")) << err;
}

// The flags of a wait belong to a stream: with -n N, which fails at the first trouble, they are
// usage errors.
TEST(CliRide, WaitFlagsNeedAStream) {
  const TempDir dir("cli_ride");
  ASSERT_FALSE(dir.path().empty());
  const CliOutcome counted =
      run_cli(dir, {"next", "-n", "5", "--slot", "1", "--give-up-after", "2s"});
  EXPECT_EQ(counted.code, 2);
  EXPECT_TRUE(contains(counted.err,
                       "cosid: next: --give-up-after is for a stream, which waits "
                       "out trouble: give it with -n 0, or leave it out with -n 5"))
      << counted.err;
  const CliOutcome zero = run_cli(dir, {"next", "-n", "0", "--slot", "1", "--report-every", "0s"});
  EXPECT_EQ(zero.code, 2);
  EXPECT_TRUE(contains(zero.err, "cosid: next: --report-every: \"0s\" is shorter than 100ms"))
      << zero.err;
  const CliOutcome segment = run_cli(
      dir, {"segment", "next", "orders", "-n", "3", "--report-every", "5s", "--store", "memory"});
  EXPECT_EQ(segment.code, 2);
  EXPECT_TRUE(contains(segment.err, "--report-every is for a stream")) << segment.err;
}

// A lease store that does not answer for longer than ttl + tolerance (its lock file held by the
// test): the stream does not exit; it waits, names the store as --store did, and resumes with
// ids above every earlier one.
TEST(CliRide, StoreStreamOutlivesAnUnreachableStore) {
  const TempDir dir("cli_ride");
  ASSERT_FALSE(dir.path().empty());
  const std::string store = "file:" + dir.path() + "/leases";
  init_store(dir, store);
  Cli cli(dir, {"next", "-n", "0", "--store", store, "--ttl", "3s", "--tolerance", "1s", "--rate",
                "200", "--report-every", "1s"});
  std::vector<std::uint64_t> ids = to_ids(cli.lines(5));
  ASSERT_EQ(ids.size(), 5u) << cli.err();
  {
    LockHolder holder(dir.path() + "/leases/ns.cosid.lock");
    ASSERT_TRUE(holder.locked());
    ASSERT_TRUE(
        wait_for_err(cli, "cosid: warning: next: waiting for the lease store " + store + " since "))
        << cli.err();
    // Past ttl + tolerance (4 s) since the last renewal could have reached the store.
    std::this_thread::sleep_for(std::chrono::seconds(5));
    EXPECT_FALSE(contains(cli.err(), "resumed after")) << cli.err();
  }
  expect_resumed(cli, "the lease store " + store, ids);
}

// A paused holder (SIGSTOP past ttl + tolerance) whose slot another process takes: on SIGCONT
// its renewal finds the lease lost, and instead of exiting the stream goes on over the slot the
// runtime leases in its place, its ids above its earlier ones and none equal to the taker's.
TEST(CliRide, StoreStreamWhoseLeaseIsTakenGoesOnOnANewSlot) {
  const TempDir dir("cli_ride");
  ASSERT_FALSE(dir.path().empty());
  const std::string store = "file:" + dir.path() + "/leases";
  init_store(dir, store);
  const auto stream = [&](const std::string& key) {
    return std::vector<std::string>{
        "next", "-n",    "0",  "--store",     store, "--owner-key", key,  "--preferred-slot",
        "0",    "--ttl", "3s", "--tolerance", "1s",  "--rate",      "100"};
  };
  Cli paused(dir, stream("paused"));
  std::vector<std::uint64_t> ids = to_ids(paused.lines(5));
  ASSERT_EQ(ids.size(), 5u) << paused.err();
  paused.signal(SIGSTOP);
  std::this_thread::sleep_for(std::chrono::seconds(5));  // past ttl + tolerance
  Cli taker(dir, stream("taker"));
  const std::vector<std::uint64_t> taken = to_ids(taker.lines(5));
  ASSERT_EQ(taken.size(), 5u) << taker.err();
  paused.signal(SIGCONT);
  ASSERT_TRUE(wait_for_err(paused,
                           "cosid: warning: the lease on slot 0 of namespace cosid is "
                           "lost"))
      << paused.err();
  expect_resumed(paused, "the lease store " + store, ids);
  taker.signal(SIGTERM);
  std::vector<std::uint64_t> all_taken = to_ids(taker.rest());
  EXPECT_EQ(taker.wait(), 0) << taker.err();
  all_taken.insert(all_taken.end(), taken.begin(), taken.end());
  // The two runs never held one slot at once: no id of one is an id of the other.
  for (const std::uint64_t id : ids) {
    EXPECT_EQ(std::count(all_taken.begin(), all_taken.end(), id), 0) << id;
  }
}

// `cosid lease check`, the store's readiness probe: ready while the owner's stream holds a lease
// renewed ahead of the store's clock; not ready for a lead above --min-lead, for another owner,
// and once the holder was killed and its lease expired.
TEST(CliRide, LeaseCheckSaysWhetherAnOwnersLeaseIsLive) {
  const TempDir dir("cli_ride");
  ASSERT_FALSE(dir.path().empty());
  const std::string store = "file:" + dir.path() + "/leases";
  init_store(dir, store);
  const auto check = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"lease", "check", "--store", store};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(dir, args);
  };
  Cli cli(dir, {"next", "-n", "0", "--store", store, "--owner-key", "ride-1", "--ttl", "3s",
                "--rate", "100"});
  ASSERT_EQ(cli.lines(3).size(), 3u) << cli.err();
  const CliOutcome ready = check({"--owner-key", "ride-1"});
  EXPECT_EQ(ready.code, 0) << ready.err;
  EXPECT_TRUE(contains(ready.out, "ready: ride-1 holds slot 0 of namespace cosid, ceiling "))
      << ready.out;
  const CliOutcome short_lead = check({"--owner-key", "ride-1", "--min-lead", "50s"});
  EXPECT_EQ(short_lead.code, 1);
  EXPECT_TRUE(contains(short_lead.err,
                       "cosid: lease check: not ready: the lease of ride-1 on "
                       "slot 0 has its ceiling "))
      << short_lead.err;
  EXPECT_TRUE(contains(short_lead.err, "less than --min-lead 50s")) << short_lead.err;
  const CliOutcome other = check({"--owner-key", "ride-2"});
  EXPECT_EQ(other.code, 1);
  EXPECT_TRUE(contains(other.err,
                       "not ready: the store holds no lease of ride-2 in namespace "
                       "cosid"))
      << other.err;
  const CliOutcome no_key = check({});
  EXPECT_EQ(no_key.code, 2);
  EXPECT_TRUE(contains(no_key.err, "cosid: lease check: no owner key to check")) << no_key.err;

  cli.signal(SIGKILL);  // no release: the lease stays until it expires, ttl after its renewal
  (void)cli.rest();
  const Steady::time_point deadline = Steady::now() + std::chrono::seconds(30);
  CliOutcome expired = check({"--owner-key", "ride-1"});
  while (expired.code == 0 && Steady::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    expired = check({"--owner-key", "ride-1"});
  }
  EXPECT_EQ(expired.code, 1) << expired.out;
  EXPECT_TRUE(contains(expired.err,
                       "not ready: the lease of ride-1 on slot 0 of namespace cosid "
                       "expired at "))
      << expired.err;
}

// Reads a stream's ids on a thread of its own, so that a stream that writes as fast as it can
// never blocks on a full pipe while the test waits for its warnings.
class Drain {
 public:
  explicit Drain(Cli& cli)
      : cli_(cli), thread_([this, &cli] {
          for (;;) {
            const std::vector<std::uint64_t> got = to_ids(cli.lines(64));
            {
              std::lock_guard<std::mutex> lock(mutex_);
              ids_.insert(ids_.end(), got.begin(), got.end());
            }
            if (got.size() < 64) return;  // the end of the output (or the hang guard)
          }
        }) {}
  // After a failed assertion the stream still runs: end it, so that the reader sees the end.
  ~Drain() {
    if (!thread_.joinable()) return;
    cli_.signal(SIGKILL);
    thread_.join();
  }
  Drain(const Drain&) = delete;
  Drain& operator=(const Drain&) = delete;
  std::size_t count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return ids_.size();
  }
  // Once the stream has ended.
  std::vector<std::uint64_t> all() {
    thread_.join();
    return ids_;
  }

 private:
  Cli& cli_;
  std::mutex mutex_;
  std::vector<std::uint64_t> ids_;
  std::thread thread_;
};

// A range store that does not answer for a while: the segment stream waits and resumes, its
// ids still strictly increasing.
TEST(CliRide, SegmentStreamOutlivesALockedRangeStore) {
  const TempDir dir("cli_ride");
  ASSERT_FALSE(dir.path().empty());
  const std::string store = "file:" + dir.path() + "/ranges";
  init_store(dir, store);
  Cli cli(dir, {"segment", "next", "orders", "-n", "0", "--step", "5", "--report-every", "1s",
                "--store", store});
  std::vector<std::uint64_t> ids = to_ids(cli.lines(5));
  ASSERT_EQ(ids.size(), 5u) << cli.err();
  Drain drain(cli);
  {
    LockHolder holder(dir.path() + "/ranges/range.orders.lock");
    ASSERT_TRUE(holder.locked());
    ASSERT_TRUE(wait_for_err(
        cli, "cosid: warning: segment next: waiting for the range store " + store + " since "))
        << cli.err();
    ASSERT_TRUE(wait_for_err(cli,
                             "cosid: warning: segment next: still waiting for the range "
                             "store " +
                                 store))
        << cli.err();
  }
  ASSERT_TRUE(wait_for_err(cli, "cosid: warning: segment next: resumed after ")) << cli.err();
  // Ids flow again after the wait.
  const std::size_t at_resume = drain.count();
  const Steady::time_point deadline = Steady::now() + std::chrono::seconds(30);
  while (drain.count() < at_resume + 100 && Steady::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GE(drain.count(), at_resume + 100) << cli.err();
  cli.signal(SIGTERM);
  const std::vector<std::uint64_t> rest = drain.all();
  EXPECT_EQ(cli.wait(), 0) << cli.err();
  ids.insert(ids.end(), rest.begin(), rest.end());
  expect_increasing(ids);
}

}  // namespace
}  // namespace testing
}  // namespace cosid
