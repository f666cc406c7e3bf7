// SPDX-License-Identifier: Apache-2.0
// The ZooKeeper store under server faults, against real servers, in production mode (no store
// clock: lease times from the servers' mtimes), through the public API: ZooKeeperLeaseStore, and
// Runtimes whose slot is leased from a store instance of type "zookeeper"
// (lease::add_zookeeper_store). A standalone server frozen, killed and restarted, a session
// expired by a second handle, slot nodes recreated behind the store, a real ttl expiring; and a
// three-peer ensemble losing its leader, its quorum, and led by a peer whose clock is 30 s behind;
// and four real processes leasing distinct slots, one of them killed and its slot taken over.
//
// One server (and one ensemble) per suite, each test leaving it running as it found it; every
// test uses a namespace of its own. The waits are for real time to pass (a ttl, an election):
// each is bounded, and a bound only guards a hang. Every id every generator returned is kept and
// checked at the end: none repeats, and there are as many as the generator counted.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "cosid/clock.h"
#include "cosid/generator.h"
#include "cosid/lease/store.h"
#include "cosid/options.h"
#include "cosid/runtime.h"
#include "cosid/store_registry.h"
#include "cosid/zookeeper/lease_store.h"
#include "support/temp_dir.h"
#include "support/test_util.h"
#include "zk_raw_client.h"
#include "zk_server.h"
#include "zk_store_init.h"

namespace cosid::testing {
namespace {

using lease::AcquireOutcome;
using lease::AcquireRequest;
using lease::NamespaceTerms;
using lease::Owner;
using lease::SlotLease;
using lease::SlotRecord;
using lease::ZooKeeperLeaseStore;
using lease::ZooKeeperStoreOptions;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Bounds that only guard a hang: a JVM start, an election, a session replaced.
constexpr milliseconds kHang{30000};

std::int64_t system_now_ms() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

milliseconds since(steady_clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(steady_clock::now() - start);
}

// A namespace of the running test's own.
std::string test_namespace() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string("fault-") + info->name();
  return name.size() > 150 ? name.substr(0, 150) : name;
}

Owner make_owner(const std::string& key) {
  Owner owner;
  owner.key = key;
  Status status;
  EXPECT_TRUE(lease::Incarnation::random(owner.incarnation, status)) << status.message();
  return owner;
}

NamespaceTerms terms_of(milliseconds tolerance) {
  NamespaceTerms terms;
  terms.slot_limit = 8;
  terms.tolerance = tolerance;
  return terms;
}

std::unique_ptr<ZooKeeperLeaseStore> open_store(const std::string& connect_string,
                                                milliseconds timeout) {
  ZooKeeperStoreOptions options;
  options.connect_string = connect_string;
  options.timeout = timeout;
  Status status;
  auto store = ZooKeeperLeaseStore::open(options, status);
  EXPECT_NE(store, nullptr) << status.message();
  EXPECT_OK(status);
  return store;
}

AcquireRequest request_for(const std::string& name_space, std::uint32_t slot, const Owner& owner,
                           const NamespaceTerms& terms, milliseconds ttl) {
  AcquireRequest request;
  request.name_space = name_space;
  request.slot = slot;
  request.owner = owner;
  request.terms = terms;
  request.ttl = ttl;
  return request;
}

// Acquires a free slot; the lease.
SlotLease acquire(ZooKeeperLeaseStore& store, const AcquireRequest& request) {
  AcquireOutcome outcome = AcquireOutcome::kTaken;
  SlotLease lease;
  SlotRecord record;
  Status status;
  EXPECT_TRUE(store.acquire(request, outcome, lease, record, status)) << status.message();
  EXPECT_EQ(outcome, AcquireOutcome::kAcquired);
  return lease;
}

// The slot's record as scan() reads it; slot_limit (not a slot) when it has none.
SlotRecord scanned(ZooKeeperLeaseStore& store, const std::string& name_space,
                   const NamespaceTerms& terms, std::uint32_t slot, Status& status) {
  std::vector<SlotRecord> records;
  std::int64_t now = 0;
  SlotRecord none;
  none.slot = terms.slot_limit;
  if (!store.scan(name_space, terms, records, now, status)) return none;
  for (const SlotRecord& record : records) {
    if (record.slot == slot) return record;
  }
  return none;
}

// Every id kept, and the check at the end: no repeats, and the count the generators reported.
void expect_unique(std::vector<std::uint64_t> ids, std::uint64_t issued) {
  EXPECT_EQ(ids.size(), issued);
  std::sort(ids.begin(), ids.end());
  const auto repeat = std::adjacent_find(ids.begin(), ids.end());
  EXPECT_EQ(repeat, ids.end()) << "id " << *repeat << " issued twice";
}

// Calls next() until it fails or `until` passes, keeping every id; a few ids a millisecond, so
// that the kept ids stay few. The code of the failure (none when `until` passed).
std::error_code issue_until_failure(Generator& generator, std::vector<std::uint64_t>& ids,
                                    steady_clock::time_point until) {
  while (steady_clock::now() < until) {
    for (int i = 0; i < 16; ++i) {
      std::error_code ec;
      const std::uint64_t id = generator.next(ec);
      if (ec) return ec;
      ids.push_back(id);
    }
    std::this_thread::sleep_for(milliseconds(1));
  }
  return {};
}

// Calls next() until it succeeds (then issues `more` ids besides) or `until` passes; every
// failure must be `expected`. True once ids flow.
bool issue_once_flowing(Generator& generator, std::vector<std::uint64_t>& ids,
                        steady_clock::time_point until, errc expected, int more) {
  for (;;) {
    std::error_code ec;
    const std::uint64_t id = generator.next(ec);
    if (!ec) {
      ids.push_back(id);
      break;
    }
    EXPECT_ERRC(ec, expected);
    if (steady_clock::now() >= until) return false;
  }
  for (int i = 0; i < more; ++i) {
    std::error_code ec;
    const std::uint64_t id = generator.next(ec);
    EXPECT_NO_ERROR(ec);
    if (ec) return false;
    ids.push_back(id);
  }
  return true;
}

// The options of a Runtime leasing its slot from a store instance "zk" of type "zookeeper" on
// `connect_string`, whose calls take at most `store_timeout` ("1s"); the start may wait for a
// lease to run out and then for the clock to pass its floor.
Options zk_runtime_options(const std::string& connect_string, const std::string& name_space,
                           const std::string& owner_key, milliseconds ttl, milliseconds tolerance,
                           const std::string& store_timeout) {
  Options options;
  options.store_type = "zk";
  options.namespace_name = name_space;
  options.owner_key = owner_key;
  options.ttl = ttl;
  options.tolerance = tolerance;
  options.start_wait = ttl + tolerance + milliseconds(5000);
  StoreConfig config;
  config.name = "zk";
  config.type = "zookeeper";
  config.settings = {{"options.connectString", connect_string, "test"},
                     {"timeout", store_timeout, "test"}};
  options.stores.push_back(config);
  return options;
}

// A Runtime leasing its slot from a store instance "zk" of type "zookeeper", with its own
// registry, on the system clock and its background thread.
class ZkRuntime {
 public:
  ZkRuntime(const std::string& connect_string, const std::string& name_space,
            const std::string& owner_key, milliseconds ttl, milliseconds tolerance,
            const std::string& store_timeout) {
    Status status;
    EXPECT_TRUE(lease::add_zookeeper_store(registry_, status)) << status.message();
    options_ =
        zk_runtime_options(connect_string, name_space, owner_key, ttl, tolerance, store_timeout);
    environment_.stores = &registry_;
    environment_.listener = &listener_;
    runtime_ = Runtime::open(options_, environment_, status);
    EXPECT_NE(runtime_, nullptr) << status.message();
    if (runtime_ != nullptr) {
      generator_ = runtime_->generator("default", status);
      EXPECT_NE(generator_, nullptr) << status.message();
    }
  }

