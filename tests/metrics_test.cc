// SPDX-License-Identifier: Apache-2.0
// Runtime::metrics() against the in-memory runtime set-up, and the exact Prometheus text.
#include "cosid/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cosid/runtime.h"
#include "memory_fs.h"
#include "runtime_setup.h"
#include "test_util.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using testing::MemoryFs;
using Op = MemoryFs::Op;

using testing::kNow;
constexpr auto& kPath = testing::kStatePath;
// A new state file's floor: not-before 0, raised to the last millisecond before the epoch.
constexpr std::int64_t kNewFloor = 1577203200000 - 1;

class RuntimeMetricsTest : public testing::RuntimeFixture<MemoryFs> {
 protected:
  RuntimeMetricsTest() { environment_.listener = &listener_; }

  // Issues `count` ids, letting `step` pass before each; stops at the first error (in status_).
  int issue(Runtime& runtime, int count, milliseconds step = milliseconds(0)) {
    Generator* generator = runtime.generator("default", status_);
    if (generator == nullptr) return 0;
    int issued = 0;
    for (; issued < count; ++issued) {
      clock_.advance(step);
      (void)generator->next(status_);
      if (!status_.ok()) break;
    }
    return issued;
  }

  // The events, counted as the metrics count: an unsigned count.
  std::uint64_t events(EventKind kind) { return static_cast<std::uint64_t>(listener_.count(kind)); }

  testing::RecordingListener listener_;
};

TEST_F(RuntimeMetricsTest, RightAfterOpenTheFirstCeilingIsOneWriteAndTheWindowIsShown) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  const RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.namespace_name, "orders");
  EXPECT_EQ(metrics.slot, 3u);
  EXPECT_EQ(metrics.state_writes, 1u);
  EXPECT_EQ(metrics.state_write_failures, 0u);
  EXPECT_EQ(metrics.floor_ms, kNewFloor);
  EXPECT_EQ(metrics.ceiling_ms, kNow + 100);
  // No generator yet: every generator counter is 0.
  EXPECT_EQ(metrics.ids_issued, 0u);
  EXPECT_EQ(metrics.generator_failures, 0u);
  // A static slot holds no lease.
  EXPECT_EQ(metrics.lease_renewals, 0u);
  EXPECT_EQ(metrics.lease_renewal_failures, 0u);
  EXPECT_EQ(metrics.lease_losses, 0u);
}

TEST_F(RuntimeMetricsTest, CountsIdsAndEveryCeilingMadeDurable) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  ASSERT_EQ(issue(*runtime, 10, milliseconds(1)), 10) << status_.message();
  clock_.advance(milliseconds(60));  // now kNow + 70: less than ahead/2 remains
  ASSERT_TRUE(runtime->maintain(status_)) << status_.message();
  const RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.ids_issued, 10u);
  EXPECT_EQ(metrics.state_writes, 2u);
  EXPECT_EQ(metrics.state_writes - 1, events(EventKind::kCeilingAdvanced));
  EXPECT_EQ(metrics.ceiling_ms, kNow + 70 + 100);
  EXPECT_EQ(metrics.floor_ms, kNewFloor);
  EXPECT_EQ(metrics.ceiling_waits, 0u);
  EXPECT_EQ(metrics.generator_failures, 0u);
}

TEST_F(RuntimeMetricsTest, AWaitAtTheCeilingIsCountedWithTheWriteItCaused) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  clock_.advance(milliseconds(150));  // past the ceiling kNow + 100
  ASSERT_EQ(issue(*runtime, 1), 1) << status_.message();
  const RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.ids_issued, 1u);
  EXPECT_EQ(metrics.ceiling_waits, 1u);
  EXPECT_EQ(metrics.ceiling_waits, events(EventKind::kWaitingAtCeiling));
  EXPECT_EQ(metrics.state_writes, 2u);  // the waiting thread renewed inline
  EXPECT_EQ(metrics.ceiling_ms, kNow + 150 + 100);
}

TEST_F(RuntimeMetricsTest, AFailedStateWriteIsCountedAndKeepsTheCeiling) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  clock_.advance(milliseconds(60));
  fs_.fail(Op::kSyncData, EIO);
  EXPECT_FALSE(runtime->maintain(status_));
  EXPECT_EQ(status_.code(), std::errc::io_error);
  RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.state_write_failures, 1u);
  EXPECT_EQ(metrics.state_writes, 1u);
  EXPECT_EQ(metrics.ceiling_ms, kNow + 100);
  // The retry succeeds: one more write, the failure stays counted.
  ASSERT_TRUE(runtime->maintain(status_)) << status_.message();
  metrics = runtime->metrics();
  EXPECT_EQ(metrics.state_write_failures, 1u);
  EXPECT_EQ(metrics.state_writes, 2u);
  EXPECT_EQ(metrics.ceiling_ms, kNow + 60 + 100);
}

