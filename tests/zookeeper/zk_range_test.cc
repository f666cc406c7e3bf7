// SPDX-License-Identifier: Apache-2.0
// ZooKeeperRangeStore against a real standalone server, through its public API, with a C client of
// the test's own (RawClient) reading and writing the nodes behind it: the node's text exactly, two
// stores of four threads each claiming one key, a node deleted, recreated or overwritten with
// foreign text behind the store, a frozen server, a server killed and restarted on its data, an
// expired session, and answers lost on the way back (a proxy that swallows the server's answers,
// then cuts the connection) for a claim and for a give-back.
//
// One server for the suite, each test leaving it running as it found it; every test uses a key of
// its own. The waits are for real time to pass (a restart, a reconnection): each is bounded, and a
// bound only guards a hang.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cosid/clock.h"
#include "cosid/error.h"
#include "cosid/options.h"
#include "cosid/segment/options.h"
#include "cosid/segment/range_store.h"
#include "cosid/store_registry.h"
#include "cosid/zookeeper/lease_store.h"
#include "cosid/zookeeper/range_store.h"
#include "support/test_util.h"
#include "zk_raw_client.h"
#include "zk_server.h"
#include "zk_store_init.h"

namespace cosid::testing {
namespace {

using lease::ZooKeeperLeaseStore;
using lease::ZooKeeperStoreOptions;
using segment::Range;
using segment::RangeRequest;
using segment::RangeState;
using segment::ZooKeeperRangeStore;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Bounds that only guard a hang: a JVM start, a session replaced, a reconnection.
constexpr milliseconds kHang{30000};

milliseconds since(steady_clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(steady_clock::now() - start);
}

// A key of the running test's own.
std::string test_key() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string("range-") + info->name();
  return name.size() > 150 ? name.substr(0, 150) : name;
}

std::string node_of(const std::string& key) { return "/cosid/range/" + key; }

std::unique_ptr<ZooKeeperRangeStore> open_store(const ZooKeeperStoreOptions& options) {
  Status status;
  auto store = ZooKeeperRangeStore::open(options, status);
  EXPECT_NE(store, nullptr) << status.message();
  EXPECT_OK(status);
  return store;
}

std::unique_ptr<ZooKeeperRangeStore> open_store(const std::string& connect_string,
                                                milliseconds timeout) {
  ZooKeeperStoreOptions options;
  options.connect_string = connect_string;
  options.timeout = timeout;
  return open_store(options);
}

RangeRequest request_for(const std::string& key, std::int64_t count, std::int64_t offset = 0) {
  RangeRequest request;
  request.key = key;
  request.count = count;
  request.offset = offset;
  return request;
}

// A claim that must succeed.
Range claim(ZooKeeperRangeStore& store, const RangeRequest& request) {
  Range range;
  Status status;
  EXPECT_TRUE(store.claim(request, range, status)) << status.message();
  EXPECT_OK(status);
  return range;
}

// Until the node is at `version` (at most kHang); false then.
bool wait_for_version(RawClient& raw, const std::string& path, int version) {
  const auto start = steady_clock::now();
  while (since(start) < kHang) {
    std::string text;
    Stat stat{};
    int rc = ZOK;
    if (raw.get(path, text, stat, rc) && stat.version >= version) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return false;
}

// Calls `call` (bool(Status&)) until it succeeds, for kHang at most, while the server comes back:
// every failure must be store_unavailable. `status` holds the last call's.
template <typename Call>
bool until_available(Call&& call, Status& status) {
  const auto start = steady_clock::now();
  for (;;) {
    status.clear();
    if (call(status)) return true;
    EXPECT_STATUS(status, errc::store_unavailable);
    if (since(start) >= kHang) return false;
  }
}

// The node's text and version, as the test's own client reads them.
void expect_node(RawClient& raw, const std::string& path, const std::string& text, int version) {
  std::string data;
  Stat stat{};
  int rc = ZOK;
  ASSERT_TRUE(raw.get(path, data, stat, rc)) << zerror(rc);
  EXPECT_EQ(data, text);
  EXPECT_EQ(stat.version, version);
}

// Every call on `key` fails with store_corrupt, its message naming the node and `why`.
void expect_every_call_corrupt(ZooKeeperRangeStore& store, const std::string& key,
                               const Range& claimed, const std::string& why) {
  const std::string path = node_of(key);
  Status status;
  Range range;
  EXPECT_FALSE(store.claim(request_for(key, 10), range, status));
  EXPECT_STATUS(status, errc::store_corrupt);
  EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
  EXPECT_NE(status.message().find(why), std::string::npos) << status.message();
  status.clear();
  RangeState state;
  EXPECT_FALSE(store.read(key, state, status));
  EXPECT_STATUS(status, errc::store_corrupt);
  status.clear();
  EXPECT_FALSE(store.seal(key, state, status));
  EXPECT_STATUS(status, errc::store_corrupt);
  status.clear();
  bool returned = true;
  EXPECT_FALSE(store.give_back(key, claimed, returned, status));
  EXPECT_STATUS(status, errc::store_corrupt);
}

// A TCP proxy on a free loopback port to a server's client port that can lose the answer to a
// write, the way a response is lost on a real network: lose_next_write_answer() arms it, the next
// write request (create, set or multi) reaches the server, and its answer and every answer after
// it are swallowed until cut() closes every connection (the client sees a connection loss, and
// reconnects through the proxy to the same session). It reads the protocol's frames (a 4-byte
// big-endian length, then the body; after each direction's first frame, the connection's, a
// request body starts with its xid and type and an answer body with the xid it answers).
class LossyProxy {
 public:
  explicit LossyProxy(int server_port) : server_port_(server_port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_GE(listener_, 0);
    sockaddr_in address = loopback(0);
    EXPECT_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(::listen(listener_, 16), 0);
    socklen_t length = sizeof address;
    EXPECT_EQ(::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length), 0);
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~LossyProxy() {
    stopping_.store(true);
    // Wakes the blocked accept() (Linux: shutdown of a listening socket ends it).
    ::shutdown(listener_, SHUT_RDWR);
    acceptor_.join();
    ::close(listener_);
    cut();
  }
  LossyProxy(const LossyProxy&) = delete;
  LossyProxy& operator=(const LossyProxy&) = delete;

  std::string connect_string() const { return "127.0.0.1:" + std::to_string(port_); }
  void lose_next_write_answer() { armed_.store(true); }
  // Closes every connection made so far and stops losing answers.
  void cut() {
    std::vector<Connection> connections;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      connections.swap(connections_);
    }
    for (Connection& connection : connections) {
      ::shutdown(connection.client, SHUT_RDWR);
      ::shutdown(connection.server, SHUT_RDWR);
      connection.requests.join();
      connection.answers.join();
      ::close(connection.client);
      ::close(connection.server);
    }
    armed_.store(false);
    losing_.store(false);
    lost_xid_.store(kNoXid);
  }

 private:
  // No xid: the protocol's own are the client's counter (from 1), -1 (events) and -2 (pings).
  static constexpr std::int64_t kNoXid = INT64_MIN;

  struct Connection {
    int client;
    int server;
    std::thread requests;
    std::thread answers;
  };

  static sockaddr_in loopback(int port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
  }

  static std::int32_t be32(const std::string& bytes, std::size_t at) {
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
    }
    return static_cast<std::int32_t>(value);
  }

