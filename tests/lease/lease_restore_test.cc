// SPDX-License-Identifier: Apache-2.0
// A file lease store restored from an older copy, under holders whose clocks disagree by seconds:
// holder A (clock 5.8 s ahead) issues ids, its record is copied aside early, A goes on and is
// abandoned without a release, the copy is restored over the store (whose clock now lags 4 s),
// the documented wait of one ttl plus tolerance passes, and holder B (clock 4 s behind) leases
// A's slot. With SlotLeaseStore::fence() at the time after A's largest id, every id of B lies
// above every id of A. (Without the fence this scenario repeats ids: B's floor is the copy's old
// ceiling and its clock lies below A's last timestamps.)
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cosid/clock.h"
#include "cosid/lease/file_store.h"
#include "cosid/runtime.h"
#include "cosid/store_registry.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;

constexpr std::int64_t kStart = 1700000000000;

// A clock `offset` ms away from a shared true time; sleeping on it lets the true time pass.
class OffsetClock final : public Clock {
 public:
  OffsetClock(ManualClock& truth, std::int64_t offset) : truth_(truth), offset_(offset) {}
  std::int64_t now_ms() noexcept override { return truth_.now_ms() + offset_; }
  std::int64_t monotonic_ns() noexcept override { return truth_.monotonic_ns(); }
  void sleep_for(std::chrono::nanoseconds duration) noexcept override {
    truth_.sleep_for(duration);
  }
  void set_offset(std::int64_t offset) { offset_ = offset; }

 private:
  ManualClock& truth_;
  std::int64_t offset_;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

class LeaseRestoreTest : public ::testing::Test {
 protected:
  LeaseRestoreTest() {
    options_.store_type = "restored-file";
    options_.namespace_name = "orders";
    // Long enough for A, 5.8 s ahead, to issue at all (its clock must lie below its ceiling,
    // store now + ttl + tolerance), short enough that the documented wait (7 s) is below the
    // 9.8 s between A's clock and B's.
    options_.ttl = milliseconds(6000);
    options_.tolerance = milliseconds(1000);
    options_.start_wait = milliseconds(60000);
    options_.preferred_slot = 2;
    // 8 slots, so that fencing the whole namespace is quick.
    options_.layout.slot_bits = 3;
    options_.layout.sequence_bits = 19;
    Status status;
    store_ = lease::FileLeaseStore::open(dir_.path(), store_options(), status);
    EXPECT_NE(store_, nullptr) << status.message();
    EXPECT_TRUE(stores_.add(
        "restored-file",
        [this](const StoreContext&, Status&) -> std::shared_ptr<lease::SlotLeaseStore> {
          return store_;
        },
        status))
        << status.message();
  }

  lease::FileLeaseStoreOptions store_options() {
    lease::FileLeaseStoreOptions options;
    options.clock = &store_clock_;
    return options;
  }

  std::unique_ptr<Runtime> open(Clock& clock) {
    RuntimeEnvironment environment;
    environment.clock = &clock;
    environment.stores = &stores_;
    environment.background_thread = false;
    Status status;
    auto runtime = Runtime::open(options_, environment, status);
    EXPECT_NE(runtime, nullptr) << status.message();
    return runtime;
  }

  // `count` ids at each of `steps` steps of 100 ms of true time, renewing as a keeper would.
  std::vector<std::uint64_t> issue(Runtime& runtime, int steps, int count) {
    std::vector<std::uint64_t> ids;
    for (int step = 0; step < steps; ++step) {
      truth_.advance(milliseconds(100));
      Status status;
      EXPECT_TRUE(runtime.maintain(status)) << status.message();
      for (int i = 0; i < count; ++i) {
        std::uint64_t id = runtime.generator().next(status);
        if (status.code() == make_error_code(errc::ceiling_reached)) {
          // Its clock ran past the ceiling: a renewal moves it (the keeper's loop does this).
          EXPECT_TRUE(runtime.maintain(status)) << status.message();
          id = runtime.generator().next(status);
        }
        if (!status.ok()) break;  // past the ceiling until the next step's renewal
        ids.push_back(id);
      }
    }
    return ids;
  }

