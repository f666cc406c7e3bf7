// SPDX-License-Identifier: Apache-2.0
#include "cosid/runtime.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "base/time_format.h"
#include "cosid/store_registry.h"
#include "support/memory_fs.h"
#include "support/runtime_setup.h"
#include "support/test_util.h"
#include "window/state_record.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using testing::MemoryFs;
using testing::RecordingListener;
using Op = MemoryFs::Op;

using testing::kNow;
constexpr auto& kPath = testing::kStatePath;

// The ceiling of the current durable record: what a restart after a power loss would read.
std::int64_t durable_ceiling(MemoryFs& fs) {
  const detail::StateImage decoded = detail::decode_image(fs.durable(kPath).data());
  return decoded.records[decoded.current < 0 ? 0 : decoded.current].ceiling_ms;
}

std::int64_t time_of(std::uint64_t id) {
  return layouts::kDefault.tick_start_ms(layouts::kDefault.parse(id).timestamp);
}

class RuntimeTest : public testing::RuntimeFixture<MemoryFs> {
 protected:
  RuntimeTest() { environment_.listener = &listener_; }

  std::vector<std::uint64_t> issue(Runtime& runtime, int count,
                                   milliseconds step = milliseconds(0)) {
    std::vector<std::uint64_t> ids;
    Generator* generator = runtime.generator("default", status_);
    EXPECT_NE(generator, nullptr);
    for (int i = 0; i < count; ++i) {
      clock_.advance(step);
      const std::uint64_t id = generator->next(status_);
      if (!status_.ok()) break;
      ids.push_back(id);
    }
    return ids;
  }

  RecordingListener listener_;
};

TEST_F(RuntimeTest, FirstStartCreatesTheFileAndMakesTheCeilingDurableBeforeAnyId) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  EXPECT_EQ(listener_.count(EventKind::kStateFileCreated), 1);
  EXPECT_EQ(runtime->ceiling_ms(), kNow + 100);
  EXPECT_EQ(durable_ceiling(fs_), kNow + 100);
  const auto ids = issue(*runtime, 10);
  ASSERT_EQ(ids.size(), 10u);
  for (const auto id : ids) EXPECT_EQ(layouts::kDefault.parse(id).slot, 3u);
}

TEST_F(RuntimeTest, CleanRestartIssuesAtOnceAfterTheLastId) {
  std::vector<std::uint64_t> before;
  {
    auto runtime = open();
    ASSERT_TRUE(runtime) << status_.message();
    before = issue(*runtime, 5, milliseconds(1));
    ASSERT_TRUE(runtime->close(status_)) << status_.message();
  }
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  EXPECT_EQ(runtime->floor_ms(), time_of(before.back()));
  const std::int64_t monotonic_before = clock_.monotonic_ns();
  const auto after = issue(*runtime, 1);
  ASSERT_EQ(after.size(), 1u) << status_.message();
  EXPECT_GT(after[0], before.back());
  // No wait for `ahead`: at most the one millisecond to leave the last id's tick.
  EXPECT_LE(clock_.monotonic_ns() - monotonic_before, 2000000);
}

TEST_F(RuntimeTest, CrashedRestartWaitsOutTheDurableCeiling) {
  std::int64_t ceiling = 0;
  std::vector<std::uint64_t> before;
  {
    auto runtime = open();
    ASSERT_TRUE(runtime) << status_.message();
    before = issue(*runtime, 50, milliseconds(1));
    ceiling = durable_ceiling(fs_);
    fs_.crash();  // power loss: no clean shutdown
  }
  clock_.set_ms(kNow);  // and the clock is even set back
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  EXPECT_EQ(runtime->floor_ms(), ceiling);
  EXPECT_EQ(listener_.count(EventKind::kWaitingForFloor), 1);
  const auto after = issue(*runtime, 1);
  ASSERT_EQ(after.size(), 1u) << status_.message();
  EXPECT_GT(time_of(after[0]), ceiling);
  EXPECT_GT(after[0], before.back());
}

TEST_F(RuntimeTest, ClockFarBehindTheFloorFailsWithTheGap) {
  {
    auto runtime = open();
    ASSERT_TRUE(runtime) << status_.message();
    fs_.crash();
  }
  clock_.set_ms(kNow - 3600000);  // an hour back
  clock_.set_on_sleep(ManualClock::OnSleep::kAdvanceBoth);
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::clock_behind_floor);
  // The gap is 3600101 ms, far more than the start wait of 150 ms: known at once, so no wait.
  EXPECT_EQ(clock_.sleeps(), 0);
  EXPECT_NE(status_.message().find(" is 1 h short of the first tick after the floor " +
                                   detail::format_instant(kNow + 100) +
                                   " of slot 3, more than the start wait of 150 ms"),
            std::string::npos)
      << status_.message();
  EXPECT_NE(
      status_.message().find("none can be issued before " + detail::format_instant(kNow + 101) +
                             "; use another slot (with its own state file), or wait until then"),
      std::string::npos)
      << status_.message();
  // The floor came from the file: the message says so, and names no configured floor.
  EXPECT_NE(status_.message().find(std::string("the state file ") + testing::kStatePath +
                                   " records that a previous run on slot 3 may have issued ids "
                                   "up to the floor, so none"),
            std::string::npos)
      << status_.message();
  EXPECT_EQ(status_.message().find("set by configuration"), std::string::npos) << status_.message();
}