  void accept_loop() {
    while (!stopping_.load()) {
      const int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) return;
      const int server = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in address = loopback(server_port_);
      if (server < 0 ||
          ::connect(server, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(client);
        if (server >= 0) ::close(server);
        continue;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      connections_.push_back(Connection{
          client, server, std::thread([this, client, server] { pump(client, server, false); }),
          std::thread([this, client, server] { pump(server, client, true); })});
    }
  }

  // Whether to pass a frame on: a request is always passed (an armed proxy notes the xid of the
  // first write); an answer is not once the noted write's answer came.
  bool pass(const std::string& frame, bool answer) {
    if (frame.size() < 12) return true;  // 4 bytes of length, then at least an xid and a type
    const std::int32_t xid = be32(frame, 4);
    if (!answer) {
      const std::int32_t type = be32(frame, 8);
      // ZooKeeper's op codes: create 1, setData 5, multi 14, create2 15.
      const bool write = type == 1 || type == 5 || type == 14 || type == 15;
      if (write && armed_.exchange(false)) lost_xid_.store(xid);
      return true;
    }
    if (xid == lost_xid_.load()) losing_.store(true);
    return !losing_.load();
  }

  // Copies `from` to `to` frame by frame until either end closes (pass() decides, from each
  // direction's second frame on).
  void pump(int from, int to, bool answers) {
    std::string pending;
    bool first = true;
    char buffer[16384];
    for (;;) {
      const ssize_t n = ::read(from, buffer, sizeof buffer);
      if (n <= 0) break;
      pending.append(buffer, static_cast<std::size_t>(n));
      bool failed = false;
      while (pending.size() >= 4) {
        const std::size_t size = 4 + static_cast<std::uint32_t>(be32(pending, 0));
        if (pending.size() < size) break;
        const std::string frame = pending.substr(0, size);
        pending.erase(0, size);
        const bool forward = first || pass(frame, answers);
        first = false;
        if (forward && !write_all(to, frame)) failed = true;
      }
      if (failed) break;
    }
    // Either end gone: end the other direction too.
    ::shutdown(from, SHUT_RDWR);
    ::shutdown(to, SHUT_RDWR);
  }

  static bool write_all(int fd, const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t w = ::write(fd, bytes.data() + sent, bytes.size() - sent);
      if (w <= 0) return false;
      sent += static_cast<std::size_t>(w);
    }
    return true;
  }

