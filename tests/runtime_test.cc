#include "cosid/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "memory_fs.h"
#include "runtime_setup.h"
#include "state_record.h"
#include "test_util.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using testing::MemoryFs;
using testing::RecordingListener;
using Op = MemoryFs::Op;

constexpr std::int64_t kNow = 1796005378123;
constexpr char kPath[] = "var/state";

// The ceiling of the current durable record: what a restart after a power loss would read.
std::int64_t durable_ceiling(MemoryFs& fs) {
  const auto image = fs.durable(kPath);
  StateRecord a;
  StateRecord b;
  const bool va = detail::decode_block(image.data(), a) == detail::BlockStatus::kValid;
  const bool vb = detail::decode_block(image.data() + detail::kStateBlockSize, b) ==
                  detail::BlockStatus::kValid;
  if (va && vb) return b.generation > a.generation ? b.ceiling_ms : a.ceiling_ms;
  return va ? a.ceiling_ms : b.ceiling_ms;
}

std::int64_t time_of(std::uint64_t id) {
  return layouts::kDefault.tick_start_ms(layouts::kDefault.parse(id).timestamp);
}

class RuntimeTest : public ::testing::Test {
 protected:
  RuntimeTest() {
    options_ = testing::small_runtime_options(kPath);
    environment_ = testing::inline_environment(clock_, fs_);
    environment_.listener = &listener_;
  }

  std::unique_ptr<Runtime> open() {
    ec_.clear();
    message_.clear();
    return Runtime::open(options_, environment_, ec_, &message_);
  }

  std::vector<std::uint64_t> issue(Runtime& runtime, int count,
                                   milliseconds step = milliseconds(0)) {
    std::vector<std::uint64_t> ids;
    Generator* generator = runtime.generator("default", ec_);
    EXPECT_NE(generator, nullptr);
    for (int i = 0; i < count; ++i) {
      clock_.advance(step);
      const std::uint64_t id = generator->next(ec_, &message_);
      if (ec_) break;
      ids.push_back(id);
    }
    return ids;
  }

  Options options_;
  RuntimeEnvironment environment_;
  MemoryFs fs_;
  ManualClock clock_{kNow};
  RecordingListener listener_;
  std::error_code ec_;
  std::string message_;
};

TEST_F(RuntimeTest, FirstStartCreatesTheFileAndMakesTheCeilingDurableBeforeAnyId) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << message_;
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
    ASSERT_TRUE(runtime) << message_;
    before = issue(*runtime, 5, milliseconds(1));
    ASSERT_FALSE(runtime->close());
  }
  auto runtime = open();
  ASSERT_TRUE(runtime) << message_;
  EXPECT_EQ(runtime->floor_ms(), time_of(before.back()));
  const std::int64_t monotonic_before = clock_.monotonic_ns();
  const auto after = issue(*runtime, 1);
  ASSERT_EQ(after.size(), 1u) << message_;
  EXPECT_GT(after[0], before.back());
  // No wait for `ahead`: at most the one millisecond to leave the last id's tick.
  EXPECT_LE(clock_.monotonic_ns() - monotonic_before, 2000000);
}

TEST_F(RuntimeTest, CrashedRestartWaitsOutTheDurableCeiling) {
  std::int64_t ceiling = 0;
  std::vector<std::uint64_t> before;
  {
    auto runtime = open();
    ASSERT_TRUE(runtime) << message_;
    before = issue(*runtime, 50, milliseconds(1));
    ceiling = durable_ceiling(fs_);
    fs_.crash();  // power loss: no clean shutdown
  }
  clock_.set_ms(kNow);  // and the clock is even set back
  auto runtime = open();
  ASSERT_TRUE(runtime) << message_;
  EXPECT_EQ(runtime->floor_ms(), ceiling);
  EXPECT_EQ(listener_.count(EventKind::kWaitingForFloor), 1);
  const auto after = issue(*runtime, 1);
  ASSERT_EQ(after.size(), 1u) << message_;
  EXPECT_GT(time_of(after[0]), ceiling);
  EXPECT_GT(after[0], before.back());
}

TEST_F(RuntimeTest, ClockFarBehindTheFloorFailsWithTheGap) {
  {
    auto runtime = open();
    ASSERT_TRUE(runtime) << message_;
    fs_.crash();
  }
  clock_.set_ms(kNow - 3600000);  // an hour back
  clock_.set_on_sleep(ManualClock::OnSleep::kAdvanceBoth);
  EXPECT_FALSE(open());
  EXPECT_ERRC(ec_, errc::clock_behind_floor);
  EXPECT_NE(message_.find("ms short of the first tick after the floor"), std::string::npos)
      << message_;
  EXPECT_NE(message_.find("3599950 ms"), std::string::npos) << message_;
}