// A floor that is the configured not-before, on a new state file: no holder came before, and
// the message says where the floor came from instead of blaming one.
TEST_F(RuntimeTest, ClockBehindANotBeforeFloorBlamesNoPreviousHolder) {
  options_.not_before_ms = kNow + 3600000;  // an hour ahead
  clock_.set_on_sleep(ManualClock::OnSleep::kAdvanceBoth);
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::clock_behind_floor);
  EXPECT_NE(status_.message().find("the floor is " + detail::format_instant(kNow + 3600000) +
                                   " (not-before), set by configuration, not by a previous "
                                   "holder: no id may lie at or before it"),
            std::string::npos)
      << status_.message();
  EXPECT_EQ(status_.message().find("previous run"), std::string::npos) << status_.message();
  EXPECT_EQ(status_.message().find("may have issued"), std::string::npos) << status_.message();
}

// A clock that was a year ahead left a ceiling a year ahead: the start fails at once (it used to
// wait out the whole start wait first) and says the gap in days.
TEST_F(RuntimeTest, FloorAYearAheadFailsAtOnceInDays) {
  constexpr std::int64_t kYearMs = 365 * 86400000LL;
  clock_.set_ms(kNow + kYearMs);
  {
    auto runtime = open();
    ASSERT_TRUE(runtime) << status_.message();
    ASSERT_EQ(issue(*runtime, 1).size(), 1u) << status_.message();
    // Records the last id's time, a year ahead.
    ASSERT_TRUE(runtime->close(status_)) << status_.message();
  }
  clock_.set_ms(kNow);
  clock_.set_on_sleep(ManualClock::OnSleep::kAdvanceBoth);
  options_.start_wait = milliseconds(11000);
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::clock_behind_floor);
  EXPECT_EQ(clock_.sleeps(), 0);
  EXPECT_EQ(listener_.count(EventKind::kWaitingForFloor), 0);
  EXPECT_NE(status_.message().find(" is 365 days short of the first tick after the floor " +
                                   detail::format_instant(kNow + kYearMs) +
                                   " of slot 3, more than the start wait of 11 s"),
            std::string::npos)
      << status_.message();
  EXPECT_NE(status_.message().find("wait until then and start again"), std::string::npos)
      << status_.message();
}

// A gap the start wait can make up is waited for, and a clock that then does not move fails
// with the time waited, humanely.
TEST_F(RuntimeTest, FloorWithinTheStartWaitIsWaitedFor) {
  {
    auto runtime = open();
    ASSERT_TRUE(runtime) << status_.message();
    fs_.crash();  // the ceiling kNow + 100 stays
  }
  clock_.set_on_sleep(ManualClock::OnSleep::kAdvanceMonotonic);  // the wall clock stands still
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::clock_behind_floor);
  EXPECT_EQ(listener_.count(EventKind::kWaitingForFloor), 1);
  EXPECT_GT(clock_.sleeps(), 0);
  EXPECT_NE(
      status_.message().find(" is 101 ms short of the first tick after the floor " +
                             detail::format_instant(kNow + 100) + " of slot 3 after waiting "),
      std::string::npos)
      << status_.message();
}

// Start borrow (options.h StartMode). A crashed run leaves the durable ceiling kNow + 100 (ahead
// 100 ms) with the clock at kNow: the restart's floor lies 101 ms ahead of the first usable tick,
// within ahead. The wall clock stands still at every sleep, so a start that waited for the floor
// would fail: each borrowing test below gets its ids without the clock moving past the floor.
class RuntimeBorrowTest : public RuntimeTest {
 protected:
  RuntimeBorrowTest() {
    options_.start = StartMode::kBorrow;
    clock_.set_on_sleep(ManualClock::OnSleep::kAdvanceMonotonic);
  }

  // Run A: opens, issues `count` ids a millisecond apart, and crashes; returns its ids.
  std::vector<std::uint64_t> crashed_run(int count) {
    auto runtime = open();
    EXPECT_TRUE(runtime) << status_.message();
    if (!runtime) return {};
    std::vector<std::uint64_t> ids = issue(*runtime, count, milliseconds(1));
    fs_.crash();  // power loss: no clean shutdown
    return ids;
  }
};