  const int server_port_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> armed_{false};   // the next write's answer is to be lost
  std::atomic<bool> losing_{false};  // that answer came: every answer is swallowed
  std::atomic<std::int64_t> lost_xid_{kNoXid};
  std::thread acceptor_;
  std::mutex mutex_;  // guards connections_
  std::vector<Connection> connections_;
};

class ZkRangeTest : public ZkSuite<ZkServer> {
 protected:
  void SetUp() override {
    ZkSuite::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    // A test that failed half-way may have left it stopped or down.
    Status status;
    ASSERT_TRUE(servers()->serve_again(status)) << status.message();
    ASSERT_TRUE(init_zk_store(connect_string()));
    key_ = test_key();
    path_ = node_of(key_);
  }

  std::string connect_string() const { return servers()->connect_string(); }

  std::string key_;
  std::string path_;
};

// The node holds the next value in decimal, ":sealed" appended once sealed, and its version is
// the record's: created by the first claim (version 0), set by the seal (version 1). A sealed key
// refuses claims, and sealing it again writes nothing.
TEST_F(ZkRangeTest, NodeHoldsTheNextValueAndSealedExactly) {
  auto store = open_store(connect_string(), milliseconds(3000));
  ASSERT_NE(store, nullptr);
  RawClient raw(connect_string(), nullptr);
  ASSERT_TRUE(raw.connected());

  const Range range = claim(*store, request_for(key_, 1000));
  EXPECT_EQ(range.first, 1);
  EXPECT_EQ(range.end, 1001);
  expect_node(raw, path_, "1001", 0);
  EXPECT_EQ(range.version, 0u);

  Status status;
  RangeState state;
  ASSERT_TRUE(store->seal(key_, state, status)) << status.message();
  EXPECT_TRUE(state.exists);
  EXPECT_TRUE(state.sealed);
  EXPECT_EQ(state.next, 1001);
  expect_node(raw, path_, "1001:sealed", 1);
  EXPECT_EQ(state.version, 1u);

  Range refused;
  EXPECT_FALSE(store->claim(request_for(key_, 10), refused, status));
  EXPECT_STATUS(status, errc::range_sealed);
  status.clear();
  RangeState again;
  ASSERT_TRUE(store->seal(key_, again, status)) << status.message();
  EXPECT_EQ(again.version, 1u);
  expect_node(raw, path_, "1001:sealed", 1);

  // A second store (another session) reads the same record.
  auto second = open_store(connect_string(), milliseconds(3000));
  ASSERT_NE(second, nullptr);
  RangeState read;
  ASSERT_TRUE(second->read(key_, read, status)) << status.message();
  EXPECT_TRUE(read.exists && read.sealed);
  EXPECT_EQ(read.next, 1001);
  EXPECT_EQ(read.version, 1u);
}

