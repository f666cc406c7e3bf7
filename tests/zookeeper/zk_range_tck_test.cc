// SPDX-License-Identifier: Apache-2.0
// The range conformance kit (cosid/segment/conformance.h) run on ZooKeeperRangeStore against one
// real standalone server, started once for the binary by a global test environment. The kit's
// process cases fork children that call the factory again (the kit closes its own store first)
// and reach the same server through the connect string the environment recorded before any test
// ran; its recreated-record case deletes the key's node behind the store and creates it with "1"
// through a C client of the test's own, opened and closed inside the hook so that no client thread
// is left for a fork.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cosid/segment/conformance.h"
#include "cosid/zookeeper/range_store.h"
#include "zk_raw_client.h"
#include "zk_server.h"
#include "zk_store_init.h"

namespace {

using cosid::lease::ZooKeeperStoreOptions;
using cosid::segment::ZooKeeperRangeStore;
using cosid::testing::RawClient;
using cosid::testing::ZkServerEnvironment;

// The kit's hook: the key's node deleted and created anew with the next value 1.
bool recreate_record(const std::string& key, std::string& why) {
  const std::string path = "/cosid/range/" + key;
  RawClient raw(ZkServerEnvironment::connect_string(), nullptr);
  if (!raw.connected()) {
    why = "the test's own ZooKeeper client did not connect to " +
          ZkServerEnvironment::connect_string();
    return false;
  }
  const int removed = raw.remove(path);
  if (removed != ZOK) {
    why = "deleting " + path + " failed: " + zerror(removed);
    return false;
  }
  const int created = raw.create(path, "1");
  if (created != ZOK) {
    why = "creating " + path + " failed: " + zerror(created);
    return false;
  }
  return true;
}

const bool kRegistered = [] {
  ::testing::AddGlobalTestEnvironment(new ZkServerEnvironment);
  cosid::segment::tck::RangeStoreKit kit;
  kit.name = "ZooKeeper";
  kit.make_store = []() -> std::unique_ptr<cosid::segment::RangeStore> {
    ZooKeeperStoreOptions options;
    options.connect_string = ZkServerEnvironment::connect_string();
    // Threads and processes race for one key, each losing compare-and-sets to the others:
    // generous, so that a loaded machine does not turn a race into a timeout.
    options.timeout = std::chrono::milliseconds(10000);
    // The store is made once, as a deployment makes it (`cosid store init`), before its first
    // use; a forked child finds it made.
    static std::string why;
    static const bool made = cosid::testing::make_zk_store(options.connect_string, why);
    if (!made) std::fprintf(stderr, "%s\n", why.c_str());
    cosid::Status status;
    std::unique_ptr<ZooKeeperRangeStore> store = ZooKeeperRangeStore::open(options, status);
    // No GoogleTest assertion here: a forked child calls this too. The kit fails the case of a
    // factory that returned null.
    if (store == nullptr) std::fprintf(stderr, "%s\n", status.message().c_str());
    return store;
  };
  kit.shared_across_processes = true;
  kit.recreate_record = recreate_record;
  return cosid::segment::tck::register_range_conformance_tests(kit);
}();

}  // namespace
