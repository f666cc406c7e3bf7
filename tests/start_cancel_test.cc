// SPDX-License-Identifier: Apache-2.0
// The cancel flag of a start (RuntimeEnvironment::cancel, segment::GeneratorOptions::cancel,
// RangeRequest::cancel) set at each moment of the start: before it, during the wait for the
// floor, during the wait for the state file's lock, right after the first ceiling's sync, while
// every slot of a lease namespace is held, once a lease is acquired, around the first segment
// claim, and while a file range store waits for its lock. Each start fails with errc::cancelled,
// says where it stood, and leaves nothing behind that could move a floor past what was issued
// (nothing was): no ceiling written ahead, no lease held, no range claimed. The flag is set from an
// event of the start or from a store or file system call, so every run is deterministic
// (ManualClock, no background thread).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cosid/clock.h"
#include "cosid/lease/memory_store.h"
#include "cosid/runtime.h"
#include "cosid/segment/file_range_store.h"
#include "cosid/segment/generator.h"
#include "cosid/segment/memory_range_store.h"
#include "cosid/store_registry.h"
#include "support/memory_fs.h"
#include "support/range_store_wrapper.h"
#include "support/runtime_setup.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using testing::kNow;
using testing::MemoryFs;
using testing::RecordingListener;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Records every event and sets the cancel flag at the first event of kind `on`, as a signal
// handler would at that moment.
class CancellingListener final : public EventListener {
 public:
  CancellingListener(std::atomic<bool>& flag, EventKind on) : flag_(flag), on_(on) {}
  void on_event(const Event& event) noexcept override {
    if (event.kind == on_) flag_.store(true, std::memory_order_relaxed);
    recorded.on_event(event);
  }
  RecordingListener recorded;

 private:
  std::atomic<bool>& flag_;
  const EventKind on_;
};

// A memory file system that, while `armed`, sets the flag once a data sync after a write
// succeeded: the first ceiling's write-ahead (opening a file that exists syncs its data before it
// reads, with no write before; the open of this test's file rewrites nothing).
class FlagOnDataSync final : public MemoryFs {
 public:
  explicit FlagOnDataSync(std::atomic<bool>& flag) : flag_(flag) {}
  std::error_code write_at(int fd, const void* data, std::size_t size,
                           std::int64_t offset) override {
    wrote_ = wrote_ || armed;
    return MemoryFs::write_at(fd, data, size, offset);
  }
  std::error_code sync_data(int fd) override {
    const std::error_code result = MemoryFs::sync_data(fd);
    if (!result && armed && wrote_) flag_.store(true, std::memory_order_relaxed);
    return result;
  }
  bool armed = false;

 private:
  std::atomic<bool>& flag_;
  bool wrote_ = false;
};

class StateFileCancelTest : public ::testing::Test {
 protected:
  StateFileCancelTest() : fs_(cancel_), listener_(cancel_, EventKind::kWaitingForFloor) {
    options_ = testing::small_runtime_options(testing::kStatePath);
    environment_ = testing::inline_environment(clock_, fs_);
    environment_.listener = &listener_;
    environment_.cancel = &cancel_;
  }

  std::unique_ptr<Runtime> open() {
    status_.clear();
    return Runtime::open(options_, environment_, status_);
  }

  // Opens without the flag, issues one id, closes cleanly; the id's timestamp.
  std::int64_t run_once() {
    cancel_.store(false);
    fs_.armed = false;
    auto runtime = open();
    EXPECT_NE(runtime, nullptr) << status_.message();
    if (runtime == nullptr) return 0;
    Generator* generator = runtime->generator("default", status_);
    EXPECT_NE(generator, nullptr) << status_.message();
    if (generator == nullptr) return 0;
    const std::uint64_t id = generator->next(status_);
    EXPECT_OK(status_);
    EXPECT_TRUE(runtime->close(status_)) << status_.message();
    return options_.layout.tick_start_ms(options_.layout.parse(id).timestamp);
  }

  std::atomic<bool> cancel_{false};
  FlagOnDataSync fs_;
  ManualClock clock_{kNow};
  CancellingListener listener_;
  Options options_;
  RuntimeEnvironment environment_;
  Status status_;
};

