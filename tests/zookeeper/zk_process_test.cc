// Real processes sharing one real ZooKeeper server: four children (fork), each opening a Runtime
// of its own whose slot is leased from a store instance of type "zookeeper", issue ids at once for
// about 2 s and write every id to a file; the parent checks that they hold distinct slots and that
// no id repeats. Then one holder is killed (SIGKILL) and a newcomer opens a Runtime in a namespace
// of four slots, all held: it gets the dead holder's slot only once its lease ran out (ttl 2 s,
// tolerance 500 ms), and every id it issues there lies above the dead holder's ceiling.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "cosid/lease/store_registry.h"
#include "cosid/lease/zookeeper_store.h"
#include "cosid/options.h"
#include "cosid/runtime.h"
#include "temp_dir.h"
#include "test_util.h"
#include "zk_server.h"

namespace cosid::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

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

// The options of every runtime here: the store instance "zk" on `connect_string`.
Options runtime_options(const std::string& connect_string, const std::string& owner_key) {
  Options options;
  options.layout = four_slot_layout();
  options.store_type = "zk";
  options.namespace_name = kNamespace;
  options.owner_key = owner_key;
  options.ttl = kTtl;
  options.tolerance = kTolerance;
  // A newcomer may wait for a lease to run out, then for the clock to pass its floor.
  options.start_wait = kTtl + kTolerance + milliseconds(5000);
  StoreConfig config;
  config.name = "zk";
  config.type = "zookeeper";
  config.settings = {{"options.connectString", connect_string, "test"},
                     {"timeout", "2s", "test"}};
  options.stores.push_back(config);
  return options;
}

// A child: opens its runtime, issues ids for ~2 s (a few a millisecond, so that the files stay
// small), writes "slot\n" then one id a line to `path`, closes `ready` (the parent's cue), and
// holds its lease until the parent closes `release` (or kills it). No GoogleTest here: the exit
// status says what failed.
[[noreturn]] void child_main(const std::string& connect_string, int index,
                             const std::string& path, int ready, int release) {
  lease::StoreRegistry registry;
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
    out << runtime->slot() << "\n";
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
  std::vector<std::uint64_t> ids;
};

bool read_child_file(const std::string& path, ChildFile& file) {
  std::ifstream in(path);
  if (!(in >> file.slot)) return false;
  std::uint64_t id = 0;
  while (in >> id) file.ids.push_back(id);
  return true;
}

class ZkProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    COSID_REQUIRE_ZOOKEEPER();
    Status status;
    ASSERT_TRUE(server_.start(status)) << status.message();
  }

  ZkServer server_;
  TempDir dir_{"zk_process"};
};

TEST_F(ZkProcessTest, FourProcessesHoldDistinctSlotsAndANewcomerStartsAboveTheDeadOnesCeiling) {
  const std::string connect_string = server_.connect_string();
  // Forked before this process opens any ZooKeeper client: a child inherits no client threads.
  int release[2];
  ASSERT_EQ(::pipe(release), 0);
  std::vector<pid_t> children;
  std::vector<int> ready;
  for (std::size_t i = 0; i < kChildren; ++i) {
    int cue[2];
    ASSERT_EQ(::pipe(cue), 0);
    const std::string path = dir_.path() + "/child-" + std::to_string(i);
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
    ASSERT_TRUE(read_child_file(dir_.path() + "/child-" + std::to_string(i), files[i]))
        << "child " << i << " wrote no file";
    EXPECT_GT(files[i].ids.size(), 1000u) << "child " << i;
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
  lease::StoreRegistry registry;
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
  const std::int64_t opened_at = std::chrono::duration_cast<milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
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

}  // namespace
}  // namespace cosid::testing
