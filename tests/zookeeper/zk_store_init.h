// SPDX-License-Identifier: Apache-2.0
// The ZooKeeper store's init for the tests of a binary that links cosid::zookeeper: no store
// creates its root nodes on first use, so a test makes them, as `cosid store init --store
// zookeeper:CONNECT` does, before the store's first use.
#ifndef COSID_TESTS_ZOOKEEPER_ZK_STORE_INIT_H_
#define COSID_TESTS_ZOOKEEPER_ZK_STORE_INIT_H_

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "cosid/zookeeper/lease_store.h"

namespace cosid::testing {

// Creates /cosid, /cosid/slot, /cosid/owner and /cosid/range on `connect_string` where missing
// (lease::init_zookeeper_store); false with `why` when it cannot. No GoogleTest assertion, for a
// conformance kit's factory, which a forked child calls too. Its session is closed when it
// returns, so a test may fork after it.
inline bool make_zk_store(const std::string& connect_string, std::string& why) {
  lease::ZooKeeperStoreOptions options;
  options.connect_string = connect_string;
  options.timeout = std::chrono::milliseconds(10000);  // a loaded machine's first session
  StoreInitReport report;
  Status status;
  if (lease::init_zookeeper_store(options, report, status)) return true;
  why = "cannot create the ZooKeeper store on " + connect_string + ": " + status.message();
  return false;
}

// The same, a failure being a test failure (and false).
inline bool init_zk_store(const std::string& connect_string) {
  std::string why;
  if (make_zk_store(connect_string, why)) return true;
  ADD_FAILURE() << why;
  return false;
}

}  // namespace cosid::testing

#endif  // COSID_TESTS_ZOOKEEPER_ZK_STORE_INIT_H_
