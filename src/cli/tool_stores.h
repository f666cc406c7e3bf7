// SPDX-License-Identifier: Apache-2.0
// The lease stores the cosid tool knows: memory and file, and zookeeper in a build with the
// ZooKeeper store (COSID_CLI_WITH_ZOOKEEPER). Every command that opens a lease store or checks a
// store type makes its registry here, so that they all know the same stores.
//
// Thread safety: make_store_registry() may be called from any thread; the registry is
// StoreRegistry's.
#ifndef COSID_SRC_CLI_TOOL_STORES_H_
#define COSID_SRC_CLI_TOOL_STORES_H_

#include <memory>

#include "cosid/error.h"
#include "cosid/options.h"
#include "cosid/store_registry.h"

namespace cosid {
namespace cli {

// A registry with the tool's stores, on the system clock; null, with `status` set, when a store
// cannot be registered.
std::unique_ptr<StoreRegistry> make_store_registry(Status& status);

// Checks the keys of the store instance `options` select as its store reads them when it opens,
// without opening it, for the tool's own stores (memory, file, zookeeper); the keys of any other
// store's instance are that store's to check when it opens. Fails with the store's error
// (config_unknown_key, invalid_value), true and `status` ok otherwise.
bool check_store_instance(const Options& options, Status& status);

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_TOOL_STORES_H_