  bool ok() const { return generator_ != nullptr; }
  Runtime& runtime() { return *runtime_; }
  Generator& generator() { return *generator_; }
  const Layout& layout() const { return options_.layout; }
  // The last Unix millisecond of the tick of `id`.
  std::int64_t unix_ms_of(std::uint64_t id) const {
    return options_.layout.tick_end_ms(options_.layout.parse(id).timestamp);
  }
  RecordingListener& listener() { return listener_; }

 private:
  StoreRegistry registry_;  // before the runtime: outlives it
  RecordingListener listener_;
  Options options_;
  RuntimeEnvironment environment_;
  std::unique_ptr<Runtime> runtime_;
  Generator* generator_ = nullptr;
};

// ===================================== A standalone server =====================================

class ZkStandaloneFaultTest : public ZkSuite<ZkServer> {
 protected:
  void SetUp() override {
    ZkSuite::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    // A test that failed half-way may have left it stopped or down.
    Status status;
    ASSERT_TRUE(servers()->serve_again(status)) << status.message();
    ASSERT_TRUE(init_zk_store(connect_string()));
    name_space_ = test_namespace();
  }

  std::string connect_string() const { return servers()->connect_string(); }

  std::string name_space_;
};

// --- Real processes (first: a child must inherit no client thread, and under TSan no report) ---

constexpr std::size_t kChildren = 4;
constexpr milliseconds kTtl{2000};
constexpr milliseconds kTolerance{500};
constexpr char kNamespace[] = "processes";

// Two slot bits: the namespace has four slots, one per child, so a newcomer must wait for one.
Layout four_slot_layout() {
  Layout layout;
  layout.slot_bits = 2;
  return layout;
}

// The options of every runtime here: four slots, a store call at most 2 s.
Options runtime_options(const std::string& connect_string, const std::string& owner_key) {
  Options options =
      zk_runtime_options(connect_string, kNamespace, owner_key, kTtl, kTolerance, "2s");
  options.layout = four_slot_layout();
  return options;
}

// A child: opens its runtime, issues ids for ~2 s (a few a millisecond, so that the files stay
// small), writes "SLOT ISSUED\n" (ISSUED: its generator's count) then one id a line to `path`,
// closes `ready` (the parent's cue), and holds its lease until the parent closes `release` (or
// kills it). No GoogleTest here: the exit status says what failed.
[[noreturn]] void child_main(const std::string& connect_string, int index, const std::string& path,
                             int ready, int release) {
  StoreRegistry registry;
  Status status;
  if (!lease::add_zookeeper_store(registry, status)) ::_exit(10);
  RuntimeEnvironment environment;
  environment.stores = &registry;
  // The acquire of a namespace whose slots are all taken is retried for a ttl; four children
  // racing for four slots never need it, a newcomer does.
  const Options options = runtime_options(connect_string, "child-" + std::to_string(index));
  std::unique_ptr<Runtime> runtime = Runtime::open(options, environment, status);
  if (runtime == nullptr) {
    std::fprintf(stderr, "child %d: %s\n", index, status.message().c_str());
    ::_exit(11);
  }
  Generator* generator = runtime->generator("default", status);
  if (generator == nullptr) ::_exit(12);
  std::vector<std::uint64_t> ids;
  const auto until = steady_clock::now() + milliseconds(2000);
  while (steady_clock::now() < until) {
    for (int i = 0; i < 16; ++i) {
      std::error_code ec;
      const std::uint64_t id = generator->next(ec);
      if (ec) {
        std::fprintf(stderr, "child %d: next() failed: %s\n", index, ec.message().c_str());
        ::_exit(13);
      }
      ids.push_back(id);
    }
    std::this_thread::sleep_for(milliseconds(1));
  }
  {
    std::ofstream out(path);
    out << runtime->slot() << " " << generator->stats().ids_issued << "\n";
    for (const std::uint64_t id : ids) out << id << "\n";
    if (!out.flush()) ::_exit(14);
  }
  ::close(ready);
  char byte;
  while (::read(release, &byte, 1) > 0) {
  }
  if (!runtime->close(status)) ::_exit(15);
  ::_exit(0);
}

struct ChildFile {
  std::uint32_t slot = 0;
  std::uint64_t issued = 0;  // as the child's generator counted
  std::vector<std::uint64_t> ids;
};

bool read_child_file(const std::string& path, ChildFile& file) {
  std::ifstream in(path);
  if (!(in >> file.slot >> file.issued)) return false;
  std::uint64_t id = 0;
  while (in >> id) file.ids.push_back(id);
  return true;
}

// Real processes: four children (fork), each with a Runtime of its own, issue ids at once for
// about 2 s and write every id to a file; they hold distinct slots and no id repeats. Then one
// holder is killed (SIGKILL) and a newcomer opens a Runtime in the namespace of four slots, all
// held: it gets the dead holder's slot only once its lease ran out (ttl 2 s, tolerance 500 ms),
// and every id it issues there lies above the dead holder's ceiling.
TEST_F(ZkStandaloneFaultTest,
       FourProcessesHoldDistinctSlotsAndANewcomerStartsAboveTheDeadOnesCeiling) {
  const std::string connect_string = servers()->connect_string();
  const TempDir dir("zk_process");
  // Forked before this process opens any ZooKeeper client: a child inherits no client threads.
  int release[2];
  ASSERT_EQ(::pipe(release), 0);
  std::vector<pid_t> children;
  std::vector<int> ready;
  for (std::size_t i = 0; i < kChildren; ++i) {
    int cue[2];
    ASSERT_EQ(::pipe(cue), 0);
    const std::string path = dir.path() + "/child-" + std::to_string(i);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(cue[0]);
      ::close(release[1]);
      child_main(connect_string, static_cast<int>(i), path, cue[1], release[0]);
    }
    ::close(cue[1]);
    children.push_back(pid);
    ready.push_back(cue[0]);
  }
  ::close(release[0]);
  // Each child closes its cue once its file is written; a child that died closes it too.
  for (const int cue : ready) {
    char byte;
    while (::read(cue, &byte, 1) > 0) {
    }
    ::close(cue);
  }