TEST_F(RuntimeBorrowTest, CrashedRestartIssuesAtOnceAboveTheOldCeilingUnderTheNewOne) {
  const std::vector<std::uint64_t> before = crashed_run(20);
  ASSERT_EQ(before.size(), 20u);
  const std::int64_t old_ceiling = durable_ceiling(fs_);
  clock_.set_ms(kNow + 20);  // the restart comes right after: the clock is behind the floor
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  EXPECT_EQ(runtime->floor_ms(), old_ceiling);
  EXPECT_EQ(listener_.count(EventKind::kWaitingForFloor), 0);
  ASSERT_EQ(listener_.count(EventKind::kBorrowingAhead), 1);
  EXPECT_NE(listener_.last(EventKind::kBorrowingAhead)
                .message.find("issuing from it at once, ids ahead of the clock by at most 81 ms"),
            std::string::npos)
      << listener_.last(EventKind::kBorrowingAhead).message;
  // The first ceiling, floor + ahead, was durable when open() returned, before any id.
  const std::int64_t new_ceiling = durable_ceiling(fs_);
  EXPECT_EQ(new_ceiling, old_ceiling + 100);
  EXPECT_EQ(runtime->ceiling_ms(), new_ceiling);
  EXPECT_EQ(clock_.sleeps(), 0);  // nothing waited for the clock
  // Ids at once while the clock stays behind the floor, and then as it catches up.
  std::vector<std::uint64_t> after = issue(*runtime, 3000);
  ASSERT_EQ(after.size(), 3000u) << status_.message();
  // A millisecond apart: the clock passes the floor (kNow + 100) and catches up with the ids.
  const std::vector<std::uint64_t> later = issue(*runtime, 100, milliseconds(1));
  ASSERT_EQ(later.size(), 100u) << status_.message();
  EXPECT_GT(clock_.now_ms(), old_ceiling);
  after.insert(after.end(), later.begin(), later.end());
  EXPECT_GT(after.front(), before.back());
  std::set<std::uint64_t> unique(before.begin(), before.end());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_GT(time_of(after[i]), old_ceiling) << i;
    EXPECT_LE(time_of(after[i]), new_ceiling) << i;
    if (i > 0) {
      EXPECT_GT(after[i], after[i - 1]) << i;
    }
    EXPECT_TRUE(unique.insert(after[i]).second) << i;
  }
}

// Wait mode is unchanged: the same crash and restart waits, and here the wall clock never gets
// there.
TEST_F(RuntimeBorrowTest, WaitModeStillWaitsForTheFloor) {
  options_.start = StartMode::kWait;
  ASSERT_EQ(crashed_run(5).size(), 5u);
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::clock_behind_floor);
  EXPECT_EQ(listener_.count(EventKind::kWaitingForFloor), 1);
  EXPECT_EQ(listener_.count(EventKind::kBorrowingAhead), 0);
  EXPECT_GT(clock_.sleeps(), 0);
  EXPECT_EQ(status_.message().find("start borrow"), std::string::npos) << status_.message();
}

// A gap larger than ahead (a not-before, a clock set far back) is lent only in part: the start
// waits until the clock is within ahead of the floor, says why, and borrows the rest.
TEST_F(RuntimeBorrowTest, GapLargerThanAheadIsWaitedForDownToAheadThenBorrowed) {
  ASSERT_EQ(crashed_run(5).size(), 5u);
  const std::int64_t ceiling = durable_ceiling(fs_);
  clock_.set_ms(ceiling - 140);  // 141 ms short of the first tick past the floor: more than ahead
  clock_.set_on_sleep(ManualClock::OnSleep::kAdvanceBoth);
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  ASSERT_EQ(listener_.count(EventKind::kWaitingForFloor), 1);
  EXPECT_NE(listener_.last(EventKind::kWaitingForFloor)
                .message.find("; waiting for it (start borrow lends at most ahead, 100 ms, of "
                              "the 141 ms: it waits for the rest)"),
            std::string::npos)
      << listener_.last(EventKind::kWaitingForFloor).message;
  EXPECT_EQ(listener_.count(EventKind::kBorrowingAhead), 1);
  EXPECT_EQ(clock_.now_ms(), ceiling + 1 - 100);  // waited until the gap was ahead, no longer
  const auto after = issue(*runtime, 1);
  ASSERT_EQ(after.size(), 1u) << status_.message();
  EXPECT_GT(time_of(after[0]), ceiling);
  EXPECT_LE(time_of(after[0]) - clock_.now_ms(), 100);
}

// A run that borrowed and crashed again before the clock caught up leaves a ceiling up to twice
// ahead ahead of the clock: the next start waits for the part beyond ahead (within its start wait
// of 150 ms, where the whole gap would not fit) and borrows the rest; no id repeats.
TEST_F(RuntimeBorrowTest, SecondCrashWhileBorrowingRestartsAfterWaitingForThePartBeyondAhead) {
  std::vector<std::uint64_t> ids = crashed_run(5);
  ASSERT_EQ(ids.size(), 5u);
  {
    auto runtime = open();  // borrows: clock kNow + 5, floor kNow + 100
    ASSERT_TRUE(runtime) << status_.message();
    const auto borrowed = issue(*runtime, 10);
    ASSERT_EQ(borrowed.size(), 10u) << status_.message();
    ids.insert(ids.end(), borrowed.begin(), borrowed.end());
    fs_.crash();
  }
  const std::int64_t ceiling = durable_ceiling(fs_);
  EXPECT_EQ(ceiling, kNow + 200);
  EXPECT_GT(ceiling + 1 - clock_.now_ms(), 150);  // more than the start wait
  clock_.set_on_sleep(ManualClock::OnSleep::kAdvanceBoth);
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  EXPECT_EQ(listener_.count(EventKind::kBorrowingAhead), 2);
  EXPECT_EQ(listener_.count(EventKind::kWaitingForFloor), 1);
  const auto after = issue(*runtime, 10);
  ASSERT_EQ(after.size(), 10u) << status_.message();
  std::set<std::uint64_t> unique(ids.begin(), ids.end());
  for (const std::uint64_t id : after) {
    EXPECT_GT(id, ids.back());
    EXPECT_GT(time_of(id), ceiling);
    EXPECT_TRUE(unique.insert(id).second) << id;
  }
}

