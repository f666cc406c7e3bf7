// SPDX-License-Identifier: Apache-2.0
// The real `cosid` binary leasing its slot from real ZooKeeper servers: `cosid next -n 0 --store
// zookeeper:...` processes stream ids (JSON lines, so each carries its timestamp and slot) while
// the test kills holders and servers. Every id of every process is kept and compared: none may
// repeat.
//
// The namespaces have 4 slots (--slot-bits 2), so that a newcomer can only get a slot a killed
// holder leaves. No timing is asserted beyond what the lease rules promise (a newcomer's ids lie
// above the old holder's ceiling); the deadlines only keep a hung child from hanging the test.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_process.h"
#include "support/cli_run.h"
#include "zk_server.h"

namespace {

using cosid::testing::Cli;
using cosid::testing::Steady;
using std::chrono::milliseconds;

// One line of `cosid next --format json`.
struct Issued {
  std::uint64_t id = 0;
  std::int64_t timestamp_ms = 0;
  std::uint32_t slot = 0;
};

// The number after "KEY": in a JSON line (ids are quoted strings, other numbers bare); -1 if none.
std::int64_t json_number(const std::string& line, const std::string& key) {
  const std::string marker = "\"" + key + "\":";
  std::size_t at = line.find(marker);
  if (at == std::string::npos) return -1;
  at += marker.size();
  if (at < line.size() && line[at] == '"') ++at;
  std::int64_t value = 0;
  bool any = false;
  for (; at < line.size() && line[at] >= '0' && line[at] <= '9'; ++at) {
    value = value * 10 + (line[at] - '0');
    any = true;
  }
  return any ? value : -1;
}

Issued parse_issued(const std::string& line) {
  Issued issued;
  const std::int64_t id = json_number(line, "id");
  const std::int64_t timestamp = json_number(line, "timestamp_ms");
  const std::int64_t slot = json_number(line, "slot");
  if (id < 0 || timestamp < 0 || slot < 0) {
    ADD_FAILURE() << "not a line of cosid next --format json: '" << line << "'";
    return issued;
  }
  issued.id = static_cast<std::uint64_t>(id);
  issued.timestamp_ms = timestamp;
  issued.slot = static_cast<std::uint32_t>(slot);
  return issued;
}

std::int64_t real_now_ms() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A streaming `cosid next` and the ids it issued so far.
class Streamer {
 public:
  Streamer(const TempDir& dir, const std::string& connect, const std::string& name_space,
           const std::string& owner_key, const std::string& ttl, const std::string& tolerance)
      : cli_(dir, {"next", "-n", "0", "--format", "json", "--store", "zookeeper:" + connect,
                   "--namespace", name_space, "--slot-bits", "2", "--ttl", ttl, "--tolerance",
                   tolerance, "--owner-key", owner_key}) {}

  // Reads up to `n` more ids (fewer if the process ended or hung).
  std::size_t read(std::size_t n) {
    const std::vector<std::string> lines = cli_.lines(n);
    for (const std::string& line : lines) issued_.push_back(parse_issued(line));
    return lines.size();
  }
  // Stops the process: SIGTERM (a clean shutdown that releases the lease) or SIGKILL, and keeps
  // every id it wrote. Returns the exit status (128 + signal for a kill).
  int stop(int sig) {
    cli_.signal(sig);
    const std::vector<std::string> lines = cli_.rest();
    for (const std::string& line : lines) issued_.push_back(parse_issued(line));
    return cli_.wait();
  }

  const std::vector<Issued>& issued() const { return issued_; }
  std::string err() const { return cli_.err(); }
  // The slot of every id, or -1 if the ids lie on several slots (or there are none).
  std::int64_t only_slot() const {
    std::set<std::uint32_t> slots;
    for (const Issued& issued : issued_) slots.insert(issued.slot);
    return slots.size() == 1 ? std::int64_t{*slots.begin()} : -1;
  }

