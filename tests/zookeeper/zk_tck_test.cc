// The conformance kit (cosid/lease/conformance.h) run on ZooKeeperLeaseStore against one real
// standalone server, started once for the binary by a global test environment. Lease times come
// from the kit's clock (ZooKeeperStoreOptions::clock), so the kit drives expiry as it does for the
// other stores; the kit's process cases fork children that call the factory again, and reach the
// same server through the connect string the environment recorded before any test ran.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cosid/lease/conformance.h"
#include "cosid/lease/zookeeper_store.h"
#include "zk_server.h"

namespace {

using cosid::lease::ZooKeeperLeaseStore;
using cosid::lease::ZooKeeperStoreOptions;
using cosid::testing::ZkServer;

// Set by the environment's SetUp(), before the first case: a forked child reads the copy it
// inherited, so it never starts a server of its own.
std::string& connect_string() {
  static std::string text;
  return text;
}

class ServerEnvironment final : public ::testing::Environment {
 public:
  void SetUp() override {
    // Skips (or, on CI, fails) every case when no server can start here.
    COSID_REQUIRE_ZOOKEEPER();
    server_ = std::make_unique<ZkServer>();
    cosid::Status status;
    ASSERT_TRUE(server_->start(status)) << status.message();
    connect_string() = server_->connect_string();
  }
  void TearDown() override { server_.reset(); }

 private:
  // Started on the main thread, which outlives it (the server dies with the thread that started
  // it).
  std::unique_ptr<ZkServer> server_;
};

const bool kRegistered = [] {
  ::testing::AddGlobalTestEnvironment(new ServerEnvironment);
  cosid::lease::tck::register_conformance_tests(
      {"ZooKeeper",
       [](cosid::Clock& clock) -> std::unique_ptr<cosid::lease::SlotLeaseStore> {
         ZooKeeperStoreOptions options;
         options.connect_string = connect_string();
         options.clock = &clock;
         // 16 threads or processes race for one namespace's slots, each losing compare-and-sets
         // to the others: generous, so that a loaded machine does not turn a race into a timeout.
         options.timeout = std::chrono::milliseconds(10000);
         cosid::Status status;
         std::unique_ptr<ZooKeeperLeaseStore> store = ZooKeeperLeaseStore::open(options, status);
         // No GoogleTest assertion here: a forked child calls this too. The kit fails the case
         // of a factory that returned null.
         if (store == nullptr) std::fprintf(stderr, "%s\n", status.message().c_str());
         return store;
       },
       true, ""});
  return true;
}();

}  // namespace
