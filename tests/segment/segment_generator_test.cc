// SPDX-License-Identifier: Apache-2.0
// The segment generator on one thread (segment/generator.h): option checks, ids from the claimed
// ranges only, across segment boundaries and interleaved claims of a second generator, close()'s
// give-back and resume, store failures and their codes, a forked child, and the prefetch policy.
// The threads test is segment_generator_threads_test.cc.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cosid/clock.h"
#include "cosid/segment/generator.h"
#include "cosid/segment/memory_range_store.h"
#include "segment/prefetch_policy.h"
#include "support/fork_support.h"
#include "support/range_store_wrapper.h"
#include "support/test_util.h"

namespace cosid {
namespace segment {
namespace {

GeneratorOptions options_for(const std::string& key, std::int64_t step) {
  GeneratorOptions options;
  options.key = key;
  options.step = step;
  return options;
}

std::unique_ptr<SegmentGenerator> open_or_die(std::shared_ptr<RangeStore> store,
                                              const GeneratorOptions& options) {
  Status status;
  auto generator = SegmentGenerator::open(std::move(store), options, status);
  EXPECT_TRUE(generator) << status.message();
  return generator;
}

// --- Options -------------------------------------------------------------------------------

struct BadOption {
  const char* what;
  void (*change)(GeneratorOptions&);
  const char* named;  // the message names the value
};

TEST(SegmentGenerator, OpenRefusesEveryOptionOutsideItsRangeNamingTheValue) {
  const BadOption cases[] = {
      {"empty key", [](GeneratorOptions& o) { o.key = ""; }, "0 bytes"},
      {"key with a slash", [](GeneratorOptions& o) { o.key = "a/b"; }, "\"/\""},
      {"negative offset", [](GeneratorOptions& o) { o.offset = -1; }, "offset -1"},
      {"step 0", [](GeneratorOptions& o) { o.step = 0; }, "step 0"},
      {"step past 2^40 / max_distance",
       [](GeneratorOptions& o) { o.step = (std::int64_t{1} << 40) / 1024 + 1; }, "step 1073741825"},
      {"safe_distance 0", [](GeneratorOptions& o) { o.safe_distance = 0; }, "safe_distance 0"},
      {"max_distance below safe_distance",
       [](GeneratorOptions& o) {
         o.safe_distance = 8;
         o.max_distance = 4;
       },
       "max_distance 4"},
      {"max_distance past 65536", [](GeneratorOptions& o) { o.max_distance = 65537; },
       "max_distance 65537"},
      {"wait 0", [](GeneratorOptions& o) { o.wait = std::chrono::milliseconds(0); }, "wait 0 ms"},
      {"wait past 10 min", [](GeneratorOptions& o) { o.wait = std::chrono::minutes(11); },
       "wait 660000 ms"},
  };
  for (const BadOption& bad : cases) {
    SCOPED_TRACE(bad.what);
    GeneratorOptions options = options_for("orders", 10);
    bad.change(options);
    auto store = std::make_shared<WrappedRangeStore>();
    Status status;
    EXPECT_EQ(SegmentGenerator::open(store, options, status), nullptr);
    EXPECT_STATUS(status, errc::invalid_argument);
    EXPECT_NE(status.message().find(bad.named), std::string::npos) << status.message();
    EXPECT_EQ(store->claims(), 0);
  }
  Status status;
  EXPECT_EQ(SegmentGenerator::open(nullptr, options_for("orders", 10), status), nullptr);
  EXPECT_STATUS(status, errc::invalid_argument);
}

TEST(SegmentGenerator, OpenFailsWithTheStoresErrorWhenTheFirstClaimFails) {
  auto store = std::make_shared<WrappedRangeStore>();
  store->fail_claims(errc::store_unavailable);
  Status status;
  EXPECT_EQ(SegmentGenerator::open(store, options_for("orders", 10), status), nullptr);
  EXPECT_STATUS(status, errc::store_unavailable);
  EXPECT_NE(status.message().find("injected"), std::string::npos) << status.message();
}

// --- Ids -----------------------------------------------------------------------------------

// A call that finds no value ready wastes the one value it drew (SEGMENTS.md): with one
// generator on the key and one thread, the ids are offset + 1 on, with no more gaps than hungry
// calls.
TEST(SegmentGenerator, FirstIdIsOffsetPlusOneThenIncreasingWithAGapOnlyPerHungryCall) {
  auto store = std::make_shared<WrappedRangeStore>();
  GeneratorOptions options = options_for("orders", 10);
  options.offset = 41;
  auto generator = open_or_die(store, options);
  ASSERT_TRUE(generator);
  EXPECT_EQ(generator->key(), "orders");
  std::error_code ec;
  std::int64_t last = generator->next(ec);
  ASSERT_EQ(last, 42);
  std::uint64_t gaps = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t id = generator->next(ec);
    ASSERT_NO_ERROR(ec);
    ASSERT_GT(id, last);
    gaps += static_cast<std::uint64_t>(id - last - 1);
    last = id;
  }
  EXPECT_LE(gaps, generator->stats().hungry);
  // The first claim was safe_distance segments, made by open().
  EXPECT_EQ(store->ranges().front().first, 42);
  EXPECT_EQ(store->ranges().front().size(), 20);
  EXPECT_GE(generator->stats().claims, 2u);
}

// Every step from 1 to 7, with a second generator on the key claiming between this one's claims:
// ranges are not contiguous, so the ring of pending ranges and the jumps carry the ids.
TEST(SegmentGenerator, IdsIncreaseAndStayInTheirRangesAcrossInterleavedClaims) {
  for (std::int64_t step = 1; step <= 7; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    auto inner = std::make_shared<MemoryRangeStore>();
    auto store_a = std::make_shared<WrappedRangeStore>(inner);
    auto store_b = std::make_shared<WrappedRangeStore>(inner);
    GeneratorOptions options = options_for("k", step);
    options.safe_distance = 1;
    options.max_distance = 4;
    auto a = open_or_die(store_a, options);
    auto b = open_or_die(store_b, options);
    ASSERT_TRUE(a && b);
    std::vector<std::int64_t> ids_a, ids_b;
    std::error_code ec;
    std::int64_t batch[5];
    for (int i = 0; i < 3000; ++i) {
      if (i % 3 == 0) {
        const std::size_t got = a->next_batch(batch, 5, ec);
        ASSERT_NO_ERROR(ec);
        ASSERT_GE(got, 1u);
        ASSERT_LE(got, 5u);
        ids_a.insert(ids_a.end(), batch, batch + got);
      } else {
        ids_a.push_back(a->next(ec));
        ASSERT_NO_ERROR(ec);
      }
      ids_b.push_back(b->next(ec));
      ASSERT_NO_ERROR(ec);
    }
    EXPECT_TRUE(std::is_sorted(ids_a.begin(), ids_a.end()));
    EXPECT_EQ(std::adjacent_find(ids_a.begin(), ids_a.end()), ids_a.end());
    EXPECT_TRUE(std::is_sorted(ids_b.begin(), ids_b.end()));
    EXPECT_EQ(std::adjacent_find(ids_b.begin(), ids_b.end()), ids_b.end());
    std::set<std::int64_t> all(ids_a.begin(), ids_a.end());
    all.insert(ids_b.begin(), ids_b.end());
    EXPECT_EQ(all.size(), ids_a.size() + ids_b.size()) << "an id of both generators";
    const auto ranges_a = store_a->sorted_ranges();
    const auto ranges_b = store_b->sorted_ranges();
    for (const std::int64_t id : ids_a) ASSERT_TRUE(within(ranges_a, id)) << id;
    for (const std::int64_t id : ids_b) ASSERT_TRUE(within(ranges_b, id)) << id;
    // The two generators did interleave: some of a's ranges are not contiguous.
    bool gap = false;
    for (std::size_t i = 1; i < ranges_a.size(); ++i)
      gap |= ranges_a[i].first != ranges_a[i - 1].end;
    EXPECT_TRUE(gap);
  }
}

TEST(SegmentGenerator, NextBatchGivesConsecutiveIdsAndFewerAtTheEndOfTheReadyValues) {
  auto store = std::make_shared<WrappedRangeStore>();
  GeneratorOptions options = options_for("b", 10);
  options.safe_distance = 1;
  options.max_distance = 1;
  auto generator = open_or_die(store, options);
  ASSERT_TRUE(generator);
  std::error_code ec;
  std::int64_t ids[64];
  std::int64_t expected = 1;
  std::size_t total = 0;
  while (total < 1000) {
    const std::size_t got = generator->next_batch(ids, 64, ec);
    ASSERT_NO_ERROR(ec);
    ASSERT_GE(got, 1u);
    ASSERT_LE(got, 64u);
    for (std::size_t i = 0; i < got; ++i) ASSERT_GE(ids[i], expected);
    for (std::size_t i = 1; i < got; ++i) ASSERT_EQ(ids[i], ids[i - 1] + 1);
    expected = ids[got - 1] + 1;
    total += got;
  }
  EXPECT_EQ(generator->next_batch(ids, 0, ec), 0u);
  EXPECT_ERRC(ec, errc::invalid_argument);
}

// --- Close ---------------------------------------------------------------------------------

TEST(SegmentGenerator, CloseGivesTheRestBackAndTheNextGeneratorResumesAtTheFirstUnusedValue) {
  auto inner = std::make_shared<MemoryRangeStore>();
  auto store = std::make_shared<WrappedRangeStore>(inner);
  std::error_code ec;
  std::int64_t last = 0;
  {
    auto generator = open_or_die(store, options_for("resume", 100));
    ASSERT_TRUE(generator);
    for (int i = 0; i < 250; ++i) last = generator->next(ec);
    ASSERT_NO_ERROR(ec);
    Status status;
    ASSERT_TRUE(generator->close(status)) << status.message();
    const GeneratorStats stats = generator->stats();
    EXPECT_GT(stats.ids_given_back, 0u);
    EXPECT_EQ(stats.ids_skipped, 0u);
    // Every value up to the last id was used or wasted by a hungry call; every one after is back.
    EXPECT_EQ(stats.ids_given_back, stats.ids_claimed - static_cast<std::uint64_t>(last));
    EXPECT_EQ(store->give_backs(), 1);
    // Closed: every call fails; a second close does nothing and succeeds.
    EXPECT_EQ(generator->next(ec), 0);
    EXPECT_ERRC(ec, errc::closed);
    std::int64_t ids[4];
    EXPECT_EQ(generator->next_batch(ids, 4, ec), 0u);
    EXPECT_ERRC(ec, errc::closed);
    Status again;
    EXPECT_TRUE(generator->close(again));
    EXPECT_EQ(store->give_backs(), 1);
  }
  RangeState state;
  Status status;
  ASSERT_TRUE(inner->read("resume", state, status));
  EXPECT_EQ(state.next, last + 1);
  auto next = open_or_die(store, options_for("resume", 100));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->next(ec), last + 1);
  ASSERT_NO_ERROR(ec);
}

TEST(SegmentGenerator, TheDestructorClosesAndGivesBack) {
  auto inner = std::make_shared<MemoryRangeStore>();
  std::error_code ec;
  std::int64_t last = 0;
  {
    auto generator = open_or_die(inner, options_for("dtor", 10));
    ASSERT_TRUE(generator);
    for (int i = 0; i < 7; ++i) last = generator->next(ec);
  }
  auto next = open_or_die(inner, options_for("dtor", 10));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->next(ec), last + 1);
}