  const Layout layout = four_slot_layout();
  std::vector<ChildFile> files(kChildren);
  std::set<std::uint32_t> slots;
  std::vector<std::uint64_t> all;
  for (std::size_t i = 0; i < kChildren; ++i) {
    ASSERT_TRUE(read_child_file(dir.path() + "/child-" + std::to_string(i), files[i]))
        << "child " << i << " wrote no file";
    EXPECT_GT(files[i].ids.size(), 1000u) << "child " << i;
    EXPECT_EQ(files[i].ids.size(), files[i].issued) << "child " << i;
    slots.insert(files[i].slot);
    for (const std::uint64_t id : files[i].ids) {
      EXPECT_EQ(layout.parse(id).slot, files[i].slot);
      all.push_back(id);
    }
  }
  EXPECT_EQ(slots, (std::set<std::uint32_t>{0, 1, 2, 3}));
  std::size_t total = 0;
  for (const ChildFile& file : files) total += file.ids.size();
  std::vector<std::uint64_t> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  EXPECT_EQ(sorted.size(), total);

  // The victim's lease as the store has it, then SIGKILL: its last renewal stays.
  const std::size_t victim = 1;
  const std::uint32_t victim_slot = files[victim].slot;
  lease::ZooKeeperStoreOptions store_options;
  store_options.connect_string = connect_string;
  Status status;
  auto store = lease::ZooKeeperLeaseStore::open(store_options, status);
  ASSERT_NE(store, nullptr) << status.message();
  lease::NamespaceTerms terms;
  terms.slot_limit = 4;
  terms.tolerance = kTolerance;
  std::vector<lease::SlotRecord> records;
  std::int64_t store_now = 0;
  ASSERT_TRUE(store->scan(kNamespace, terms, records, store_now, status)) << status.message();
  ASSERT_EQ(records.size(), 4u);
  const lease::SlotRecord before = records[victim_slot];
  ASSERT_EQ(before.owner.key, "child-" + std::to_string(victim));
  ASSERT_EQ(::kill(children[victim], SIGKILL), 0);
  int wait_status = 0;
  ASSERT_EQ(::waitpid(children[victim], &wait_status, 0), children[victim]);
  EXPECT_TRUE(WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL);
  const auto killed = steady_clock::now();

  // At once the slot is still the dead holder's.
  lease::AcquireRequest request;
  request.name_space = kNamespace;
  request.slot = victim_slot;
  ASSERT_TRUE(lease::Incarnation::random(request.owner.incarnation, status));
  request.owner.key = "early";
  request.terms = terms;
  request.ttl = kTtl;
  lease::AcquireOutcome outcome = lease::AcquireOutcome::kAcquired;
  lease::SlotLease early;
  lease::SlotRecord holder;
  ASSERT_TRUE(store->acquire(request, outcome, early, holder, status)) << status.message();
  EXPECT_EQ(outcome, lease::AcquireOutcome::kTaken);
  EXPECT_EQ(holder.owner.key, before.owner.key);