TEST_F(RuntimeBorrowTest, GapBeyondTheStartWaitFailsNamingWhyBorrowDidNotApply) {
  ASSERT_EQ(crashed_run(5).size(), 5u);
  clock_.set_ms(kNow - 3600000);  // an hour back
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::clock_behind_floor);
  EXPECT_EQ(clock_.sleeps(), 0);
  EXPECT_NE(status_.message().find("(start borrow lends at most ahead, 100 ms, of the 1 h"),
            std::string::npos)
      << status_.message();
}

// A clean stop's file holds the exact last timestamp: nothing to borrow, nothing to wait for.
TEST_F(RuntimeBorrowTest, CleanRestartBorrowsNothing) {
  std::vector<std::uint64_t> before;
  {
    auto runtime = open();
    ASSERT_TRUE(runtime) << status_.message();
    before = issue(*runtime, 5, milliseconds(1));
    ASSERT_TRUE(runtime->close(status_)) << status_.message();
  }
  clock_.advance(milliseconds(1));
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  EXPECT_EQ(listener_.count(EventKind::kBorrowingAhead), 0);
  EXPECT_EQ(listener_.count(EventKind::kWaitingForFloor), 0);
  const auto after = issue(*runtime, 1);
  ASSERT_EQ(after.size(), 1u) << status_.message();
  EXPECT_GT(after[0], before.back());
}

// Borrow is a static slot's: Options built in code with a store are refused.
TEST(RuntimeBorrowOptions, AStoreRefusesBorrow) {
  Options options;
  options.store_type = "memory";
  options.start = StartMode::kBorrow;
  Status status;
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_STATUS(status, errc::invalid_value);
  EXPECT_NE(status.message().find("Options::start is borrow"), std::string::npos)
      << status.message();
}

// One Status reused across calls: each call that succeeds leaves it ok, whatever an earlier call
// put there (error.h), so a caller may test status.ok() after any call.
TEST_F(RuntimeTest, EveryCallThatSucceedsLeavesAReusedStatusOk) {
  const Status failed(errc::ceiling_reached, "from an earlier call");
  status_ = failed;
  auto runtime = Runtime::open(options_, environment_, status_);
  ASSERT_TRUE(runtime) << status_.message();
  EXPECT_OK(status_);
  status_ = failed;
  Generator* generator = runtime->generator("default", status_);
  ASSERT_NE(generator, nullptr);
  EXPECT_OK(status_);
  status_ = failed;
  EXPECT_NE(generator->next(status_), 0u);
  EXPECT_OK(status_);
  status_ = failed;
  EXPECT_TRUE(runtime->maintain(status_));
  EXPECT_OK(status_);
  status_ = failed;
  EXPECT_TRUE(runtime->close(status_));
  EXPECT_OK(status_);
}

// open_static() starts a static slot as open() does: the same first ceiling, slot and ids.
TEST_F(RuntimeTest, OpenStaticStartsAStaticSlotAsOpenDoes) {
  status_ = Status(errc::ceiling_reached, "from an earlier call");
  auto runtime = Runtime::open_static(options_, environment_, status_);
  ASSERT_TRUE(runtime) << status_.message();
  EXPECT_OK(status_);
  EXPECT_EQ(listener_.count(EventKind::kStateFileCreated), 1);
  EXPECT_EQ(runtime->slot(), 3u);
  EXPECT_EQ(runtime->ceiling_ms(), kNow + 100);
  EXPECT_EQ(durable_ceiling(fs_), kNow + 100);
  const auto ids = issue(*runtime, 3);
  ASSERT_EQ(ids.size(), 3u) << status_.message();
  for (const auto id : ids) EXPECT_EQ(layouts::kDefault.parse(id).slot, 3u);
  EXPECT_TRUE(runtime->close(status_)) << status_.message();
}

// Every bad value of a static slot is refused by open_static() with the code and the message
// open() gives (it links a check of its own, without the store's).
TEST_F(RuntimeTest, OpenStaticRefusesWhatOpenRefusesWithTheSameMessage) {
  const std::vector<std::pair<const char*, std::function<void(Options&)>>> cases = {
      {"slot beyond the layout", [](Options& o) { o.slot = 1u << 20; }},
      {"namespace with a space", [](Options& o) { o.namespace_name = "a b"; }},
      {"ahead of 0", [](Options& o) { o.ahead = milliseconds(0); }},
      {"negative not-before", [](Options& o) { o.not_before_ms = -1; }},
      {"negative start wait", [](Options& o) { o.start_wait = milliseconds(-1); }},
      {"required state file missing",
       [](Options& o) {
         o.state_file.clear();
         o.require_state_file = true;
       }},
      {"state file with a control byte", [](Options& o) { o.state_file = "a\nb"; }},
  };
  for (const auto& [what, change] : cases) {
    SCOPED_TRACE(what);
    Options options = options_;
    change(options);
    Status by_open;
    EXPECT_FALSE(Runtime::open(options, environment_, by_open));
    Status by_open_static;
    EXPECT_FALSE(Runtime::open_static(options, environment_, by_open_static));
    EXPECT_FALSE(by_open.ok());
    EXPECT_EQ(by_open_static.code(), by_open.code());
    EXPECT_EQ(by_open_static.message(), by_open.message());
  }
}