 private:
  Cli cli_;
  std::vector<Issued> issued_;
};

// Expects no id twice among all the streamers', and returns how many there were.
std::size_t expect_no_repeats(const std::vector<const Streamer*>& streamers) {
  std::set<std::uint64_t> seen;
  std::size_t total = 0;
  for (const Streamer* streamer : streamers) {
    for (const Issued& issued : streamer->issued()) {
      EXPECT_TRUE(seen.insert(issued.id).second) << "id " << issued.id << " repeats";
      ++total;
    }
  }
  EXPECT_EQ(seen.size(), total);
  return total;
}

// `cosid lease list --json`: slot -> ceiling_ms of the namespace's records (its terms: 4 slots
// and the streamers' tolerance).
std::map<std::uint32_t, std::int64_t> ceilings(const TempDir& dir, const std::string& connect,
                                               const std::string& name_space,
                                               const std::string& tolerance) {
  Cli list(dir, {"lease", "list", "--json", "--store", "zookeeper:" + connect, "--namespace",
                 name_space, "--slot-bits", "2", "--tolerance", tolerance});
  std::map<std::uint32_t, std::int64_t> result;
  for (const std::string& line : list.rest()) {
    result[static_cast<std::uint32_t>(json_number(line, "slot"))] = json_number(line, "ceiling_ms");
  }
  EXPECT_EQ(list.wait(), 0) << list.err();
  return result;
}

class ZooKeeperCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    COSID_REQUIRE_ZOOKEEPER();
    cosid::Status status;
    ASSERT_TRUE(server_.start(status)) << status.message() << "\n" << server_.log_tail();
    cosid::testing::init_store(dir_, "zookeeper:" + server_.connect_string());
  }

  cosid::testing::ZkServer server_;
  TempDir dir_{"zk_cli"};
};

// Four processes started with nothing but the ensemble's address get the four slots, one each,
// and no id repeats among them.
TEST_F(ZooKeeperCliTest, FourProcessesGetDistinctSlotsAndNoIdRepeats) {
  std::vector<std::unique_ptr<Streamer>> streamers;
  for (int i = 0; i < 4; ++i) {
    streamers.push_back(std::make_unique<Streamer>(dir_, server_.connect_string(), "four",
                                                   "p" + std::to_string(i), "5s", "1s"));
  }
  for (auto& streamer : streamers) ASSERT_EQ(streamer->read(2000), 2000u) << streamer->err();
  std::set<std::int64_t> slots;
  std::vector<const Streamer*> all;
  for (auto& streamer : streamers) {
    EXPECT_EQ(streamer->stop(SIGTERM), 0) << streamer->err();
    slots.insert(streamer->only_slot());
    all.push_back(streamer.get());
  }
  EXPECT_EQ(slots, (std::set<std::int64_t>{0, 1, 2, 3}));
  EXPECT_GE(expect_no_repeats(all), 8000u);
}

