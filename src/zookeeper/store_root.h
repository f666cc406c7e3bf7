// SPDX-License-Identifier: Apache-2.0
// Internal: the ZooKeeper store's root nodes (NODES.md, "The store's root"), which only an
// explicit init creates, and the check both stores make when they open: a chroot mistyped or a
// root removed would otherwise be a second, empty store, in which every slot and key starts over.
//
// Thread safety: the functions use the Session they are given, which is safe from any thread.
#ifndef COSID_SRC_ZOOKEEPER_STORE_ROOT_H_
#define COSID_SRC_ZOOKEEPER_STORE_ROOT_H_

#include <string>
#include <vector>

#include "cosid/error.h"
#include "cosid/zookeeper/lease_store.h"
#include "zookeeper/session.h"

namespace cosid {
namespace lease {
namespace zk {

// Checks, within one call of the store's timeout (its retries included), that every node of
// `paths` exists. Fails with store_not_initialized, naming the first missing node, the connect
// string and the `cosid store init` that creates them, or with store_unavailable.
bool check_store_root(Session& session, const ZooKeeperStoreOptions& options,
                      const std::vector<std::string>& paths, Status& status);

}  // namespace zk
}  // namespace lease
}  // namespace cosid

#endif  // COSID_SRC_ZOOKEEPER_STORE_ROOT_H_