TEST_F(RuntimeMetricsTest, WritesFailingAtTheCeilingCountAGeneratorFailure) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  fs_.fail(Op::kSyncData, EIO, 1, /*persistent=*/true);
  clock_.advance(milliseconds(150));
  EXPECT_EQ(issue(*runtime, 1), 0);
  EXPECT_STATUS(status_, errc::ceiling_reached);
  const RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.ids_issued, 0u);
  EXPECT_EQ(metrics.generator_failures, 1u);
  EXPECT_EQ(metrics.ceiling_waits, 1u);
  EXPECT_EQ(metrics.state_writes, 1u);
  EXPECT_GE(metrics.state_write_failures, 1u);
  EXPECT_EQ(metrics.state_write_failures, events(EventKind::kStateWriteFailed));
  EXPECT_EQ(metrics.ceiling_ms, kNow + 100);
}

TEST_F(RuntimeMetricsTest, SequenceWaitsComeFromTheGenerator) {
  environment_.generator.max_drift = milliseconds(0);  // a used-up tick waits instead of borrowing
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  // One tick holds 4,096 sequences: the 4,097th id waits for the next tick (the manual clock
  // lets the time of each sleep pass).
  ASSERT_EQ(issue(*runtime, 4097), 4097) << status_.message();
  const RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.ids_issued, 4097u);
  EXPECT_EQ(metrics.sequence_waits, 1u);
  EXPECT_EQ(metrics.clock_backwards, 0u);
  EXPECT_EQ(metrics.floor_waits, 0u);
  EXPECT_EQ(metrics.generator_failures, 0u);
}

TEST_F(RuntimeMetricsTest, AWaitForAClockSetBackComesFromTheGenerator) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  ASSERT_EQ(issue(*runtime, 4096), 4096) << status_.message();  // the tick's every sequence
  // Behind the last tick, whose sequence is used up, by more than the runtime absorbs (ahead / 2,
  // 50 ms here, and 20 ms of drift) but by less than that plus the wait (20 ms): the call waits
  // for the clock.
  clock_.step_ms(-80);
  ASSERT_EQ(issue(*runtime, 1), 1) << status_.message();
  const RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.ids_issued, 4097u);
  EXPECT_EQ(metrics.clock_backwards, 1u);
  // Back within the bound, the tick after the last one is still a millisecond out of reach: that
  // last millisecond is a wait for a new tick.
  EXPECT_EQ(metrics.sequence_waits, 1u);
  EXPECT_EQ(metrics.generator_failures, 0u);
}

TEST_F(RuntimeMetricsTest, AfterCloseTheCountsStayReadable) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  ASSERT_EQ(issue(*runtime, 5, milliseconds(1)), 5) << status_.message();
  ASSERT_TRUE(runtime->close(status_)) << status_.message();
  const RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.ids_issued, 5u);
  EXPECT_EQ(metrics.state_writes, 1u);  // the clean-shutdown record is not a ceiling
  EXPECT_EQ(metrics.ceiling_ms, kNow + 100);
}

TEST_F(RuntimeMetricsTest, WithoutAStateFileNothingIsWrittenAndTheCeilingIsTheLayoutsEnd) {
  options_.state_file.clear();
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  ASSERT_EQ(issue(*runtime, 3), 3) << status_.message();
  const RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.ids_issued, 3u);
  EXPECT_EQ(metrics.state_writes, 0u);
  EXPECT_EQ(metrics.state_write_failures, 0u);
  EXPECT_EQ(metrics.ceiling_ms, layouts::kDefault.end_ms() - 1);
}

