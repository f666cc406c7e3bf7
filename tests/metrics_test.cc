// SPDX-License-Identifier: Apache-2.0
// Runtime::metrics() against the in-memory runtime set-up, the state file's sync times (and their
// ring, sync_times.h), and the exact Prometheus text.
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
#include "support/frozen_calls.h"
#include "support/memory_fs.h"
#include "support/runtime_setup.h"
#include "support/test_util.h"
#include "window/sync_times.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using testing::MemoryFs;
using Op = MemoryFs::Op;

using testing::kNow;
constexpr auto& kPath = testing::kStatePath;
// A new state file's floor: not-before 0, raised to the last millisecond before the epoch.
constexpr std::int64_t kNewFloor = 1577203200000 - 1;

// On SlowSyncFs: a MemoryFs until a test slows its fdatasyncs down.
class RuntimeMetricsTest : public testing::RuntimeFixture<testing::SlowSyncFs> {
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

  // Lets a renewal fall due (ahead 100 ms: due when less than 50 ms remains, so 60 ms after the
  // last write always is), then writes the next ceiling with each of its two fdatasyncs taking
  // `each`: the write takes twice that.
  void renew_with_syncs_of(Runtime& runtime, std::chrono::nanoseconds each) {
    clock_.advance(milliseconds(60));
    fs_.slow_syncs(clock_, each);
    ASSERT_TRUE(runtime.maintain(status_)) << status_.message();
    fs_.slow_syncs(clock_, milliseconds(0));
  }

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
  // The manual clock did not move during the first ceiling's write.
  EXPECT_EQ(metrics.state_sync_max_us, 0);
  EXPECT_EQ(metrics.state_slow_syncs, 0u);
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
  EXPECT_EQ(metrics.state_sync_max_us, 0);
  EXPECT_EQ(metrics.state_slow_syncs, 0u);
  EXPECT_EQ(metrics.ceiling_ms, layouts::kDefault.end_ms() - 1);
}

// A write of 0.3 x ahead (30 ms, over ahead/4 = 25 ms): one warning naming the file, the duration,
// both bounds and the ahead that covers it; counted, and shown by the gauge.
TEST_F(RuntimeMetricsTest, ASyncOverAQuarterOfAheadIsReportedCountedAndShown) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  renew_with_syncs_of(*runtime, milliseconds(15));
  ASSERT_EQ(listener_.count(EventKind::kSlowSync), 1);
  const Event event = listener_.last(EventKind::kSlowSync);
  EXPECT_EQ(event.ceiling_ms, 30);  // the duration
  EXPECT_FALSE(event.code);
  EXPECT_EQ(event.message,
            "state file var/state: writing and syncing a ceiling took 30 ms, more than ahead/4 "
            "(25 ms); ids stop if a sync outlasts about ahead/2 (50 ms): set ahead (now 100 ms) "
            "above twice the worst sync of the last minute, to more than 60 ms, or move the "
            "state file to a faster disk");
  const RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.state_slow_syncs, 1u);
  EXPECT_EQ(metrics.state_sync_max_us, 30000);
  EXPECT_EQ(metrics.state_writes, 2u);  // the slow write succeeded
  const std::string text = to_prometheus(metrics);
  EXPECT_NE(text.find("\ncosid_state_slow_syncs_total{namespace=\"orders\",slot=\"3\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\ncosid_state_sync_max_seconds{namespace=\"orders\",slot=\"3\"} 0.030000\n"),
            std::string::npos)
      << text;
}