TEST(SegmentGenerator, CloseAfterAnotherGeneratorClaimedSkipsTheRestAndCountsIt) {
  auto inner = std::make_shared<MemoryRangeStore>();
  auto store = std::make_shared<WrappedRangeStore>(inner);
  GeneratorOptions options = options_for("shared", 10);
  options.safe_distance = 3;
  auto first = open_or_die(store, options);
  ASSERT_TRUE(first);
  std::error_code ec;
  std::int64_t last = 0;
  for (int i = 0; i < 5; ++i) last = first->next(ec);
  auto second = open_or_die(inner, options);  // claims after `first`
  ASSERT_TRUE(second);
  Status status;
  ASSERT_TRUE(first->close(status)) << status.message();
  const GeneratorStats stats = first->stats();
  EXPECT_EQ(stats.ids_given_back, 0u);
  EXPECT_EQ(stats.ids_skipped, stats.ids_claimed - static_cast<std::uint64_t>(last));
  EXPECT_EQ(store->give_backs(), 1);
  // The second generator's ids are above every one of the first's.
  EXPECT_GT(second->next(ec), store->sorted_ranges().back().end - 1);
}

// --- Store failures ------------------------------------------------------------------------

// Takes ids until a call fails; returns that call's code (and its message in `status`).
std::error_code drain(SegmentGenerator& generator, Status& status, std::uint64_t limit) {
  for (std::uint64_t i = 0; i < limit; ++i) {
    status.clear();
    (void)generator.next(status);
    if (!status.ok()) return status.code();
  }
  return {};
}

