// SPDX-License-Identifier: Apache-2.0
// A Runtime that leases its slot: the StoreRegistry (built-in and registered stores), distinct
// slots for runtimes sharing a store, a lost lease turned into slot_lost and a new generator over
// a new slot, the ordered shutdown releasing with the exact last timestamp, and the events. With
// ManualClock and no background thread, so the test decides when the keeper runs.
#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cosid/clock.h"
#include "cosid/lease/memory_store.h"
#include "cosid/metrics.h"
#include "cosid/runtime.h"
#include "cosid/store_registry.h"
#include "support/fork_support.h"
#include "support/frozen_calls.h"
#include "support/gate.h"
#include "support/runtime_setup.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using testing::Gate;
using testing::GateClock;
using testing::kHangBound;
using testing::LatchedStore;
using testing::RecordingListener;
using testing::returns_without_waiting;
using testing::run_in_child;

class LeaseRuntimeTest : public ::testing::Test {
 protected:
  std::int64_t unix_ms_of(std::uint64_t id) const {
    return options_.layout.tick_start_ms(options_.layout.parse(id).timestamp);
  }

  LeaseRuntimeTest() {
    options_.store_type = "memory";
    options_.namespace_name = "orders";
    options_.start_wait = milliseconds(31000);
    environment_.clock = &clock_;
    environment_.listener = &listener_;
    environment_.stores = &stores_;
    environment_.background_thread = false;
  }

  std::unique_ptr<Runtime> open(const Options& options) {
    Status status;
    auto runtime = Runtime::open(options, environment_, status);
    EXPECT_NE(runtime, nullptr) << status.message();
    EXPECT_OK(status);
    return runtime;
  }

  std::uint64_t next(Generator& generator) {
    Status status;
    const std::uint64_t id = generator.next(status);
    EXPECT_OK(status);
    return id;
  }

  // A crashed holder: a store of the test's own (type "mine") whose slot 0 it leased, never to
  // renew nor release it. Its lease is in `crashed`.
  void crashed_holder_of_slot_0(lease::SlotLease& crashed) {
    auto store = std::make_shared<lease::MemoryLeaseStore>(clock_);
    Status status;
    ASSERT_TRUE(stores_.add(
        "mine", [store](const StoreContext&, Status&) { return store; }, status));
    options_.store_type = "mine";
    lease::AcquireRequest request;
    request.name_space = "orders";
    request.slot = 0;
    request.owner.key = "crashed";
    ASSERT_TRUE(lease::Incarnation::random(request.owner.incarnation, status));
    lease::AcquireOutcome outcome;
    lease::SlotRecord record;
    ASSERT_TRUE(store->acquire(request, outcome, crashed, record, status)) << status.message();
    ASSERT_EQ(outcome, lease::AcquireOutcome::kAcquired);
  }

  // A LatchedStore under the type "latched", on clock_.
  std::shared_ptr<LatchedStore> use_latched_store() {
    auto store = std::make_shared<LatchedStore>(clock_);
    EXPECT_TRUE(testing::add_latched_store(stores_, store));
    options_.store_type = "latched";
    return store;
  }

  ManualClock clock_{1700000000000};
  RecordingListener listener_;
  StoreRegistry stores_{&clock_};  // the memory store decides expiry on clock_
  Options options_;
  RuntimeEnvironment environment_;
  Status status_;  // what the test's last Runtime call reported
};

TEST_F(LeaseRuntimeTest, LeasesASlotAndIssuesInsideTheLease) {
  auto runtime = open(options_);
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(runtime->slot(), 0u);
  EXPECT_EQ(runtime->ceiling_ms(), clock_.now_ms() + 30000 + 1000);
  Generator& generator = runtime->generator();
  const std::uint64_t id = next(generator);
  EXPECT_EQ(options_.layout.parse(id).slot, 0u);
  EXPECT_EQ(listener_.count(EventKind::kLeaseAcquired), 1);
}

TEST_F(LeaseRuntimeTest, RuntimesSharingARegistryGetDistinctSlots) {
  std::vector<std::unique_ptr<Runtime>> runtimes;
  std::set<std::uint32_t> slots;
  for (int i = 0; i < 4; ++i) {
    runtimes.push_back(open(options_));
    ASSERT_NE(runtimes.back(), nullptr);
    slots.insert(runtimes.back()->slot());
  }
  EXPECT_EQ(slots, (std::set<std::uint32_t>{0, 1, 2, 3}));
}

