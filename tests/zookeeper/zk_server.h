// SPDX-License-Identifier: Apache-2.0
// Real ZooKeeper servers for the tests of the ZooKeeper store: a standalone server (ZkServer) or a
// three-peer ensemble (ZkEnsemble), each peer a JVM from Debian's zookeeper package started on
// free loopback ports in a temporary directory of its own, and spoken to with the four-letter
// words (ruok, srvr, mntr) over a plain TCP socket: no ZooKeeper client is linked here, so the
// environment does not depend on the code it tests. ZkSuite<ZkServer or ZkEnsemble> gives a test
// suite one of them, started once for all its tests.
//
// The children are the JVMs themselves (fork, then exec of java: no shell in between, so pid() is
// the JVM's), killed with SIGKILL when the thread that started them exits (PR_SET_PDEATHSIG), so a
// crashed or killed test leaves no server behind; a destructor kills and reaps its servers and
// removes their directory.
//
// Where java or the server jar is missing, COSID_REQUIRE_ZOOKEEPER() skips the test with the
// reason, and fails it on CI (CI=true), where the packages must be installed.
//
// Environment: JAVA (the java binary; default: java on PATH), COSID_ZOOKEEPER_JAR (default
// /usr/share/java/zookeeper.jar), COSID_ZK_LOG=1 (the servers log through slf4j-simple into
// their log files, which a failed start prints the tail of; otherwise they log nothing).
//
// Thread safety: none. One thread drives a server; it must be a thread that outlives the server
// (the test's main thread), as a child dies with the thread that forked it.
#ifndef COSID_TESTS_ZOOKEEPER_ZK_SERVER_H_
#define COSID_TESTS_ZOOKEEPER_ZK_SERVER_H_

#include <gtest/gtest.h>
#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cosid/error.h"
#include "support/temp_dir.h"

namespace cosid::testing {

// True when real servers can start here: java runs from $JAVA or PATH, and the server jar exists.
// Otherwise false, with `why` saying what is missing and what to install.
bool zookeeper_available(std::string& why);

// True on CI (CI=true), where a missing server is a failure, not a skip.
bool zookeeper_required();

// In a test body or a fixture's SetUp(): skips (GTEST_SKIP) when real servers cannot start here,
// or fails on CI, with the reason.
#define COSID_REQUIRE_ZOOKEEPER()                                          \
  do {                                                                     \
    std::string cosid_zk_why_;                                             \
    if (!::cosid::testing::zookeeper_available(cosid_zk_why_)) {           \
      if (::cosid::testing::zookeeper_required()) FAIL() << cosid_zk_why_; \
      GTEST_SKIP() << cosid_zk_why_;                                       \
    }                                                                      \
  } while (0)

// Sends `request` to 127.0.0.1:port and returns what comes back until the server closes the
// connection, `max_bytes` have come, or `timeout` has passed ("" if nothing came).
std::string exchange(int port, const std::string& request, std::chrono::milliseconds timeout,
                     std::size_t max_bytes);

// The answer of a server on 127.0.0.1:port to a four-letter word ("ruok", "srvr", "mntr"), read
// until the server closes the connection; "" if nothing came within `timeout` (no server, or a
// stopped one: the kernel still accepts the connection, nobody answers).
std::string four_letter(int port, const std::string& word,
                        std::chrono::milliseconds timeout = std::chrono::milliseconds(1000));

// The value of the line "NAME: VALUE" in an answer of srvr or mntr ("Mode" -> "leader", "Zxid"
// -> "0x100000002"), or "" if it has no such line.
std::string four_letter_field(const std::string& answer, const std::string& name);

// The variables that run a server with its realtime clock `offset` away ("-30s", "+1h": the
// FAKETIME syntax), through libfaketime (Debian: libfaketime); monotonic time is left alone, so
// the server's timeouts still work. Empty, with `why`, when libfaketime is not installed.
std::vector<std::string> faketime_env(const std::string& offset, std::string& why);

// One server process: its directory (zoo.cfg, data/, server.log), the main class it runs and its
// client port. ZkServer and ZkEnsemble are made of these; tests use those two.
class ZkProcess {
 public:
  ZkProcess(std::string dir, std::string main_class, int client_port);
  ~ZkProcess();  // kill9()
  ZkProcess(const ZkProcess&) = delete;
  ZkProcess& operator=(const ZkProcess&) = delete;

  // Starts the JVM with `env` ("NAME=VALUE", over the test's own environment), if not running.
  bool start(const std::vector<std::string>& env, Status& status);
  // Waits until the server answers ruok with imok and srvr with a Mode (it serves clients), at
  // most 60 s; fails with store_unavailable and the log's tail if it did not, or if it exited.
  bool wait_serving(Status& status);
  // SIGKILL (a SIGSTOPped JVM dies too), then reaps it. Nothing if not running.
  void kill9();
  void pause();   // SIGSTOP
  void resume();  // SIGCONT

  bool running() const { return pid_ > 0; }
  bool paused() const { return paused_; }
  pid_t pid() const { return pid_; }
  int client_port() const { return client_port_; }
  const std::string& dir() const { return dir_; }
  // The last `lines` lines of server.log.
  std::string log_tail(int lines = 40) const;

 private:
  std::string dir_;
  std::string main_class_;
  int client_port_;
  pid_t pid_ = -1;
  bool paused_ = false;
};

// A standalone server (ZooKeeperServerMain), tickTime 2000 ms, so the sessions it grants last 4 to
// 40 s.
struct ZkServerOptions {
  // Added to the server's environment, "NAME=VALUE" (faketime_env(), say).
  std::vector<std::string> env;
};

class ZkServer {
 public:
  explicit ZkServer(ZkServerOptions options = {});
  ~ZkServer();  // kills and reaps the server, removes its directory
  ZkServer(const ZkServer&) = delete;
  ZkServer& operator=(const ZkServer&) = delete;

