// SPDX-License-Identifier: Apache-2.0
// The segment generator under real concurrency (segment/generator.h): many threads mixing
// next() and next_batch() across many small segments while a second generator claims the same
// key, activation hammered with step 1, close() racing running calls, and slow claims. Run under
// TSan in CI. No timing is asserted: every check is on the ids.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cosid/segment/generator.h"
#include "cosid/segment/memory_range_store.h"
#include "support/range_store_wrapper.h"
#include "support/test_util.h"

namespace cosid {
namespace segment {
namespace {

struct Consumer {
  SegmentGenerator* generator;
  const WrappedRangeStore* store;  // the store of `generator`'s claims
  std::vector<std::int64_t> ids;
};

// `per_thread` ids on each thread of `consumers`: even threads take single ids, odd threads
// batches of 1 to 7; each thread's ids are checked strictly increasing. Returns every id.
std::vector<std::int64_t> run(std::vector<Consumer>& consumers, std::size_t per_thread) {
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < consumers.size(); ++t) {
    threads.emplace_back([&, t] {
      Consumer& me = consumers[t];
      me.ids.reserve(per_thread + 8);
      std::error_code ec;
      std::int64_t batch[7];
      std::size_t size = 1;
      while (me.ids.size() < per_thread) {
        if (t % 2 == 0) {
          const std::int64_t id = me.generator->next(ec);
          if (ec) break;
          me.ids.push_back(id);
        } else {
          const std::size_t got = me.generator->next_batch(batch, size, ec);
          if (ec) break;
          me.ids.insert(me.ids.end(), batch, batch + got);
          size = size % 7 + 1;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::vector<std::int64_t> all;
  for (const Consumer& me : consumers) {
    EXPECT_GE(me.ids.size(), per_thread);
    // Strictly increasing per thread: a thread's draws follow each other in next_value_'s order.
    for (std::size_t i = 1; i < me.ids.size(); ++i) {
      if (me.ids[i] <= me.ids[i - 1]) {
        ADD_FAILURE() << "thread ids not increasing: " << me.ids[i - 1] << " then " << me.ids[i];
        break;
      }
    }
    const std::vector<Range> ranges = me.store->sorted_ranges();
    for (const std::int64_t id : me.ids) {
      if (!within(ranges, id)) {
        ADD_FAILURE() << "id " << id << " lies in no range its generator's store handed out";
        break;
      }
    }
    all.insert(all.end(), me.ids.begin(), me.ids.end());
  }
  std::sort(all.begin(), all.end());
  const auto repeat = std::adjacent_find(all.begin(), all.end());
  EXPECT_EQ(repeat, all.end()) << "id " << (repeat != all.end() ? *repeat : 0) << " twice";
  return all;
}

GeneratorOptions small(const std::string& key, std::int64_t step) {
  GeneratorOptions options;
  options.key = key;
  options.step = step;
  options.safe_distance = 1;
  options.max_distance = 8;
  return options;
}

// 1, 2, 4 and 8 threads on generator A, and one thread on generator B of the same key, so that
// A's ranges are interleaved with B's and A's consumers go through the ring and the jumps.
TEST(SegmentGeneratorThreads, UniqueAndIncreasingWithThreadsBatchesAndASecondGenerator) {
  for (const std::size_t threads :
       {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
    for (const std::int64_t step : {1, 3, 7}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, step " + std::to_string(step));
      auto inner = std::make_shared<MemoryRangeStore>();
      auto store_a = std::make_shared<WrappedRangeStore>(inner);
      auto store_b = std::make_shared<WrappedRangeStore>(inner);
      Status status;
      auto a = SegmentGenerator::open(store_a, small("mixed", step), status);
      ASSERT_TRUE(a) << status.message();
      auto b = SegmentGenerator::open(store_b, small("mixed", step), status);
      ASSERT_TRUE(b) << status.message();
      std::vector<Consumer> consumers;
      for (std::size_t t = 0; t < threads; ++t) consumers.push_back({a.get(), store_a.get(), {}});
      consumers.push_back({b.get(), store_b.get(), {}});
      const std::vector<std::int64_t> all = run(consumers, 20000);
      EXPECT_GE(all.size(), 20000 * (threads + 1));
      EXPECT_GT(a->stats().claims, 10u);
    }
  }
}

// Step 1 and two generators of two threads each: almost every claim is a range of its own that
// is not contiguous with the last, so nearly every id goes through an activation.
TEST(SegmentGeneratorThreads, StepOneWithTwoGeneratorsHammersActivation) {
  auto inner = std::make_shared<MemoryRangeStore>();
  auto store_a = std::make_shared<WrappedRangeStore>(inner);
  auto store_b = std::make_shared<WrappedRangeStore>(inner);
  GeneratorOptions options = small("hammer", 1);
  options.max_distance = 2;
  Status status;
  auto a = SegmentGenerator::open(store_a, options, status);
  ASSERT_TRUE(a) << status.message();
  auto b = SegmentGenerator::open(store_b, options, status);
  ASSERT_TRUE(b) << status.message();
  std::vector<Consumer> consumers{{a.get(), store_a.get(), {}},
                                  {a.get(), store_a.get(), {}},
                                  {b.get(), store_b.get(), {}},
                                  {b.get(), store_b.get(), {}}};
  (void)run(consumers, 30000);
}

// Claims that take 200 us: consumers wait for them (hungry), and every id is still unique and
// from a confirmed range.
TEST(SegmentGeneratorThreads, SlowClaimsKeepEveryIdUnique) {
  auto store = std::make_shared<WrappedRangeStore>();
  store->delay_claims(std::chrono::microseconds(200));
  Status status;
  auto generator = SegmentGenerator::open(store, small("slow", 5), status);
  ASSERT_TRUE(generator) << status.message();
  std::vector<Consumer> consumers(4, Consumer{generator.get(), store.get(), {}});
  (void)run(consumers, 5000);
  EXPECT_GT(generator->stats().hungry, 0u);
}

// close() while four threads call next(): no id any call returned is at or above the first value
// handed back, so the next generator, which starts there, repeats none of them.
TEST(SegmentGeneratorThreads, CloseRacingRunningCallsGivesBackNoValueAnyCallReturned) {
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    auto inner = std::make_shared<MemoryRangeStore>();
    auto store = std::make_shared<WrappedRangeStore>(inner);
    Status status;
    auto generator = SegmentGenerator::open(store, small("race", 3 + round % 5), status);
    ASSERT_TRUE(generator) << status.message();
    std::atomic<std::uint64_t> taken{0};
    std::vector<std::vector<std::int64_t>> ids(4);
    std::vector<std::error_code> ends(4);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        std::error_code ec;
        for (;;) {
          const std::int64_t id = generator->next(ec);
          if (ec) break;
          ids[t].push_back(id);
          taken.fetch_add(1, std::memory_order_relaxed);
        }
        ends[t] = ec;
      });
    }
    while (taken.load(std::memory_order_relaxed) < 2000) std::this_thread::yield();
    ASSERT_TRUE(generator->close(status)) << status.message();
    for (auto& thread : threads) thread.join();
    for (const std::error_code& end : ends) EXPECT_ERRC(end, errc::closed);

    std::vector<std::int64_t> all;
    for (const auto& mine : ids) all.insert(all.end(), mine.begin(), mine.end());
    std::sort(all.begin(), all.end());
    ASSERT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
    RangeState state;
    ASSERT_TRUE(inner->read("race", state, status));
    EXPECT_GT(state.next, all.back()) << "a value a call returned was handed back";
    const std::vector<Range> back = store->given_back();
    if (generator->stats().ids_given_back > 0) {
      ASSERT_EQ(back.size(), 1u);
      EXPECT_EQ(state.next, back.front().first);
    }
    // The next generator resumes at the store's next value, above every id returned.
    auto next = SegmentGenerator::open(inner, small("race", 3), status);
    ASSERT_TRUE(next) << status.message();
    std::error_code ec;
    EXPECT_EQ(next->next(ec), state.next);
  }
}

}  // namespace
}  // namespace segment
}  // namespace cosid