  std::uint32_t slot_of(std::uint64_t id) const { return options_.layout.parse(id).slot; }
  std::int64_t unix_ms_of(std::uint64_t id) const {
    return options_.layout.tick_start_ms(options_.layout.parse(id).timestamp);
  }

  lease::NamespaceTerms terms() const {
    lease::NamespaceTerms terms;
    terms.slot_limit = std::uint32_t{1} << options_.layout.slot_bits;
    terms.tolerance = options_.tolerance;
    return terms;
  }

  TempDir dir_{"lease_restore"};
  ManualClock truth_{kStart, ManualClock::OnSleep::kAdvanceBoth};
  OffsetClock store_clock_{truth_, 0};
  OffsetClock clock_a_{truth_, 5800};
  OffsetClock clock_b_{truth_, -4000};
  std::shared_ptr<lease::FileLeaseStore> store_;
  StoreRegistry stores_;
  Options options_;
};

TEST_F(LeaseRestoreTest, AFenceAfterARestoreLeavesNoRepeatsWhateverTheClocks) {
  ASSERT_NE(store_, nullptr);
  const std::string record = dir_.file("ns.orders.lease");
  std::unique_ptr<Runtime> a = open(clock_a_);
  ASSERT_NE(a, nullptr);
  const std::vector<std::uint64_t> early = issue(*a, 5, 4);
  const std::string backup = read_file(record);  // the backup, taken early
  ASSERT_FALSE(backup.empty());
  std::vector<std::uint64_t> ids_a = issue(*a, 100, 4);
  ids_a.insert(ids_a.end(), early.begin(), early.end());
  ASSERT_GT(ids_a.size(), 300u);
  const std::uint64_t last_a = *std::max_element(ids_a.begin(), ids_a.end());
  // A is abandoned here: no release, no renewal (a crash, as the store sees it).

  write_file(record, backup);
  store_clock_.set_offset(-4000);                     // the restored store's clock lags
  truth_.advance(options_.ttl + options_.tolerance);  // the documented wait

  // What `cosid not-before --from-id LAST_A` prints.
  const std::int64_t not_before =
      options_.layout.tick_end_ms(options_.layout.parse(last_a).timestamp);
  for (std::uint32_t slot = 0; slot < terms().slot_limit; ++slot) {
    lease::FenceResult result;
    Status status;
    ASSERT_TRUE(store_->fence("orders", terms(), slot, not_before, result, status))
        << status.message();
    EXPECT_GE(result.after.next_floor, not_before);
    if (slot == slot_of(last_a)) {
      EXPECT_EQ(result.outcome, lease::FenceOutcome::kEndedLease);
    }
  }

  // B's clock lies below A's last timestamps: without the fence B would issue there.
  EXPECT_LT(clock_b_.now_ms(), unix_ms_of(last_a));
  std::unique_ptr<Runtime> b = open(clock_b_);
  ASSERT_NE(b, nullptr);
  const std::vector<std::uint64_t> ids_b = issue(*b, 60, 4);
  ASSERT_GT(ids_b.size(), 200u);
  // The property is only tested if B issues on A's slot.
  EXPECT_EQ(slot_of(ids_b.front()), slot_of(last_a));
  EXPECT_EQ(slot_of(ids_b.back()), slot_of(last_a));
  const std::uint64_t first_b = *std::min_element(ids_b.begin(), ids_b.end());
  EXPECT_GT(first_b, last_a);
  EXPECT_GT(unix_ms_of(first_b), not_before);
  std::vector<std::uint64_t> sorted_a = ids_a;
  std::vector<std::uint64_t> sorted_b = ids_b;
  std::sort(sorted_a.begin(), sorted_a.end());
  std::sort(sorted_b.begin(), sorted_b.end());
  std::vector<std::uint64_t> repeats;
  std::set_intersection(sorted_a.begin(), sorted_a.end(), sorted_b.begin(), sorted_b.end(),
                        std::back_inserter(repeats));
  EXPECT_EQ(repeats.size(), 0u);
}

}  // namespace
}  // namespace cosid
