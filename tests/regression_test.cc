// SPDX-License-Identifier: Apache-2.0
// Regression tests for bugs an adversarial review found; each names the bug it guards against.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "cosid/binding.h"
#include "cosid/generator.h"
#include "cosid/runtime.h"
#include "cosid/state_file.h"
#include "support/memory_fs.h"
#include "support/runtime_setup.h"
#include "support/test_util.h"
#include "window/state_record.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using testing::MemoryFs;
using Op = MemoryFs::Op;

using testing::kNow;
constexpr auto& kPath = testing::kStatePath;

struct Current {
  bool valid = false;
  StateRecord record;
};

// The current record of the durable image: what a restart after a power loss would read.
Current durable_current(MemoryFs& fs) {
  const auto image = fs.durable(kPath);
  Current out;
  if (image.size() != detail::kStateFileSize) return out;
  const detail::StateImage decoded = detail::decode_image(image.data());
  out.valid = decoded.current >= 0;
  out.record = decoded.records[out.valid ? decoded.current : 0];
  return out;
}

std::int64_t time_of(const Layout& layout, std::uint64_t id) {
  return layout.tick_end_ms(layout.parse(id).timestamp);
}

// A FileSystem that forwards to a MemoryFs and lets a test stop a sync_data call (of a chosen
// thread, or of any thread) until released, and see whether another thread wrote meanwhile.
class HookFs : public FileSystem {
 public:
  explicit HookFs(MemoryFs& fs) : fs_(fs) {}

  // The next sync_data call blocks (up to `max_block`) until release() is called.
  void arm(milliseconds max_block) {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = true;
    max_block_ = max_block;
  }
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
    cv_.notify_all();
  }
  bool wait_blocked(milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return cv_.wait_for(lock, timeout, [this] { return blocked_; });
  }
  bool overlapped() {
    std::lock_guard<std::mutex> lock(mutex_);
    return overlapped_;
  }

  std::error_code open_directory(const std::string& path, int& fd) override {
    return fs_.open_directory(path, fd);
  }
  std::error_code open_existing(int dir, const std::string& name, int& fd) override {
    return fs_.open_existing(dir, name, fd);
  }
  std::error_code open_for_reading(int dir, const std::string& name, int& fd) override {
    return fs_.open_for_reading(dir, name, fd);
  }
  std::error_code create_exclusive(int dir, const std::string& name, int& fd) override {
    return fs_.create_exclusive(dir, name, fd);
  }
  std::error_code read_at(int fd, void* data, std::size_t size, std::int64_t offset) override {
    return fs_.read_at(fd, data, size, offset);
  }
  std::error_code read_durable(int fd, void* data, std::size_t size, std::int64_t offset) override {
    return fs_.read_durable(fd, data, size, offset);
  }
  std::error_code write_at(int fd, const void* data, std::size_t size,
                           std::int64_t offset) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (blocked_ && std::this_thread::get_id() != blocked_thread_) {
        // Another thread writes the state file while one is inside its sync: two writers.
        overlapped_ = true;
        cv_.notify_all();
      }
    }
    return fs_.write_at(fd, data, size, offset);
  }
  std::error_code sync(int fd) override { return fs_.sync(fd); }
  std::error_code sync_data(int fd) override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (armed_) {
      armed_ = false;
      blocked_ = true;
      blocked_thread_ = std::this_thread::get_id();
      cv_.notify_all();
      cv_.wait_for(lock, max_block_, [this] { return released_ || overlapped_; });
      // Give an overlapping writer time to get further (its own sync), as a slow disk would.
      if (overlapped_) cv_.wait_for(lock, milliseconds(50), [this] { return released_; });
      blocked_ = false;
    }
    lock.unlock();
    return fs_.sync_data(fd);
  }
  std::error_code rename_noreplace(int dir, const std::string& from,
                                   const std::string& to) override {
    return fs_.rename_noreplace(dir, from, to);
  }
  std::error_code unlink(int dir, const std::string& name) override {
    return fs_.unlink(dir, name);
  }
  std::error_code stat(int fd, FileInfo& info) override { return fs_.stat(fd, info); }
  std::error_code stat_at(int dir, const std::string& name, FileInfo& info) override {
    return fs_.stat_at(dir, name, info);
  }
  std::error_code lock(int fd) override { return fs_.lock(fd); }
  void close(int fd) override { fs_.close(fd); }

 private:
  MemoryFs& fs_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool armed_ = false;
  bool blocked_ = false;
  bool released_ = false;
  bool overlapped_ = false;
  std::thread::id blocked_thread_;
  milliseconds max_block_{0};
};