  // The newcomer: the three other slots are held and renewed, so it gets the dead one's, once its
  // lease ran out, and issues only past its ceiling.
  StoreRegistry registry;
  ASSERT_TRUE(lease::add_zookeeper_store(registry, status)) << status.message();
  RuntimeEnvironment environment;
  environment.stores = &registry;
  // Its start retries a namespace whose slots are all held for one ttl; started again until it
  // gets a slot, so that a slow machine cannot make it give up just before the lease runs out.
  std::unique_ptr<Runtime> newcomer;
  while (newcomer == nullptr && steady_clock::now() - killed < milliseconds(30000)) {
    newcomer = Runtime::open(runtime_options(connect_string, "newcomer"), environment, status);
    if (newcomer == nullptr) {
      ASSERT_STATUS(status, errc::lease_exhausted);
    }
  }
  ASSERT_NE(newcomer, nullptr) << status.message();
  const auto opened = steady_clock::now();
  const std::int64_t opened_at =
      std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  EXPECT_GT(opened_at, before.ceiling);
  EXPECT_EQ(newcomer->slot(), victim_slot);
  EXPECT_GE(newcomer->floor_ms(), before.ceiling);
  // Not before the dead holder's lease could run out: its last renewal came at most ttl/3
  // before the scan.
  EXPECT_GE(opened - killed, kTtl + kTolerance - kTtl / 3 - milliseconds(100));
  Generator* generator = newcomer->generator("default", status);
  ASSERT_NE(generator, nullptr) << status.message();
  std::vector<std::uint64_t> fresh;
  for (int i = 0; i < 2000; ++i) {
    std::error_code ec;
    const std::uint64_t id = generator->next(ec);
    ASSERT_NO_ERROR(ec);
    fresh.push_back(id);
  }
  std::uint64_t victims_last = 0;
  for (const std::uint64_t id : files[victim].ids) victims_last = std::max(victims_last, id);
  for (const std::uint64_t id : fresh) {
    const IdParts parts = layout.parse(id);
    EXPECT_EQ(parts.slot, victim_slot);
    EXPECT_GT(layout.tick_start_ms(parts.timestamp), before.ceiling);
    EXPECT_GT(id, victims_last);
  }
  EXPECT_EQ(fresh.size(), generator->stats().ids_issued);
  all.insert(all.end(), fresh.begin(), fresh.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  EXPECT_EQ(all.size(), total + fresh.size());
  EXPECT_TRUE(newcomer->close(status)) << status.message();

  // The others release and exit cleanly.
  ::close(release[1]);
  for (std::size_t i = 0; i < kChildren; ++i) {
    if (i == victim) continue;
    ASSERT_EQ(::waitpid(children[i], &wait_status, 0), children[i]);
    EXPECT_TRUE(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0)
        << "child " << i << " status " << wait_status;
  }
}

// --- Faults of the server ---

// A frozen server (SIGSTOP) answers nothing: a renewal fails with store_unavailable within the
// store's timeout, and a Runtime's generator issues up to its ceiling and stops there with
// ceiling_reached; once the server runs again, renewals succeed and ids flow, none repeated.
TEST_F(ZkStandaloneFaultTest, FrozenServerFailsRenewalsInTimeAndStopsIdsAtTheCeiling) {
  const milliseconds timeout(2000);
  auto store = open_store(connect_string(), timeout);
  ASSERT_NE(store, nullptr);
  const NamespaceTerms terms = terms_of(milliseconds(1000));
  const SlotLease held =
      acquire(*store, request_for(name_space_, 0, make_owner("direct"), terms, milliseconds(4000)));
  ASSERT_EQ(held.fence, 1u);

  ZkRuntime leased(connect_string(), name_space_ + "-runtime", "runtime", milliseconds(4000),
                   milliseconds(1000), "1s");
  ASSERT_TRUE(leased.ok());
  std::vector<std::uint64_t> ids;
  const std::error_code flowing =
      issue_until_failure(leased.generator(), ids, steady_clock::now() + milliseconds(300));
  ASSERT_NO_ERROR(flowing);

  servers()->pause();
  const auto before = steady_clock::now();
  SlotLease renewed;
  Status status;
  EXPECT_FALSE(store->renew(held, terms, milliseconds(4000), renewed, status));
  EXPECT_STATUS(status, errc::store_unavailable);
  EXPECT_LE(since(before), timeout + milliseconds(2000));

  // The generator goes on to the ceiling it has (at most ttl + tolerance away), then stops.
  const std::error_code stopped =
      issue_until_failure(leased.generator(), ids, steady_clock::now() + kHang);
  const std::int64_t stopped_at = system_now_ms();
  EXPECT_ERRC(stopped, errc::ceiling_reached);
  const std::int64_t ceiling = leased.runtime().ceiling_ms();
  EXPECT_GT(stopped_at, ceiling);  // it stopped because the clock passed the ceiling
  std::int64_t last = 0;
  for (const std::uint64_t id : ids) last = std::max(last, leased.unix_ms_of(id));
  EXPECT_LE(last, ceiling);
  EXPECT_GE(last, ceiling - 500) << "the generator stopped well before its ceiling";
  const std::size_t before_resume = ids.size();

  servers()->resume();
  // The store's session outlived the pause (40 s granted): the renewal succeeds under the fence.
  const auto resumed = steady_clock::now();
  bool renewed_ok = false;
  while (!renewed_ok && since(resumed) < kHang) {
    status.clear();
    renewed_ok = store->renew(held, terms, milliseconds(4000), renewed, status);
    if (!renewed_ok) {
      EXPECT_STATUS(status, errc::store_unavailable);
    }
  }
  ASSERT_TRUE(renewed_ok) << status.message();
  EXPECT_EQ(renewed.fence, held.fence);
  EXPECT_GE(renewed.ceiling, held.ceiling);
  EXPECT_EQ(store->sessions_opened(), 1u);

  // The runtime's keeper renews its lease (still its own: nobody took the slot) and ids flow,
  // past the old ceiling.
  ASSERT_TRUE(issue_once_flowing(leased.generator(), ids, steady_clock::now() + kHang,
                                 errc::ceiling_reached, 1000));
  EXPECT_GT(leased.unix_ms_of(ids[before_resume]), ceiling);
  EXPECT_GT(leased.runtime().ceiling_ms(), ceiling);
  expect_unique(ids, leased.generator().stats().ids_issued);
  EXPECT_OK(status);
}

// A second handle on the store's session, closed, ends the session on the server. The store's
// next calls replace it by a new session (sessions_opened() 2) and succeed; the lease, a plain
// node, is intact: it renews under the same fence. Which call succeeds first depends on the
// server: when it closed the store's connection along with the session, the client hears that
// the session expired at once and the first renewal succeeds; when it kept that connection (it
// moved the session to the second handle's), it drops every request on it unanswered, so calls
// fail with store_unavailable until the client gives the silent connection up (2/3 of the
// session timeout, which this test keeps short) and hears of the expiry on reconnecting.
TEST_F(ZkStandaloneFaultTest, ExpiredSessionIsReplacedAndTheLeaseIsIntact) {
  ZooKeeperStoreOptions options;
  options.connect_string = connect_string();
  options.timeout = milliseconds(2000);
  options.session_timeout = milliseconds(4000);  // the server's least: 2 ticks
  Status status;
  auto store = ZooKeeperLeaseStore::open(options, status);
  ASSERT_NE(store, nullptr) << status.message();
  ASSERT_EQ(store->session_timeout_granted(), milliseconds(4000));
  const NamespaceTerms terms = terms_of(milliseconds(1000));
  const SlotLease held = acquire(
      *store, request_for(name_space_, 2, make_owner("expiring"), terms, milliseconds(30000)));
  ZooKeeperLeaseStore::Session session;
  ASSERT_TRUE(store->session(session));
  ASSERT_EQ(store->sessions_opened(), 1u);
  ASSERT_TRUE(expire_session(connect_string(), session));

  const auto closed = steady_clock::now();
  SlotLease renewed;
  bool ok = false;
  int unavailable = 0;
  while (!ok && since(closed) < kHang) {
    status.clear();
    ok = store->renew(held, terms, milliseconds(30000), renewed, status);
    if (!ok) {
      EXPECT_STATUS(status, errc::store_unavailable);
      ++unavailable;
    }
  }
  ASSERT_TRUE(ok) << status.message();
  // Within the silent connection's 2/3 of the session timeout, and the calls that overlapped it.
  EXPECT_LE(since(closed), options.session_timeout + 2 * options.timeout + milliseconds(2000))
      << unavailable << " calls failed first";
  EXPECT_EQ(store->sessions_opened(), 2u);
  ZooKeeperLeaseStore::Session replaced;
  ASSERT_TRUE(store->session(replaced));
  EXPECT_NE(replaced.id, session.id);
  EXPECT_EQ(renewed.fence, held.fence);
  EXPECT_EQ(renewed.floor, held.floor);
  EXPECT_GE(renewed.ceiling, held.ceiling);
  const SlotRecord record = scanned(*store, name_space_, terms, 2, status);
  EXPECT_OK(status);
  EXPECT_TRUE(record.held);
  EXPECT_EQ(record.owner.key, "expiring");
  EXPECT_EQ(record.fence, held.fence);
}

// SIGKILL, then a restart on the same data directory: a call fails with store_unavailable while
// the server is down; afterwards the store reconnects (the same session: the server keeps
// sessions across a restart) and reads the same records.
TEST_F(ZkStandaloneFaultTest, KilledServerRestartedOnItsDataKeepsEveryRecord) {
  ZooKeeperStoreOptions options;
  options.connect_string = connect_string();
  options.timeout = milliseconds(2000);
  options.connection_timeout = milliseconds(60000);  // keep the session across the restart
  Status status;
  auto store = ZooKeeperLeaseStore::open(options, status);
  ASSERT_NE(store, nullptr) << status.message();
  const NamespaceTerms terms = terms_of(milliseconds(1000));
  std::vector<SlotLease> leases;
  for (std::uint32_t slot = 0; slot < 3; ++slot) {
    leases.push_back(
        acquire(*store, request_for(name_space_, slot, make_owner("k" + std::to_string(slot)),
                                    terms, milliseconds(30000))));
  }
  std::vector<SlotRecord> before;
  std::int64_t now = 0;
  ASSERT_TRUE(store->scan(name_space_, terms, before, now, status)) << status.message();
  ASSERT_EQ(before.size(), 3u);

  servers()->kill9();
  const auto start = steady_clock::now();
  SlotLease renewed;
  EXPECT_FALSE(store->renew(leases[0], terms, milliseconds(30000), renewed, status));
  EXPECT_STATUS(status, errc::store_unavailable);
  EXPECT_LE(since(start), options.timeout + milliseconds(2000));

  ASSERT_TRUE(servers()->restart(status)) << status.message();
  std::vector<SlotRecord> after;
  const auto restarted = steady_clock::now();
  bool read = false;
  while (!read && since(restarted) < kHang) {
    status.clear();
    read = store->scan(name_space_, terms, after, now, status);
    if (!read) {
      EXPECT_STATUS(status, errc::store_unavailable);
    }
  }
  ASSERT_TRUE(read) << status.message();
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].slot, before[i].slot);
    EXPECT_EQ(after[i].owner.key, before[i].owner.key);
    EXPECT_EQ(after[i].owner.incarnation, before[i].owner.incarnation);
    EXPECT_EQ(after[i].fence, before[i].fence);
    EXPECT_EQ(after[i].floor, before[i].floor);
    EXPECT_GE(after[i].ceiling, before[i].ceiling);
    EXPECT_GE(after[i].next_floor, before[i].next_floor);
  }
  EXPECT_TRUE(store->renew(leases[0], terms, milliseconds(30000), renewed, status))
      << status.message();
  EXPECT_EQ(renewed.fence, leases[0].fence);
  EXPECT_GE(renewed.ceiling, before[0].ceiling);
  EXPECT_EQ(store->sessions_opened(), 1u);
}

