// SPDX-License-Identifier: Apache-2.0
// What a runtime clock step back costs the callers of next(): a Runtime as a user gets it (the
// default options and layout, a real state file, `ahead` 10 s), whose clock is the system clock
// plus an offset that steps back by S at a chosen moment. See README.md in this directory.
//
// Each benchmark runs once (Iterations(1)): 1 s of load on the real clock, then the step, then 3 s
// more. The load is either one thread paced at R ids per millisecond of the monotonic clock
// (R = 20: a busy service, far below the limit) or N threads calling next() as fast as they can
// (saturation: the sequence limit, 4,096 ids a tick, is reached every tick). Every next() is timed
// on the steady clock; every id is kept, and afterwards checked to increase on its own thread and
// to be unique across all of them.
#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "bench_support.h"
#include "cosid/clock.h"
#include "cosid/error.h"
#include "cosid/generator.h"
#include "cosid/layout.h"
#include "cosid/options.h"
#include "cosid/runtime.h"

namespace {

constexpr auto kBeforeStep = std::chrono::seconds(1);
constexpr auto kAfterStep = std::chrono::seconds(3);
constexpr std::int64_t kSlowCallNs = 1000000;  // "a call over 1 ms"

// The system clock with an offset added to its wall time: step_back(S) sets the wall clock back by
// S at once, as an NTP step or a manual `date -s` would, while the monotonic clock and sleeping
// go on untouched. Relaxed on the offset: it is one value with nothing published through it; a
// caller that reads the old offset a moment after the step sees the clock a moment before it.
class SteppedClock final : public cosid::Clock {
 public:
  std::int64_t now_ms() noexcept override {
    return system_.now_ms() + offset_ms_.load(std::memory_order_relaxed);
  }
  std::int64_t monotonic_ns() noexcept override { return system_.monotonic_ns(); }
  void sleep_for(std::chrono::nanoseconds duration) noexcept override {
    system_.sleep_for(duration);
  }
  void step_back(std::int64_t ms) noexcept { offset_ms_.fetch_sub(ms, std::memory_order_relaxed); }