class RuntimeRegression : public testing::RuntimeFixture<MemoryFs> {};

// When Runtime::open() fails after the state file was opened (clock behind the floor, first
// advance failing), the half-started runtime is closed. Its close() used to find no binding, take
// last = 0 and write a *clean-shutdown record with ceiling 0*: the file's ceiling rolled back to
// 0, so the next start's floor was only not-before and it reissued every timestamp of the
// previous run. StateFileKeeper::close() now writes nothing when start() made no binding.
TEST_F(RuntimeRegression, FailedStartMustNotRollTheCeilingBackWithACleanShutdownOfZero) {
  std::int64_t last_issued = 0;
  std::uint64_t first_id = 0;
  {
    auto runtime = open();
    ASSERT_TRUE(runtime) << status_.message();
    Generator* generator = runtime->generator("default", status_);
    ASSERT_NE(generator, nullptr);
    for (int i = 0; i < 30; ++i) {
      clock_.advance(milliseconds(1));
      const std::uint64_t id = generator->next(status_);
      ASSERT_OK(status_);
      if (first_id == 0) first_id = id;
      last_issued = time_of(layouts::kDefault, id);
    }
    fs_.crash();  // power loss: no clean shutdown reaches the disk
  }
  const Current before = durable_current(fs_);
  ASSERT_TRUE(before.valid);
  ASSERT_GE(before.record.ceiling_ms, last_issued);

  // The clock is stepped back an hour: the restart must refuse (it does) ...
  clock_.set_ms(kNow - 3600000);
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::clock_behind_floor);

  // ... and must leave the ceiling on disk alone.
  const Current after = durable_current(fs_);
  ASSERT_TRUE(after.valid);
  EXPECT_GE(after.record.ceiling_ms, last_issued)
      << "a failed start rewrote the state file with ceiling " << after.record.ceiling_ms
      << (after.record.clean_shutdown ? " (clean-shutdown flag)" : "");

  // The consequence: the clock is corrected back to where the first run started, and the next
  // start reissues the very same ids.
  clock_.set_ms(kNow);
  auto again = open();
  if (again) {
    EXPECT_GE(again->floor_ms(), last_issued);
    Generator* generator = again->generator("default", status_);
    ASSERT_NE(generator, nullptr);
    clock_.advance(milliseconds(1));
    const std::uint64_t id = generator->next(status_);
    if (status_.ok()) {
      EXPECT_NE(id, first_id) << "the first id of the previous run was issued again";
      EXPECT_GT(time_of(layouts::kDefault, id), last_issued);
    }
  }
}

// Same root cause, via a first advance that fails with ENOSPC: the clean write of ceiling 0
// that follows succeeds.
TEST_F(RuntimeRegression, FailedFirstAdvanceMustNotRollTheCeilingBack) {
  std::int64_t ceiling = 0;
  {
    auto runtime = open();
    ASSERT_TRUE(runtime) << status_.message();
    clock_.advance(milliseconds(5));
    (void)runtime->generator("default", status_)->next(status_);
    ASSERT_OK(status_);
    fs_.crash();
  }
  ceiling = durable_current(fs_).record.ceiling_ms;
  fs_.fail(Op::kSyncData, ENOSPC);  // the first advance (nothing is rewritten at open)
  EXPECT_FALSE(open());
  EXPECT_EQ(status_.code(), std::errc::no_space_on_device);
  EXPECT_GE(durable_current(fs_).record.ceiling_ms, ceiling);
}

// close() used to write the clean-shutdown record and reset the state file without the lock that
// maintain() (and, inline, a waiting generator's renewal) took to use it. A maintain() during
// close() wrote the StateFile from a second thread at the same time (StateFile is single-threaded;
// also a use-after-free once the file was reset). StateFileKeeper::close() now takes the keeper's
// mutex_, which every write holds.
TEST_F(RuntimeRegression, CloseMustNotWriteTheStateFileConcurrentlyWithMaintain) {
  HookFs hook(fs_);
  environment_.fs = &hook;
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  (void)runtime->generator("default", status_)->next(status_);
  ASSERT_OK(status_);
  clock_.advance(milliseconds(60));  // less than ahead/2 remains: maintain() wants to write

  hook.arm(milliseconds(1000));  // the clean-shutdown sync stalls
  std::thread closer([&] {
    Status status;
    (void)runtime->close(status);
  });
  ASSERT_TRUE(hook.wait_blocked(milliseconds(2000)));
  std::thread maintainer([&] {
    Status status;
    (void)runtime->maintain(status);
  });
  maintainer.join();
  hook.release();
  closer.join();
  EXPECT_FALSE(hook.overlapped()) << "maintain() wrote the state file while close() was writing it";
  // And the file must end with the clean record close() wrote.
  const Current after = durable_current(fs_);
  EXPECT_TRUE(after.record.clean_shutdown);
}