TEST_F(RuntimeTest, OpenStaticRefusesAStoreAndNamesOpen) {
  options_.state_file.clear();
  options_.store_type = "file";
  options_.store_directory = "/var/lib/cosid";
  auto runtime = Runtime::open_static(options_, environment_, status_);
  EXPECT_FALSE(runtime);
  EXPECT_STATUS(status_, errc::invalid_argument);
  EXPECT_EQ(status_.message(),
            "Runtime::open_static() opens a static slot, but Options::store_type is \"file\": "
            "open a slot leased from a store with Runtime::open()");
#if COSID_HAS_EXCEPTIONS
  try {
    (void)Runtime::open_static(options_, environment_);
    ADD_FAILURE() << "open_static() did not throw";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), make_error_code(errc::invalid_argument));
  }
#endif
}

#if COSID_HAS_EXCEPTIONS
// The throwing close() carries the whole message of the write that failed, and the runtime is
// closed all the same.
TEST_F(RuntimeTest, ThrowingCloseCarriesTheMessageOfTheFailedWrite) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  fs_.fail(Op::kSyncData, EIO, 1, /*persistent=*/true);
  try {
    runtime->close();
    FAIL() << "close() did not throw";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), std::error_code(EIO, std::generic_category()));
    EXPECT_NE(std::string(error.what()).find(testing::kStatePath), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(runtime->generator("default", status_), nullptr);
  EXPECT_STATUS(status_, errc::closed);
}
#endif

TEST_F(RuntimeTest, NoIdAboveTheDurableCeilingWhenWritesFail) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  fs_.fail(Op::kSyncData, EIO, 1, /*persistent=*/true);
  const std::int64_t ceiling = durable_ceiling(fs_);
  Generator* generator = runtime->generator("default", status_);
  ASSERT_NE(generator, nullptr);
  std::uint64_t last = 0;
  for (int i = 0; i < 400; ++i) {
    clock_.advance(milliseconds(1));
    const std::uint64_t id = generator->next(status_);
    if (!status_.ok()) break;
    EXPECT_LE(time_of(id), durable_ceiling(fs_));  // the auditor: against the disk, not a cache
    last = id;
  }
  EXPECT_STATUS(status_, errc::ceiling_reached);
  // It names the state file in use, not "the state file or lease errors".
  EXPECT_NE(status_.message().find(std::string("making the next ceiling durable in the state "
                                               "file ") +
                                   testing::kStatePath + " is failing or slow"),
            std::string::npos)
      << status_.message();
  EXPECT_EQ(status_.message().find("lease"), std::string::npos) << status_.message();
  EXPECT_EQ(time_of(last), ceiling);
  EXPECT_GT(listener_.count(EventKind::kStateWriteFailed), 0);
  // The disk recovers: issuing resumes past the old ceiling.
  fs_.clear_faults();
  const std::uint64_t id = generator->next(status_);
  ASSERT_OK(status_);
  EXPECT_GT(time_of(id), ceiling);
  EXPECT_EQ(listener_.count(EventKind::kStateWriteRecovered), 1);
}

TEST_F(RuntimeTest, StartFailsIfTheFirstCeilingCannotBeMadeDurable) {
  // The first advance's first sync (the open only syncs what it read, and rewrites nothing).
  fs_.fail(Op::kSyncData, ENOSPC, /*nth=*/2);
  EXPECT_FALSE(open());
  EXPECT_EQ(status_.code(), std::errc::no_space_on_device);
  // The start's own message: not the running runtime's "ids continue up to the durable ceiling
  // ... (the write is retried)", since nothing runs on.
  EXPECT_EQ(status_.message(),
            "state file var/state: the first ceiling " + detail::format_instant(kNow + 100) +
                " could not be made durable: No space left on device; nothing was "
                "issued and the start failed: free space or fix the disk (see the "
                "kernel log), then start again");
}

// The file must still be the one at its path before the first write too.
TEST_F(RuntimeTest, StartFailsIfTheStateFileCannotBeCheckedBeforeTheFirstCeiling) {
  fs_.fail(Op::kStat, EIO, 3);  // open stats the file and its path; the third is the check
  EXPECT_FALSE(open());
  EXPECT_EQ(status_.code(), std::errc::io_error);
  EXPECT_NE(
      status_.message().find("cannot check that state file var/state is still the file in use: "
                             "stat of its path failed: Input/output error: nothing was issued and "
                             "the start failed"),
      std::string::npos)
      << status_.message();
  EXPECT_EQ(fs_.calls(Op::kSyncData), 1);  // the open's sync of what it read: no ceiling written
}

TEST_F(RuntimeTest, SecondRuntimeOnTheSameFileIsRefused) {
  auto first = open();
  ASSERT_TRUE(first) << status_.message();
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::state_file_locked);
}

TEST_F(RuntimeTest, RequireStateFileRefusesAMissingOne) {
  options_.require_state_file = true;
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::state_file_missing);
}

TEST_F(RuntimeTest, WithoutAStateFileItWarnsAndWorks) {
  options_.state_file.clear();
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  EXPECT_EQ(listener_.count(EventKind::kNoStateFile), 1);
  EXPECT_EQ(issue(*runtime, 3).size(), 3u);
}