// 0.2 x ahead (20 ms), and exactly ahead/4 (25 ms), are not over ahead/4: shown by the gauge,
// neither counted nor reported.
TEST_F(RuntimeMetricsTest, SyncsUpToAQuarterOfAheadAreShownButNotReported) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  renew_with_syncs_of(*runtime, milliseconds(10));
  RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.state_sync_max_us, 20000);
  EXPECT_EQ(metrics.state_slow_syncs, 0u);
  renew_with_syncs_of(*runtime, std::chrono::microseconds(12500));
  metrics = runtime->metrics();
  EXPECT_EQ(metrics.state_sync_max_us, 25000);
  EXPECT_EQ(metrics.state_slow_syncs, 0u);
  EXPECT_EQ(metrics.state_writes, 3u);
  EXPECT_EQ(listener_.count(EventKind::kSlowSync), 0);
}

// The first ceiling, written by open() before any id, is timed like every later one.
TEST_F(RuntimeMetricsTest, TheFirstCeilingsSyncIsTimedAndReported) {
  fs_.slow_syncs(clock_, milliseconds(20));  // 40 ms for the first ceiling
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  fs_.slow_syncs(clock_, milliseconds(0));
  ASSERT_EQ(listener_.count(EventKind::kSlowSync), 1);
  EXPECT_EQ(listener_.last(EventKind::kSlowSync).ceiling_ms, 40);
  const RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.state_slow_syncs, 1u);
  EXPECT_EQ(metrics.state_sync_max_us, 40000);
  EXPECT_EQ(metrics.state_writes, 1u);
}

// A failed attempt holds the ceiling back as long as a good one: it is timed and reported too.
TEST_F(RuntimeMetricsTest, AFailedSlowWriteIsTimedToo) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  clock_.advance(milliseconds(60));
  fs_.fail(Op::kSyncData, EIO, 2);  // the second block's sync fails, after both were slow
  fs_.slow_syncs(clock_, milliseconds(15));
  EXPECT_FALSE(runtime->maintain(status_));
  EXPECT_EQ(status_.code(), std::errc::io_error);
  EXPECT_EQ(listener_.count(EventKind::kSlowSync), 1);
  EXPECT_EQ(listener_.count(EventKind::kStateWriteFailed), 1);
  const RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.state_slow_syncs, 1u);
  EXPECT_EQ(metrics.state_sync_max_us, 30000);
  EXPECT_EQ(metrics.state_write_failures, 1u);
  EXPECT_EQ(metrics.ceiling_ms, kNow + 100);  // not raised
}

// The gauge is the longest sync that ended in the current 10-second interval or the five before
// it: shown for at least 50 s and at most 60 s. The count stays.
TEST_F(RuntimeMetricsTest, TheGaugeForgetsASlowSyncAfterTheMinute) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  renew_with_syncs_of(*runtime, milliseconds(15));  // ends 90 ms after open: the first interval
  clock_.advance(std::chrono::seconds(20));
  renew_with_syncs_of(*runtime, milliseconds(5));  // 10 ms, about 20 s later
  clock_.advance(std::chrono::seconds(29));        // about 49 s after the slow one ended
  EXPECT_EQ(runtime->metrics().state_sync_max_us, 30000);
  clock_.advance(std::chrono::seconds(12));  // about 61 s after: its interval has left the minute
  RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.state_sync_max_us, 10000);  // the later, shorter one is still shown
  EXPECT_EQ(metrics.state_slow_syncs, 1u);
  clock_.advance(std::chrono::seconds(30));  // and a minute after that one, nothing is left
  metrics = runtime->metrics();
  EXPECT_EQ(metrics.state_sync_max_us, 0);
  EXPECT_EQ(metrics.state_slow_syncs, 1u);
}