TEST_F(StateFileCancelTest, AFlagSetBeforeTheStartOpensNothing) {
  cancel_.store(true);
  EXPECT_EQ(open(), nullptr);
  EXPECT_STATUS(status_, errc::cancelled);
  EXPECT_TRUE(contains(status_.message(), "the start was cancelled before anything was opened"))
      << status_.message();
  EXPECT_EQ(listener_.recorded.count(EventKind::kStateFileCreated), 0);
  (void)run_once();  // the file is created only now
  EXPECT_EQ(listener_.recorded.count(EventKind::kStateFileCreated), 1);
}

TEST_F(StateFileCancelTest, CancelDuringTheFloorWaitWritesNothing) {
  const std::int64_t last = run_once();
  options_.not_before_ms = clock_.now_ms() + 100;  // within the start wait of 150 ms
  EXPECT_EQ(open(), nullptr);
  EXPECT_STATUS(status_, errc::cancelled);
  EXPECT_TRUE(contains(status_.message(), "while waiting for the clock to pass the floor"))
      << status_.message();
  EXPECT_LT(clock_.now_ms(), options_.not_before_ms);  // it did not wait the floor out
  // The file still holds the clean record of the run before: a restart starts right after it.
  options_.not_before_ms = 0;
  cancel_.store(false);
  auto restart = open();
  ASSERT_NE(restart, nullptr) << status_.message();
  EXPECT_EQ(restart->floor_ms(), last);
}

TEST_F(StateFileCancelTest, CancelDuringTheFirstCeilingsSyncClosesCleanAtTheFloor) {
  const std::int64_t last = run_once();
  clock_.advance(milliseconds(5));
  fs_.armed = true;  // the flag comes during the first ceiling's sync
  EXPECT_EQ(open(), nullptr);
  EXPECT_STATUS(status_, errc::cancelled);
  EXPECT_TRUE(contains(status_.message(), "once the first window was durable"))
      << status_.message();
  // The ceiling written ahead (now + 100 ms) was replaced by a clean record at the floor, which
  // the last id of the run before reached: the restart neither waits nor starts lower.
  fs_.armed = false;
  cancel_.store(false);
  auto restart = open();
  ASSERT_NE(restart, nullptr) << status_.message();
  EXPECT_EQ(restart->floor_ms(), last);
  EXPECT_EQ(listener_.recorded.count(EventKind::kWaitingForFloor), 0);
}

// Another runtime holds the state file: the start waits for its lock (lock_wait) on a clock that
// only moves when told (so the wait would last for ever), and the flag, set from another thread,
// ends it.
TEST(StateFileLockCancelTest, CancelWhileWaitingForTheFilesLockReadsAndWritesNothing) {
  MemoryFs fs;
  ManualClock clock(kNow, ManualClock::OnSleep::kYield);
  Options options = testing::small_runtime_options(testing::kStatePath);
  RuntimeEnvironment environment = testing::inline_environment(clock, fs);
  Status status;
  auto holder = Runtime::open(options, environment, status);
  ASSERT_NE(holder, nullptr) << status.message();
  options.lock_wait = milliseconds(1000);
  std::atomic<bool> cancel{false};
  environment.cancel = &cancel;
  std::thread signaller([&cancel] {
    std::this_thread::sleep_for(milliseconds(50));
    cancel.store(true, std::memory_order_relaxed);
  });
  EXPECT_EQ(Runtime::open(options, environment, status), nullptr);
  signaller.join();
  EXPECT_STATUS(status, errc::cancelled);
  EXPECT_TRUE(contains(status.message(), "while waiting for the lock of state file var/state"))
      << status.message();
  // The holder goes on under the ceiling it wrote: its generator still issues.
  Generator* generator = holder->generator("default", status);
  ASSERT_NE(generator, nullptr) << status.message();
  (void)generator->next(status);
  EXPECT_OK(status);
}