TEST_F(RuntimeTest, NoIdAboveTheDurableCeilingWhenWritesFail) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << message_;
  fs_.fail(Op::kSyncData, EIO, 1, /*persistent=*/true);
  const std::int64_t ceiling = durable_ceiling(fs_);
  Generator* generator = runtime->generator("default", ec_);
  ASSERT_NE(generator, nullptr);
  std::uint64_t last = 0;
  for (int i = 0; i < 400; ++i) {
    clock_.advance(milliseconds(1));
    const std::uint64_t id = generator->next(ec_, &message_);
    if (ec_) break;
    EXPECT_LE(time_of(id), durable_ceiling(fs_));  // the auditor: against the disk, not a cache
    last = id;
  }
  EXPECT_ERRC(ec_, errc::ceiling_reached);
  EXPECT_EQ(time_of(last), ceiling);
  EXPECT_GT(listener_.count(EventKind::kStateWriteFailed), 0);
  // The disk recovers: issuing resumes past the old ceiling.
  fs_.clear_faults();
  const std::uint64_t id = generator->next(ec_, &message_);
  ASSERT_NO_ERROR(ec_) << message_;
  EXPECT_GT(time_of(id), ceiling);
  EXPECT_EQ(listener_.count(EventKind::kStateWriteRecovered), 1);
}

TEST_F(RuntimeTest, StartFailsIfTheFirstCeilingCannotBeMadeDurable) {
  // The first advance's first sync (the open only syncs what it read, and rewrites nothing).
  fs_.fail(Op::kSyncData, ENOSPC, /*nth=*/2);
  EXPECT_FALSE(open());
  EXPECT_EQ(ec_, std::errc::no_space_on_device);
  EXPECT_NE(message_.find("nothing was issued"), std::string::npos) << message_;
}

TEST_F(RuntimeTest, SecondRuntimeOnTheSameFileIsRefused) {
  auto first = open();
  ASSERT_TRUE(first) << message_;
  EXPECT_FALSE(open());
  EXPECT_ERRC(ec_, errc::state_file_locked);
}

TEST_F(RuntimeTest, RequireStateFileRefusesAMissingOne) {
  options_.require_state_file = true;
  EXPECT_FALSE(open());
  EXPECT_ERRC(ec_, errc::state_file_missing);
}

TEST_F(RuntimeTest, WithoutAStateFileItWarnsAndWorks) {
  options_.state_file.clear();
  auto runtime = open();
  ASSERT_TRUE(runtime) << message_;
  EXPECT_EQ(listener_.count(EventKind::kNoStateFile), 1);
  EXPECT_EQ(issue(*runtime, 3).size(), 3u);
}

// Two sequences on one slot would collide: every name shares one generator.
TEST_F(RuntimeTest, NamedGeneratorsShareOneSequenceSoIdsNeverCollide) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << message_;
  Generator* orders = runtime->generator("orders", ec_);
  Generator* invoices = runtime->generator("invoices", ec_);
  ASSERT_NE(orders, nullptr);
  ASSERT_EQ(invoices, orders);
  EXPECT_EQ(runtime->generator("orders", ec_), orders);
  std::set<std::uint64_t> ids;
  for (int i = 0; i < 100; ++i) {
    ids.insert(orders->next(ec_));
    ids.insert(invoices->next(ec_));
    clock_.advance(milliseconds(1));
  }
  EXPECT_EQ(ids.size(), 200u);
}

TEST_F(RuntimeTest, CloseWritesTheLargestLastTimestampOfAllGenerators) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << message_;
  Generator* a = runtime->generator("a", ec_);
  Generator* b = runtime->generator("b", ec_);
  (void)a->next(ec_);
  clock_.advance(milliseconds(7));
  (void)b->next(ec_);
  ASSERT_FALSE(runtime->close());
  EXPECT_EQ(durable_ceiling(fs_), kNow + 7);
  EXPECT_EQ(a->next(ec_), 0u);
  EXPECT_ERRC(ec_, errc::closed);
  EXPECT_EQ(runtime->generator("c", ec_), nullptr);
  EXPECT_ERRC(ec_, errc::closed);
}

TEST_F(RuntimeTest, BackgroundThreadKeepsTheCeilingAhead) {
  environment_.background_thread = true;
  auto runtime = open();
  ASSERT_TRUE(runtime) << message_;
  // Move the clock past half of `ahead`: the thread writes the next ceiling on its own.
  clock_.advance(milliseconds(60));
  for (int i = 0; i < 2000 && runtime->ceiling_ms() <= kNow + 100; ++i) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_EQ(runtime->ceiling_ms(), kNow + 160);
  EXPECT_EQ(durable_ceiling(fs_), kNow + 160);
  ASSERT_FALSE(runtime->close());
}

// The generator waits at the ceiling (the wall clock stands still, so only a new ceiling can end
// the wait) and the background thread provides one: woken by the generator, or on its own
// schedule if it happens to run first (which of the two is not deterministic, so not asserted).
TEST_F(RuntimeTest, GeneratorPastTheCeilingGetsANewOneFromTheBackgroundThread) {
  environment_.background_thread = true;
  environment_.generator.ceiling = milliseconds(5000);
  clock_.set_on_sleep(ManualClock::OnSleep::kYield);
  auto runtime = open();
  ASSERT_TRUE(runtime) << message_;
  clock_.advance(milliseconds(101));  // past the ceiling at once
  Generator* generator = runtime->generator("default", ec_);
  const std::uint64_t id = generator->next(ec_, &message_);
  ASSERT_NO_ERROR(ec_) << message_;
  EXPECT_EQ(time_of(id), kNow + 101);
  EXPECT_GT(runtime->ceiling_ms(), kNow + 101);
}

TEST_F(RuntimeTest, RemovedStateFileStopsTheCeiling) {
  environment_.background_thread = true;
  auto runtime = open();
  ASSERT_TRUE(runtime) << message_;
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

}  // namespace
}  // namespace cosid
