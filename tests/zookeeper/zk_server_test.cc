// SPDX-License-Identifier: Apache-2.0
// The test environment's own tests (zk_server.h): a standalone server starts, keeps its data
// across SIGKILL and restart, stops answering while stopped; an ensemble elects one leader, elects
// another when the leader dies, has none once two of three are dead, and a peer restarted with an
// environment of its own (libfaketime) runs with it.
//
// One server and one ensemble for each suite (ZkSuite; a JVM takes seconds to start): each test
// leaves them serving, or SetUp() brings the killed peers back (a peer left on a faked clock stays
// so: no test here reads the servers' clocks).
#include "zk_server.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "support/test_util.h"

namespace cosid::testing {
namespace {

using std::chrono::milliseconds;

// Bounds that only guard a hang: an election takes a few seconds, a peer that lost its quorum
// stops serving within syncLimit ticks (4 s).
constexpr milliseconds kElection{60000};

// The big-endian bytes of `value`, `bytes` of them.
std::string be(std::uint64_t value, int bytes) {
  std::string out;
  for (int i = bytes - 1; i >= 0; --i) out += static_cast<char>((value >> (8 * i)) & 0xff);
  return out;
}

// Opens a session the way a client's first message does (a ConnectRequest in jute's encoding:
// protocol version, last zxid seen, timeout, session id, password, read-only flag, behind a
// length), so that the server logs a transaction (createSession) and its zxid moves. True when the
// server answered with a ConnectResponse (41 bytes with its length) granting a session id.
bool open_session(int port) {
  const std::string body = be(0, 4) + be(0, 8) + be(30000, 4) + be(0, 8) + be(16, 4) +
                           std::string(16, '\0') + std::string(1, '\0');
  const std::string reply = exchange(port, be(body.size(), 4) + body, milliseconds(5000), 41);
  if (reply.size() < 20) return false;
  std::uint64_t session = 0;
  for (std::size_t i = 12; i < 20; ++i)
    session = session << 8 | static_cast<unsigned char>(reply[i]);
  return session != 0;
}

// The number in srvr's "Zxid: 0x..." line; 0 if there is none.
std::uint64_t zxid(const std::string& srvr) {
  const std::string value = four_letter_field(srvr, "Zxid");
  return value.empty() ? 0 : std::stoull(value, nullptr, 16);  // base 16 takes the 0x
}

bool alive(pid_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH); }

// The state letter of /proc/PID/stat ('S' sleeping, 'T' stopped, ...), '?' if unreadable.
char process_state(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t end = stat.rfind(") ");  // the command name, in parentheses, may hold ") "
  return end == std::string::npos || end + 2 >= stat.size() ? '?' : stat[end + 2];
}

class ZkServerTest : public ZkSuite<ZkServer> {
 protected:
  ZkServer* server_ = servers();
};

TEST_F(ZkServerTest, StandaloneAnswersImokOnItsConnectString) {
  EXPECT_EQ(server_->four_letter("ruok"), "imok");
  EXPECT_EQ(four_letter_field(server_->four_letter("srvr"), "Mode"), "standalone");
  EXPECT_EQ(server_->connect_string(), "127.0.0.1:" + std::to_string(server_->port()));
  // The pid is the JVM's, not a shell's.
  EXPECT_EQ(read_file("/proc/" + std::to_string(server_->pid()) + "/comm"), "java\n");
}

TEST_F(ZkServerTest, Kill9AndRestartKeepItsDataAndPort) {
  ASSERT_TRUE(open_session(server_->port()));
  const std::uint64_t before = zxid(server_->four_letter("srvr"));
  ASSERT_GE(before, 1u);  // the session's creation is a transaction
  const int port = server_->port();
  const pid_t old_pid = server_->pid();

  server_->kill9();
  EXPECT_FALSE(alive(old_pid));
  EXPECT_EQ(server_->pid(), -1);
  EXPECT_EQ(four_letter(port, "ruok"), "");

  Status status;
  ASSERT_TRUE(server_->restart(status)) << status.message();
  EXPECT_EQ(server_->port(), port);
  EXPECT_NE(server_->pid(), old_pid);
  EXPECT_EQ(server_->four_letter("ruok"), "imok");
  // The transaction log on the same data directory was read back: the zxid did not go back.
  EXPECT_GE(zxid(server_->four_letter("srvr")), before);
}

TEST_F(ZkServerTest, PausedServerDoesNotAnswerAndResumedDoes) {
  server_->pause();
  EXPECT_EQ(process_state(server_->pid()), 'T');  // stopped
  EXPECT_EQ(server_->four_letter("ruok"), "");
  server_->resume();
  EXPECT_EQ(server_->four_letter("ruok"), "imok");
}

class ZkEnsembleTest : public ZkSuite<ZkEnsemble> {
 protected:
  // Every test starts on three serving peers: a test that killed some, the one before it, gets
  // them back here.
  void SetUp() override {
    ZkSuite::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    for (int i = 0; i < ZkEnsemble::kPeers; ++i) {
      if (ensemble_->pid(i) > 0) continue;
      Status status;
      ASSERT_TRUE(ensemble_->restart(i, {}, status)) << status.message();
    }
    ASSERT_GE(ensemble_->wait_for_leader(kElection), 0) << ensemble_->log_tail();
  }