// Two sequences on one slot would collide: every name shares one generator.
TEST_F(RuntimeTest, NamedGeneratorsShareOneSequenceSoIdsNeverCollide) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  Generator* orders = runtime->generator("orders", status_);
  Generator* invoices = runtime->generator("invoices", status_);
  ASSERT_NE(orders, nullptr);
  ASSERT_EQ(invoices, orders);
  EXPECT_EQ(runtime->generator("orders", status_), orders);
  std::set<std::uint64_t> ids;
  for (int i = 0; i < 100; ++i) {
    ids.insert(orders->next(status_));
    ids.insert(invoices->next(status_));
    clock_.advance(milliseconds(1));
  }
  EXPECT_EQ(ids.size(), 200u);
}

TEST_F(RuntimeTest, CloseWritesTheLargestLastTimestampOfAllGenerators) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  Generator* a = runtime->generator("a", status_);
  Generator* b = runtime->generator("b", status_);
  (void)a->next(status_);
  clock_.advance(milliseconds(7));
  (void)b->next(status_);
  ASSERT_TRUE(runtime->close(status_)) << status_.message();
  EXPECT_EQ(durable_ceiling(fs_), kNow + 7);
  EXPECT_EQ(a->next(status_), 0u);
  EXPECT_STATUS(status_, errc::closed);
  EXPECT_EQ(runtime->generator("c", status_), nullptr);
  EXPECT_STATUS(status_, errc::closed);
}

TEST_F(RuntimeTest, BackgroundThreadKeepsTheCeilingAhead) {
  environment_.background_thread = true;
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  // Move the clock past half of `ahead`: the thread writes the next ceiling on its own.
  clock_.advance(milliseconds(60));
  for (int i = 0; i < 2000 && runtime->ceiling_ms() <= kNow + 100; ++i) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_EQ(runtime->ceiling_ms(), kNow + 160);
  EXPECT_EQ(durable_ceiling(fs_), kNow + 160);
  ASSERT_TRUE(runtime->close(status_)) << status_.message();
}

// The generator waits at the ceiling (the wall clock stands still, so only a new ceiling can end
// the wait) and the background thread provides one: woken by the generator, or on its own
// schedule if it happens to run first (which of the two is not deterministic, so not asserted).
TEST_F(RuntimeTest, GeneratorPastTheCeilingGetsANewOneFromTheBackgroundThread) {
  environment_.background_thread = true;
  environment_.generator.ceiling = milliseconds(5000);
  clock_.set_on_sleep(ManualClock::OnSleep::kYield);
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  clock_.advance(milliseconds(101));  // past the ceiling at once
  Generator* generator = runtime->generator("default", status_);
  const std::uint64_t id = generator->next(status_);
  ASSERT_OK(status_);
  EXPECT_EQ(time_of(id), kNow + 101);
  EXPECT_GT(runtime->ceiling_ms(), kNow + 101);
}

TEST_F(RuntimeTest, RemovedStateFileStopsTheCeiling) {
  environment_.background_thread = true;
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  fs_.remove(kPath);
  for (int i = 0; i < 3000 && listener_.count(EventKind::kStateFileReplaced) == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_EQ(listener_.count(EventKind::kStateFileReplaced), 1);
  const std::int64_t ceiling = runtime->ceiling_ms();
  clock_.advance(milliseconds(90));
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(runtime->ceiling_ms(), ceiling);
}

// A clock set back a minute while issuing: once the last tick's sequence is used up the call
// fails at once (a minute is more than the 70 ms the runtime absorbs, ahead / 2 and 20 ms of
// drift, plus the 20 ms it may wait), and the message says so (it said "ids resume once the clock
// passes the last id", while `cosid next` exits on the failure).
TEST_F(RuntimeTest, ClockSetBackAMinuteWhileIssuingSaysTheCallFailed) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  ASSERT_EQ(issue(*runtime, 1).size(), 1u) << status_.message();
  clock_.step_ms(-60000);
  const auto ids = issue(*runtime, 5000);  // the rest of the last tick's sequence, then the failure
  EXPECT_EQ(ids.size(), 4095u);
  EXPECT_STATUS(status_, errc::clock_backwards);
  EXPECT_EQ(status_.message(),
            "the clock moved back by 1 min while running (now " +
                detail::format_instant(kNow - 60000) + ", last id at " +
                detail::format_instant(kNow) +
                "), more than the 70 ms a generator absorbs (GeneratorOptions::max_step_back "
                "and max_drift), and no wait within the 20 ms allowed could bring it back: this "
                "call issued no id, and every call fails the same way until the clock passes " +
                detail::format_instant(kNow + 1 - 70) +
                "; check what steps the clock (NTP in step mode, a manual set)");
}

// Counts the wall-clock reads made through it, from any thread: a thread that reads the clock
// while nothing happens is spinning.
class CountingClock final : public Clock {
 public:
  explicit CountingClock(Clock& clock) : clock_(clock) {}
  std::int64_t now_ms() noexcept override {
    reads_.fetch_add(1, std::memory_order_relaxed);
    return clock_.now_ms();
  }
  std::int64_t monotonic_ns() noexcept override { return clock_.monotonic_ns(); }
  void sleep_for(std::chrono::nanoseconds duration) noexcept override {
    clock_.sleep_for(duration);
  }
  std::int64_t reads() const noexcept { return reads_.load(std::memory_order_relaxed); }