TEST_F(LeaseRuntimeTest, MemoryWithoutARegistryIsRefused) {
  environment_.stores = nullptr;
  EXPECT_EQ(Runtime::open(options_, environment_, status_), nullptr);
  EXPECT_STATUS(status_, errc::unknown_store_type);
  EXPECT_NE(status_.message().find("RuntimeEnvironment::stores"), std::string::npos)
      << status_.message();
}

TEST_F(LeaseRuntimeTest, AnUnregisteredTypeIsRefusedWithTheKnownOnes) {
  options_.store_type = "zookeeper";
  EXPECT_EQ(Runtime::open(options_, environment_, status_), nullptr);
  EXPECT_STATUS(status_, errc::unknown_store_type);
  EXPECT_NE(status_.message().find("memory, file"), std::string::npos) << status_.message();
}

TEST_F(LeaseRuntimeTest, ARegisteredStoreIsChosenByItsName) {
  auto mine = std::make_shared<lease::MemoryLeaseStore>(clock_);
  int opened = 0;
  ASSERT_NO_THROW(stores_.add(
      "mine",
      [&](const StoreContext& context, Status& status) -> std::shared_ptr<lease::SlotLeaseStore> {
        ++opened;
        EXPECT_EQ(context.options.store_type, "mine");
        status.clear();
        return mine;
      }));
  options_.store_type = "mine";
  auto runtime = open(options_);
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(opened, 1);
  std::vector<lease::SlotRecord> records;
  std::int64_t now = 0;
  Status status;
  lease::NamespaceTerms terms;
  ASSERT_TRUE(mine->scan("orders", terms, records, now, status)) << status.message();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_TRUE(records[0].held);
}

TEST_F(LeaseRuntimeTest, RegistryRefusesStaticBadNamesAndDuplicates) {
  const auto factory = [](const StoreContext&, Status&) {
    return std::shared_ptr<lease::SlotLeaseStore>();
  };
  Status status;
  for (const char* name : {"static", "memory", "file", "", "Upper", "has space"}) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(stores_.add(name, factory, status));
    EXPECT_STATUS(status, errc::invalid_argument);
  }
  EXPECT_TRUE(stores_.add("zk-1.b_c", factory, status)) << status.message();
  EXPECT_EQ(stores_.types(), (std::vector<std::string>{"memory", "file", "zk-1.b_c"}));
}

// open() passes on the factory's Status, and gives one of its own to a factory that returned no
// store without saying why.
TEST_F(LeaseRuntimeTest, RegistryOpenReportsWhyThereIsNoStore) {
  Status status;
  ASSERT_TRUE(stores_.add(
      "silent",
      [](const StoreContext&, Status&) { return std::shared_ptr<lease::SlotLeaseStore>(); },
      status));
  options_.store_type = "silent";
  EXPECT_EQ(stores_.open(StoreContext{options_, clock_}, status), nullptr);
  EXPECT_STATUS(status, errc::store_unavailable);
  EXPECT_NE(status.message().find("\"silent\" returned no store and no error"), std::string::npos)
      << status.message();
  options_.store_type = "file";
  options_.store_directory.clear();
  EXPECT_EQ(stores_.open(StoreContext{options_, clock_}, status), nullptr);
  EXPECT_STATUS(status, errc::invalid_argument);
  EXPECT_NE(status.message().find("the file store needs a directory"), std::string::npos)
      << status.message();
}

TEST_F(LeaseRuntimeTest, ALostLeaseFailsItsGeneratorAndTheNextOneIssuesOnANewSlot) {
  auto runtime = open(options_);
  Generator& old_generator = runtime->generator();
  const std::uint64_t old_id = next(old_generator);
  const std::int64_t old_ceiling = runtime->ceiling_ms();
  // The holder stalls past its expiry; another runtime takes its slot.
  clock_.advance(milliseconds(31001));
  auto other = open(options_);
  ASSERT_EQ(other->slot(), 0u);
  EXPECT_TRUE(runtime->maintain(status_)) << status_.message();  // the renewal finds the lease gone
  EXPECT_EQ(listener_.count(EventKind::kLeaseLost), 1);
  std::error_code ec;
  (void)old_generator.next(ec);
  EXPECT_ERRC(ec, errc::slot_lost);
  Generator* fresh = runtime->generator("default", status_);
  ASSERT_NE(fresh, nullptr) << status_.message();
  EXPECT_NE(fresh, &old_generator);
  EXPECT_EQ(runtime->slot(), 1u);
  EXPECT_GE(runtime->floor_ms(), old_ceiling);
  clock_.set_ms(runtime->floor_ms() + 1);
  const std::uint64_t id = next(*fresh);
  EXPECT_EQ(options_.layout.parse(id).slot, 1u);
  EXPECT_GT(id, old_id);         // the floor above the old ceiling keeps the runtime's ids growing
  (void)old_generator.next(ec);  // the old pointer stays valid, and lost
  EXPECT_ERRC(ec, errc::slot_lost);
}