  // The peer that is neither `a` nor `b`.
  static int other(int a, int b) {
    for (int i = 0; i < ZkEnsemble::kPeers; ++i) {
      if (i != a && i != b) return i;
    }
    return -1;
  }

  ZkEnsemble* ensemble_ = servers();
};

TEST_F(ZkEnsembleTest, ElectsOneLeaderAndTwoFollowers) {
  const int leader = ensemble_->leader();
  ASSERT_GE(leader, 0);
  int followers = 0;
  for (int i = 0; i < ZkEnsemble::kPeers; ++i) {
    if (i != leader) followers += ensemble_->mode(i) == "follower" ? 1 : 0;
  }
  EXPECT_EQ(followers, 2);
  EXPECT_EQ(ensemble_->connect_string(), "127.0.0.1:" + std::to_string(ensemble_->port(0)) +
                                             ",127.0.0.1:" + std::to_string(ensemble_->port(1)) +
                                             ",127.0.0.1:" + std::to_string(ensemble_->port(2)));
}

TEST_F(ZkEnsembleTest, KillingTheLeaderElectsAnotherAmongTheRest) {
  const int old_leader = ensemble_->leader();
  ASSERT_GE(old_leader, 0);
  // A zxid's high 32 bits are the epoch: each elected leader starts a new one.
  const std::uint64_t old_epoch = zxid(ensemble_->four_letter(old_leader, "srvr")) >> 32;

  ensemble_->kill9(old_leader);
  const int new_leader = ensemble_->wait_for_leader(kElection);
  ASSERT_GE(new_leader, 0) << ensemble_->log_tail();
  EXPECT_NE(new_leader, old_leader);
  EXPECT_EQ(ensemble_->mode(other(old_leader, new_leader)), "follower");
  EXPECT_GT(zxid(ensemble_->four_letter(new_leader, "srvr")) >> 32, old_epoch);

  // Restarted, the old leader joins the new one as a follower.
  Status status;
  ASSERT_TRUE(ensemble_->restart(old_leader, {}, status)) << status.message();
  EXPECT_EQ(ensemble_->mode(old_leader), "follower");
  EXPECT_EQ(ensemble_->leader(), new_leader);
}

TEST_F(ZkEnsembleTest, PeerRestartedWithFaketimeRunsUnderItAndRejoins) {
  std::string why;
  const std::vector<std::string> env = faketime_env("-30s", why);
  if (env.empty()) {
    if (zookeeper_required()) FAIL() << why;
    GTEST_SKIP() << why;
  }
  const int follower = (ensemble_->leader() + 1) % ZkEnsemble::kPeers;
  Status status;
  ASSERT_TRUE(ensemble_->restart(follower, env, status)) << status.message();
  EXPECT_EQ(ensemble_->mode(follower), "follower");
  const std::string proc = "/proc/" + std::to_string(ensemble_->pid(follower));
  EXPECT_NE(read_file(proc + "/maps").find("libfaketime.so.1"), std::string::npos);
  EXPECT_NE(read_file(proc + "/environ").find(std::string("FAKETIME=-30s") + '\0'),
            std::string::npos);
}

// Last of the suite (gtest runs a suite's tests in order), so that no SetUp() has to bring two
// peers back after it; run alone, it needs none either.
TEST_F(ZkEnsembleTest, KillingTwoOfThreeLeavesNoLeader) {
  const int leader = ensemble_->leader();
  ASSERT_GE(leader, 0);
  const int follower = (leader + 1) % ZkEnsemble::kPeers;
  const int survivor = other(leader, follower);
  ensemble_->kill9(leader);
  ensemble_->kill9(follower);

  // The survivor stops serving once it sees it has no quorum; until then it may still say it
  // follows (a follower gives up within syncLimit ticks of its leader's silence).
  EXPECT_TRUE(ensemble_->wait_for_mode(survivor, "", kElection)) << ensemble_->mode(survivor);
  EXPECT_EQ(ensemble_->leader(), -1);
  // Still running, and it says so, but it serves no one.
  EXPECT_EQ(ensemble_->four_letter(survivor, "ruok"), "imok");
  EXPECT_EQ(ensemble_->four_letter(survivor, "srvr"),
            "This ZooKeeper instance is not currently serving requests\n");
}

}  // namespace
}  // namespace cosid::testing