// With the background thread: a generator waiting at the ceiling asks the keeper for a renewal
// (StateFileKeeper::on_ceiling_wanted()), and that used to take the lock the background round
// holds across the whole fdatasync of an advance. next() then blocked for as long as the disk
// stalled, far past GeneratorOptions::ceiling, instead of failing with ceiling_reached (binding.h:
// the listener "must not block"). The wish now only wakes the KeeperLoop, under the loop's own
// lock, which no sync is made under.
TEST_F(RuntimeRegression, WaitingGeneratorMustNotBlockBehindASlowSyncPastItsBound) {
  HookFs hook(fs_);
  environment_.fs = &hook;
  environment_.background_thread = true;
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  Generator* generator = runtime->generator("default", status_);
  ASSERT_NE(generator, nullptr);

  hook.arm(milliseconds(3000));      // the next advance's sync hangs for 3 s
  clock_.advance(milliseconds(60));  // the writer thread starts an advance
  ASSERT_TRUE(hook.wait_blocked(milliseconds(2000)));
  clock_.advance(milliseconds(50));  // past the ceiling

  std::atomic<bool> done{false};
  std::error_code next_ec;
  std::thread caller([&] {
    (void)generator->next(next_ec);
    done = true;
  });
  const auto start = std::chrono::steady_clock::now();
  while (!done && std::chrono::steady_clock::now() - start < milliseconds(1000)) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  const bool returned_in_time = done;
  hook.release();
  caller.join();
  EXPECT_TRUE(returned_in_time) << "next() with a 20 ms ceiling bound blocked behind the sync";
  (void)runtime->close(status_);
}

// Without the background thread, nothing used to run the identity check (src/window/DURABILITY.md,
// "Advance"; runtime.h kStateFileReplaced): maintain() kept writing ceilings into a file that was
// removed, so the ids it allowed were recorded nowhere a restart will look. StateFileKeeper's
// maintain() now checks the file's identity inline, before every write and when no write is due.
TEST_F(RuntimeRegression, InlineMaintainMustNoticeARemovedStateFile) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  const std::int64_t ceiling = runtime->ceiling_ms();
  fs_.remove(kPath);
  for (int i = 0; i < 10; ++i) {  // several seconds of renewals
    clock_.advance(milliseconds(60));
    (void)runtime->maintain(status_);
  }
  EXPECT_EQ(runtime->ceiling_ms(), ceiling)
      << "the ceiling kept rising on a state file nobody can find any more";
}

// The message of a next() that finds the clock behind the floor: for a second-unit layout the
// clock can lie *after* the floor while its tick still begins at or before it, and the message
// then stated a negative gap ("the clock (...) is -199 ms at or before the window's floor").
TEST(GeneratorRegression, BehindFloorMessageInSecondsLayoutStatesNoNegativeGap) {
  const Layout layout = layouts::kSeconds;
  const std::int64_t second = 1796005378000;  // a whole second
  ManualClock clock(second + 700, ManualClock::OnSleep::kAdvanceMonotonic);
  Binding binding(1, second + 500, second + 10000);  // floor mid-second, clock 200 ms after it
  Status status;
  auto generator = Generator::create(
      layout, binding, clock, GeneratorOptions{milliseconds(5), milliseconds(5), milliseconds(5)},
      status);
  ASSERT_TRUE(generator);
  EXPECT_EQ(generator->next(status), 0u);
  EXPECT_STATUS(status, errc::clock_behind_floor);
  EXPECT_EQ(status.message().find(" -"), std::string::npos) << status.message();
}

// The same negative gap in the message of Runtime::open()'s wait for the floor.
TEST_F(RuntimeRegression, WaitForFloorMessageInSecondsLayoutStatesNoNegativeGap) {
  const std::int64_t second = 1796005378000;
  clock_.set_ms(second + 700);
  clock_.set_on_sleep(ManualClock::OnSleep::kAdvanceMonotonic);  // the wall clock stands still
  options_.layout = layouts::kSeconds;
  options_.ahead = milliseconds(2000);
  options_.not_before_ms = second + 500;
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::clock_behind_floor);
  EXPECT_EQ(status_.message().find(" -"), std::string::npos) << status_.message();
}

}  // namespace
}  // namespace cosid