// The new slot's floor is the lost lease's ceiling; with the clock behind it and standing still,
// the generator's clock_behind_floor says this process issued up to it, not a previous holder.
TEST_F(LeaseRuntimeTest, BehindTheFloorAfterALossNamesThisProcessNotAPreviousHolder) {
  auto runtime = open(options_);
  Generator& old_generator = runtime->generator();
  (void)next(old_generator);
  clock_.advance(milliseconds(31001));
  auto other = open(options_);  // takes slot 0
  EXPECT_TRUE(runtime->maintain(status_)) << status_.message();
  Generator* fresh = runtime->generator("default", status_);
  ASSERT_NE(fresh, nullptr) << status_.message();
  clock_.set_ms(runtime->floor_ms() - 5000);  // the wall clock steps back behind the new floor
  clock_.set_on_sleep(ManualClock::OnSleep::kAdvanceMonotonic);  // the wall clock stands still
  (void)fresh->next(status_);
  EXPECT_STATUS(status_, errc::clock_behind_floor);
  EXPECT_NE(status_.message().find("this process may have issued ids up to the floor on slot 0, "
                                   "whose lease was lost"),
            std::string::npos)
      << status_.message();
  EXPECT_EQ(status_.message().find("previous holder"), std::string::npos) << status_.message();
}

// metrics() of a leased runtime: the current lease's window and slot, the lease counters from
// the keeper, and the ids of every generator it had, the one retired by the loss included.
TEST_F(LeaseRuntimeTest, MetricsFollowTheLeaseAcrossALoss) {
  auto runtime = open(options_);
  Generator& old_generator = runtime->generator();
  (void)next(old_generator);
  (void)next(old_generator);
  clock_.advance(milliseconds(10001));  // past ttl/3: a renewal is due
  EXPECT_TRUE(runtime->maintain(status_)) << status_.message();
  RuntimeMetrics metrics = runtime->metrics();
  EXPECT_EQ(metrics.namespace_name, "orders");
  EXPECT_EQ(metrics.slot, 0u);
  EXPECT_EQ(metrics.ids_issued, 2u);
  EXPECT_EQ(metrics.lease_renewals, 1u);
  EXPECT_EQ(metrics.lease_losses, 0u);
  EXPECT_EQ(metrics.ceiling_ms, runtime->ceiling_ms());
  // No state file with a store: no ceiling written, none timed.
  EXPECT_EQ(metrics.state_writes, 0u);
  EXPECT_EQ(metrics.state_slow_syncs, 0u);
  EXPECT_EQ(metrics.state_sync_max_us, 0);

  clock_.advance(milliseconds(31001));  // stalled past the expiry; another runtime takes slot 0
  auto other = open(options_);
  EXPECT_TRUE(runtime->maintain(status_)) << status_.message();
  Generator* fresh = runtime->generator("default", status_);
  ASSERT_NE(fresh, nullptr) << status_.message();
  clock_.set_ms(runtime->floor_ms() + 1);
  (void)next(*fresh);
  metrics = runtime->metrics();
  EXPECT_EQ(metrics.slot, 1u);
  EXPECT_EQ(metrics.lease_losses, 1u);
  EXPECT_EQ(metrics.ids_issued, 3u);  // two on the lost slot, one on the new
  EXPECT_EQ(metrics.floor_ms, runtime->floor_ms());
}

