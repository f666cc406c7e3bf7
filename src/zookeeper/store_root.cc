// SPDX-License-Identifier: Apache-2.0
// The ZooKeeper store's root nodes: the check at open, and init_zookeeper_store()
// (store_root.h, zookeeper/lease_store.h).
#include "zookeeper/store_root.h"

#include <algorithm>

#include "base/fail.h"
#include "zookeeper/calls.h"
#include "zookeeper/nodes.h"

namespace cosid {
namespace lease {
namespace zk {
namespace {

// The refusal of a store whose root node `path` is missing (store_not_initialized).
bool root_missing(const std::string& connect_string, const std::string& path, Status& status) {
  return detail::fail(
      status, errc::store_not_initialized,
      "the ZooKeeper store " + connect_string + " has no node " + path +
          ", and cosid never creates a store on first use: a new store starts every slot and "
          "key from zero, so if this store existed, the connect string (its chroot) is mistyped "
          "or the nodes were removed, and ids would repeat. Check the connect string; if the "
          "store is meant to be new, create it once with: cosid store init --store zookeeper:" +
          connect_string);
}

}  // namespace

bool check_store_root(Session& session, const ZooKeeperStoreOptions& options,
                      const std::vector<std::string>& paths, Status& status) {
  return run(
      options, "the check of the store's root",
      [&](Deadline deadline, Status& s) {
        bool transient = false;
        std::vector<NodeRead> reads;
        if (!session.get_many(paths, deadline, reads, transient, s)) return after(transient);
        for (std::size_t i = 0; i < paths.size(); ++i) {
          if (reads[i].rc == ZNONODE) {
            root_missing(options.connect_string, paths[i], s);
            return Step::kFailed;
          }
        }
        return Step::kDone;
      },
      status);
}

}  // namespace zk

bool init_zookeeper_store(const ZooKeeperStoreOptions& options, StoreInitReport& report,
                          Status& status) {
  report = StoreInitReport{};
  report.store = "ZooKeeper store " + options.connect_string;
  const std::unique_ptr<zk::Session> session = zk::Session::open(options, status);
  if (session == nullptr) return false;
  // Each try creates what is missing; a create whose answer was lost finds its node on the retry
  // (NODEEXISTS) and is then not listed as made by this call.
  return zk::run(
      options, "store init",
      [&](zk::Deadline deadline, Status& s) {
        bool transient = false;
        for (const std::string& path : zk::store_paths()) {
          int rc = ZOK;
          if (!session->create(path, std::string(), deadline, rc, transient, s)) {
            return zk::after(transient);
          }
          const bool listed =
              std::find(report.created.begin(), report.created.end(), path) != report.created.end();
          if (rc == ZOK && !listed) report.created.push_back(path);
        }
        return zk::Step::kDone;
      },
      status);
}

}  // namespace lease
}  // namespace cosid
