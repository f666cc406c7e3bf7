// SPDX-License-Identifier: Apache-2.0
// What more than one benchmark binary of this directory uses: a latency histogram, a temporary
// directory for state files on a real disk, and the pieces of a side-by-side comparison (a
// rendezvous of the benchmark's threads, ns per step of a block, the median).
//
// Thread safety: none; each object is used by one thread.
#ifndef COSID_TESTS_BENCH_BENCH_SUPPORT_H_
#define COSID_TESTS_BENCH_BENCH_SUPPORT_H_

#include <benchmark/benchmark.h>
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace cosid_bench {

// A histogram of latencies: 10 ns buckets up to 200 us, then one overflow bucket (the maximum is
// kept exactly). Millions of samples fit in its fixed 160 KB; allocate it on the heap.
class Histogram {
 public:
  void add(std::int64_t ns) {
    const std::int64_t bucket = std::min<std::int64_t>(ns / kBucketNs, kBuckets - 1);
    ++counts_[static_cast<std::size_t>(std::max<std::int64_t>(bucket, 0))];
    ++total_;
    max_ns_ = std::max(max_ns_, ns);
  }
  // The upper edge of the bucket holding quantile q (0 < q < 1), in ns.
  double quantile_ns(double q) const {
    const auto rank = static_cast<std::uint64_t>(q * static_cast<double>(total_));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
      seen += counts_[i];
      if (seen > rank) {
        return i + 1 == counts_.size()
                   ? static_cast<double>(max_ns_)
                   : static_cast<double>((static_cast<std::int64_t>(i) + 1) * kBucketNs);
      }
    }
    return static_cast<double>(max_ns_);
  }
  std::int64_t max_ns() const { return max_ns_; }
  std::uint64_t total() const { return total_; }

 private:
  static constexpr std::int64_t kBucketNs = 10;
  static constexpr std::int64_t kBuckets = 20000;
  std::array<std::uint64_t, static_cast<std::size_t>(kBuckets)> counts_{};
  std::uint64_t total_ = 0;
  std::int64_t max_ns_ = 0;
};

// A new directory for a state file, under COSID_BENCH_DIR, TMPDIR or /tmp (it should be on a
// real disk for the fdatasync to be real; tmpfs makes it free), removed with its files.
class BenchDir {
 public:
  BenchDir() {
    const char* base = std::getenv("COSID_BENCH_DIR");
    if (base == nullptr || *base == '\0') base = std::getenv("TMPDIR");
    path_ = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/cosid-bench-XXXXXX";
    if (mkdtemp(&path_[0]) == nullptr) {
      std::perror("cosid_bench: mkdtemp");
      std::abort();
    }
  }
  ~BenchDir() {
    if (DIR* dir = opendir(path_.c_str())) {
      while (const struct dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") unlink((path_ + "/" + name).c_str());
      }
      closedir(dir);
    }
    rmdir(path_.c_str());
  }
  BenchDir(const BenchDir&) = delete;
  BenchDir& operator=(const BenchDir&) = delete;
  std::string file(const char* name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The median of `values` (not empty).
inline double median(std::vector<double> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// Holds the threads of one benchmark together between blocks, so that all of them run the floor
// at once and then all of them next(). Yields while it waits: with more threads than cores a
// spinning waiter would hold the core the last thread needs to arrive.
class Rendezvous {
 public:
  // Called by thread 0 before the benchmark's loop (Google Benchmark starts the loop of every
  // thread together, after this).
  void reset() { arrived_.store(0, std::memory_order_relaxed); }
  // `round` counts this thread's calls, from 1.
  void wait(int threads, std::int64_t round) {
    arrived_.fetch_add(1, std::memory_order_acq_rel);
    while (arrived_.load(std::memory_order_acquire) < threads * round) std::this_thread::yield();
  }

 private:
  std::atomic<std::int64_t> arrived_{0};
};

// How long `block` steps take, in ns per step.
template <typename Step>
double ns_per_step(int block, Step step) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < block; ++i) step();
  const auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(end - start).count() / block;
}

// The body of a next_batch() benchmark for either generator: batches of state.range(0) ids, one
// call each; items_per_second counts ids.
template <typename Id, typename Generator>
void run_batches(benchmark::State& state, Generator& generator) {
  std::vector<Id> ids(static_cast<std::size_t>(state.range(0)));
  std::error_code ec;
  std::int64_t issued = 0;
  for (auto _ : state) {
    const std::size_t got = generator.next_batch(ids.data(), ids.size(), ec);
    if (ec) {
      state.SkipWithError(ec.message().c_str());
      break;
    }
    benchmark::DoNotOptimize(ids.data());
    issued += static_cast<std::int64_t>(got);
  }
  state.SetItemsProcessed(issued);
}

}  // namespace cosid_bench

#endif  // COSID_TESTS_BENCH_BENCH_SUPPORT_H_
