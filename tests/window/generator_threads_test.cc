// SPDX-License-Identifier: Apache-2.0
// The generator under real concurrency, with the real clock unless a test needs a step. Run under
// TSan in CI.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "cosid/generator.h"
#include "support/test_util.h"

namespace cosid {
namespace {

constexpr std::int64_t kDay = 86400000;

TEST(GeneratorThreads, FourThreadsAMillionIdsEachAreUniqueAndOrderedPerThread) {
  SystemClock clock;
  const std::int64_t now = clock.now_ms();
  Binding binding(7, now - 1, now + kDay);
  Status status;
  auto generator = Generator::create(layouts::kDefault, binding, clock, {}, status);
  ASSERT_TRUE(generator) << status.message();

  constexpr int kThreads = 4;
  constexpr int kIdsPerThread = 1000000;
  std::vector<std::vector<std::uint64_t>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::uint64_t>& mine = ids[static_cast<std::size_t>(t)];
      mine.reserve(kIdsPerThread);
      std::error_code thread_ec;
      for (int i = 0; i < kIdsPerThread; ++i) {
        const std::uint64_t id = generator->next(thread_ec);
        if (thread_ec) break;
        mine.push_back(id);
      }
    });
  }
  for (auto& thread : threads) thread.join();

  std::vector<std::uint64_t> all;
  for (const auto& mine : ids) {
    ASSERT_EQ(mine.size(), static_cast<std::size_t>(kIdsPerThread));
    // Each thread sees strictly increasing ids: (timestamp, sequence) only moves forward.
    EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
    EXPECT_EQ(std::adjacent_find(mine.begin(), mine.end()), mine.end());
    all.insert(all.end(), mine.begin(), mine.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate id";
  // Counted in runs of sequences, not one by one: exact once every call has returned.
  EXPECT_EQ(generator->stats().ids_issued, all.size());
  for (const std::uint64_t id : {all.front(), all.back()}) {
    const IdParts parts = layouts::kDefault.parse(id);
    EXPECT_EQ(parts.slot, 7u);
    EXPECT_GT(layouts::kDefault.tick_start_ms(parts.timestamp), now - 1);
  }
}

// Batches and single ids from several threads never overlap.
TEST(GeneratorThreads, BatchesAndSingleIdsFromFourThreadsAreUnique) {
  SystemClock clock;
  const std::int64_t now = clock.now_ms();
  Binding binding(7, now - 1, now + kDay);
  Status status;
  auto generator = Generator::create(layouts::kDefault, binding, clock, {}, status);
  ASSERT_TRUE(generator) << status.message();
  std::vector<std::vector<std::uint64_t>> ids(4);
  std::atomic<bool> issuing{true};
  std::uint64_t stats_reads = 0;
  bool stats_went_down = false;
  // stats() read while ids are issued: the count may lag, but it never goes down.
  std::thread reader([&] {
    std::uint64_t last = 0;
    while (issuing.load(std::memory_order_relaxed)) {
      const std::uint64_t now_issued = generator->stats().ids_issued;
      if (now_issued < last) stats_went_down = true;
      last = now_issued;
      ++stats_reads;
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::uint64_t>& mine = ids[static_cast<std::size_t>(t)];
      std::error_code thread_ec;
      std::uint64_t batch[64];
      while (mine.size() < 200000) {
        if (t % 2 == 0) {
          const std::size_t got = generator->next_batch(batch, 64, thread_ec);
          ASSERT_FALSE(thread_ec) << thread_ec.message();
          mine.insert(mine.end(), batch, batch + got);
        } else {
          mine.push_back(generator->next(thread_ec));
          ASSERT_FALSE(thread_ec) << thread_ec.message();
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  issuing.store(false, std::memory_order_relaxed);
  reader.join();
  std::vector<std::uint64_t> all;
  for (const auto& mine : ids) all.insert(all.end(), mine.begin(), mine.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate id";
  EXPECT_FALSE(stats_went_down);
  EXPECT_GT(stats_reads, 0u);
  EXPECT_EQ(generator->stats().ids_issued, all.size());
}

// close() racing next() on 4 threads: every id returned lies at or before the timestamp close()
// reports, which is at most one tick later, and no call succeeds after close() has returned.
TEST(GeneratorThreads, CloseRacingFourThreadsCoversEveryIssuedId) {
  SystemClock clock;
  for (int round = 0; round < 50; ++round) {
    const std::int64_t now = clock.now_ms();
    Binding binding(1, now - 1, now + kDay);
    Status status;
    auto generator = Generator::create(layouts::kDefault, binding, clock, {}, status);
    ASSERT_TRUE(generator) << status.message();

    std::atomic<bool> closed_returned{false};
    std::atomic<int> started{0};
    std::vector<std::vector<std::uint64_t>> ids(4);
    std::vector<int> issued_after_close(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        started.fetch_add(1);
        std::error_code thread_ec;
        for (;;) {
          // Read the flag before the call: an id obtained after seeing close() return is a bug.
          const bool after = closed_returned.load();
          const std::uint64_t id = generator->next(thread_ec);
          if (thread_ec) {
            EXPECT_ERRC(thread_ec, errc::closed);
            break;
          }
          if (after) ++issued_after_close[static_cast<std::size_t>(t)];
          ids[static_cast<std::size_t>(t)].push_back(id);
        }
      });
    }
    while (started.load() < 4) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::microseconds(200 + 37 * round));
    const std::int64_t last = generator->close();
    closed_returned.store(true);
    for (auto& thread : threads) thread.join();

    std::int64_t max_issued = binding.floor_ms();
    for (int t = 0; t < 4; ++t) {
      EXPECT_EQ(issued_after_close[static_cast<std::size_t>(t)], 0);
      for (const std::uint64_t id : ids[static_cast<std::size_t>(t)]) {
        max_issued = std::max(
            max_issued, layouts::kDefault.tick_start_ms(layouts::kDefault.parse(id).timestamp));
      }
    }
    // Covers every id, and is at most the tick after the last: the word may have been carried
    // into it by a call that close() then failed (generator.h).
    EXPECT_GE(last, max_issued) << "round " << round;
    EXPECT_LE(last, max_issued + 1) << "round " << round;
  }
}

// Four threads failing at once on a clock set back: their give-backs race, so some values are
// given up, carries into ticks ahead of the clock among them (4 sequences a tick). Those ticks
// get the lead check like a borrowed one, so every call fails; once the clock is past them, ids
// go on, and stats() is exact: each given-up value is counted out, and each carry's tick
// counted in a finished run (count_given_up()).
TEST(GeneratorThreads, ConcurrentFailuresKeepStatsExactAndIdsUnique) {
  const Layout layout{layouts::kDefault.epoch_ms(), TimeUnit::kMillisecond, 41, 10, 2};
  const std::int64_t start = 1796231176000;
  ManualClock clock(start, ManualClock::OnSleep::kAdvanceMonotonic);
  Binding binding(0, start - 1, start + kDay);
  GeneratorOptions options;
  options.clock_backwards = std::chrono::milliseconds(0);
  options.max_step_back = std::chrono::milliseconds(0);
  options.max_drift = std::chrono::milliseconds(0);
  options.max_catch_up = std::chrono::milliseconds(0);  // ids at the clock's tick, below
  Status status;
  auto generator = Generator::create(layout, binding, clock, options, status);
  ASSERT_TRUE(generator) << status.message();
  std::error_code ec;
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(generator->next(ec));
  ASSERT_FALSE(ec) << ec.message();

  clock.set_ms(start - 60000);
  constexpr int kCalls = 20000;
  std::vector<int> wrong_errors(4, 0);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      // All four at once: the races are the point.
      ready.fetch_add(1);
      while (ready.load() < 4) std::this_thread::yield();
      std::error_code thread_ec;
      for (int i = 0; i < kCalls; ++i) {
        if (generator->next(thread_ec) != 0 || thread_ec != errc::clock_backwards) {
          ++wrong_errors[static_cast<std::size_t>(t)];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(wrong_errors[static_cast<std::size_t>(t)], 0);
  EXPECT_EQ(generator->stats().ids_issued, 4u);
  EXPECT_EQ(generator->stats().failures, 4u * kCalls);

  // Past every tick the failures could have carried the word into (80,000 values, 4 a tick),
  // one tick per id.
  for (int i = 0; i < 10; ++i) {
    clock.set_ms(start + 30000 + i);
    ids.push_back(generator->next(ec));
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_EQ(layout.tick_start_ms(layout.parse(ids.back()).timestamp), start + 30000 + i);
  }
  EXPECT_EQ(generator->stats().ids_issued, 14u);
  std::vector<std::uint64_t> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  EXPECT_EQ(sorted, ids);  // one thread: increasing
  EXPECT_EQ(generator->close(), start + 30009);
}

}  // namespace
}  // namespace cosid