TEST(SegmentGenerator, FailingClaimsFailNextAfterTheWaitWithTheStoresCodeThenRecover) {
  // The monotonic clock moves only when a waiting call sleeps: the wait runs out without real
  // time passing.
  ManualClock clock(1700000000000, ManualClock::OnSleep::kAdvanceMonotonic);
  auto store = std::make_shared<WrappedRangeStore>();
  GeneratorOptions options = options_for("down", 10);
  options.wait = std::chrono::milliseconds(50);
  options.clock = &clock;
  auto generator = open_or_die(store, options);
  ASSERT_TRUE(generator);
  store->fail_claims(errc::store_unavailable);
  Status status;
  // The first failure may come before the background claim failed (the wait ran out while it
  // was in flight): the same code either way.
  EXPECT_EQ(drain(*generator, status, 1000000), make_error_code(errc::store_unavailable));
  EXPECT_NE(status.message().find("\"down\""), std::string::npos) << status.message();
  // Once the background claim failed, the calls carry the store's message (and the same code).
  bool stores_message = false;
  for (int attempt = 0; attempt < 100000 && !stores_message; ++attempt) {
    EXPECT_EQ(generator->next(status), 0);
    ASSERT_STATUS(status, errc::store_unavailable);
    stores_message = status.message().find("injected") != std::string::npos;
  }
  EXPECT_TRUE(stores_message) << status.message();
  std::error_code ec;
  EXPECT_EQ(generator->next(ec), 0);
  EXPECT_ERRC(ec, errc::store_unavailable);
  GeneratorStats stats = generator->stats();
  EXPECT_GE(stats.hungry, 2u);
  EXPECT_GE(stats.claim_failures, 1u);
  EXPECT_GT(clock.sleeps(), 0);

  // The store is back: the background thread's next retry succeeds, and next() with it. Each
  // failed call waits 50 ms of the manual clock, which lets the retry's back-off pass.
  store->fail_claims(errc{});
  std::int64_t id = 0;
  for (int attempt = 0; attempt < 100000 && id == 0; ++attempt) id = generator->next(ec);
  ASSERT_NO_ERROR(ec);
  EXPECT_TRUE(within(store->sorted_ranges(), id));
  EXPECT_GT(generator->stats().claims, stats.claims);
}

