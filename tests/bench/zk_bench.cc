// SPDX-License-Identifier: Apache-2.0
// The ZooKeeper store against real servers this binary starts itself (tests/zookeeper/zk_server.h):
// a standalone server on loopback and a three-peer ensemble, each started on first use and killed
// at exit. Measured with the store in production mode (lease times from the servers' mtimes, no
// store clock): the latency of acquire() and renew(), and next()'s latency on a Runtime leasing
// from ZooKeeper while its renewals run, against a static-slot Runtime in the same run.
// See README.md in this directory for how to run it and what each benchmark shows.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "bench_support.h"
#include "cosid/generator.h"
#include "cosid/layout.h"
#include "cosid/lease/store.h"
#include "cosid/options.h"
#include "cosid/runtime.h"
#include "cosid/store_registry.h"
#include "cosid/zookeeper/lease_store.h"
#include "zk_server.h"

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// 40/1/22 in ms from 2024-01-01T00:00:00Z: 4,194,304 ids per ms, so no next() below ever waits for
// a tick's sequence, and a namespace of 2 slots.
constexpr cosid::Layout kWide{1704067200000, cosid::TimeUnit::kMillisecond, 40, 1, 22};

// Which servers a benchmark talks to (its argument).
enum Target : int { kLocal = 0, kEnsemble = 1 };

const char* target_name(std::int64_t target) {
  return target == kEnsemble ? "ensemble of 3" : "standalone server";
}

// `servers` (a ZkServer or a ZkEnsemble), started if not yet; their connect string, or null with
// `why` set.
template <typename Servers>
const std::string* started(std::unique_ptr<Servers>& servers, std::string& connect,
                           std::string& why) {
  if (servers != nullptr) return &connect;
  servers = std::make_unique<Servers>();
  cosid::Status status;
  if (!servers->start(status)) {
    why = status.message();
    servers.reset();
    return nullptr;
  }
  connect = servers->connect_string();
  // The store's root, made once as `cosid store init` makes it: no store creates it on first use.
  cosid::lease::ZooKeeperStoreOptions options;
  options.connect_string = connect;
  cosid::StoreInitReport report;
  if (!cosid::lease::init_zookeeper_store(options, report, status)) {
    why = status.message();
    servers.reset();
    return nullptr;
  }
  return &connect;
}

// The servers, started on the first benchmark that needs them, on the main thread (Google
// Benchmark runs a single-threaded benchmark there, and a server dies with the thread that
// started it), and killed and reaped by their destructors at exit. Null with `why` set when they
// cannot start here.
const std::string* connect_string(std::int64_t target, std::string& why) {
  static std::unique_ptr<cosid::testing::ZkServer> server;
  static std::unique_ptr<cosid::testing::ZkEnsemble> ensemble;
  static std::string server_connect;
  static std::string ensemble_connect;
  if (!cosid::testing::zookeeper_available(why)) return nullptr;
  return target == kLocal ? started(server, server_connect, why)
                          : started(ensemble, ensemble_connect, why);
}

// A namespace no earlier benchmark (or earlier run against a server kept by hand) has used.
std::string fresh_namespace(const char* what) {
  static int counter = 0;
  return std::string("bench-") + what + "-" + std::to_string(getpid()) + "-" +
         std::to_string(++counter);
}

// Latencies in ns, few enough to keep them all: quantiles by rank.
class Samples {
 public:
  void add(std::int64_t ns) { ns_.push_back(ns); }
  // The nearest-rank quantile q (0 < q < 1), in ns: the smallest sample at or below which lie
  // q * n of them (of 100 samples, p99 is the 99th smallest, p50 the 50th).
  double quantile_ns(double q) {
    if (ns_.empty()) return 0;
    std::sort(ns_.begin(), ns_.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(ns_.size())));
    return static_cast<double>(ns_[std::min(std::max<std::size_t>(rank, 1), ns_.size()) - 1]);
  }
  double max_ns() const {
    return ns_.empty() ? 0 : static_cast<double>(*std::max_element(ns_.begin(), ns_.end()));
  }

 private:
  std::vector<std::int64_t> ns_;
};

// One timed call of a store benchmark: its sample, and the iteration's (manual) time.
void timed(benchmark::State& state, Samples& samples, std::int64_t ns) {
  samples.add(ns);
  state.SetIterationTime(static_cast<double>(ns) / 1e9);
}

