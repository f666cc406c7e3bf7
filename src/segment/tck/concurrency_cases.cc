// SPDX-License-Identifier: Apache-2.0
// Many threads and many processes claiming one key at once, and a claim whose response was lost.
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <random>
#include <set>
#include <thread>

#include "segment/tck/harness.h"

namespace cosid {
namespace segment {
namespace tck {
namespace internal {
namespace {

constexpr int kThreads = 8;
constexpr int kClaimsPerThread = 200;
constexpr int kProcesses = 4;
constexpr int kClaimsPerProcess = 100;
constexpr std::int64_t kMaxRandomCount = 1000;

void threads_claiming_one_key_get_disjoint_ranges(Harness& h) {
  const std::string key = h.key();
  std::vector<std::vector<Range>> claimed(kThreads);
  std::vector<std::string> errors(kThreads);
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      std::mt19937_64 random(static_cast<std::uint64_t>(i) + 1);
      std::vector<Range>& mine = claimed[static_cast<std::size_t>(i)];
      // Acquire pairs with the release store below; the threads only wait to start together.
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      for (int n = 0; n < kClaimsPerThread; ++n) {
        const auto count = static_cast<std::int64_t>(random() % kMaxRandomCount) + 1;
        Range range;
        Status status;
        if (!h.store().claim(Harness::request(key, count), range, status)) {
          errors[static_cast<std::size_t>(i)] = status.message();
          return;
        }
        if (range.size() != count) {
          errors[static_cast<std::size_t>(i)] = "a claim of " + std::to_string(count) + " gave " +
                                                std::to_string(range.size()) + " values";
          return;
        }
        mine.push_back(range);
      }
    });
  }
  go.store(true, std::memory_order_release);
  for (std::thread& thread : threads) thread.join();
  std::vector<Range> all;
  std::set<std::uint64_t> versions;
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(errors[static_cast<std::size_t>(i)], "") << "thread " << i;
    for (const Range& range : claimed[static_cast<std::size_t>(i)]) {
      all.push_back(range);
      EXPECT_TRUE(versions.insert(range.version).second)
          << "two claims wrote version " << range.version;
    }
  }
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kThreads * kClaimsPerThread));
  expect_disjoint_and_covering(all, h.state_of(key).next);
}

void processes_claiming_one_key_get_disjoint_ranges(Harness& h) {
  if (!h.kit().shared_across_processes) {
    GTEST_SKIP() << h.kit().name
                 << " is not shared across processes: " << h.kit().not_shared_reason;
  }
  const std::string key = h.key();
  // Create the key first, so the children race on claims and not on its creation.
  const Range first = h.claim(key, 1);
  ASSERT_EQ(first.first, 1);
  // No store (and none of its threads) in the parent while it forks (Harness::close_store()).
  h.close_store();
  const std::string answers = tck_support::run_children(kProcesses, [&h, &key](int i, int out) {
    std::unique_ptr<RangeStore> store = h.kit().make_store();
    if (store == nullptr) return 4;
    std::mt19937_64 random(static_cast<std::uint64_t>(i) + 100);
    for (int n = 0; n < kClaimsPerProcess; ++n) {
      const auto count = static_cast<std::int64_t>(random() % kMaxRandomCount) + 1;
      Range range;
      Status status;
      // A refusal is sent as the range [-1, code): the parent reports it.
      std::int64_t answer[2] = {-1, 0};
      const bool claimed = store->claim(Harness::request(key, count), range, status);
      if (claimed) {
        answer[0] = range.first;
        answer[1] = range.end;
      } else {
        answer[1] = status.code().value();
      }
      if (::write(out, answer, sizeof answer) != sizeof answer) return 3;
      if (!claimed) return 2;
    }
    return 0;
  });
  std::vector<Range> all{first};
  for (std::size_t at = 0; at + 2 * sizeof(std::int64_t) <= answers.size();
       at += 2 * sizeof(std::int64_t)) {
    std::int64_t answer[2];
    std::memcpy(answer, answers.data() + at, sizeof answer);
    EXPECT_GE(answer[0], 1) << "a child's claim failed with code " << answer[1];
    if (answer[0] >= 1) all.push_back(Range{answer[0], answer[1], 0});
  }
  h.open_store();
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kProcesses * kClaimsPerProcess + 1));
  expect_disjoint_and_covering(all, h.state_of(key).next);
}

// The response of a claim is lost (a timeout, a dropped connection): its caller does not know
// the range and claims again. The range it never saw is a gap, never handed out twice.
void a_claim_repeated_after_a_lost_response_never_overlaps(Harness& h) {
  const std::string key = h.key();
  const Range lost = h.claim(key, 10);
  const Range retried = h.claim(key, 10);
  EXPECT_GE(retried.first, lost.end);
  EXPECT_EQ(retried.size(), 10);
  // And with another caller claiming in between.
  const Range lost_again = h.claim(key, 7);
  const Range other = h.claim(key, 3);
  const Range retried_again = h.claim(key, 7);
  expect_disjoint_and_covering({lost, retried, lost_again, other, retried_again},
                               h.state_of(key).next);
  EXPECT_EQ(retried_again.first, other.end);
}

}  // namespace

std::vector<Case> concurrency_cases() {
  return {
      {"ThreadsClaimingOneKeyGetDisjointRanges", threads_claiming_one_key_get_disjoint_ranges},
      {"ProcessesClaimingOneKeyGetDisjointRanges", processes_claiming_one_key_get_disjoint_ranges},
      {"AClaimRepeatedAfterALostResponseNeverOverlaps",
       a_claim_repeated_after_a_lost_response_never_overlaps},
  };
}

}  // namespace internal
}  // namespace tck
}  // namespace segment
}  // namespace cosid