// Snapshots taken while another thread issues and the background thread renews (run under TSan
// in CI): every field only grows, and the final counts are exact.
TEST_F(RuntimeMetricsTest, SnapshotsWhileIssuingAndRenewingOnOtherThreads) {
  environment_.background_thread = true;
  // The wall clock moves only when the issuer moves it, and a wait at the ceiling lasts until the
  // background thread has written the next one, however slow this machine is.
  environment_.generator.ceiling = milliseconds(60000);
  clock_.set_on_sleep(ManualClock::OnSleep::kYield);
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  Generator* generator = runtime->generator("default", status_);
  ASSERT_NE(generator, nullptr);
  constexpr int kIds = 20000;
  std::atomic<bool> done{false};
  std::error_code issue_error;
  std::thread issuer([&] {
    for (int i = 0; i < kIds && !issue_error; ++i) {
      if (i % 100 == 0) clock_.advance(milliseconds(1));  // 200 ms in all: several renewals
      (void)generator->next(issue_error);
    }
    done.store(true);
  });
  RuntimeMetrics last = runtime->metrics();
  while (!done.load()) {
    const RuntimeMetrics now = runtime->metrics();
    EXPECT_GE(now.ids_issued, last.ids_issued);
    EXPECT_GE(now.state_writes, last.state_writes);
    EXPECT_GE(now.ceiling_ms, last.ceiling_ms);
    last = now;
  }
  issuer.join();
  ASSERT_NO_ERROR(issue_error);
  ASSERT_TRUE(runtime->close(status_)) << status_.message();
  const RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.ids_issued, static_cast<std::uint64_t>(kIds));
  EXPECT_GE(metrics.state_writes, 2u);
  EXPECT_EQ(metrics.state_writes - 1, events(EventKind::kCeilingAdvanced));
  EXPECT_EQ(metrics.state_write_failures, 0u);
  EXPECT_EQ(metrics.generator_failures, 0u);
}

TEST_F(RuntimeMetricsTest, PrometheusTextOfARuntime) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  ASSERT_EQ(issue(*runtime, 10, milliseconds(1)), 10) << status_.message();
  const std::string text = to_prometheus(runtime->metrics());
  EXPECT_NE(text.find("\ncosid_ids_issued_total{namespace=\"orders\",slot=\"3\"} 10\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\ncosid_ceiling_timestamp_seconds{namespace=\"orders\",slot=\"3\"} "
                      "1796005378.223\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\ncosid_floor_timestamp_seconds{namespace=\"orders\",slot=\"3\"} "
                      "1577203199.999\n"),
            std::string::npos)
      << text;
}

RuntimeMetrics sample() {
  RuntimeMetrics metrics;
  metrics.namespace_name = "orders";
  metrics.slot = 3;
  metrics.ids_issued = 1000;
  metrics.sequence_waits = 2;
  metrics.ceiling_waits = 3;
  metrics.clock_backwards = 4;
  metrics.floor_waits = 5;
  metrics.generator_failures = 6;
  metrics.state_writes = 7;
  metrics.state_write_failures = 8;
  metrics.lease_renewals = 9;
  metrics.lease_renewal_failures = 10;
  metrics.lease_losses = 11;
  metrics.floor_ms = 1796005378123;
  metrics.ceiling_ms = 1796005388005;
  return metrics;
}

