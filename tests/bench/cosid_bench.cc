// The Google Benchmark suite: the cost floor of an id, next() and next_batch() against it, the
// codecs, and next()'s latency while a Runtime renews its ceiling with a real fdatasync.
// See README.md in this directory for how to run it and what each benchmark shows.
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
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "cosid/binding.h"
#include "cosid/clock.h"
#include "cosid/codec.h"
#include "cosid/generator.h"
#include "cosid/layout.h"
#include "cosid/options.h"
#include "cosid/runtime.h"

namespace {

// 40/1/22 in ms from 2024-01-01T00:00:00Z (until 2058): 4,194,304 ids per ms, far more than a
// core can take, so a benchmark over it never waits for a tick's sequence to be used up and
// measures the generator's own cost.
constexpr cosid::Layout kWide{1704067200000, cosid::TimeUnit::kMillisecond, 40, 1, 22};

void abort_with(const char* what, const std::error_code& ec) {
  std::fprintf(stderr, "cosid_bench: %s: %s\n", what, ec.message().c_str());
  std::abort();
}

cosid::SystemClock& system_clock() {
  static cosid::SystemClock clock;
  return clock;
}

// A generator over a binding whose window spans the whole layout: no ceiling is ever reached, no
// file is written. One per layout and drift, shared by every thread of a benchmark (as a
// program's threads share one).
cosid::Generator& generator_for(const cosid::Layout& layout, std::chrono::milliseconds drift = {}) {
  struct Holder {
    cosid::Binding binding;
    std::unique_ptr<cosid::Generator> generator;
    Holder(const cosid::Layout& l, std::chrono::milliseconds d)
        : binding(0, l.epoch_ms() - 1, l.end_ms() - 1) {
      cosid::GeneratorOptions options;
      options.max_drift = d;
      std::error_code ec;
      generator = cosid::Generator::create(l, binding, system_clock(), options, ec);
      if (!generator) abort_with("Generator::create", ec);
    }
  };
  if (drift.count() > 0) {
    static Holder drifting(layout, drift);
    return *drifting.generator;
  }
  if (layout == kWide) {
    static Holder wide(kWide, {});
    return *wide.generator;
  }
  static Holder standard(layout, {});
  return *standard.generator;
}

// The floor: what any generator of time-ordered ids must do per id, read the clock and take a
// number from one word that every thread shares.
void BM_Floor(benchmark::State& state) {
  static std::atomic<std::uint64_t> shared{0};
  cosid::Clock& clock = system_clock();
  for (auto _ : state) {
    const std::int64_t now = clock.now_ms();
    benchmark::DoNotOptimize(now);
    benchmark::DoNotOptimize(shared.fetch_add(1, std::memory_order_relaxed));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Floor)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();

void run_next(benchmark::State& state, cosid::Generator& generator) {
  std::error_code ec;
  for (auto _ : state) {
    const std::uint64_t id = generator.next(ec);
    benchmark::DoNotOptimize(id);
    if (ec) {
      state.SkipWithError(ec.message().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}

// next() when the sequence space is not the limit: compare with BM_Floor at the same threads.
void BM_Next(benchmark::State& state) { run_next(state, generator_for(kWide)); }
BENCHMARK(BM_Next)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();

// next() on the default layout: 4,096 ids per ms, so items_per_second stops at about 4.1 M.
void BM_NextDefaultLayout(benchmark::State& state) {
  run_next(state, generator_for(cosid::layouts::kDefault));
}
BENCHMARK(BM_NextDefaultLayout)->Threads(1)->Threads(2)->UseRealTime();

// next_batch() of K ids a call (one CAS); items_per_second counts ids.
void BM_NextBatch(benchmark::State& state) {
  cosid::Generator& generator = generator_for(kWide);
  std::vector<std::uint64_t> ids(static_cast<std::size_t>(state.range(0)));
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
BENCHMARK(BM_NextBatch)->Arg(16)->Arg(64)->Arg(256)->Threads(1)->Threads(2)->UseRealTime();

// A burst of 4 ticks' worth of ids (16,384) on the default layout after the clock has caught up,
// with and without 5 ms of drift. Without drift the burst waits for 3 tick boundaries; with it the
// burst borrows them. Timed by hand so the pause between bursts is not counted. The pause (8 ms,
// past every borrowed tick) busy-waits on the clock: a sleeping vCPU wakes up with cold caches and
// costs the first ids of the burst more than the generator does (about 20% on the 2-core VM of
// the README), which is the machine's figure, not the generator's.
void BM_Burst(benchmark::State& state) {
  const std::chrono::milliseconds drift(state.range(0));
  cosid::Generator& generator = drift.count() > 0 ? generator_for(cosid::layouts::kDefault, drift)
                                                  : generator_for(cosid::layouts::kDefault);
  constexpr int kBurst = 4 * 4096;
  std::error_code ec;
  for (auto _ : state) {
    // Let the clock pass every tick the previous burst borrowed, keeping the core busy.
    const auto resume = std::chrono::steady_clock::now() + std::chrono::milliseconds(8);
    while (std::chrono::steady_clock::now() < resume) {
    }
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kBurst; ++i) {
      const std::uint64_t id = generator.next(ec);
      benchmark::DoNotOptimize(id);
    }
    const auto end = std::chrono::steady_clock::now();
    if (ec) {
      state.SkipWithError(ec.message().c_str());
      break;
    }
    state.SetIterationTime(std::chrono::duration<double>(end - start).count());
  }
  state.SetItemsProcessed(state.iterations() * kBurst);
}
BENCHMARK(BM_Burst)->Arg(0)->Arg(5)->UseManualTime()->Iterations(200);

// One realistic id per codec, from the default layout.
std::uint64_t sample_id() {
  const cosid::Layout& layout = cosid::layouts::kDefault;
  return layout.compose(layout.tick_of(1796005378123), 3, 17);
}

void BM_Encode(benchmark::State& state, cosid::IdFormat format) {
  const std::uint64_t id = sample_id();
  char text[cosid::kMaxEncodedChars];
  for (auto _ : state) {
    benchmark::DoNotOptimize(id);
    const std::size_t n = cosid::encode(id, format, cosid::layouts::kDefault, text);
    benchmark::DoNotOptimize(n);
    benchmark::DoNotOptimize(text);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_Encode, decimal, cosid::IdFormat::kDecimal);
BENCHMARK_CAPTURE(BM_Encode, radix62, cosid::IdFormat::kRadix62);
BENCHMARK_CAPTURE(BM_Encode, radix36, cosid::IdFormat::kRadix36);
BENCHMARK_CAPTURE(BM_Encode, friendly, cosid::IdFormat::kFriendly);

void BM_Decode(benchmark::State& state, cosid::IdFormat format) {
  char buffer[cosid::kMaxEncodedChars];
  const std::string text(buffer,
                         cosid::encode(sample_id(), format, cosid::layouts::kDefault, buffer));
  std::error_code ec;
  for (auto _ : state) {
    benchmark::DoNotOptimize(text.data());
    const std::uint64_t id = cosid::decode(text, format, cosid::layouts::kDefault, ec);
    benchmark::DoNotOptimize(id);
  }
  if (ec) state.SkipWithError(ec.message().c_str());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_Decode, decimal, cosid::IdFormat::kDecimal);
BENCHMARK_CAPTURE(BM_Decode, radix62, cosid::IdFormat::kRadix62);
BENCHMARK_CAPTURE(BM_Decode, radix36, cosid::IdFormat::kRadix36);
BENCHMARK_CAPTURE(BM_Decode, friendly, cosid::IdFormat::kFriendly);

// A histogram of latencies: 10 ns buckets up to 200 us, then one overflow bucket (the maximum is
// kept exactly).
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

// Counts the ceilings the runtime made durable.
class RenewalCounter final : public cosid::EventListener {
 public:
  void on_event(const cosid::Event& event) noexcept override {
    if (event.kind == cosid::EventKind::kCeilingAdvanced) {
      renewals.fetch_add(1, std::memory_order_relaxed);
    }
  }
  std::atomic<std::int64_t> renewals{0};
};

// A new directory for the state file, under COSID_BENCH_DIR, TMPDIR or /tmp (it should be on a
// real disk for the fdatasync to be real; tmpfs makes it free).
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("COSID_BENCH_DIR");
    if (base == nullptr || *base == '\0') base = std::getenv("TMPDIR");
    path_ = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/cosid-bench-XXXXXX";
    if (mkdtemp(&path_[0]) == nullptr) {
      std::perror("cosid_bench: mkdtemp");
      std::abort();
    }
  }
  ~TempDir() {
    if (DIR* dir = opendir(path_.c_str())) {
      while (const struct dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") unlink((path_ + "/" + name).c_str());
      }
      closedir(dir);
    }
    rmdir(path_.c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const char* name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// next()'s latency while the background thread renews the ceiling every ahead/2 = 50 ms with a
// write and a real fdatasync. Each next() is timed on the steady clock (the two clock reads, about
// 20-40 ns, are included). The wide layout means no call ever waits for a tick's sequence, so
// what is measured is the hot path and whatever the renewal does to it: a wait at the ceiling
// would show up as a tail of milliseconds.
void BM_LatencyUnderRenewal(benchmark::State& state) {
  const TempDir dir;
  RenewalCounter counter;
  cosid::Options options;
  options.layout = kWide;
  options.slot = 0;
  options.state_file = dir.file("state");
  options.ahead = std::chrono::milliseconds(100);
  options.start_wait = std::chrono::seconds(2);
  cosid::RuntimeEnvironment environment;
  environment.listener = &counter;
  std::error_code ec;
  std::string message;
  const std::unique_ptr<cosid::Runtime> runtime =
      cosid::Runtime::open(options, environment, ec, &message);
  if (!runtime) {
    state.SkipWithError(message.c_str());
    return;
  }
  cosid::Generator* generator = runtime->generator("default", ec);
  if (generator == nullptr) abort_with("Runtime::generator", ec);
  (void)generator->next(ec);  // the first id, outside the measurement
  const std::int64_t renewals_before = counter.renewals.load();
  auto histogram = std::make_unique<Histogram>();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t id = generator->next(ec);
    const auto end = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(id);
    if (ec) {
      state.SkipWithError(ec.message().c_str());
      break;
    }
    histogram->add(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
  }
  state.counters["p50_ns"] = histogram->quantile_ns(0.50);
  state.counters["p99_ns"] = histogram->quantile_ns(0.99);
  state.counters["p99.9_ns"] = histogram->quantile_ns(0.999);
  state.counters["max_ns"] = static_cast<double>(histogram->max_ns());
  state.counters["renewals"] = static_cast<double>(counter.renewals.load() - renewals_before);
  state.SetItemsProcessed(state.iterations());
  (void)runtime->close();
}
BENCHMARK(BM_LatencyUnderRenewal)->MinTime(3.0)->UseRealTime();

}  // namespace