// A disk that stays slow warns once a minute; one that gets much slower (1.5 times the last one
// reported) warns at once, one a little slower does not. Every slow sync is counted.
TEST_F(RuntimeMetricsTest, ASlowDiskWarnsOnceAMinuteUnlessItGetsMuchSlower) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  renew_with_syncs_of(*runtime, milliseconds(15));  // 30 ms: reported
  renew_with_syncs_of(*runtime, milliseconds(15));  // 30 ms again: counted only
  renew_with_syncs_of(*runtime, milliseconds(14));  // 28 ms: counted only
  renew_with_syncs_of(*runtime, milliseconds(22));  // 44 ms, under 1.5 x 30: counted only
  EXPECT_EQ(listener_.count(EventKind::kSlowSync), 1);
  EXPECT_EQ(runtime->metrics().state_slow_syncs, 4u);
  renew_with_syncs_of(*runtime, milliseconds(23));  // 46 ms, over 1.5 x 30: reported
  ASSERT_EQ(listener_.count(EventKind::kSlowSync), 2);
  const Event slower = listener_.last(EventKind::kSlowSync);
  EXPECT_EQ(slower.ceiling_ms, 46);
  EXPECT_NE(slower.message.find("took 46 ms"), std::string::npos) << slower.message;
  EXPECT_NE(slower.message.find("to more than 92 ms"), std::string::npos) << slower.message;
  clock_.advance(std::chrono::seconds(59));
  renew_with_syncs_of(*runtime, milliseconds(15));  // 59.09 s after the last report: counted only
  EXPECT_EQ(listener_.count(EventKind::kSlowSync), 2);
  clock_.advance(std::chrono::seconds(1));
  renew_with_syncs_of(*runtime, milliseconds(15));  // a minute after it: reported again
  ASSERT_EQ(listener_.count(EventKind::kSlowSync), 3);
  EXPECT_EQ(listener_.last(EventKind::kSlowSync).ceiling_ms, 30);
  EXPECT_EQ(runtime->metrics().state_slow_syncs, 7u);
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
  metrics.state_slow_syncs = 12;
  metrics.floor_ms = 1796005378123;
  metrics.ceiling_ms = 1796005388005;
  metrics.state_sync_max_us = 12345;
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
      "# HELP cosid_state_slow_syncs_total Attempts to make a ceiling durable in the state file "
      "that took longer than ahead/4.\n"
      "# TYPE cosid_state_slow_syncs_total counter\n"
      "cosid_state_slow_syncs_total{namespace=\"orders\",slot=\"3\"} 12\n"
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
      "cosid_ceiling_timestamp_seconds{namespace=\"orders\",slot=\"3\"} 1796005388.005\n"
      "# HELP cosid_state_sync_max_seconds The longest attempt to make a ceiling durable in the "
      "state file in the last minute: ids stop when one outlasts about ahead/2.\n"
      "# TYPE cosid_state_sync_max_seconds gauge\n"
      "cosid_state_sync_max_seconds{namespace=\"orders\",slot=\"3\"} 0.012345\n";
  EXPECT_EQ(to_prometheus(sample()), expected);
}

TEST(PrometheusText, LabelValuesEscapeBackslashQuoteAndLineFeed) {
  RuntimeMetrics metrics = sample();
  metrics.namespace_name = "a\\b\"c\nd";
  const std::string text = to_prometheus(metrics);
  EXPECT_NE(text.find("\ncosid_ids_issued_total{namespace=\"a\\\\b\\\"c\\nd\",slot=\"3\"} 1000\n"),
            std::string::npos)
      << text;
  // Escaped, the value adds no line: 15 metrics of 3 lines each.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 45);
}

// Sets `field` of sample() to each value of `cases` and expects the sample of `name` to print the
// text paired with it.
void expect_printed(const char* name, std::int64_t RuntimeMetrics::*field,
                    const std::vector<std::pair<std::int64_t, const char*>>& cases) {
  RuntimeMetrics metrics = sample();
  for (const auto& [value, printed] : cases) {
    metrics.*field = value;
    const std::string text = to_prometheus(metrics);
    const std::string line =
        std::string("\n") + name + "{namespace=\"orders\",slot=\"3\"} " + printed + "\n";
    EXPECT_NE(text.find(line), std::string::npos) << value << "\n" << text;
  }
}

