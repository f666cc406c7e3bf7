// SPDX-License-Identifier: Apache-2.0
// A program that uses cosid's ZooKeeper store the way an application sets it up, built against an
// installed or vendored cosid::zookeeper (tests/package/zookeeper, tests/package/add_subdirectory).
// It connects to no server: it reads the options' defaults, registers the store, and has open()
// refuse an empty connect string, which links the store's whole client side (and, for a static
// store, the ZooKeeper C client) into the program. Exits 0 only if every check passed.
#include <cosid/error.h>
#include <cosid/store_registry.h>
#include <cosid/zookeeper/lease_store.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "consumer_check.h"

int main() {
  namespace lease = cosid::lease;
  cosid::Status status;

  // No store instance: every key keeps its default.
  cosid::StoreSettings settings(nullptr);
  lease::ZooKeeperStoreOptions options;
  check(lease::parse_zookeeper_options(settings, options, status) && status.ok(),
        "parse_zookeeper_options accepts no keys");
  check(options.connect_string == "localhost:2181", "the default connect string");
  check(options.timeout == std::chrono::milliseconds(3000), "the default timeout");

  cosid::StoreRegistry registry;
  check(lease::add_zookeeper_store(registry, status) && status.ok(), "add_zookeeper_store");
  check(registry.contains("zookeeper"), "the registry knows \"zookeeper\"");

  lease::ZooKeeperStoreOptions empty;
  empty.connect_string = "";
  std::unique_ptr<lease::ZooKeeperLeaseStore> store =
      lease::ZooKeeperLeaseStore::open(empty, status);
  check(store == nullptr && status.code() == cosid::errc::invalid_argument,
        "open() refuses an empty connect string with invalid_argument");

  if (failures != 0) return 1;
  std::printf("zookeeper_consumer: cosid::zookeeper links and refuses \"\": %s\n",
              status.message().c_str());
  return 0;
}