// Text that is not a range record (written by something else) is store_corrupt naming the node
// and the text, and the node is left as it is.
TEST_F(ZkRangeTest, ForeignTextIsRefusedAndLeftAlone) {
  auto store = open_store(connect_string(), milliseconds(3000));
  ASSERT_NE(store, nullptr);
  RawClient raw(connect_string(), nullptr);
  ASSERT_TRUE(raw.connected());
  const Range range = claim(*store, request_for(key_, 10));
  ASSERT_EQ(raw.set(path_, "0011"), ZOK);
  Status status;
  Range refused;
  EXPECT_FALSE(store->claim(request_for(key_, 10), refused, status));
  EXPECT_STATUS(status, errc::store_corrupt);
  EXPECT_NE(status.message().find(path_), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("\"0011\""), std::string::npos) << status.message();
  expect_node(raw, path_, "0011", static_cast<int>(range.version) + 1);
}

// Two stores (two sessions), four threads each, claiming one key at once with counts of 1 to 7:
// the ranges are disjoint and, nothing being lost, tile [1, next) exactly; each claim's version
// is the node's after its write, so versions grow with the ranges.
TEST_F(ZkRangeTest, TwoStoresOfFourThreadsClaimDisjointRanges) {
  auto first = open_store(connect_string(), milliseconds(20000));
  auto second = open_store(connect_string(), milliseconds(20000));
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  constexpr int kThreads = 4;
  constexpr int kClaims = 60;
  std::mutex mutex;  // guards ranges
  std::vector<Range> ranges;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2 * kThreads; ++t) {
    ZooKeeperRangeStore* store = t % 2 == 0 ? first.get() : second.get();
    threads.emplace_back([&, store, t] {
      for (int i = 0; i < kClaims; ++i) {
        Range range;
        Status status;
        const bool ok = store->claim(request_for(key_, 1 + (t + i) % 7), range, status);
        EXPECT_TRUE(ok) << status.message();
        if (!ok) return;
        EXPECT_EQ(range.size(), 1 + (t + i) % 7);
        std::lock_guard<std::mutex> lock(mutex);
        ranges.push_back(range);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_EQ(ranges.size(), static_cast<std::size_t>(2 * kThreads * kClaims));
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.first < b.first; });
  EXPECT_EQ(ranges.front().first, 1);
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    EXPECT_EQ(ranges[i].first, ranges[i - 1].end) << "range " << i;
    EXPECT_GT(ranges[i].version, ranges[i - 1].version) << "range " << i;
  }
  Status status;
  RangeState state;
  ASSERT_TRUE(first->read(key_, state, status)) << status.message();
  EXPECT_EQ(state.next, ranges.back().end);
  EXPECT_EQ(state.version, ranges.back().version);
  EXPECT_EQ(state.version, ranges.size() - 1);  // created at 0, one set per later claim
}

// The node deleted behind the store: every call is store_corrupt ("deleted behind the store"),
// and none creates it again.
TEST_F(ZkRangeTest, NodeDeletedBehindTheStoreIsRefusedAndNotRecreated) {
  auto store = open_store(connect_string(), milliseconds(3000));
  ASSERT_NE(store, nullptr);
  RawClient raw(connect_string(), nullptr);
  ASSERT_TRUE(raw.connected());
  const Range range = claim(*store, request_for(key_, 100));
  ASSERT_EQ(raw.remove(path_), ZOK);
  expect_every_call_corrupt(*store, key_, range, "deleted behind the store");
  std::string text;
  Stat stat{};
  int rc = ZOK;
  EXPECT_FALSE(raw.get(path_, text, stat, rc));
  EXPECT_EQ(rc, ZNONODE);
}