// A holder killed with SIGKILL cannot release its lease: its slot goes to a newcomer only once
// the lease expired, and every id of the newcomer lies above the ceiling the old holder had.
TEST_F(ZooKeeperCliTest, AKilledHoldersSlotGoesToANewcomerOnlyAboveItsCeiling) {
  const std::string ttl = "2s";
  std::vector<std::unique_ptr<Streamer>> holders;
  for (int i = 0; i < 4; ++i) {
    holders.push_back(std::make_unique<Streamer>(dir_, server_.connect_string(), "kill",
                                                 "h" + std::to_string(i), ttl, "500ms"));
  }
  for (auto& holder : holders) ASSERT_EQ(holder->read(500), 500u) << holder->err();
  // Let a renewal or two pass, so the lease killed is a renewed one.
  std::this_thread::sleep_for(milliseconds(1500));
  for (auto& holder : holders) ASSERT_EQ(holder->read(500), 500u) << holder->err();

  EXPECT_EQ(holders[0]->stop(SIGKILL), 128 + SIGKILL);
  // The slot it held when killed: its last id's (on a loaded machine a holder whose 2 s lease
  // lapsed may have moved to another slot before).
  ASSERT_FALSE(holders[0]->issued().empty());
  const std::uint32_t killed_slot = holders[0]->issued().back().slot;
  const std::int64_t killed_at = real_now_ms();
  // Nobody renews it any more: the record now holds the last ceiling the holder could use.
  const std::int64_t old_ceiling =
      ceilings(dir_, server_.connect_string(), "kill", "500ms")[killed_slot];
  ASSERT_GT(old_ceiling, 0);
  std::int64_t last_old = 0;
  for (const Issued& issued : holders[0]->issued()) {
    if (issued.slot == killed_slot) last_old = std::max(last_old, issued.timestamp_ms);
  }
  EXPECT_LE(last_old, old_ceiling);

  // Every slot is held, so the newcomer waits (its acquire retries for one ttl) until the killed
  // lease expires; started half a ttl after the kill, the expiry lies within that. Which slot it
  // gets is the chooser's business, not the property: on a loaded machine another holder's 2 s
  // lease may lapse first and the newcomer takes that slot. The property is that whatever it
  // issues on the killed slot lies above the killed holder's ceiling, and that no id repeats.
  std::this_thread::sleep_for(milliseconds(1000));
  Streamer newcomer(dir_, server_.connect_string(), "kill", "newcomer", ttl, "500ms");
  ASSERT_EQ(newcomer.read(500), 500u) << newcomer.err();
  EXPECT_EQ(newcomer.stop(SIGTERM), 0) << newcomer.err();
  std::size_t on_killed_slot = 0;
  for (const Issued& issued : newcomer.issued()) {
    if (issued.slot != killed_slot) continue;
    ++on_killed_slot;
    ASSERT_GT(issued.timestamp_ms, old_ceiling) << "the newcomer issued inside the old window";
  }
  if (on_killed_slot == 0) {
    std::printf("the newcomer leased slot %lld, not the killed slot %u (a lease lapsed first)\n",
                static_cast<long long>(newcomer.only_slot()), killed_slot);
  }
  std::printf("killed at %lld, old ceiling %lld (+%lld ms), newcomer's first timestamp %lld\n",
              static_cast<long long>(killed_at), static_cast<long long>(old_ceiling),
              static_cast<long long>(old_ceiling - killed_at),
              static_cast<long long>(newcomer.issued().front().timestamp_ms));

  std::vector<const Streamer*> all{&newcomer};
  for (auto& holder : holders) {
    if (holder != holders[0]) {
      EXPECT_EQ(holder->stop(SIGTERM), 0) << holder->err();
    }
    all.push_back(holder.get());
  }
  expect_no_repeats(all);
}

// Two processes stream through an ensemble whose leader is killed: their renewals go on with the
// new leader (ids keep coming past the ceiling they had at the kill), and no id repeats.
TEST(ZooKeeperEnsembleCliTest, KillingTheLeaderWhileTwoProcessesStreamRepeatsNoId) {
  COSID_REQUIRE_ZOOKEEPER();
  cosid::testing::ZkEnsemble ensemble;
  cosid::Status status;
  ASSERT_TRUE(ensemble.start(status)) << status.message() << "\n" << ensemble.log_tail();
  TempDir dir("zk_cli_ensemble");
  cosid::testing::init_store(dir, "zookeeper:" + ensemble.connect_string());
  Streamer first(dir, ensemble.connect_string(), "leader", "a", "3s", "500ms");
  Streamer second(dir, ensemble.connect_string(), "leader", "b", "3s", "500ms");
  ASSERT_EQ(first.read(1000), 1000u) << first.err();
  ASSERT_EQ(second.read(1000), 1000u) << second.err();

  const int leader = ensemble.leader();
  ASSERT_GE(leader, 0);
  const std::map<std::uint32_t, std::int64_t> before =
      ceilings(dir, ensemble.connect_string(), "leader", "500ms");
  ensemble.kill9(leader);
  const Steady::time_point killed = Steady::now();
  // Read slowly (the pipe holds the writers back), for longer than the windows they had.
  while (Steady::now() - killed < milliseconds(7000)) {
    first.read(200);
    second.read(200);
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(first.stop(SIGTERM), 0) << first.err();
  EXPECT_EQ(second.stop(SIGTERM), 0) << second.err();

  for (const Streamer* streamer : {&first, &second}) {
    const std::int64_t slot = streamer->only_slot();
    ASSERT_GE(slot, 0);
    const auto ceiling = before.find(static_cast<std::uint32_t>(slot));
    ASSERT_NE(ceiling, before.end());
    EXPECT_GT(streamer->issued().back().timestamp_ms, ceiling->second)
        << "slot " << slot << " issued nothing past the ceiling it had when the leader died: "
        << "its renewals did not resume\n"
        << streamer->err();
  }
  EXPECT_NE(first.only_slot(), second.only_slot());
  expect_no_repeats({&first, &second});
}

}  // namespace