TEST_F(LeaseRuntimeTest, CloseReleasesWithTheExactLastTimestamp) {
  std::int64_t last = 0;
  {
    auto runtime = open(options_);
    Generator& generator = runtime->generator();
    (void)next(generator);
    clock_.advance(milliseconds(25));
    last = unix_ms_of(next(generator));
    EXPECT_TRUE(runtime->close(status_)) << status_.message();
    EXPECT_EQ(listener_.count(EventKind::kLeaseReleased), 1);
    EXPECT_EQ(runtime->generator("default", status_), nullptr);
    EXPECT_STATUS(status_, errc::closed);
  }
  // The next runtime gets the same slot, starting right after the last id: no wait for the
  // ceiling, which lies 31 s ahead.
  clock_.advance(milliseconds(1));
  auto next_runtime = open(options_);
  EXPECT_EQ(next_runtime->slot(), 0u);
  EXPECT_EQ(next_runtime->floor_ms(), last);
  EXPECT_EQ(listener_.count(EventKind::kWaitingForFloor), 0);
}

TEST_F(LeaseRuntimeTest, AFloorAheadOfTheClockIsWaitedOutAtStart) {
  lease::SlotLease crashed;
  ASSERT_NO_FATAL_FAILURE(crashed_holder_of_slot_0(crashed));
  clock_.advance(milliseconds(30001));  // past the expiry, not yet past the ceiling
  auto newcomer = open(options_);
  ASSERT_NE(newcomer, nullptr);
  EXPECT_EQ(newcomer->slot(), 0u);
  EXPECT_EQ(newcomer->floor_ms(), crashed.ceiling);
  EXPECT_GT(clock_.now_ms(), crashed.ceiling);  // start-up waited for the clock to pass it
  EXPECT_EQ(listener_.count(EventKind::kWaitingForFloor), 1);
  const std::uint64_t id = next(newcomer->generator());
  EXPECT_GT(unix_ms_of(id), crashed.ceiling);
}

// The same crashed holder, with a start wait too short to wait it out: the start's message says a
// previous holder of the slot may have issued up to the floor, since one did.
TEST_F(LeaseRuntimeTest, BehindAPreviousHoldersCeilingTheStartNamesIt) {
  lease::SlotLease crashed;
  ASSERT_NO_FATAL_FAILURE(crashed_holder_of_slot_0(crashed));
  clock_.advance(milliseconds(30001));  // past the expiry, about a second short of the ceiling
  options_.start_wait = milliseconds(10);
  EXPECT_EQ(Runtime::open(options_, environment_, status_), nullptr);
  EXPECT_STATUS(status_, errc::clock_behind_floor);
  EXPECT_NE(status_.message().find(": a previous holder of slot 0 may have issued ids up to the "
                                   "floor, so none can be issued before "),
            std::string::npos)
      << status_.message();
}