// Ends a store benchmark: its quantiles in ms, and which servers it ran against.
void report_ms(benchmark::State& state, Samples& samples) {
  state.counters["p50_ms"] = samples.quantile_ns(0.50) / 1e6;
  state.counters["p99_ms"] = samples.quantile_ns(0.99) / 1e6;
  state.counters["max_ms"] = samples.max_ns() / 1e6;
  state.SetLabel(target_name(state.range(0)));
}

// A store in production mode on the benchmark's servers (its argument), the servers started if
// need be: what the "zookeeper" factory opens, with the default options. Null, with the
// benchmark skipped and the reason given, when either cannot start.
std::unique_ptr<cosid::lease::ZooKeeperLeaseStore> bench_store(benchmark::State& state) {
  std::string why;
  const std::string* connect = connect_string(state.range(0), why);
  if (connect == nullptr) {
    state.SkipWithError(why.c_str());
    return nullptr;
  }
  cosid::lease::ZooKeeperStoreOptions options;
  options.connect_string = *connect;
  cosid::Status status;
  std::unique_ptr<cosid::lease::ZooKeeperLeaseStore> store =
      cosid::lease::ZooKeeperLeaseStore::open(options, status);
  if (store == nullptr) state.SkipWithError(status.message().c_str());
  return store;
}

cosid::lease::Owner bench_owner(const char* key) {
  cosid::lease::Owner owner;
  owner.key = key;
  cosid::Status status;
  if (!cosid::lease::Incarnation::random(owner.incarnation, status)) {
    std::fprintf(stderr, "cosid_zk_bench: %s\n", status.message().c_str());
    std::abort();
  }
  return owner;
}

std::int64_t since_ns(steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(steady_clock::now() - start).count();
}

// One acquire() of `request`, timed into `ns`. False, with the benchmark skipped and the reason
// given, unless the slot was acquired.
bool timed_acquire(benchmark::State& state, cosid::lease::SlotLeaseStore& store,
                   const cosid::lease::AcquireRequest& request, cosid::lease::SlotLease& lease,
                   std::int64_t& ns) {
  cosid::Status status;
  cosid::lease::AcquireOutcome outcome = cosid::lease::AcquireOutcome::kTaken;
  cosid::lease::SlotRecord holder;
  const auto start = steady_clock::now();
  const bool done = store.acquire(request, outcome, lease, holder, status);
  ns = since_ns(start);
  if (done && outcome == cosid::lease::AcquireOutcome::kAcquired) return true;
  state.SkipWithError(done ? "the slot was taken by another owner" : status.message().c_str());
  return false;
}

// Every store benchmark: against the standalone server and the ensemble, the time of its calls
// alone (manual time), in ms.
void store_benchmark(benchmark::internal::Benchmark* benchmark) {
  benchmark->Arg(kLocal)->Arg(kEnsemble)->UseManualTime()->Unit(benchmark::kMillisecond);
}

// 100 acquire() calls of slot 0, each in a namespace never used before (`fresh`), or each of the
// released slot of one namespace this store already knows.
void run_acquires(benchmark::State& state, bool fresh) {
  const auto store = bench_store(state);
  if (store == nullptr) return;
  cosid::lease::AcquireRequest request;
  request.name_space = fresh_namespace("reacquire");
  Samples samples;
  for (auto _ : state) {
    if (fresh) request.name_space = fresh_namespace("acquire");
    request.owner = bench_owner("bench-acquire");
    cosid::lease::SlotLease lease;
    std::int64_t ns = 0;
    if (!timed_acquire(state, *store, request, lease, ns)) return;
    cosid::Status status;
    if (!fresh && !store->release(lease, request.terms, lease.floor, status)) {
      state.SkipWithError(status.message().c_str());
      return;
    }
    timed(state, samples, ns);
  }
  report_ms(state, samples);
}

// In a namespace never used before: the call makes the namespace node and its parents, the .clock
// node, the slot node (free) and then takes it with the multi that also creates the owner index.
// The first acquire a fleet makes, and an upper bound on every other.
void BM_ZkAcquireFresh(benchmark::State& state) { run_acquires(state, true); }
BENCHMARK(BM_ZkAcquireFresh)->Apply(store_benchmark)->Iterations(100);