// The node deleted and created again with "1" (the key started over): every call of the store
// that saw the old node is store_corrupt ("recreated"), and the new node is left as it is.
TEST_F(ZkRangeTest, NodeRecreatedBehindTheStoreIsRefusedAndLeftAlone) {
  auto store = open_store(connect_string(), milliseconds(3000));
  ASSERT_NE(store, nullptr);
  RawClient raw(connect_string(), nullptr);
  ASSERT_TRUE(raw.connected());
  claim(*store, request_for(key_, 100));
  const Range range = claim(*store, request_for(key_, 100));
  ASSERT_EQ(range.version, 1u);
  std::string text;
  Stat old{};
  int rc = ZOK;
  ASSERT_TRUE(raw.get(path_, text, old, rc)) << zerror(rc);
  ASSERT_EQ(raw.remove(path_), ZOK);
  ASSERT_EQ(raw.create(path_, "1"), ZOK);
  Stat recreated{};
  ASSERT_TRUE(raw.get(path_, text, recreated, rc)) << zerror(rc);

  expect_every_call_corrupt(*store, key_, range, "recreated behind the store");
  Stat now{};
  ASSERT_TRUE(raw.get(path_, text, now, rc)) << zerror(rc);
  EXPECT_EQ(text, "1");
  EXPECT_EQ(now.version, 0);
  EXPECT_EQ(now.czxid, recreated.czxid);
  EXPECT_NE(now.czxid, old.czxid);
}

// lease::add_zookeeper_store() registers the range store too: open_range() on a store instance
// of type "zookeeper" gives a store reading the instance's keys, which claims on the key's node;
// a key the instance does not know is refused like the lease store's.
TEST_F(ZkRangeTest, RegistryOpensTheRangeStoreOfAZooKeeperInstance) {
  StoreRegistry registry;
  Status status;
  ASSERT_TRUE(lease::add_zookeeper_store(registry, status)) << status.message();
  segment::SegmentOptions options;
  options.store_type = "zk";
  StoreConfig config;
  config.name = "zk";
  config.type = "zookeeper";
  config.settings = {{"options.connectString", connect_string(), "test"},
                     {"timeout", "2s", "test"}};
  options.stores.push_back(config);
  std::shared_ptr<segment::RangeStore> store =
      registry.open_range(RangeStoreContext{options, nullptr, nullptr}, status);
  ASSERT_NE(store, nullptr) << status.message();
  Range range;
  ASSERT_TRUE(store->claim(request_for(key_, 5, 100), range, status)) << status.message();
  EXPECT_EQ(range.first, 101);
  RawClient raw(connect_string(), nullptr);
  ASSERT_TRUE(raw.connected());
  expect_node(raw, path_, "106", 0);

  options.stores.front().settings.push_back({"options.connectionString", "x", "test"});
  status.clear();
  EXPECT_EQ(registry.open_range(RangeStoreContext{options, nullptr, nullptr}, status), nullptr);
  EXPECT_STATUS(status, errc::config_unknown_key);
}