// A slot node deleted and created again behind the store, with its old text or with none: every
// call on the slot is store_corrupt, from this store (which saw the old node) and from a second
// one (which has only the text's own czxid to go by), and none writes the node.
TEST_F(ZkStandaloneFaultTest, RecreatedSlotNodeIsRefusedAndLeftAlone) {
  auto store = open_store(connect_string(), milliseconds(3000));
  ASSERT_NE(store, nullptr);
  const NamespaceTerms terms = terms_of(milliseconds(1000));
  const SlotLease held = acquire(
      *store, request_for(name_space_, 1, make_owner("holder"), terms, milliseconds(30000)));
  const std::string path = "/cosid/slot/" + name_space_ + "/1";
  RawClient raw(connect_string(), nullptr);
  ASSERT_TRUE(raw.connected());
  std::string original;
  Stat stat{};
  int rc = ZOK;
  ASSERT_TRUE(raw.get(path, original, stat, rc)) << zerror(rc);
  ASSERT_NE(original.find("\nnode=" + std::to_string(stat.czxid) + "\n"), std::string::npos)
      << original;

  for (const std::string& text : {original, std::string()}) {
    SCOPED_TRACE(text.empty() ? "recreated empty" : "recreated with its old text");
    ASSERT_EQ(raw.remove(path), ZOK);
    ASSERT_EQ(raw.create(path, text), ZOK);
    Stat recreated{};
    std::string data;
    ASSERT_TRUE(raw.get(path, data, recreated, rc)) << zerror(rc);

    auto second = open_store(connect_string(), milliseconds(3000));
    ASSERT_NE(second, nullptr);
    for (ZooKeeperLeaseStore* each : {store.get(), second.get()}) {
      Status status;
      SlotLease renewed;
      EXPECT_FALSE(each->renew(held, terms, milliseconds(30000), renewed, status));
      EXPECT_STATUS(status, errc::store_corrupt);
      EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
      status.clear();
      AcquireOutcome outcome = AcquireOutcome::kTaken;
      SlotLease lease;
      SlotRecord record;
      EXPECT_FALSE(each->acquire(
          request_for(name_space_, 1, make_owner("newcomer"), terms, milliseconds(30000)), outcome,
          lease, record, status));
      EXPECT_STATUS(status, errc::store_corrupt);
      status.clear();
      std::vector<SlotRecord> records;
      std::int64_t now = 0;
      EXPECT_FALSE(each->scan(name_space_, terms, records, now, status));
      EXPECT_STATUS(status, errc::store_corrupt);
      status.clear();
      EXPECT_FALSE(each->release(held, terms, held.floor, status));
      EXPECT_STATUS(status, errc::store_corrupt);
    }
    // Left as it was: the same node (czxid), never written (version 0), the same text.
    Stat now{};
    ASSERT_TRUE(raw.get(path, data, now, rc)) << zerror(rc);
    EXPECT_EQ(data, text);
    EXPECT_EQ(now.czxid, recreated.czxid);
    EXPECT_NE(now.czxid, stat.czxid);
    EXPECT_EQ(now.version, 0);
  }
}