// Of a released slot in a namespace this store already knows: the steady case of a restart (the
// .clock write, the slot read, the owner index read and the multi). Each iteration releases the
// lease again, untimed, and the next acquires under a new incarnation.
void BM_ZkAcquireReleased(benchmark::State& state) { run_acquires(state, false); }
BENCHMARK(BM_ZkAcquireReleased)->Apply(store_benchmark)->Iterations(100);

// One renew() of a held lease: the slot read and the compare-and-set on its version, what the
// runtime's background thread does every ttl/3.
void BM_ZkRenew(benchmark::State& state) {
  const auto store = bench_store(state);
  if (store == nullptr) return;
  cosid::lease::AcquireRequest request;
  request.name_space = fresh_namespace("renew");
  request.owner = bench_owner("bench-renew");
  cosid::lease::SlotLease lease;
  std::int64_t ns = 0;
  if (!timed_acquire(state, *store, request, lease, ns)) return;
  cosid::Status status;
  Samples samples;
  for (auto _ : state) {
    cosid::lease::SlotLease renewed;
    const auto start = steady_clock::now();
    const bool done = store->renew(lease, request.terms, request.ttl, renewed, status);
    ns = since_ns(start);
    if (!done) {
      state.SkipWithError(status.message().c_str());
      return;
    }
    lease = renewed;
    timed(state, samples, ns);
  }
  report_ms(state, samples);
  (void)store->release(lease, request.terms, lease.floor, status);
}
BENCHMARK(BM_ZkRenew)->Apply(store_benchmark)->Iterations(200);

// next() calls above this count as slow: far beyond the hot path (100 ns), well below a round
// trip to a server (a renewal, 1 ms or more), so a call that waited for one would be among them.
constexpr std::int64_t kSlowNs = 100000;

// Times `count` next() calls of `generator` into `histogram`, counting those above kSlowNs in
// `slow`; false with `ec` set on a failure.
bool timed_block(cosid::Generator& generator, int count, cosid_bench::Histogram& histogram,
                 std::int64_t& slow, std::error_code& ec) {
  for (int i = 0; i < count; ++i) {
    const auto start = steady_clock::now();
    const std::uint64_t id = generator.next(ec);
    const auto end = steady_clock::now();
    benchmark::DoNotOptimize(id);
    if (ec) return false;
    const std::int64_t ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
    histogram.add(ns);
    if (ns > kSlowNs) ++slow;
  }
  return true;
}

// How long BM_ZkNextUnderRenewal measures: ten renewals of a 3 s ttl.
constexpr std::chrono::seconds kRenewalRun{10};

