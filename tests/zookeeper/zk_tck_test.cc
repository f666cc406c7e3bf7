// SPDX-License-Identifier: Apache-2.0
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
#include "cosid/zookeeper/lease_store.h"
#include "zk_server.h"
#include "zk_store_init.h"

namespace {

using cosid::lease::ZooKeeperLeaseStore;
using cosid::lease::ZooKeeperStoreOptions;
using cosid::testing::ZkServerEnvironment;

const bool kRegistered = [] {
  ::testing::AddGlobalTestEnvironment(new ZkServerEnvironment);
  cosid::lease::tck::register_conformance_tests(
      {"ZooKeeper",
       [](cosid::Clock& clock) -> std::unique_ptr<cosid::lease::SlotLeaseStore> {
         ZooKeeperStoreOptions options;
         options.connect_string = ZkServerEnvironment::connect_string();
         options.clock = &clock;
         // 16 threads or processes race for one namespace's slots, each losing compare-and-sets
         // to the others: generous, so that a loaded machine does not turn a race into a timeout.
         options.timeout = std::chrono::milliseconds(10000);
         // The store is made once, as a deployment makes it (`cosid store init`), before its
         // first use; a forked child finds it made.
         static std::string why;
         static const bool made = cosid::testing::make_zk_store(options.connect_string, why);
         if (!made) std::fprintf(stderr, "%s\n", why.c_str());
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