class LeaseCancelTest : public ::testing::Test {
 protected:
  LeaseCancelTest() {
    Status status;
    EXPECT_TRUE(stores_.add(
        "mine", [this](const StoreContext&, Status&) { return store_; }, status));
    options_.store_type = "mine";
    options_.namespace_name = "orders";
    options_.layout.slot_bits = 1;  // two slots
    options_.start_wait = milliseconds(31000);
    environment_.clock = &clock_;
    environment_.stores = &stores_;
    environment_.background_thread = false;
  }

  std::vector<lease::SlotRecord> records() {
    std::vector<lease::SlotRecord> records;
    std::int64_t store_now = 0;
    Status status;
    lease::NamespaceTerms terms;
    terms.slot_limit = 2;
    terms.tolerance = options_.tolerance;
    EXPECT_TRUE(store_->scan("orders", terms, records, store_now, status)) << status.message();
    return records;
  }

  ManualClock clock_{kNow};
  std::shared_ptr<lease::MemoryLeaseStore> store_ =
      std::make_shared<lease::MemoryLeaseStore>(clock_);
  StoreRegistry stores_{&clock_};
  Options options_;
  RuntimeEnvironment environment_;
};

TEST_F(LeaseCancelTest, CancelWhileEverySlotIsHeldLeasesNothing) {
  Status status;
  auto first = Runtime::open(options_, environment_, status);
  ASSERT_NE(first, nullptr) << status.message();
  auto second = Runtime::open(options_, environment_, status);
  ASSERT_NE(second, nullptr) << status.message();
  std::atomic<bool> cancel{false};
  CancellingListener listener(cancel, EventKind::kLeaseWaiting);
  RuntimeEnvironment waiting = environment_;
  waiting.listener = &listener;
  waiting.cancel = &cancel;
  const std::int64_t start = clock_.monotonic_ns();
  EXPECT_EQ(Runtime::open(options_, waiting, status), nullptr);
  EXPECT_STATUS(status, errc::cancelled);
  EXPECT_TRUE(contains(status.message(), "while waiting for a free slot")) << status.message();
  EXPECT_LT(clock_.monotonic_ns() - start, 1000000000);  // not the acquire timeout (the ttl)
  const std::vector<lease::SlotRecord> held = records();
  ASSERT_EQ(held.size(), 2u);
  for (const lease::SlotRecord& record : held) {
    EXPECT_TRUE(record.held);
    EXPECT_EQ(record.fence, 1u) << "slot " << record.slot << " changed hands";
  }
}

TEST_F(LeaseCancelTest, CancelOnceTheLeaseIsAcquiredReleasesItWithNothingIssued) {
  std::atomic<bool> cancel{false};
  CancellingListener listener(cancel, EventKind::kLeaseAcquired);
  environment_.listener = &listener;
  environment_.cancel = &cancel;
  Status status;
  EXPECT_EQ(Runtime::open(options_, environment_, status), nullptr);
  EXPECT_STATUS(status, errc::cancelled);
  EXPECT_TRUE(contains(status.message(), "before the wait for the floor")) << status.message();
  EXPECT_EQ(listener.recorded.count(EventKind::kLeaseReleased), 1);
  const std::vector<lease::SlotRecord> after = records();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_FALSE(after[0].held);
  // Released at the lease's floor, not its ceiling (a ttl ahead): the next holder need not wait.
  EXPECT_LT(after[0].next_floor, kNow);
  RecordingListener restart_events;
  environment_.listener = &restart_events;
  environment_.cancel = nullptr;
  auto next = Runtime::open(options_, environment_, status);
  ASSERT_NE(next, nullptr) << status.message();
  EXPECT_EQ(next->slot(), after[0].slot);
  EXPECT_EQ(restart_events.count(EventKind::kWaitingForFloor), 0);
}

segment::GeneratorOptions generator_options(const std::atomic<bool>& cancel) {
  segment::GeneratorOptions options;
  options.key = "orders";
  options.step = 10;
  options.cancel = &cancel;
  return options;
}