// next() on a Runtime that leases its slot from ZooKeeper with a ttl of 3 s, so that its
// background thread renews every second (ttl/3), against next() on a static-slot Runtime with a
// state file and `ahead` 2 s, whose background thread makes a new ceiling durable (write +
// fdatasync) about every second too. Blocks of 1,000 calls alternate between the two for 10 s,
// each call timed on the steady clock, so both see the same seconds of a VM whose speed moves:
// `zk_over_static_p99.9` is the ratio of their p99.9. A renewal that stalled next() would show
// as a tail of milliseconds (a round trip to the servers), and as `ceiling_waits`.
void BM_ZkNextUnderRenewal(benchmark::State& state) {
  std::string why;
  const std::string* connect = connect_string(state.range(0), why);
  if (connect == nullptr) {
    state.SkipWithError(why.c_str());
    return;
  }
  cosid::Status status;
  cosid::StoreRegistry stores;
  if (!cosid::lease::add_zookeeper_store(stores, status)) {
    state.SkipWithError(status.message().c_str());
    return;
  }
  // The production path: a store instance of the cosid.stores block, opened by the registry's
  // "zookeeper" factory (lease times from the servers' mtimes).
  cosid::Options leased;
  leased.namespace_name = fresh_namespace("next");
  leased.layout = kWide;
  leased.store_type = "zk";
  leased.stores.push_back(cosid::StoreConfig{
      "zk", "zookeeper", {cosid::StoreSetting{"options.connectString", *connect, "bench"}}});
  leased.ttl = milliseconds(3000);
  leased.start_wait = leased.ttl + leased.tolerance;
  cosid::RuntimeEnvironment leased_environment;
  leased_environment.stores = &stores;
  const std::unique_ptr<cosid::Runtime> zk_runtime =
      cosid::Runtime::open(leased, leased_environment, status);
  if (!zk_runtime) {
    state.SkipWithError(status.message().c_str());
    return;
  }

  const cosid_bench::BenchDir dir;
  cosid::Options fixed;
  fixed.namespace_name = "bench-static";
  fixed.layout = kWide;
  fixed.slot = 0;
  fixed.state_file = dir.file("state");
  fixed.ahead = milliseconds(2000);
  const std::unique_ptr<cosid::Runtime> static_runtime =
      cosid::Runtime::open(fixed, cosid::RuntimeEnvironment{}, status);
  if (!static_runtime) {
    state.SkipWithError(status.message().c_str());
    return;
  }

  cosid::Generator* zk_generator = zk_runtime->generator("default", status);
  cosid::Generator* static_generator =
      zk_generator != nullptr ? static_runtime->generator("default", status) : nullptr;
  if (static_generator == nullptr) {
    state.SkipWithError(status.message().c_str());
    return;
  }
  std::error_code ec;
  (void)zk_generator->next(ec);  // the first ids, outside the measurement
  (void)static_generator->next(ec);
  const cosid::RuntimeMetrics zk_before = zk_runtime->metrics();
  const cosid::RuntimeMetrics static_before = static_runtime->metrics();
  auto zk_histogram = std::make_unique<cosid_bench::Histogram>();
  auto static_histogram = std::make_unique<cosid_bench::Histogram>();
  std::int64_t zk_slow = 0;
  std::int64_t static_slow = 0;
  for (auto _ : state) {
    const auto end = steady_clock::now() + kRenewalRun;
    while (steady_clock::now() < end) {
      if (!timed_block(*zk_generator, 1000, *zk_histogram, zk_slow, ec) ||
          !timed_block(*static_generator, 1000, *static_histogram, static_slow, ec)) {
        state.SkipWithError(ec.message().c_str());
        return;
      }
    }
  }
  const cosid::RuntimeMetrics zk_after = zk_runtime->metrics();
  const cosid::RuntimeMetrics static_after = static_runtime->metrics();
  const double zk_tail = zk_histogram->quantile_ns(0.999);
  const double static_tail = static_histogram->quantile_ns(0.999);
  state.counters["zk_p50_ns"] = zk_histogram->quantile_ns(0.50);
  state.counters["zk_p99_ns"] = zk_histogram->quantile_ns(0.99);
  state.counters["zk_p99.9_ns"] = zk_tail;
  state.counters["zk_max_ns"] = static_cast<double>(zk_histogram->max_ns());
  state.counters["static_p50_ns"] = static_histogram->quantile_ns(0.50);
  state.counters["static_p99_ns"] = static_histogram->quantile_ns(0.99);
  state.counters["static_p99.9_ns"] = static_tail;
  state.counters["static_max_ns"] = static_cast<double>(static_histogram->max_ns());
  state.counters["zk_over_100us"] = static_cast<double>(zk_slow);
  state.counters["static_over_100us"] = static_cast<double>(static_slow);
  state.counters["zk_over_static_p99.9"] = static_tail > 0 ? zk_tail / static_tail : 0;
  state.counters["zk_renewals"] =
      static_cast<double>(zk_after.lease_renewals - zk_before.lease_renewals);
  state.counters["zk_renewal_failures"] =
      static_cast<double>(zk_after.lease_renewal_failures - zk_before.lease_renewal_failures);
  state.counters["static_writes"] =
      static_cast<double>(static_after.state_writes - static_before.state_writes);
  state.counters["ceiling_waits"] =
      static_cast<double>(zk_after.ceiling_waits - zk_before.ceiling_waits +
                          static_after.ceiling_waits - static_before.ceiling_waits);
  state.SetLabel(target_name(state.range(0)));
  (void)zk_runtime->close(status);
  (void)static_runtime->close(status);
}
BENCHMARK(BM_ZkNextUnderRenewal)
    ->Arg(kLocal)
    ->Arg(kEnsemble)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);

}  // namespace