// A real ttl of 2 s runs out on the server's clock: another owner's acquire is kTaken before and
// kAcquired after, its floor at the first holder's ceiling; the lease times are the real clock's.
TEST_F(ZkStandaloneFaultTest, RealTtlExpiresAndTheNextHolderStartsAtTheCeiling) {
  auto store = open_store(connect_string(), milliseconds(3000));
  ASSERT_NE(store, nullptr);
  const NamespaceTerms terms = terms_of(milliseconds(500));
  const milliseconds ttl(2000);
  const auto started = steady_clock::now();
  const std::int64_t system_before = system_now_ms();
  const Owner a = make_owner("owner-a");
  const SlotLease first = acquire(*store, request_for(name_space_, 0, a, terms, ttl));
  const std::int64_t system_after = system_now_ms();
  // Times from the write's mtime: the server runs on this host's clock.
  EXPECT_GE(first.store_now, system_before - 3000);
  EXPECT_LE(first.store_now, system_after + 3000);
  EXPECT_GE(first.expires_at, system_before + ttl.count() - 3000);
  EXPECT_LE(first.expires_at, system_after + ttl.count() + 3000);
  EXPECT_EQ(first.ceiling, first.expires_at + terms.tolerance.count());

  const Owner b = make_owner("owner-b");
  const AcquireRequest request = request_for(name_space_, 0, b, terms, ttl);
  AcquireOutcome outcome = AcquireOutcome::kAcquired;
  SlotLease second;
  SlotRecord record;
  Status status;
  ASSERT_TRUE(store->acquire(request, outcome, second, record, status)) << status.message();
  EXPECT_EQ(outcome, AcquireOutcome::kTaken);
  EXPECT_EQ(record.owner.key, "owner-a");
  EXPECT_EQ(record.fence, first.fence);

  // Past the expiry on this host's clock (the server's), the slot is free.
  while (system_now_ms() <= first.expires_at + 500) std::this_thread::sleep_for(milliseconds(50));
  ASSERT_TRUE(store->acquire(request, outcome, second, record, status)) << status.message();
  ASSERT_EQ(outcome, AcquireOutcome::kAcquired);
  EXPECT_GE(since(started), ttl - milliseconds(100));
  EXPECT_EQ(second.fence, first.fence + 1);
  EXPECT_GE(second.floor, first.ceiling);
  EXPECT_GT(second.ceiling, second.floor);
  EXPECT_GE(second.expires_at, system_now_ms() + ttl.count() - 3000);
  SlotLease renewed;
  EXPECT_FALSE(store->renew(first, terms, ttl, renewed, status));
  EXPECT_STATUS(status, errc::lease_lost);
}

// ==================================== A three-peer ensemble ====================================

class ZkEnsembleFaultTest : public ZkSuite<ZkEnsemble> {
 protected:
  void SetUp() override {
    ZkSuite::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    restart_stopped_peers();
    ASSERT_GE(servers()->wait_for_leader(kHang), 0) << servers()->log_tail();
    ASSERT_TRUE(init_zk_store(connect_string()));
    name_space_ = test_namespace();
  }
  void TearDown() override {
    if (servers() != nullptr) restart_stopped_peers();
  }

  // Brings back every peer a test killed, on the real clock.
  static void restart_stopped_peers() {
    for (int i = 0; i < ZkEnsemble::kPeers; ++i) {
      if (servers()->pid(i) > 0) continue;
      Status status;
      EXPECT_TRUE(servers()->restart(i, {}, status)) << status.message();
    }
  }

  std::string connect_string() const { return servers()->connect_string(); }

  std::string name_space_;
};

// What one renewal loop saw: successes keep the fence and never lower the ceiling.
struct RenewalLog {
  int succeeded = 0;
  int unavailable = 0;
  std::int64_t ceiling = 0;  // the last success's
};

// Renews `held` once, checks it against the log, and records it. True on success.
bool renew_and_check(ZooKeeperLeaseStore& store, const SlotLease& held, const NamespaceTerms& terms,
                     milliseconds ttl, RenewalLog& log) {
  SlotLease renewed;
  Status status;
  if (!store.renew(held, terms, ttl, renewed, status)) {
    EXPECT_STATUS(status, errc::store_unavailable);
    ++log.unavailable;
    return false;
  }
  EXPECT_EQ(renewed.fence, held.fence);
  EXPECT_GE(renewed.ceiling, log.ceiling);
  EXPECT_GE(renewed.ceiling, held.ceiling);
  log.ceiling = std::max(log.ceiling, renewed.ceiling);
  ++log.succeeded;
  return true;
}