TEST(PrometheusText, ExactTextOfASnapshot) {
  const char* expected =
      "# HELP cosid_ids_issued_total Ids returned by the generator.\n"
      "# TYPE cosid_ids_issued_total counter\n"
      "cosid_ids_issued_total{namespace=\"orders\",slot=\"3\"} 1000\n"
      "# HELP cosid_sequence_waits_total Calls that waited for a new tick because the sequence "
      "of a tick was used up.\n"
      "# TYPE cosid_sequence_waits_total counter\n"
      "cosid_sequence_waits_total{namespace=\"orders\",slot=\"3\"} 2\n"
      "# HELP cosid_ceiling_waits_total Calls that waited for the ceiling to be raised.\n"
      "# TYPE cosid_ceiling_waits_total counter\n"
      "cosid_ceiling_waits_total{namespace=\"orders\",slot=\"3\"} 3\n"
      "# HELP cosid_clock_backwards_total Calls that waited because the clock was behind the "
      "last tick issued.\n"
      "# TYPE cosid_clock_backwards_total counter\n"
      "cosid_clock_backwards_total{namespace=\"orders\",slot=\"3\"} 4\n"
      "# HELP cosid_floor_waits_total Calls that waited for the clock to pass the floor.\n"
      "# TYPE cosid_floor_waits_total counter\n"
      "cosid_floor_waits_total{namespace=\"orders\",slot=\"3\"} 5\n"
      "# HELP cosid_generator_failures_total Calls to the generator that returned an error.\n"
      "# TYPE cosid_generator_failures_total counter\n"
      "cosid_generator_failures_total{namespace=\"orders\",slot=\"3\"} 6\n"
      "# HELP cosid_state_writes_total Ceilings made durable in the state file.\n"
      "# TYPE cosid_state_writes_total counter\n"
      "cosid_state_writes_total{namespace=\"orders\",slot=\"3\"} 7\n"
      "# HELP cosid_state_write_failures_total Attempts to make a ceiling durable in the state "
      "file that failed.\n"
      "# TYPE cosid_state_write_failures_total counter\n"
      "cosid_state_write_failures_total{namespace=\"orders\",slot=\"3\"} 8\n"
      "# HELP cosid_lease_renewals_total Lease renewals that succeeded (0 for a static slot).\n"
      "# TYPE cosid_lease_renewals_total counter\n"
      "cosid_lease_renewals_total{namespace=\"orders\",slot=\"3\"} 9\n"
      "# HELP cosid_lease_renewal_failures_total Lease renewals that failed (0 for a static "
      "slot).\n"
      "# TYPE cosid_lease_renewal_failures_total counter\n"
      "cosid_lease_renewal_failures_total{namespace=\"orders\",slot=\"3\"} 10\n"
      "# HELP cosid_lease_losses_total Leases lost, which stops the ids of the slot (0 for a "
      "static slot).\n"
      "# TYPE cosid_lease_losses_total counter\n"
      "cosid_lease_losses_total{namespace=\"orders\",slot=\"3\"} 11\n"
      "# HELP cosid_floor_timestamp_seconds The floor of the slot's window: every id issued "
      "lies after it. Unix time in seconds.\n"
      "# TYPE cosid_floor_timestamp_seconds gauge\n"
      "cosid_floor_timestamp_seconds{namespace=\"orders\",slot=\"3\"} 1796005378.123\n"
      "# HELP cosid_ceiling_timestamp_seconds The durable ceiling of the slot's window: no id "
      "lies after it. Unix time in seconds.\n"
      "# TYPE cosid_ceiling_timestamp_seconds gauge\n"
      "cosid_ceiling_timestamp_seconds{namespace=\"orders\",slot=\"3\"} 1796005388.005\n";
  EXPECT_EQ(to_prometheus(sample()), expected);
}

TEST(PrometheusText, LabelValuesEscapeBackslashQuoteAndLineFeed) {
  RuntimeMetrics metrics = sample();
  metrics.namespace_name = "a\\b\"c\nd";
  const std::string text = to_prometheus(metrics);
  EXPECT_NE(text.find("\ncosid_ids_issued_total{namespace=\"a\\\\b\\\"c\\nd\",slot=\"3\"} 1000\n"),
            std::string::npos)
      << text;
  // Escaped, the value adds no line: 13 metrics of 3 lines each.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 39);
}

TEST(PrometheusText, InstantsAreExactSecondsWithThreeDecimals) {
  RuntimeMetrics metrics = sample();
  const std::vector<std::pair<std::int64_t, const char*>> cases = {
      {0, "0.000"},
      {7, "0.007"},
      {1000, "1.000"},
      {-1, "-0.001"},
      {-1500, "-1.500"},
      {9007199254740993, "9007199254740.993"},  // past 2^53: a double would round it
      {std::numeric_limits<std::int64_t>::min(), "-9223372036854775.808"},
  };
  for (const auto& [ms, seconds] : cases) {
    metrics.floor_ms = ms;
    const std::string text = to_prometheus(metrics);
    EXPECT_NE(text.find(std::string("\ncosid_floor_timestamp_seconds{namespace=\"orders\",slot="
                                    "\"3\"} ") +
                        seconds + "\n"),
              std::string::npos)
        << ms << "\n"
        << text;
  }
}

TEST(PrometheusText, SeveralSnapshotsShareEachHeader) {
  RuntimeMetrics second = sample();
  second.namespace_name = "invoices";
  second.slot = 4;
  second.ids_issued = 5;
  const std::string text = to_prometheus(std::vector<RuntimeMetrics>{sample(), second});
  const std::string family =
      "# HELP cosid_ids_issued_total Ids returned by the generator.\n"
      "# TYPE cosid_ids_issued_total counter\n"
      "cosid_ids_issued_total{namespace=\"orders\",slot=\"3\"} 1000\n"
      "cosid_ids_issued_total{namespace=\"invoices\",slot=\"4\"} 5\n"
      "# HELP cosid_sequence_waits_total ";
  EXPECT_EQ(text.compare(0, family.size(), family), 0) << text;
  // 13 metrics: 2 header lines each and one sample per snapshot.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 13 * 4);
  EXPECT_EQ(to_prometheus(std::vector<RuntimeMetrics>{}).find("cosid_ids_issued_total{"),
            std::string::npos);
}

}  // namespace
}  // namespace cosid
