// SPDX-License-Identifier: Apache-2.0
// Runs of the real `cosid segment next` that the process tests share, on whatever range store
// --store names (tests/cli/cli_segment_test.cc: a file store;
// tests/zookeeper/zk_segment_cli_test.cc: a real ZooKeeper server): processes issuing ids of one
// key at once, and kill cycles of streaming processes. Each checks that every process's ids
// increase and that no id is read twice.
//
// Thread safety: none; one test thread drives the processes.
#ifndef COSID_TESTS_SUPPORT_SEGMENT_CLI_RUNS_H_
#define COSID_TESTS_SUPPORT_SEGMENT_CLI_RUNS_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli_process.h"
#include "cli_run.h"
#include "temp_dir.h"

namespace cosid {
namespace testing {

// Expects `ids` strictly increasing (one process issues them in order).
inline void expect_increasing(const std::vector<std::uint64_t>& ids, const std::string& what) {
  for (std::size_t i = 1; i < ids.size(); ++i) {
    ASSERT_GT(ids[i], ids[i - 1]) << what << ": id #" << i << " does not increase";
  }
}

// Adds `ids` to `seen`, failing for the first one seen before.
inline void expect_new(const std::vector<std::uint64_t>& ids, std::set<std::uint64_t>& seen,
                       const std::string& what) {
  for (const std::uint64_t id : ids) {
    ASSERT_TRUE(seen.insert(id).second) << what << ": id " << id << " was issued before";
  }
}

// `cosid segment next orders -n COUNT --store STORE` and `more`.
// `err` is exactly the one warning of a key's first claim: `key` in the file range store at
// `directory`, starting at `first`.
inline void expect_key_started_only(const std::string& err, const std::string& key,
                                    const std::string& directory, std::uint64_t first) {
  const std::string start =
      "cosid: warning: segment key \"" + key + "\" had no record in the file range store " +
      directory + ", so it starts at " + std::to_string(first) + ". If the key is not new";
  EXPECT_EQ(err.rfind(start, 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

inline std::vector<std::string> segment_next(const std::string& store, const std::string& count,
                                             const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = {"segment", "next", "orders", "-n", count, "--store", store};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// `processes` processes of `each` ids at once: each exits 0 with `each` increasing ids, and no id
// comes twice. Returns every id.
inline std::set<std::uint64_t> run_at_once(const TempDir& dir, const std::string& store,
                                           std::size_t processes, std::size_t each) {
  std::vector<std::unique_ptr<Cli>> clis;
  for (std::size_t i = 0; i < processes; ++i) {
    clis.push_back(std::make_unique<Cli>(dir, segment_next(store, std::to_string(each))));
  }
  std::set<std::uint64_t> seen;
  for (std::size_t i = 0; i < processes; ++i) {
    const std::string what = "process " + std::to_string(i);
    const std::vector<std::uint64_t> ids = to_ids(clis[i]->rest());
    EXPECT_EQ(clis[i]->wait(), 0) << clis[i]->err();
    EXPECT_EQ(ids.size(), each) << clis[i]->err();
    expect_increasing(ids, what);
    expect_new(ids, seen, what);
  }
  std::printf("%zu ids from %zu processes at once, %llu to %llu\n", seen.size(), processes,
              seen.empty() ? 0ULL : static_cast<unsigned long long>(*seen.begin()),
              seen.empty() ? 0ULL : static_cast<unsigned long long>(*seen.rbegin()));
  return seen;
}

// `cycles` cycles of two streaming processes (-n 0) on one key, each killed with SIGKILL after a
// random number of lines and at a random moment after that, then started again: each one's ids
// increase (the lines written before the kill count too), and no id read is read twice.
inline void run_kill_cycles(const TempDir& dir, const std::string& store, int cycles) {
  std::mt19937 random(20261201);
  std::uniform_int_distribution<int> lines(1, 300);
  std::uniform_int_distribution<int> pause_us(0, 3000);
  std::uniform_int_distribution<int> steps(1, 50);
  std::set<std::uint64_t> seen;
  for (int cycle = 0; cycle < cycles; ++cycle) {
    // Each pair with a step of its own: a small one claims often, so kills land inside claims.
    const std::string step = std::to_string(steps(random));
    Cli a(dir, segment_next(store, "0", {"--step", step}));
    Cli b(dir, segment_next(store, "0", {"--step", step}));
    std::vector<std::uint64_t> from_a = to_ids(a.lines(static_cast<std::size_t>(lines(random))));
    std::vector<std::uint64_t> from_b = to_ids(b.lines(static_cast<std::size_t>(lines(random))));
    ASSERT_FALSE(from_a.empty()) << a.err();
    ASSERT_FALSE(from_b.empty()) << b.err();
    std::this_thread::sleep_for(std::chrono::microseconds(pause_us(random)));
    a.signal(SIGKILL);
    std::this_thread::sleep_for(std::chrono::microseconds(pause_us(random)));
    b.signal(SIGKILL);
    for (const std::uint64_t id : to_ids(a.rest())) from_a.push_back(id);
    for (const std::uint64_t id : to_ids(b.rest())) from_b.push_back(id);
    ASSERT_EQ(a.wait(), 128 + SIGKILL) << a.err();
    ASSERT_EQ(b.wait(), 128 + SIGKILL) << b.err();
    const std::string what = "cycle " + std::to_string(cycle);
    expect_increasing(from_a, what + ", first process");
    expect_increasing(from_b, what + ", second process");
    expect_new(from_a, seen, what + ", first process");
    expect_new(from_b, seen, what + ", second process");
    if (::testing::Test::HasFatalFailure()) return;
  }
  // The ids claimed and never read (the rest of each killed process's segments) are skipped.
  std::printf("%d kill cycles of two processes: %zu ids read, none twice; the largest %llu\n",
              cycles, seen.size(),
              seen.empty() ? 0ULL : static_cast<unsigned long long>(*seen.rbegin()));
}

}  // namespace testing
}  // namespace cosid

#endif  // COSID_TESTS_SUPPORT_SEGMENT_CLI_RUNS_H_