 private:
  Clock& clock_;
  std::atomic<std::int64_t> reads_{0};
};

// Runs `call` on another thread and waits for it. A call that does not return within 20 s (real
// time: no result depends on it) fails the test; `release` then gets one chance to end it (by
// letting the manual clock's time pass), else the process ends, since nothing could join it.
template <typename Call>
void finish_within_guard(const char* what, Call call, const std::function<void()>& release) {
  std::atomic<bool> done{false};
  std::thread caller([&] {
    call();
    done.store(true);
  });
  for (int i = 0; i < 20000 && !done.load(); ++i) std::this_thread::sleep_for(milliseconds(1));
  if (!done.load()) {
    ADD_FAILURE() << what << " did not return within 20 s";
    if (release) release();
    for (int i = 0; i < 2000 && !done.load(); ++i) std::this_thread::sleep_for(milliseconds(1));
    if (!done.load()) {
      std::fprintf(stderr, "%s hangs: ending the test process\n", what);
      std::_Exit(1);
    }
  }
  caller.join();
}

// close() through finish_within_guard, on its own Status (the caller's thread may use status_).
void close_within_guard(Runtime& runtime) {
  finish_within_guard(
      "close()",
      [&] {
        Status status;
        EXPECT_TRUE(runtime.close(status)) << status.message();
      },
      nullptr);
}

// A transient stat failure (EIO) during the identity check says nothing about the file: it is
// reported as a failed write and retried, not taken for a removed or replaced file (which used to
// stop every ceiling for good).
TEST_F(RuntimeTest, FailedStatOfTheIdentityCheckIsRetriedNotTakenForAReplacedFile) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  const std::int64_t ceiling = runtime->ceiling_ms();
  clock_.advance(milliseconds(60));  // a renewal is due
  fs_.fail(Op::kStat, EIO);
  EXPECT_FALSE(runtime->maintain(status_));
  EXPECT_EQ(status_.code(), std::errc::io_error) << status_.message();
  EXPECT_NE(status_.message().find(
                "cannot check that state file var/state is still the file in use: stat "
                "of its path failed: Input/output error; no ceiling is written until "
                "the check succeeds (it is retried)"),
            std::string::npos)
      << status_.message();
  EXPECT_EQ(listener_.count(EventKind::kStateWriteFailed), 1);
  EXPECT_EQ(listener_.count(EventKind::kStateFileReplaced), 0);
  EXPECT_EQ(runtime->ceiling_ms(), ceiling);  // nothing written without the check
  EXPECT_EQ(durable_ceiling(fs_), ceiling);
  EXPECT_EQ(runtime->metrics().state_write_failures, 1u);

  EXPECT_TRUE(runtime->maintain(status_)) << status_.message();
  EXPECT_EQ(runtime->ceiling_ms(), kNow + 160);
  EXPECT_EQ(listener_.count(EventKind::kStateWriteRecovered), 1);
  EXPECT_EQ(issue(*runtime, 1).size(), 1u) << status_.message();
  EXPECT_TRUE(runtime->close(status_)) << status_.message();
}

// The same with the background thread: the writer retries after its back-off, and a generator
// waiting at the ceiling gets its id.
TEST_F(RuntimeTest, FailedStatInTheBackgroundIsRetriedAndTheWaitingGeneratorGoesOn) {
  environment_.background_thread = true;
  environment_.generator.ceiling = milliseconds(5000);
  clock_.set_on_sleep(ManualClock::OnSleep::kYield);  // only a new ceiling ends the wait
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  Generator* generator = runtime->generator("default", status_);
  ASSERT_NE(generator, nullptr);
  fs_.fail(Op::kStat, EIO);
  clock_.advance(milliseconds(101));  // past the ceiling
  std::uint64_t id = 0;
  finish_within_guard(
      "next()", [&] { id = generator->next(status_); },
      [this] { clock_.advance(milliseconds(10000)); });
  ASSERT_OK(status_);
  EXPECT_EQ(time_of(id), kNow + 101);
  EXPECT_EQ(listener_.count(EventKind::kStateWriteFailed), 1);
  EXPECT_EQ(listener_.count(EventKind::kStateFileReplaced), 0);
  close_within_guard(*runtime);
}

// The identity check runs before every write, not every fifth round of the writer: a generator
// that wants a ceiling right after the file was removed gets no ceiling written into the removed
// file (a restart would never read it) but fails, with state_file_replaced, and so does every
// later call, also below the durable ceiling.
TEST_F(RuntimeTest, NoCeilingIsWrittenIntoARemovedFileAndGeneratorsFailAtOnce) {
  environment_.background_thread = true;
  environment_.generator.ceiling = milliseconds(5000);
  clock_.set_on_sleep(ManualClock::OnSleep::kYield);  // the wait ends only if woken
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  const std::int64_t ceiling = runtime->ceiling_ms();
  Generator* generator = runtime->generator("default", status_);
  ASSERT_NE(generator, nullptr);
  fs_.remove(kPath);
  clock_.advance(milliseconds(101));  // past the ceiling: the generator asks for the next one
  finish_within_guard(
      "next()", [&] { (void)generator->next(status_); },
      [this] { clock_.advance(milliseconds(10000)); });
  EXPECT_STATUS(status_, errc::state_file_replaced);
  EXPECT_NE(
      status_.message().find("no more ids are issued on slot 3: its state file was removed or "
                             "replaced while in use"),
      std::string::npos)
      << status_.message();
  EXPECT_EQ(runtime->ceiling_ms(), ceiling);
  EXPECT_EQ(listener_.count(EventKind::kCeilingAdvanced), 0);
  EXPECT_EQ(listener_.count(EventKind::kStateFileReplaced), 1);
  clock_.step_ms(-101);  // back below the durable ceiling: still no id
  EXPECT_EQ(generator->next(status_), 0u);
  EXPECT_STATUS(status_, errc::state_file_replaced);
  close_within_guard(*runtime);
}