TEST(SegmentGenerator, ASealedKeySurfacesAsRangeSealed) {
  auto inner = std::make_shared<MemoryRangeStore>();
  auto generator = open_or_die(inner, options_for("sealed", 10));
  ASSERT_TRUE(generator);
  RangeState state;
  Status status;
  ASSERT_TRUE(inner->seal("sealed", state, status));
  EXPECT_EQ(drain(*generator, status, 1000000), make_error_code(errc::range_sealed));
  std::error_code ec;
  EXPECT_EQ(generator->next(ec), 0);
  EXPECT_ERRC(ec, errc::range_sealed);
}

TEST(SegmentGenerator, AKeyNearTwoToTheSixtyThreeSurfacesAsRangeExhausted) {
  auto store = std::make_shared<WrappedRangeStore>();
  GeneratorOptions options = options_for("full", 100);
  // open() takes [max - 349, max - 149); a claim of two segments then no longer fits, one does.
  options.offset = std::numeric_limits<std::int64_t>::max() - 350;
  auto generator = open_or_die(store, options);
  ASSERT_TRUE(generator);
  Status status;
  std::int64_t last = 0;
  std::error_code code;
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t id = generator->next(status);
    if (!status.ok()) {
      code = status.code();
      break;
    }
    ASSERT_GT(id, last);
    last = id;
  }
  EXPECT_EQ(code, make_error_code(errc::range_exhausted)) << status.message();
  EXPECT_LT(last, std::numeric_limits<std::int64_t>::max() - 49);
  EXPECT_EQ(generator->stats().ids_claimed, 300u);
  Status closed;
  EXPECT_TRUE(generator->close(closed)) << closed.message();
}