TEST_F(LeaseRuntimeTest, BackgroundRenewalsLetTwoThreadsIssuePastTheFirstCeiling) {
  SystemClock system;
  StoreRegistry stores;
  RuntimeEnvironment environment;
  environment.clock = &system;
  environment.stores = &stores;
  environment.listener = &listener_;
  options_.ttl = milliseconds(300);
  options_.tolerance = milliseconds(100);
  auto runtime = Runtime::open(options_, environment, status_);
  ASSERT_NE(runtime, nullptr) << status_.message();
  const std::int64_t first_ceiling = runtime->ceiling_ms();
  Generator& generator = runtime->generator();
  std::vector<std::vector<std::uint64_t>> ids(2);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < ids.size(); ++t) {
    threads.emplace_back([&, t] {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      std::error_code error;
      while (std::chrono::steady_clock::now() < deadline) {
        const std::uint64_t id = generator.next(error);
        if (error) break;
        ids[t].push_back(id);
        if (unix_ms_of(id) > first_ceiling) break;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<std::uint64_t> seen;
  std::size_t total = 0;
  for (const auto& list : ids) {
    ASSERT_FALSE(list.empty());
    EXPECT_GT(unix_ms_of(list.back()), first_ceiling) << "no renewal raised the ceiling";
    seen.insert(list.begin(), list.end());
    total += list.size();
  }
  EXPECT_EQ(seen.size(), total);
  EXPECT_TRUE(runtime->close(status_)) << status_.message();
  EXPECT_EQ(listener_.count(EventKind::kLeaseReleased), 1);
}

// What a forked child of a process with a leased runtime may do, whatever the parent's threads
// held at the fork: every call returns at once, and none acts on the parent's window.
bool child_finds_the_window_the_parents(std::unique_ptr<Runtime>& runtime) {
  Status status;
  if (runtime->generator("default", status) != nullptr || status.code() != errc::forked_process)
    return false;
  status.clear();
  if (runtime->maintain(status) || status.code() != errc::forked_process) return false;
  const RuntimeMetrics metrics = runtime->metrics();
  if (metrics.slot != runtime->slot() || metrics.ceiling_ms != runtime->ceiling_ms() ||
      metrics.floor_ms != runtime->floor_ms() || metrics.ceiling_ms <= metrics.floor_ms) {
    return false;
  }
  status.clear();
  if (!runtime->close(status)) return false;  // releases nothing: the lease is the parent's
  runtime.reset();                            // nor does destroying it
  return true;
}

// A parent thread is inside generator(), holding the runtime's generator lock (it stops in the
// clock reading that making the generator does), when the process forks. The child's close()
// used to lock it, and waited for good: the thread that held it is not in the child.
TEST_F(LeaseRuntimeTest, AForkedChildClosesWhileAParentThreadHoldsTheGeneratorLock) {
  const std::string unseen = wipe_on_fork_not_honoured();
  if (!unseen.empty()) GTEST_SKIP() << unseen;
  GateClock clock(clock_);
  environment_.clock = &clock;
  auto runtime = open(options_);
  ASSERT_NE(runtime, nullptr);
  std::thread holder([&] {
    clock.arm(GateClock::Read::kWall, 1);
    Status status;
    (void)runtime->generator("default", status);
  });
  ASSERT_TRUE(clock.gate.wait_entered());
  EXPECT_TRUE(run_in_child([&] { return child_finds_the_window_the_parents(runtime); }));
  clock.gate.open();
  holder.join();
  // The parent goes on, and its close releases the lease.
  Generator* generator = runtime->generator("default", status_);
  ASSERT_NE(generator, nullptr) << status_.message();
  EXPECT_NE(generator->next(status_), 0u);
  EXPECT_OK(status_);
  EXPECT_TRUE(runtime->close(status_)) << status_.message();
  EXPECT_EQ(listener_.count(EventKind::kLeaseReleased), 1);
}

// A parent thread is inside a renewal that the store takes its time over, holding the keeper's
// lock, when the process forks. The child's accessors used to wait on that lock for good.
TEST_F(LeaseRuntimeTest, AForkedChildNeverWaitsForAStoreCallInProgress) {
  const std::string unseen = wipe_on_fork_not_honoured();
  if (!unseen.empty()) GTEST_SKIP() << unseen;
  auto store = use_latched_store();
  auto runtime = open(options_);
  ASSERT_NE(runtime, nullptr);
  clock_.advance(milliseconds(10001));  // past ttl/3: a renewal is due
  store->block_next_renewal();
  std::thread renewer([&] {
    Status status;
    (void)runtime->maintain(status);
  });
  ASSERT_TRUE(store->gate.wait_entered());
  EXPECT_TRUE(run_in_child([&] { return child_finds_the_window_the_parents(runtime); }));
  store->gate.open();
  renewer.join();
  EXPECT_EQ(store->renewals(), 1);  // the parent's renewal only: the child made none
  EXPECT_TRUE(runtime->close(status_)) << status_.message();
  EXPECT_EQ(listener_.count(EventKind::kLeaseReleased), 1);
}

// Waits (at most kHangBound) until every thread of this process but the caller is asleep
// (state S in /proc/self/task/TID/stat): the writer thread of a runtime then waits on its
// condition variable.
bool other_threads_asleep() {
  const std::string self = std::to_string(static_cast<long long>(gettid()));
  const auto deadline = std::chrono::steady_clock::now() + kHangBound;
  while (std::chrono::steady_clock::now() < deadline) {
    bool all = true;
    int others = 0;
    DIR* tasks = opendir("/proc/self/task");
    if (tasks == nullptr) return false;
    while (const dirent* entry = readdir(tasks)) {
      const std::string tid = entry->d_name;
      if (tid == "." || tid == ".." || tid == self) continue;
      ++others;
      std::ifstream stat("/proc/self/task/" + tid + "/stat");
      std::string line;
      std::getline(stat, line);
      const std::size_t end = line.rfind(')');  // the name may hold spaces
      if (end == std::string::npos || end + 2 >= line.size() || line[end + 2] != 'S') all = false;
    }
    closedir(tasks);
    if (all && others > 0) return true;
    std::this_thread::yield();
  }
  return false;
}

// A static runtime's writer thread waits on a condition variable between rounds. A child that
// destroyed its copy of the runtime destroyed that condition variable, which in glibc waits for
// the waiters it records, and the one recorded is a parent thread the child does not have.
TEST(ForkedChildTest, DestroyingARuntimeWhoseWriterThreadWaitsDoesNotBlock) {
  const std::string unseen = wipe_on_fork_not_honoured();
  if (!unseen.empty()) GTEST_SKIP() << unseen;
  const TempDir dir("lease_runtime_fork");
  ASSERT_FALSE(dir.path().empty());
  Options options;
  options.slot = 2;
  options.state_file = dir.file("state");
  Status status;
  auto runtime = Runtime::open(options, {}, status);  // with its writer thread
  ASSERT_NE(runtime, nullptr) << status.message();
  ASSERT_TRUE(other_threads_asleep()) << "the writer thread never went to sleep";
  EXPECT_TRUE(run_in_child([&] {
    Status child_status;
    const bool refused = runtime->generator("default", child_status) == nullptr &&
                         child_status.code() == errc::forked_process;
    runtime.reset();
    return refused;
  }));
  EXPECT_TRUE(runtime->close(status)) << status.message();
}

// While a renewal sits in the store with the keeper's lock held, metrics(), the accessors and
// generator() return at once with the window as it was (runtime.h: they never wait on a lock
// held across a store call). They used to wait for the store.
TEST_F(LeaseRuntimeTest, MetricsAndAccessorsDoNotWaitForAStoreCallInProgress) {
  auto store = use_latched_store();
  auto runtime = open(options_);
  ASSERT_NE(runtime, nullptr);
  const std::int64_t ceiling = runtime->ceiling_ms();
  clock_.advance(milliseconds(10001));  // past ttl/3: a renewal is due
  store->block_next_renewal();
  std::thread renewer([&] {
    Status status;
    (void)runtime->maintain(status);
  });
  ASSERT_TRUE(store->gate.wait_entered());
  RuntimeMetrics metrics;
  std::int64_t accessor_ceiling = 0;
  Generator* generator = nullptr;
  EXPECT_TRUE(returns_without_waiting(
      [&] {
        metrics = runtime->metrics();
        accessor_ceiling = runtime->ceiling_ms();
        generator = runtime->generator("default", status_);
      },
      [&] { store->gate.open(); }))
      << "a call waited for the store";
  store->gate.open();
  renewer.join();
  EXPECT_EQ(metrics.ceiling_ms, ceiling);
  EXPECT_EQ(metrics.slot, 0u);
  EXPECT_EQ(accessor_ceiling, ceiling);
  EXPECT_NE(generator, nullptr) << status_.message();
  EXPECT_GT(runtime->ceiling_ms(), ceiling);  // the renewal landed
  EXPECT_TRUE(runtime->close(status_)) << status_.message();
}

// Inline mode: a generator at the ceiling makes no store call inside next(), which would run past
// its wait bound for as long as the store takes (here: until the test opens the latch). It waits
// its bound, fails with ceiling_reached, and its wish makes the next maintain() renew at once,
// although the renewal is not due yet.
TEST_F(LeaseRuntimeTest, InlineANextAtTheCeilingMakesNoStoreCallAndKeepsItsBound) {
  auto store = use_latched_store();
  environment_.generator.ceiling = milliseconds(50);
  auto runtime = open(options_);
  ASSERT_NE(runtime, nullptr);
  Generator& generator = runtime->generator();
  const std::int64_t ceiling = runtime->ceiling_ms();
  clock_.set_on_sleep(ManualClock::OnSleep::kAdvanceMonotonic);  // the wall clock stands still
  clock_.set_ms(ceiling + 1);
  clock_.advance(milliseconds(200));  // a renewal is not due (ttl/3), a wished-for one allowed
  store->block_next_renewal();
  std::error_code ec;
  std::int64_t waited_ns = 0;
  EXPECT_TRUE(returns_without_waiting(
      [&] {
        const std::int64_t begin = clock_.monotonic_ns();
        (void)generator.next(ec);
        waited_ns = clock_.monotonic_ns() - begin;
      },
      [&] { store->gate.open(); }))
      << "next() made a store call";
  EXPECT_ERRC(ec, errc::ceiling_reached);
  EXPECT_EQ(store->renewals(), 0);
  // Its own bound (and the last 1 ms sleep), not the store's time.
  EXPECT_LE(waited_ns, std::chrono::nanoseconds(milliseconds(52)).count());
  store->gate.open();  // from here on the store answers at once
  EXPECT_TRUE(runtime->maintain(status_)) << status_.message();
  EXPECT_EQ(store->renewals(), 1);
  EXPECT_GT(runtime->ceiling_ms(), ceiling + 1);
  (void)next(generator);
  EXPECT_TRUE(runtime->close(status_)) << status_.message();
}

// Inline mode: a generator comes to wait at the ceiling while another thread's maintain() holds
// the keeper's lock, having looked for work before the wish was made. The wish used to be lost
// (a try_lock that failed, never retried), and the generator failed with ceiling_reached although
// a renewal was allowed; now the maintain() in progress looks again and renews before it returns.
TEST_F(LeaseRuntimeTest, InlineAWishMadeDuringAMaintainIsServedByIt) {
  GateClock clock(clock_);
  environment_.clock = &clock;
  auto runtime = open(options_);
  ASSERT_NE(runtime, nullptr);
  Generator& generator = runtime->generator();
  const std::int64_t ceiling = runtime->ceiling_ms();
  clock_.advance(milliseconds(200));  // a renewal is not due (ttl/3), a wished-for one allowed
  clock_.set_on_sleep(ManualClock::OnSleep::kYield);  // no time passes while the generator waits
  // The maintain() stops at its second monotonic reading: past the decision, lock held.
  std::thread maintainer([&] {
    clock.arm(GateClock::Read::kMonotonic, 2);
    EXPECT_TRUE(runtime->maintain(status_)) << status_.message();
  });
  ASSERT_TRUE(clock.gate.wait_entered());
  clock_.set_ms(ceiling + 1);  // the wall clock jumps past the ceiling
  std::atomic<bool> done{false};
  std::error_code ec;
  std::uint64_t id = 0;
  std::thread waiter([&] {
    id = generator.next(ec);
    done.store(true);
  });
  const auto deadline = std::chrono::steady_clock::now() + kHangBound;
  while (generator.stats().ceiling_waits == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_EQ(generator.stats().ceiling_waits, 1u);
  clock.gate.open();
  maintainer.join();
  while (!done.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  const bool served = done.load();
  if (!served) clock_.advance(environment_.generator.ceiling + milliseconds(1));  // let it fail
  waiter.join();
  EXPECT_TRUE(served) << "the wish was lost: no renewal came while the generator waited";
  EXPECT_NO_ERROR(ec);
  EXPECT_GT(unix_ms_of(id), ceiling);
  EXPECT_EQ(runtime->metrics().lease_renewals, 1u);
  EXPECT_TRUE(runtime->close(status_)) << status_.message();
}

// The registry's memory store outlives every runtime opened through it, so it must not keep the
// clock of the runtime that opened it first: a runtime with no clock in its environment reads its
// own SystemClock, which dies with it (ASan: heap-use-after-free in MemoryLeaseStore::scan once a
// second runtime opens through the registry).
TEST(LeaseRegistryTest, TheSharedMemoryStoreOutlivesTheRuntimeThatMadeIt) {
  StoreRegistry stores;  // its memory store runs on the registry's own system clock
  Options options;
  options.store_type = "memory";
  options.namespace_name = "orders";
  RuntimeEnvironment environment;  // no clock: each runtime reads a SystemClock of its own
  environment.stores = &stores;
  environment.background_thread = false;
  Status status;
  auto first = Runtime::open(options, environment, status);
  ASSERT_NE(first, nullptr) << status.message();
  EXPECT_EQ(first->slot(), 0u);
  auto second = Runtime::open(options, environment, status);
  ASSERT_NE(second, nullptr) << status.message();
  EXPECT_EQ(second->slot(), 1u);
  EXPECT_TRUE(first->close(status)) << status.message();
  first.reset();  // the clock it was opened with is gone now
  auto third = Runtime::open(options, environment, status);  // scans the shared store
  ASSERT_NE(third, nullptr) << status.message();
  EXPECT_OK(status);
  EXPECT_EQ(third->slot(), 0u);  // the released slot, chosen on a clock that is still alive
  EXPECT_TRUE(second->close(status)) << status.message();
  EXPECT_TRUE(third->close(status)) << status.message();
}

TEST_F(LeaseRuntimeTest, EveryNameSharesTheOneLeasedGenerator) {
  auto runtime = open(options_);
  EXPECT_EQ(runtime->generator("a", status_), runtime->generator("b", status_));
}

}  // namespace
}  // namespace cosid
