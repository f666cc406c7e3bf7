// SPDX-License-Identifier: Apache-2.0
// Segment ids (segment/generator.h): next() against its floor, a bare relaxed fetch_add on one
// shared atomic, side by side in one benchmark; next_batch(); and consumers at full speed on a
// store whose every claim takes 1 ms, counting the calls that found no value ready.
// See README.md in this directory for how to run it and what each benchmark shows.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "bench_support.h"
#include "cosid/segment/generator.h"
#include "cosid/segment/memory_range_store.h"

namespace {

using cosid_bench::median;
using cosid_bench::ns_per_step;
using cosid_bench::Rendezvous;

void abort_with(const char* what, const std::string& message) {
  std::fprintf(stderr, "cosid_segment_bench: %s: %s\n", what, message.c_str());
  std::abort();
}

std::unique_ptr<cosid::segment::SegmentGenerator> open(
    std::shared_ptr<cosid::segment::RangeStore> store, const std::string& key, std::int64_t step) {
  cosid::segment::GeneratorOptions options;
  options.key = key;
  options.step = step;
  cosid::Status status;
  auto generator = cosid::segment::SegmentGenerator::open(std::move(store), options, status);
  if (!generator) abort_with("SegmentGenerator::open", status.message());
  return generator;
}

// One generator shared by every thread of a benchmark (as a program's threads share one), on
// the memory store, with segments of 100,000 ids: the cost of next() itself, claims aside.
cosid::segment::SegmentGenerator& shared_generator() {
  static const auto generator =
      open(std::make_shared<cosid::segment::MemoryRangeStore>(), "bench", 100000);
  return *generator;
}

// The floor: a relaxed fetch_add on one atomic every thread shares, on a cache line of its own.
inline void floor_step() {
  alignas(64) static std::atomic<std::uint64_t> shared{0};
  benchmark::DoNotOptimize(shared.fetch_add(1, std::memory_order_relaxed));
}

void BM_FetchAddFloor(benchmark::State& state) {
  for (auto _ : state) floor_step();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FetchAddFloor)->Threads(1)->Threads(2)->UseRealTime();

void BM_SegmentNext(benchmark::State& state) {
  cosid::segment::SegmentGenerator& generator = shared_generator();
  std::error_code ec;
  for (auto _ : state) {
    benchmark::DoNotOptimize(generator.next(ec));
    if (ec) {
      state.SkipWithError(ec.message().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SegmentNext)->Threads(1)->Threads(2)->UseRealTime();

// The comparison within one benchmark (as BM_NextVsFloor of cosid_bench): every iteration runs a
// block of floor steps and then a block of next() calls on all threads at once; `next_vs_floor`
// is the median over the iterations of thread 0's floor ns over next() ns, i.e. next()'s rate as
// a share of the floor's (target >= 0.9). Blocks side by side see the same machine, which moves
// by 10-20% between seconds on a VM.
void BM_SegmentNextVsFloor(benchmark::State& state) {
  constexpr int kBlock = 1000;
  static Rendezvous rendezvous;
  if (state.thread_index() == 0) rendezvous.reset();
  cosid::segment::SegmentGenerator& generator = shared_generator();
  std::error_code ec;
  std::vector<double> floor_ns, next_ns, ratios;
  std::int64_t round = 0;
  for (auto _ : state) {
    rendezvous.wait(state.threads(), ++round);
    const double floor = ns_per_step(kBlock, [] { floor_step(); });
    rendezvous.wait(state.threads(), ++round);
    const double next = ns_per_step(kBlock, [&] { benchmark::DoNotOptimize(generator.next(ec)); });
    if (ec) abort_with("next", ec.message());  // not SkipWithError: the others would wait
    floor_ns.push_back(floor);
    next_ns.push_back(next);
    ratios.push_back(floor / next);
  }
  if (state.thread_index() == 0 && !ratios.empty()) {
    state.counters["floor_ns"] = median(floor_ns);
    state.counters["next_ns"] = median(next_ns);
    state.counters["next_vs_floor"] = median(ratios);
  }
}
BENCHMARK(BM_SegmentNextVsFloor)->Threads(1)->Threads(2)->UseRealTime();

// next_batch() of K ids: one fetch_add a call; items_per_second counts ids.
void BM_SegmentNextBatch(benchmark::State& state) {
  cosid_bench::run_batches<std::int64_t>(state, shared_generator());
}
BENCHMARK(BM_SegmentNextBatch)->Arg(16)->Arg(64)->Arg(256)->Threads(1)->Threads(2)->UseRealTime();

// The memory store behind a claim that first sleeps 1 ms: a store across a network.
class SlowStore final : public cosid::segment::RangeStore {
 public:
  bool claim(const cosid::segment::RangeRequest& request, cosid::segment::Range& range,
             cosid::Status& status) override {
    const auto start = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    if (us > max_claim_us_.load(std::memory_order_relaxed)) {
      max_claim_us_.store(us, std::memory_order_relaxed);  // one claiming thread: no race
    }
    return inner_.claim(request, range, status);
  }
  // The longest claim so far, sleep included: the scheduler's delays show here.
  std::int64_t max_claim_us() const { return max_claim_us_.load(std::memory_order_relaxed); }
  bool give_back(const std::string& key, const cosid::segment::Range& unused, bool& returned,
                 cosid::Status& status) override {
    return inner_.give_back(key, unused, returned, status);
  }
  bool seal(const std::string& key, cosid::segment::RangeState& state,
            cosid::Status& status) override {
    return inner_.seal(key, state, status);
  }
  bool read(const std::string& key, cosid::segment::RangeState& state,
            cosid::Status& status) override {
    return inner_.read(key, state, status);
  }

 private:
  cosid::segment::MemoryRangeStore inner_;
  std::atomic<std::int64_t> max_claim_us_{0};
};

// Consumers at full speed for 1 s of warm-up and 3 s measured, on a fresh generator over the
// slow store with segments of STEP ids (the argument) and the default distances (2 to 1024).
// Counters: `ids_per_s` (all threads, measured part), `hungry_after_warmup` (calls that found no
// value ready during the measured part; target 0), `hungry_warmup`, `distance` at the end,
// `claims`, and `max_claim_us`, the longest claim (the 1 ms sleep and the scheduler's delay).
void BM_SegmentSlowStore(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  static std::shared_ptr<SlowStore> store;
  static std::unique_ptr<cosid::segment::SegmentGenerator> generator;
  static Clock::time_point start;
  static std::atomic<std::uint64_t> hungry_at_warmup{0};
  if (state.thread_index() == 0) {
    // The previous run's threads have all returned: Google Benchmark joins them between runs.
    generator.reset();
    store = std::make_shared<SlowStore>();
    generator = open(store, "slow", state.range(0));
    start = Clock::now();
  }
  std::error_code ec;
  std::uint64_t measured = 0;
  // Inside the loop: Google Benchmark starts every thread's loop together, after thread 0's code
  // above, so `start` and `generator` are read only there.
  for (auto _ : state) {
    const Clock::time_point warm = start + std::chrono::seconds(1);
    const Clock::time_point end = warm + std::chrono::seconds(3);
    bool warming = true;
    for (;;) {
      for (int i = 0; i < 1024; ++i) benchmark::DoNotOptimize(generator->next(ec));
      if (ec) abort_with("next", ec.message());
      if (!warming) measured += 1024;
      const Clock::time_point now = Clock::now();
      if (warming && now >= warm) {
        warming = false;
        if (state.thread_index() == 0) hungry_at_warmup = generator->stats().hungry;
      }
      if (now >= end) break;
    }
  }
  state.counters["ids_per_s"] = static_cast<double>(measured) / 3.0;
  if (state.thread_index() == 0) {
    // Let the other threads pass `end` too before reading the counters.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const cosid::segment::GeneratorStats stats = generator->stats();
    state.counters["hungry_warmup"] = static_cast<double>(hungry_at_warmup.load());
    state.counters["hungry_after_warmup"] =
        static_cast<double>(stats.hungry - hungry_at_warmup.load());
    state.counters["distance"] = stats.distance;
    state.counters["claims"] = static_cast<double>(stats.claims);
    state.counters["max_claim_us"] = static_cast<double>(store->max_claim_us());
  }
}
BENCHMARK(BM_SegmentSlowStore)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Threads(1)
    ->Threads(2)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