// --- Fork ----------------------------------------------------------------------------------

TEST(SegmentGenerator, AForkedChildGetsForkedProcessFromEveryCall) {
  const std::string why = wipe_on_fork_not_honoured();
  if (!why.empty()) GTEST_SKIP() << why;
  auto generator = open_or_die(std::make_shared<MemoryRangeStore>(), options_for("fork", 10));
  ASSERT_TRUE(generator);
  std::error_code ec;
  ASSERT_EQ(generator->next(ec), 1);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::error_code child_ec;
    int failures = 0;
    failures += generator->next(child_ec) == 0 && child_ec == errc::forked_process ? 0 : 1;
    std::int64_t ids[4];
    failures +=
        generator->next_batch(ids, 4, child_ec) == 0 && child_ec == errc::forked_process ? 0 : 2;
    Status status;
    failures += !generator->close(status) && status.code() == errc::forked_process ? 0 : 4;
    _exit(failures);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(generator->next(ec), 2);  // the parent's generator goes on
}

// --- The prefetch policy -------------------------------------------------------------------

TEST(SegmentPrefetchPolicy, Table) {
  struct Row {
    const char* what;
    detail::PrefetchInputs in;
    std::uint32_t expected;
  };
  const auto in = [](std::uint32_t distance, bool hungry, bool idle, double rate,
                     std::int64_t claim_ns, std::int64_t step) {
    detail::PrefetchInputs inputs;
    inputs.distance = distance;
    inputs.hungry_since_last = hungry;
    inputs.idle = idle;
    inputs.ids_per_second = rate;
    inputs.claim_ns = claim_ns;
    inputs.step = step;
    inputs.safe_distance = 2;
    inputs.max_distance = 1024;
    return inputs;
  };
  const Row rows[] = {
      {"steady, nothing measured", in(2, false, false, 0, 0, 100), 2},
      {"hungry doubles", in(2, true, false, 0, 0, 100), 4},
      {"hungry doubles up to max", in(1000, true, false, 0, 0, 100), 1024},
      // 100 M ids/s x 1 ms x 2 = 200,000 ids = 2,000 segments of 100: capped at 1024.
      {"rate x latency x 2, capped", in(2, false, false, 1e8, 1000000, 100), 1024},
      // 1 M ids/s x 1 ms x 2 = 2,000 ids = 20 segments of 100.
      {"rate x latency x 2", in(2, false, false, 1e6, 1000000, 100), 20},
      {"rate x latency, rounded up", in(2, false, false, 1e6, 1000000, 3000), 2},
      {"rate and hunger: the larger", in(16, true, false, 1e6, 1000000, 100), 32},
      {"idle halves", in(64, false, true, 0, 0, 100), 32},
      {"idle halves, not below safe", in(3, false, true, 0, 0, 100), 2},
      {"idle but hungry doubles", in(8, true, true, 0, 0, 100), 16},
      {"below safe is raised", in(1, false, false, 0, 0, 100), 2},
  };
  for (const Row& row : rows) {
    EXPECT_EQ(detail::next_distance(row.in), row.expected) << row.what;
  }
}

}  // namespace
}  // namespace segment
}  // namespace cosid