// A chroot with no store in it (a mistyped one, or a store never made): both stores refuse to
// open with store_not_initialized, naming the node and the command, and create nothing; the
// registry's init (what `cosid store init` runs) makes the four root nodes, both stores then
// open, and a second init changes nothing.
TEST_F(ZkRangeTest, AChrootWithoutTheStoreIsRefusedUntilInitMakesIt) {
  RawClient raw(connect_string(), nullptr);
  ASSERT_TRUE(raw.connected());
  const std::string chroot = "/" + key_;
  ASSERT_EQ(raw.create(chroot, ""), ZOK);
  ZooKeeperStoreOptions options;
  options.connect_string = connect_string() + chroot;
  Status status;
  EXPECT_EQ(ZooKeeperRangeStore::open(options, status), nullptr);
  EXPECT_STATUS(status, errc::store_not_initialized);
  EXPECT_NE(status.message().find("the ZooKeeper store " + options.connect_string +
                                  " has no node /cosid/range"),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("starts every slot and key from zero"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("cosid store init --store zookeeper:" + options.connect_string),
            std::string::npos)
      << status.message();
  EXPECT_EQ(ZooKeeperLeaseStore::open(options, status), nullptr);
  EXPECT_STATUS(status, errc::store_not_initialized);
  EXPECT_NE(status.message().find("has no node /cosid/slot"), std::string::npos)
      << status.message();
  std::string data;
  Stat stat{};
  int rc = ZOK;
  EXPECT_FALSE(raw.get(chroot + "/cosid", data, stat, rc));
  EXPECT_EQ(rc, ZNONODE) << "a refused open created the store";

  StoreRegistry registry;
  ASSERT_TRUE(lease::add_zookeeper_store(registry, status)) << status.message();
  Options init_options;
  init_options.store_type = "zookeeper";
  StoreConfig config;
  config.name = "zookeeper";
  config.type = "zookeeper";
  config.settings = {{"options.connectString", options.connect_string, "test"}};
  init_options.stores.push_back(config);
  SystemClock clock;
  StoreInitReport report;
  ASSERT_TRUE(registry.init(StoreContext{init_options, clock}, report, status)) << status.message();
  EXPECT_EQ(report.store, "ZooKeeper store " + options.connect_string);
  EXPECT_EQ(report.created,
            (std::vector<std::string>{"/cosid", "/cosid/slot", "/cosid/owner", "/cosid/range"}));
  ASSERT_TRUE(raw.get(chroot + "/cosid/range", data, stat, rc));
  EXPECT_EQ(rc, ZOK);
  EXPECT_NE(ZooKeeperLeaseStore::open(options, status), nullptr) << status.message();
  auto store = ZooKeeperRangeStore::open(options, status);
  ASSERT_NE(store, nullptr) << status.message();
  EXPECT_EQ(claim(*store, request_for(key_, 10)).first, 1);
  ASSERT_TRUE(registry.init(StoreContext{init_options, clock}, report, status)) << status.message();
  EXPECT_TRUE(report.created.empty());
  EXPECT_EQ(claim(*store, request_for(key_, 10)).first, 11);  // the key's record stayed
}

// A key's first claim, and it alone, reports kRangeKeyStarted to the store's listener once the
// node is created: the key, the store and the first value.
TEST_F(ZkRangeTest, AKeysFirstClaimIsReportedOnce) {
  RecordingListener listener;
  ZooKeeperStoreOptions options;
  options.connect_string = connect_string();
  options.listener = &listener;
  auto store = open_store(options);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(claim(*store, request_for(key_, 10, 500)).first, 501);
  EXPECT_EQ(claim(*store, request_for(key_, 10, 500)).first, 511);
  const std::vector<Event> events = listener.of(EventKind::kRangeKeyStarted);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].message.find("segment key \"" + key_ +
                                   "\" had no record in the ZooKeeper range store " +
                                   connect_string() + ", so it starts at 501."),
            std::string::npos)
      << events[0].message;
}

// A frozen server (SIGSTOP) answers nothing: a claim fails with store_unavailable within the
// store's timeout (and a little). Once it runs again, claims succeed above every range handed out
// (the frozen claim's write may have been applied on resume: a gap, never an overlap).
TEST_F(ZkRangeTest, FrozenServerFailsClaimsInTimeThenClaimsResume) {
  const milliseconds timeout(2000);
  auto store = open_store(connect_string(), timeout);
  ASSERT_NE(store, nullptr);
  const Range before = claim(*store, request_for(key_, 100));

  servers()->pause();
  const auto paused = steady_clock::now();
  Range range;
  Status status;
  EXPECT_FALSE(store->claim(request_for(key_, 100), range, status));
  EXPECT_STATUS(status, errc::store_unavailable);
  EXPECT_LE(since(paused), timeout + milliseconds(2000));
  servers()->resume();

  ASSERT_TRUE(until_available(
      [&](Status& s) { return store->claim(request_for(key_, 100), range, s); }, status))
      << status.message();
  EXPECT_GE(range.first, before.end);
  RangeState state;
  ASSERT_TRUE(store->read(key_, state, status)) << status.message();
  EXPECT_EQ(state.next, range.end);
  EXPECT_EQ(store->sessions_opened(), 1u);
}