// Once the writer has found the file replaced, a generator that then reaches the ceiling must not
// make it spin: the request for a ceiling used to stay set, the writer's wait returned at once,
// and the loop ran forever holding the lock close() needs (so close() never returned, and
// `cosid next -n 0` ignored SIGTERM). The writer now sleeps until close(), and the generator
// fails at once with state_file_replaced.
TEST_F(RuntimeTest, ReplacedFileMakesTheWriterSleepAndCloseReturn) {
  CountingClock counting(clock_);
  environment_.clock = &counting;
  environment_.background_thread = true;
  environment_.generator.ceiling = milliseconds(5000);
  clock_.set_on_sleep(ManualClock::OnSleep::kAdvanceMonotonic);  // every wait is bounded
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  Generator* generator = runtime->generator("default", status_);
  ASSERT_NE(generator, nullptr);
  // Another file renamed over it: found by the writer's own check, about once a second.
  const std::vector<unsigned char> copy = fs_.current(kPath);
  fs_.remove(kPath);
  fs_.set_both(kPath, copy);
  for (int i = 0; i < 5000 && listener_.count(EventKind::kStateFileReplaced) == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  ASSERT_EQ(listener_.count(EventKind::kStateFileReplaced), 1);
  clock_.advance(milliseconds(101));  // past the ceiling
  EXPECT_EQ(generator->next(status_), 0u);
  EXPECT_STATUS(status_, errc::state_file_replaced);
  // Nothing happens now, so no thread has a reason to read the clock.
  const std::int64_t reads = counting.reads();
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(counting.reads(), reads) << "a thread reads the clock in a loop";
  close_within_guard(*runtime);
}

// Runs `body` in a forked child in which no thread can start: every new thread asks for a 1 GiB
// stack, and the address space may grow by 256 MiB only, so pthread_create fails with EAGAIN as it
// does under a low `ulimit -u` (which does not bind root, who runs the tests). True iff `body`
// returned true in the child; false also when the child died (as of an uncaught std::system_error
// from std::thread, which it once was).
bool in_child_without_room_for_threads(const std::function<bool()>& body) {
  const pid_t child = fork();
  if (child < 0) return false;
  if (child == 0) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, std::size_t{1} << 30);
    pthread_setattr_default_np(&attr);
    long pages = 0;
    if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(statm, "%ld", &pages) != 1) pages = 0;
      std::fclose(statm);
    }
    const rlim_t room = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) +
                        (rlim_t{256} << 20);
    const rlimit limit{room, room};
    if (pages == 0 || setrlimit(RLIMIT_AS, &limit) != 0) _exit(2);
    _exit(body() ? 0 : 1);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A thread that cannot start (EAGAIN) is a clear error of open(), not an exception from
// std::thread (which -fno-exceptions builds cannot even catch, and `cosid` reported as "internal
// error ... report it as a bug").
TEST_F(RuntimeTest, BackgroundThreadThatCannotStartFailsTheOpenWithAClearError) {
  if (const char* why = thread_limits_do_not_bind()) GTEST_SKIP() << why;
  environment_.background_thread = true;
  EXPECT_TRUE(in_child_without_room_for_threads([this] {
    auto runtime = open();
    const bool ok = !runtime && status_.code() == std::errc::resource_unavailable_try_again &&
                    status_.message() ==
                        "cannot start the runtime's background thread: Resource temporarily "
                        "unavailable: raise the limit on processes and threads (ulimit -u) or, in "
                        "a program, set RuntimeEnvironment::background_thread = false and call "
                        "maintain()";
    if (!ok)
      std::fprintf(stderr, "open: %s: %s\n", status_.code().message().c_str(),
                   status_.message().c_str());
    return ok;
  }));
}

TEST_F(RuntimeTest, LeaseKeeperThreadThatCannotStartFailsTheOpenWithAClearError) {
  if (const char* why = thread_limits_do_not_bind()) GTEST_SKIP() << why;
  StoreRegistry stores;
  options_.store_type = "memory";
  options_.state_file.clear();
  options_.start_wait = milliseconds(31000);
  environment_.stores = &stores;
  environment_.background_thread = true;
  EXPECT_TRUE(in_child_without_room_for_threads([this] {
    auto runtime = open();
    const bool ok = !runtime && status_.code() == std::errc::resource_unavailable_try_again &&
                    status_.message().find(
                        "cannot start the lease keeper's background thread: Resource "
                        "temporarily unavailable: raise the limit") == 0;
    if (!ok)
      std::fprintf(stderr, "open: %s: %s\n", status_.code().message().c_str(),
                   status_.message().c_str());
    return ok;
  }));
}

}  // namespace
}  // namespace cosid