// The leader killed while renewals run every 200 ms: those in the election fail with
// store_unavailable, then they succeed again on the new leader, under the same fence, with a
// ceiling that never went down.
TEST_F(ZkEnsembleFaultTest, LeaderKilledWhileRenewingResumesOnTheNewLeader) {
  auto store = open_store(connect_string(), milliseconds(3000));
  ASSERT_NE(store, nullptr);
  const NamespaceTerms terms = terms_of(milliseconds(1000));
  const milliseconds ttl(10000);
  const SlotLease held =
      acquire(*store, request_for(name_space_, 0, make_owner("renewer"), terms, ttl));
  RenewalLog log;
  log.ceiling = held.ceiling;
  const auto start = steady_clock::now();
  while (since(start) < milliseconds(2000)) {
    EXPECT_TRUE(renew_and_check(*store, held, terms, ttl, log));
    std::this_thread::sleep_for(milliseconds(200));
  }
  const int old_leader = servers()->leader();
  ASSERT_GE(old_leader, 0);
  servers()->kill9(old_leader);
  const int before_kill = log.succeeded;
  const auto killed = steady_clock::now();
  int after_new_leader = 0;
  // ~10 s of renewals in all, and on until two succeeded once the new leader serves.
  while ((since(start) < milliseconds(10000) || after_new_leader < 2) && since(killed) < kHang) {
    const bool leads = servers()->leader() >= 0;
    if (renew_and_check(*store, held, terms, ttl, log) && leads) ++after_new_leader;
    std::this_thread::sleep_for(milliseconds(200));
  }
  EXPECT_GE(after_new_leader, 2) << servers()->log_tail();
  EXPECT_GT(log.succeeded, before_kill);
  const int new_leader = servers()->leader();
  EXPECT_GE(new_leader, 0);
  EXPECT_NE(new_leader, old_leader);
  Status status;
  const SlotRecord record = scanned(*store, name_space_, terms, 0, status);
  EXPECT_OK(status);
  EXPECT_EQ(record.fence, held.fence);
  // At least the last success's: a renewal that failed in the election may have been applied.
  EXPECT_GE(record.ceiling, log.ceiling);
}

// Two of three peers killed: the one left has no quorum, every call fails with store_unavailable,
// and a Runtime's generator stops at its ceiling (every id at or below it). One peer back gives a
// quorum again: renewals succeed and ids flow.
TEST_F(ZkEnsembleFaultTest, QuorumLostStopsIdsAtTheCeilingAndOnePeerBackResumes) {
  auto store = open_store(connect_string(), milliseconds(2000));
  ASSERT_NE(store, nullptr);
  const NamespaceTerms terms = terms_of(milliseconds(1000));
  const milliseconds ttl(4000);
  const SlotLease held =
      acquire(*store, request_for(name_space_, 0, make_owner("direct"), terms, ttl));
  ZkRuntime leased(connect_string(), name_space_ + "-runtime", "runtime", ttl, milliseconds(1000),
                   "1s");
  ASSERT_TRUE(leased.ok());
  std::vector<std::uint64_t> ids;
  const std::error_code flowing =
      issue_until_failure(leased.generator(), ids, steady_clock::now() + milliseconds(300));
  ASSERT_NO_ERROR(flowing);

  const int leader = servers()->leader();
  ASSERT_GE(leader, 0);
  const int follower = (leader + 1) % ZkEnsemble::kPeers;
  const int left = (leader + 2) % ZkEnsemble::kPeers;
  servers()->kill9(leader);
  servers()->kill9(follower);
  RenewalLog log;
  log.ceiling = held.ceiling;
  for (int i = 0; i < 2; ++i) {
    EXPECT_FALSE(renew_and_check(*store, held, terms, ttl, log));
  }
  EXPECT_EQ(log.unavailable, 2);

  const std::error_code stopped =
      issue_until_failure(leased.generator(), ids, steady_clock::now() + kHang);
  EXPECT_ERRC(stopped, errc::ceiling_reached);
  const std::int64_t ceiling = leased.runtime().ceiling_ms();
  std::int64_t last = 0;
  for (const std::uint64_t id : ids) last = std::max(last, leased.unix_ms_of(id));
  EXPECT_LE(last, ceiling);
  EXPECT_GT(system_now_ms(), ceiling);
  const std::size_t before_back = ids.size();

  Status status;
  ASSERT_TRUE(servers()->restart(follower, {}, status)) << status.message();
  const auto back = steady_clock::now();
  while (log.succeeded == 0 && since(back) < kHang) renew_and_check(*store, held, terms, ttl, log);
  EXPECT_EQ(log.succeeded, 1) << servers()->log_tail();
  ASSERT_TRUE(issue_once_flowing(leased.generator(), ids, steady_clock::now() + kHang,
                                 errc::ceiling_reached, 1000));
  EXPECT_GT(leased.unix_ms_of(ids[before_back]), ceiling);
  EXPECT_NE(servers()->mode(left), "");
  expect_unique(ids, leased.generator().stats().ids_issued);
}