// SIGKILL, then a restart on the same data directory: a claim fails with store_unavailable while
// the server is down; afterwards the store reconnects and the key's next value is where the last
// acknowledged claim left it (or above, by a claim whose answer was lost), never below.
TEST_F(ZkRangeTest, KilledServerRestartedOnItsDataKeepsTheNextValue) {
  ZooKeeperStoreOptions options;
  options.connect_string = connect_string();
  options.timeout = milliseconds(2000);
  options.connection_timeout = milliseconds(60000);  // keep the session across the restart
  auto store = open_store(options);
  ASSERT_NE(store, nullptr);
  claim(*store, request_for(key_, 100));
  const Range before = claim(*store, request_for(key_, 100));
  ASSERT_EQ(before.end, 201);

  servers()->kill9();
  const auto killed = steady_clock::now();
  Range range;
  Status status;
  EXPECT_FALSE(store->claim(request_for(key_, 100), range, status));
  EXPECT_STATUS(status, errc::store_unavailable);
  EXPECT_LE(since(killed), options.timeout + milliseconds(2000));

  ASSERT_TRUE(servers()->restart(status)) << status.message();
  RangeState state;
  ASSERT_TRUE(until_available([&](Status& s) { return store->read(key_, state, s); }, status))
      << status.message();
  EXPECT_GE(state.next, before.end);
  range = claim(*store, request_for(key_, 100));
  EXPECT_EQ(range.first, state.next);
  EXPECT_EQ(store->sessions_opened(), 1u);
}

// A second handle on the store's session, closed, ends the session on the server: the store's
// next calls replace it by a new one (sessions_opened() 2) and claim on from where the key was.
TEST_F(ZkRangeTest, ExpiredSessionIsReplacedAndClaimsGoOn) {
  ZooKeeperStoreOptions options;
  options.connect_string = connect_string();
  options.timeout = milliseconds(2000);
  options.session_timeout = milliseconds(4000);  // the server's least: 2 ticks
  auto store = open_store(options);
  ASSERT_NE(store, nullptr);
  const Range before = claim(*store, request_for(key_, 100));
  ZooKeeperLeaseStore::Session session;
  ASSERT_TRUE(store->session(session));
  ASSERT_EQ(store->sessions_opened(), 1u);
  ASSERT_TRUE(expire_session(connect_string(), session));

  Range range;
  Status status;
  ASSERT_TRUE(until_available(
      [&](Status& s) { return store->claim(request_for(key_, 100), range, s); }, status))
      << status.message();
  EXPECT_EQ(store->sessions_opened(), 2u);
  ZooKeeperLeaseStore::Session replaced;
  ASSERT_TRUE(store->session(replaced));
  EXPECT_NE(replaced.id, session.id);
  EXPECT_GE(range.first, before.end);
}

// A store behind a LossyProxy, whose call is long enough to outlast a cut and the reconnection
// after it, and the test's own client, straight to the server.
class LostAnswers {
 public:
  LostAnswers(int server_port, const std::string& connect_string, const std::string& path)
      : proxy_(server_port), raw_(connect_string, nullptr), path_(path) {
    ZooKeeperStoreOptions options;
    options.connect_string = proxy_.connect_string();
    options.timeout = milliseconds(15000);
    options.retry_max_retries = 50;
    store_ = open_store(options);
  }

  bool ok() const { return store_ != nullptr && raw_.connected(); }
  ZooKeeperRangeStore& store() { return *store_; }
  RawClient& raw() { return raw_; }

  // Runs `call` on a thread of its own with the answer to its first write lost: once the node is
  // at `version` (the write applied), runs `between`, then cuts the connection, so that the call
  // sees a connection loss and retries; returns once the call did. False when the write was not
  // seen applied.
  bool with_lost_answer(int version, const std::function<void()>& call,
                        const std::function<void()>& between = {}) {
    proxy_.lose_next_write_answer();
    std::thread caller(call);
    const bool applied = wait_for_version(raw_, path_, version);
    if (applied && between) between();
    proxy_.cut();
    caller.join();
    return applied;
  }