  // Picks a free port, writes zoo.cfg and starts the server; returns once it serves clients.
  bool start(Status& status);
  // Kills it (if running) and starts it again on the same data directory and port, with
  // options.env; returns once it serves clients.
  bool restart(Status& status);
  // Resumes it if stopped, and restarts it (restart()) if it is not running: a test's SetUp()
  // after a test that failed half-way.
  bool serve_again(Status& status);

  std::string connect_string() const;  // "127.0.0.1:PORT"
  int port() const;
  pid_t pid() const;  // the JVM's; -1 when not running
  void kill9();
  void pause();
  void resume();
  std::string four_letter(const std::string& word) const;
  // The last lines of the server's log, for a failure message.
  std::string log_tail() const;

 private:
  ZkServerOptions options_;
  TempDir root_;  // declared before the process, so destroyed after it
  std::unique_ptr<ZkProcess> process_;
};

// Three peers (QuorumPeerMain, myid 1..3, standaloneEnabled=false), tickTime 2000 ms: a peer
// that loses its quorum stops serving within syncLimit ticks (4 s), and an election takes a few
// seconds more. Peers are numbered 0..2 here (myid i + 1).
class ZkEnsemble {
 public:
  static constexpr int kPeers = 3;

  ZkEnsemble();
  ~ZkEnsemble();  // kills and reaps every peer, removes their directory
  ZkEnsemble(const ZkEnsemble&) = delete;
  ZkEnsemble& operator=(const ZkEnsemble&) = delete;

  // Picks nine free ports, writes the peers' configurations, starts all three and returns once a
  // leader and two followers serve (at most 60 s).
  bool start(Status& status);

  std::string connect_string() const;  // "127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3"
  int port(int i) const;               // peer i's client port
  pid_t pid(int i) const;              // -1 when not running

  // The peer that says it leads (srvr "Mode: leader") while every other running peer says it
  // follows; -1 if there is none or they disagree. Asks each running peer once.
  int leader() const;
  // leader() until it is a peer, at most `timeout`; -1 then.
  int wait_for_leader(std::chrono::milliseconds timeout);
  // mode(i) until it is `mode` ("" for not serving), at most `timeout`; false then.
  bool wait_for_mode(int i, const std::string& mode, std::chrono::milliseconds timeout);
  // srvr "Mode" of peer i: "leader", "follower", or "" when it does not serve (no quorum, in an
  // election, stopped or killed).
  std::string mode(int i) const;

  void kill9(int i);
  // Kills peer i (if running) and starts it on its data directory and ports with `env` added to
  // its environment (faketime_env("-30s"), say); returns once it serves clients, which needs a
  // quorum among the running peers.
  bool restart(int i, const std::vector<std::string>& env, Status& status);
  void pause(int i);
  void resume(int i);
  std::string four_letter(int i, const std::string& word) const;
  // The last lines of every peer's log, for a failure message.
  std::string log_tail() const;

 private:
  ZkProcess* peer(int i) const;  // null before start() and for an i out of range

  TempDir root_;  // declared before the peers, so destroyed after them
  std::array<std::unique_ptr<ZkProcess>, kPeers> peers_;
};

// A global test environment with one standalone server for a whole binary (a conformance kit's,
// whose cases may fork children that open stores of their own): started before the first case,
// on the main thread, which outlives it; every case skips (or, on CI, fails) when no server can
// start here. connect_string() is recorded before any case runs, so a forked child reads the copy
// it inherited and never starts a server of its own. Register it once, with
// ::testing::AddGlobalTestEnvironment(new ZkServerEnvironment).
class ZkServerEnvironment final : public ::testing::Environment {
 public:
  void SetUp() override;
  void TearDown() override;
  // "" before SetUp().
  static const std::string& connect_string();

 private:
  std::unique_ptr<ZkServer> server_;
};

// A fixture whose suite shares one ZkServer or ZkEnsemble (`Servers`), started once before the
// suite's first test and stopped after its last: a JVM takes seconds to start, so a suite does
// not start one per test. SetUp() skips or fails (COSID_REQUIRE_ZOOKEEPER) where no server can
// start, and fails every test with the reason if the start failed. A test that kills or stops
// servers brings them back, or the derived fixture's SetUp() does.
//
//   class StoreTest : public ZkSuite<ZkEnsemble> {};
//   TEST_F(StoreTest, ...) { ... servers()->connect_string() ... }
template <typename Servers>
class ZkSuite : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    std::string why;
    if (!zookeeper_available(why)) return;
    servers_ = std::make_unique<Servers>();
    start_status_ = std::make_unique<Status>();
    (void)servers_->start(*start_status_);  // SetUp() reports it
  }
  static void TearDownTestSuite() {
    servers_.reset();
    start_status_.reset();
  }

 protected:
  void SetUp() override {
    COSID_REQUIRE_ZOOKEEPER();
    ASSERT_TRUE(start_status_ && start_status_->ok())
        << (start_status_ ? start_status_->message() : "the suite's servers were not made");
  }
  static Servers* servers() { return servers_.get(); }

 private:
  static inline std::unique_ptr<Servers> servers_;
  static inline std::unique_ptr<Status> start_status_;
};

}  // namespace cosid::testing

#endif  // COSID_TESTS_ZOOKEEPER_ZK_SERVER_H_