TEST(PrometheusText, InstantsAreExactSecondsWithThreeDecimals) {
  expect_printed("cosid_floor_timestamp_seconds", &RuntimeMetrics::floor_ms,
                 {
                     {0, "0.000"},
                     {7, "0.007"},
                     {1000, "1.000"},
                     {-1, "-0.001"},
                     {-1500, "-1.500"},
                     {9007199254740993, "9007199254740.993"},  // past 2^53: a double would round it
                     {std::numeric_limits<std::int64_t>::min(), "-9223372036854775.808"},
                 });
}

TEST(PrometheusText, TheSyncTimeIsExactSecondsWithSixDecimals) {
  expect_printed("cosid_state_sync_max_seconds", &RuntimeMetrics::state_sync_max_us,
                 {
                     {0, "0.000000"},
                     {7, "0.000007"},
                     {30000, "0.030000"},
                     {1500000, "1.500000"},
                     {4294967295, "4294.967295"},  // the largest the ring keeps (71 minutes)
                 });
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
  // 15 metrics: 2 header lines each and one sample per snapshot.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 15 * 4);
  EXPECT_EQ(to_prometheus(std::vector<RuntimeMetrics>{}).find("cosid_ids_issued_total{"),
            std::string::npos);
}

// The ring behind the gauge (sync_times.h), on plain monotonic instants.
constexpr std::int64_t kSecondNs = 1'000'000'000;

TEST(SyncTimes, EmptyIsZeroAndTheLongestOfAnIntervalIsKept) {
  detail::SyncTimes times;
  EXPECT_EQ(times.longest_us(0), 0);
  EXPECT_EQ(times.longest_us(1000 * kSecondNs), 0);
  times.record(1 * kSecondNs, 2'000'000);  // 2 ms
  times.record(2 * kSecondNs, 9'000'999);  // 9 ms and 999 ns: whole microseconds
  times.record(3 * kSecondNs, 4'000'000);  // shorter: the interval keeps 9 ms
  EXPECT_EQ(times.longest_us(3 * kSecondNs), 9000);
}

TEST(SyncTimes, ASyncIsShownForAtLeastFiftyAndAtMostSixtySeconds) {
  for (const std::int64_t end : {std::int64_t{0}, 10 * kSecondNs - 1, 123 * kSecondNs + 7}) {
    detail::SyncTimes times;
    times.record(end, 30'000'000);
    EXPECT_EQ(times.longest_us(end), 30000) << end;
    EXPECT_EQ(times.longest_us(end + 50 * kSecondNs), 30000) << end;
    EXPECT_EQ(times.longest_us(end + 60 * kSecondNs), 0) << end;
    // Where in its 10-second interval it ended decides where between the two it goes.
    const std::int64_t interval_end = (end / (10 * kSecondNs) + 1) * 10 * kSecondNs;
    EXPECT_EQ(times.longest_us(interval_end + 50 * kSecondNs - 1), 30000) << end;
    EXPECT_EQ(times.longest_us(interval_end + 50 * kSecondNs), 0) << end;
  }
}

TEST(SyncTimes, AWordOfAnIntervalGoneByStartsOver) {
  detail::SyncTimes times;
  times.record(5 * kSecondNs, 800'000'000);  // 800 ms in interval 0
  // Interval 6 shares interval 0's word: a short sync there replaces the 800 ms, not added to it.
  times.record(65 * kSecondNs, 1'000'000);
  EXPECT_EQ(times.longest_us(65 * kSecondNs), 1000);
  // A sync the reader's clock has not reached yet is not shown at that instant.
  EXPECT_EQ(times.longest_us(4 * kSecondNs), 0);
}

TEST(SyncTimes, DurationsOutsideTheWordAreClamped) {
  detail::SyncTimes times;
  times.record(kSecondNs, -5);  // a clock that went back cannot make a negative time
  EXPECT_EQ(times.longest_us(kSecondNs), 0);
  times.record(kSecondNs, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(times.longest_us(kSecondNs), 4294967295);
}

}  // namespace
}  // namespace cosid