 private:
  LossyProxy proxy_;  // declared first: outlives the store that connects through it
  RawClient raw_;
  std::string path_;
  std::unique_ptr<ZooKeeperRangeStore> store_;
};

// A claim whose answer is lost (the server applied it, the proxy swallowed the answer and then cut
// the connection) is retried inside the call: it reads the node again and claims anew, so the
// range the lost write took is a gap, and the one returned lies above it.
TEST_F(ZkRangeTest, ClaimWhoseAnswerIsLostClaimsAnewAboveIt) {
  LostAnswers lost(servers()->port(), connect_string(), path_);
  ASSERT_TRUE(lost.ok());
  const Range before = claim(lost.store(), request_for(key_, 10));  // [1, 11), version 0
  Range range;
  Status status;
  bool ok = false;
  // The lost write: [11, 21) taken, version 1.
  ASSERT_TRUE(lost.with_lost_answer(
      1, [&] { ok = lost.store().claim(request_for(key_, 10), range, status); }));
  ASSERT_TRUE(ok) << status.message();
  EXPECT_EQ(range.first, before.end + 10);
  EXPECT_EQ(range.end, before.end + 20);
  EXPECT_EQ(range.version, 2u);
  expect_node(lost.raw(), path_, std::to_string(range.end), 2);
}

// A give-back whose answer is lost: the retry sets on the version it decided on, which the first
// set has moved on, and reads that the node holds its text at the next version: returned, and
// the next value lowered once (version 1 after the claim's 0, not 2).
TEST_F(ZkRangeTest, GiveBackWhoseAnswerIsLostIsRecognisedAsApplied) {
  LostAnswers lost(servers()->port(), connect_string(), path_);
  ASSERT_TRUE(lost.ok());
  Range unused = claim(lost.store(), request_for(key_, 100));  // [1, 101), version 0
  unused.first = 51;
  bool returned = false;
  bool ok = false;
  Status status;
  ASSERT_TRUE(lost.with_lost_answer(
      1, [&] { ok = lost.store().give_back(key_, unused, returned, status); }));
  ASSERT_TRUE(ok) << status.message();
  EXPECT_TRUE(returned);
  expect_node(lost.raw(), path_, "51", 1);
  EXPECT_EQ(claim(lost.store(), request_for(key_, 10)).first, 51);
}

// A give-back whose answer is lost, and the values it gave back claimed by another store before
// its retry: the retry's set (on the version decided on) is refused, the node holds the other
// claim's text, so returned is false and the next value is not lowered a second time: the other
// store's range [51, 101) is never handed out again.
TEST_F(ZkRangeTest, GiveBackWhoseAnswerIsLostCannotLowerTheNextValueTwice) {
  LostAnswers lost(servers()->port(), connect_string(), path_);
  ASSERT_TRUE(lost.ok());
  auto other = open_store(connect_string(), milliseconds(3000));
  ASSERT_NE(other, nullptr);
  Range unused = claim(lost.store(), request_for(key_, 100));  // [1, 101), version 0
  unused.first = 51;
  bool returned = true;
  bool ok = false;
  Status status;
  Range taken;
  // Applied: next 51 at version 1; then the other store claims [51, 101), version 2.
  ASSERT_TRUE(lost.with_lost_answer(
      1, [&] { ok = lost.store().give_back(key_, unused, returned, status); },
      [&] { taken = claim(*other, request_for(key_, 50)); }));
  EXPECT_EQ(taken.first, 51);
  EXPECT_EQ(taken.end, 101);
  ASSERT_TRUE(ok) << status.message();
  EXPECT_FALSE(returned);
  expect_node(lost.raw(), path_, "101", 2);
  EXPECT_EQ(claim(lost.store(), request_for(key_, 10)).first, 101);
}

}  // namespace
}  // namespace cosid::testing