 private:
  cosid::SystemClock system_;
  std::atomic<std::int64_t> offset_ms_{0};
};

// The name of a failure's code, for the counters: the enumerator for the codes a clock step can
// give, else the category's number.
std::string code_name(const std::error_code& ec) {
  if (ec.category() == cosid::error_category()) {
    switch (static_cast<cosid::errc>(ec.value())) {
      case cosid::errc::clock_backwards:
        return "clock_backwards";
      case cosid::errc::clock_stalled:
        return "clock_stalled";
      case cosid::errc::clock_behind_floor:
        return "clock_behind_floor";
      case cosid::errc::ceiling_reached:
        return "ceiling_reached";
      default:
        break;
    }
  }
  return std::string(ec.category().name()) + "_" + std::to_string(ec.value());
}

// What one calling thread saw. On a cache line pair of its own: each thread writes its own on
// every call, and must not take its neighbour's line with it.
struct alignas(128) Caller {
  std::vector<std::uint64_t> ids;
  std::int64_t max_call_ns = 0;  // after the step; the _before_step fields: before it
  std::int64_t max_call_ns_before_step = 0;
  std::uint64_t calls_over_1ms = 0;
  std::uint64_t calls_over_1ms_before_step = 0;
  std::uint64_t ids_after_step = 0;
  std::uint64_t ids_before_step = 0;
  std::int64_t max_lead_ms = INT64_MIN;  // id's time minus the (stepped) clock after the call
  std::uint64_t not_increasing = 0;
  std::map<std::string, std::uint64_t> failures;  // by code; filled only on a failure
};

void call(cosid::Generator& generator, SteppedClock& clock, const cosid::Layout& layout,
          const std::atomic<bool>& stepped, Caller& caller) {
  const int tick_shift = layout.slot_bits + layout.sequence_bits;
  std::error_code ec;
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t id = generator.next(ec);
  const auto end = std::chrono::steady_clock::now();
  const std::int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
  const bool after = stepped.load(std::memory_order_relaxed);
  if (after) {
    caller.max_call_ns = std::max(caller.max_call_ns, ns);
    if (ns > kSlowCallNs) ++caller.calls_over_1ms;
  } else {
    caller.max_call_ns_before_step = std::max(caller.max_call_ns_before_step, ns);
    if (ns > kSlowCallNs) ++caller.calls_over_1ms_before_step;
  }
  if (ec) {
    ++caller.failures[code_name(ec)];
    return;
  }
  const std::int64_t id_ms = layout.tick_start_ms(static_cast<std::int64_t>(id >> tick_shift));
  caller.max_lead_ms = std::max(caller.max_lead_ms, id_ms - clock.now_ms());
  if (!caller.ids.empty() && id <= caller.ids.back()) ++caller.not_increasing;
  caller.ids.push_back(id);
  ++(after ? caller.ids_after_step : caller.ids_before_step);
}

// Args: the step back in ms, the calling threads, and the pace in ids per ms (0: saturation).
void BM_ClockStepBack(benchmark::State& state) {
  const std::int64_t step_ms = state.range(0);
  const auto threads = static_cast<std::size_t>(state.range(1));
  const std::int64_t per_ms = state.range(2);
  const cosid_bench::BenchDir dir;
  SteppedClock clock;
  cosid::Options options;  // the defaults: layout, ahead, start_wait
  options.slot = 0;
  options.state_file = dir.file("state");
  cosid::RuntimeEnvironment environment;  // the default generator options (max_drift, bounds)
  environment.clock = &clock;
  cosid::Status status;
  const std::unique_ptr<cosid::Runtime> runtime =
      cosid::Runtime::open(options, environment, status);
  if (!runtime) {
    state.SkipWithError(status.message().c_str());
    return;
  }
  cosid::Generator* generator = runtime->generator("default", status);
  if (generator == nullptr) {
    state.SkipWithError(status.message().c_str());
    return;
  }
  const cosid::Layout& layout = options.layout;
  const double limit_per_ms = static_cast<double>(std::uint64_t{1} << layout.sequence_bits) /
                              static_cast<double>(cosid::unit_ms(layout.unit));
  const double seconds = std::chrono::duration<double>(kBeforeStep + kAfterStep).count();
  const double expected =
      per_ms > 0 ? static_cast<double>(per_ms) * 1000 * seconds : limit_per_ms * 1000 * seconds;

  std::vector<Caller> callers(threads);
  for (Caller& caller : callers) {
    caller.ids.reserve(static_cast<std::size_t>(expected * 1.25 / static_cast<double>(threads)));
  }
  std::atomic<bool> stepped{false};
  std::atomic<bool> stop{false};
  for (auto _ : state) {
    std::vector<std::thread> pool;
    for (Caller& caller : callers) {
      pool.emplace_back([&, per_ms] {
        if (per_ms == 0) {
          while (!stop.load(std::memory_order_relaxed)) {
            call(*generator, clock, layout, stepped, caller);
          }
          return;
        }
        // Paced: per_ms calls at the start of each millisecond of the monotonic clock, then a
        // sleep to the next one (a sleeping thread is woken promptly on a loaded machine, where a
        // spinning one would lose whole milliseconds to the others). A millisecond missed (a call
        // that blocked) is not made up afterwards: the pace stays R ids per ms, never a burst.
        while (!stop.load(std::memory_order_relaxed)) {
          for (std::int64_t i = 0; i < per_ms; ++i)
            call(*generator, clock, layout, stepped, caller);
          const std::int64_t next_ms = clock.monotonic_ns() / 1000000 + 1;
          const struct timespec wake = {static_cast<time_t>(next_ms / 1000),
                                        static_cast<long>(next_ms % 1000 * 1000000)};
          while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nullptr) == EINTR) {
          }
        }
      });
    }
    std::this_thread::sleep_for(kBeforeStep);
    clock.step_back(step_ms);
    stepped.store(true, std::memory_order_relaxed);
    std::this_thread::sleep_for(kAfterStep);
    stop.store(true, std::memory_order_relaxed);
    for (std::thread& thread : pool) thread.join();
  }
  (void)runtime->close(status);

  // The checks and the figures, over all threads.
  Caller all;
  std::vector<std::uint64_t> ids;
  std::map<std::string, std::uint64_t> failures;
  std::uint64_t failed = 0;
  for (Caller& caller : callers) {
    all.max_call_ns = std::max(all.max_call_ns, caller.max_call_ns);
    all.max_call_ns_before_step =
        std::max(all.max_call_ns_before_step, caller.max_call_ns_before_step);
    all.calls_over_1ms += caller.calls_over_1ms;
    all.calls_over_1ms_before_step += caller.calls_over_1ms_before_step;
    all.ids_after_step += caller.ids_after_step;
    all.ids_before_step += caller.ids_before_step;
    all.max_lead_ms = std::max(all.max_lead_ms, caller.max_lead_ms);
    all.not_increasing += caller.not_increasing;
    for (const auto& failure : caller.failures) {
      failures[failure.first] += failure.second;
      failed += failure.second;
    }
    ids.insert(ids.end(), caller.ids.begin(), caller.ids.end());
    std::vector<std::uint64_t>().swap(caller.ids);
  }
  std::sort(ids.begin(), ids.end());
  std::uint64_t repeated = 0;
  for (std::size_t i = 1; i < ids.size(); ++i)
    if (ids[i] == ids[i - 1]) ++repeated;

  state.SetLabel(per_ms > 0 ? "paced " + std::to_string(per_ms) + "/ms" : "saturation");
  state.counters["max_call_us"] = static_cast<double>(all.max_call_ns) / 1000;
  state.counters["max_call_us_before"] = static_cast<double>(all.max_call_ns_before_step) / 1000;
  state.counters["calls_over_1ms"] = static_cast<double>(all.calls_over_1ms);
  state.counters["calls_over_1ms_before"] = static_cast<double>(all.calls_over_1ms_before_step);
  state.counters["failed"] = static_cast<double>(failed);
  for (const auto& failure : failures) {
    state.counters["fail_" + failure.first] = static_cast<double>(failure.second);
  }
  state.counters["ids"] = static_cast<double>(ids.size());
  state.counters["repeated"] = static_cast<double>(repeated);
  state.counters["not_increasing"] = static_cast<double>(all.not_increasing);
  state.counters["max_lead_ms"] = ids.empty() ? 0.0 : static_cast<double>(all.max_lead_ms);
  // The share of the pace (or of the sequence limit) that was issued before and after the step:
  // before it, what the machine let the load reach; after it, what the step cost on top.
  const double per_s = (per_ms > 0 ? static_cast<double>(per_ms) : limit_per_ms) * 1000;
  state.counters["ratio_before"] = static_cast<double>(all.ids_before_step) /
                                   (per_s * std::chrono::duration<double>(kBeforeStep).count());
  state.counters["ratio_after"] = static_cast<double>(all.ids_after_step) /
                                  (per_s * std::chrono::duration<double>(kAfterStep).count());
}

void steps(benchmark::internal::Benchmark* benchmark) {
  for (const std::int64_t step_ms : {1000, 5000}) {  // 1 s, and ahead/2 of the default ahead
    benchmark->Args({step_ms, 1, 20});
    for (const std::int64_t threads : {1, 2, 4}) benchmark->Args({step_ms, threads, 0});
  }
}
BENCHMARK(BM_ClockStepBack)
    ->ArgNames({"step_ms", "threads", "per_ms"})
    ->Apply(steps)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