// A peer whose realtime clock is 30 s behind becomes the leader, so the mtimes of the writes it
// orders go back 30 s: the lower bounds keep every time of the slot where it was. Across the
// restarts and elections, floor, ceiling and next floor as scan() reads them never go down, and
// renewals keep the ceiling rising or flat: under the slow leader each renewal's ceiling is
// exactly max(the previous ceiling, its mtime + ttl + tolerance), flat until that clock catches up.
TEST_F(ZkEnsembleFaultTest, LeaderWithItsClockBehindNeverMovesASlotBack) {
  std::string why;
  const std::vector<std::string> slow = faketime_env("-30s", why);
  if (slow.empty()) GTEST_SKIP() << why;
  auto store = open_store(connect_string(), milliseconds(3000));
  ASSERT_NE(store, nullptr);
  const NamespaceTerms terms = terms_of(milliseconds(1000));
  // Renewals ask for a long ttl while the other peers lead and a short one while the slow peer
  // does: its mtime + 5 s then stays below the lower bounds set on the real clock (the last
  // expiry, another 60 s on) for 85 s after the last real-clock write, however long the
  // elections that make it the leader take. Each renewal's ttl is its own (it is the holder's to
  // choose), so this is what a holder that shortened its ttl meets.
  const milliseconds long_ttl(60000);
  const milliseconds short_ttl(5000);
  // The first acquire on a store of its own with a long timeout: after the previous case's
  // restarts a loaded machine may take the ensemble more than 3 s to answer a new session, and
  // the case is about what follows.
  const auto setup = open_store(connect_string(), milliseconds(20000));
  ASSERT_NE(setup, nullptr);
  const SlotLease held =
      acquire(*setup, request_for(name_space_, 0, make_owner("renewer"), terms, long_ttl));
  ASSERT_GT(held.fence, 0u);

  // A watcher renews and scans every 200 ms on its own thread while the peers come and go. It
  // renews under `mutex`, so a phase the main thread sets under it holds for a whole renewal.
  enum Phase { kOthersLead, kSlowLeads, kSlowKilled };
  std::atomic<bool> done{false};
  std::mutex mutex;  // guards the fields below
  Phase phase = kOthersLead;
  RenewalLog log;
  log.ceiling = held.ceiling;
  bool follows_a_success = false;  // the previous renewal succeeded: its ceiling is the record's
  int slow_renewals = 0;           // successes while the slow peer led
  int flat_renewals = 0;           // of which kept the ceiling where it was
  std::string slow_trace;          // each: the host's clock, the store's, the ceiling
  SlotRecord highest;              // the last record scan() read
  int scans = 0;
  // The watcher's scans keep the 3 s timeout of the renewals; only its first session may take
  // longer to be answered, as setup's did, so it is opened here, retried for up to 20 s.
  std::unique_ptr<ZooKeeperLeaseStore> reader;
  Status reader_status;
  for (const auto opened = steady_clock::now();
       reader == nullptr && since(opened) < milliseconds(20000);) {
    ZooKeeperStoreOptions reader_options;
    reader_options.connect_string = connect_string();
    reader_options.timeout = milliseconds(3000);
    reader = ZooKeeperLeaseStore::open(reader_options, reader_status);
  }
  ASSERT_NE(reader, nullptr) << reader_status.message();
  std::thread watcher([&] {
    while (!done.load()) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        SlotLease renewed;
        Status status;
        const std::int64_t previous = log.ceiling;
        const milliseconds ttl = phase == kSlowLeads ? short_ttl : long_ttl;
        if (store->renew(held, terms, ttl, renewed, status)) {
          EXPECT_EQ(renewed.fence, held.fence);
          EXPECT_GE(renewed.ceiling, previous);
          log.ceiling = std::max(log.ceiling, renewed.ceiling);
          ++log.succeeded;
          if (phase == kSlowLeads) {
            ++slow_renewals;
            slow_trace += std::to_string(system_now_ms()) + " " +
                          std::to_string(renewed.store_now) + " " +
                          std::to_string(renewed.ceiling) + "\n";
            EXPECT_LT(renewed.store_now, system_now_ms() - 25000) << "not the slow leader's mtime";
            if (follows_a_success) {
              EXPECT_EQ(renewed.ceiling, std::max(previous, renewed.store_now + ttl.count() +
                                                                terms.tolerance.count()));
            }
            if (renewed.ceiling == previous) ++flat_renewals;
          }
          follows_a_success = true;
        } else {
          EXPECT_STATUS(status, errc::store_unavailable);
          ++log.unavailable;
          follows_a_success = false;
        }
      }
      std::vector<SlotRecord> records;
      std::int64_t now = 0;
      Status status;
      if (reader->scan(name_space_, terms, records, now, status)) {
        std::lock_guard<std::mutex> lock(mutex);
        EXPECT_EQ(records.size(), 1u);
        if (!records.empty()) {
          const SlotRecord& record = records.front();
          EXPECT_EQ(record.fence, held.fence);
          EXPECT_GE(record.floor, highest.floor);
          EXPECT_GE(record.ceiling, highest.ceiling);
          EXPECT_GE(record.next_floor, highest.next_floor);
          highest = record;
        }
        ++scans;
      } else {
        EXPECT_STATUS(status, errc::store_unavailable);
      }
      std::this_thread::sleep_for(milliseconds(200));
    }
  });
  // Joins the watcher on every way out of the test, an assertion's included.
  struct Joiner {
    std::atomic<bool>& done;
    std::thread& thread;
    ~Joiner() {
      done.store(true);
      if (thread.joinable()) thread.join();
    }
  } joiner{done, watcher};
  const auto set_phase = [&](Phase next) {
    std::lock_guard<std::mutex> lock(mutex);
    phase = next;
  };
  // A field the watcher writes, read under the lock.
  const auto count = [&](const auto& field) {
    std::lock_guard<std::mutex> lock(mutex);
    return field;
  };

  // Peer 2 has the largest myid, which wins an election between peers with the same last zxid;
  // should another be ahead of it, that one is killed in turn. The phase changes as soon as the
  // slow peer leads: within 30 s of the last write on the real clock, its renewals stay flat.
  const int x = ZkEnsemble::kPeers - 1;
  Status status;
  ASSERT_TRUE(servers()->restart(x, slow, status)) << status.message();
  int down = -1;  // the peer killed last, restarted once the slow one has led
  for (int round = 0; round < 4; ++round) {
    const int leader = servers()->wait_for_leader(kHang);
    ASSERT_GE(leader, 0) << servers()->log_tail();
    if (leader == x) break;
    if (down >= 0) {
      ASSERT_TRUE(servers()->restart(down, {}, status)) << status.message();
    }
    servers()->kill9(leader);
    down = leader;
  }
  ASSERT_EQ(servers()->wait_for_leader(kHang), x) << servers()->log_tail();
  set_phase(kSlowLeads);
  const auto led = steady_clock::now();
  while (count(slow_renewals) < 5 && since(led) < kHang) {
    std::this_thread::sleep_for(milliseconds(200));
  }
  EXPECT_GE(count(slow_renewals), 5) << servers()->log_tail();
  EXPECT_GT(count(flat_renewals), 0) << count(slow_trace);
  // Every peer up again before the slow one goes, so that the other two have a quorum.
  if (down >= 0) {
    ASSERT_TRUE(servers()->restart(down, {}, status)) << status.message();
  }
  {
    // Killed under the lock: no renewal is in flight, so none of the slow phase is retried on
    // the next leader.
    std::lock_guard<std::mutex> lock(mutex);
    phase = kSlowKilled;
    servers()->kill9(x);
  }
  const std::int64_t slow_ceiling = count(log.ceiling);

  // Another peer leads, on the real clock: the ceiling rises again.
  ASSERT_GE(servers()->wait_for_leader(kHang), 0) << servers()->log_tail();
  ASSERT_TRUE(servers()->restart(x, {}, status)) << status.message();
  const auto start = steady_clock::now();
  while (count(log.ceiling) <= slow_ceiling && since(start) < kHang) {
    std::this_thread::sleep_for(milliseconds(200));
  }
  done.store(true);
  watcher.join();
  EXPECT_GT(log.ceiling, slow_ceiling);
  EXPECT_GT(scans, 0);
  EXPECT_GE(highest.ceiling, slow_ceiling);
}

}  // namespace
}  // namespace cosid::testing