TEST(SegmentCancelTest, AFlagSetBeforeTheFirstClaimClaimsNothing) {
  auto store = std::make_shared<segment::MemoryRangeStore>();
  const std::atomic<bool> cancel{true};
  Status status;
  EXPECT_EQ(segment::SegmentGenerator::open(store, generator_options(cancel), status), nullptr);
  EXPECT_STATUS(status, errc::cancelled);
  EXPECT_TRUE(contains(status.message(), "before the first claim of segment key \"orders\""))
      << status.message();
  segment::RangeState state;
  ASSERT_TRUE(store->read("orders", state, status)) << status.message();
  EXPECT_FALSE(state.exists);
}

// A store whose claim is the moment the flag is set: the claim itself completes.
class FlagAfterClaim final : public segment::RangeStore {
 public:
  FlagAfterClaim(std::shared_ptr<segment::RangeStore> inner, std::atomic<bool>& flag)
      : inner_(std::move(inner)), flag_(flag) {}
  bool claim(const segment::RangeRequest& request, segment::Range& range, Status& status) override {
    const bool ok = inner_->claim(request, range, status);
    flag_.store(true, std::memory_order_relaxed);
    return ok;
  }
  bool give_back(const std::string& key, const segment::Range& unused, bool& returned,
                 Status& status) override {
    return inner_->give_back(key, unused, returned, status);
  }
  bool seal(const std::string& key, segment::RangeState& state, Status& status) override {
    return inner_->seal(key, state, status);
  }
  bool read(const std::string& key, segment::RangeState& state, Status& status) override {
    return inner_->read(key, state, status);
  }

 private:
  std::shared_ptr<segment::RangeStore> inner_;
  std::atomic<bool>& flag_;
};

TEST(SegmentCancelTest, CancelDuringTheFirstClaimGivesItsValuesBack) {
  auto inner = std::make_shared<segment::MemoryRangeStore>();
  std::atomic<bool> cancel{false};
  auto store = std::make_shared<FlagAfterClaim>(inner, cancel);
  Status status;
  EXPECT_EQ(segment::SegmentGenerator::open(store, generator_options(cancel), status), nullptr);
  EXPECT_STATUS(status, errc::cancelled);
  EXPECT_TRUE(contains(status.message(), "its values [1, 21) are given back")) << status.message();
  // The next claim begins at the first value again: nothing was skipped.
  segment::RangeState state;
  ASSERT_TRUE(inner->read("orders", state, status)) << status.message();
  EXPECT_EQ(state.next, 1);
}

TEST(SegmentCancelTest, CancelWhileAFileStoreWaitsForTheLockClaimsNothing) {
  const TempDir dir("start_cancel");
  ASSERT_FALSE(dir.path().empty());
  Status status;
  auto store = std::shared_ptr<segment::FileRangeStore>(
      segment::FileRangeStore::open(dir.path(), segment::FileRangeStoreOptions{}, status));
  ASSERT_NE(store, nullptr) << status.message();
  // Another holder of the key's lock (an OFD lock of another open file description).
  const std::string lock_path = dir.path() + "/range.orders.lock";
  const int lock = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(lock, 0);
  struct flock whole {};
  whole.l_type = F_WRLCK;
  whole.l_whence = SEEK_SET;
  ASSERT_EQ(fcntl(lock, F_OFD_SETLK, &whole), 0);
  std::atomic<bool> cancel{false};
  std::thread signaller([&cancel] {
    std::this_thread::sleep_for(milliseconds(100));
    cancel.store(true, std::memory_order_relaxed);
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(segment::SegmentGenerator::open(store, generator_options(cancel), status), nullptr);
  const auto waited = std::chrono::steady_clock::now() - start;
  signaller.join();
  close(lock);
  EXPECT_STATUS(status, errc::cancelled);
  EXPECT_TRUE(contains(status.message(), "while waiting for range.orders.lock of file range store"))
      << status.message();
  EXPECT_LT(waited, std::chrono::seconds(10));  // ended by the flag, not the lock timeout
  segment::RangeState state;
  ASSERT_TRUE(store->read("orders", state, status)) << status.message();
  EXPECT_FALSE(state.exists);
}

}  // namespace
}  // namespace cosid
