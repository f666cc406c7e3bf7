// SPDX-License-Identifier: Apache-2.0
#include "zookeeper/calls.h"

#include "base/fail.h"

namespace cosid {
namespace lease {
namespace zk {

bool kept_conflicting(const ZooKeeperStoreOptions& options, const char* what, Status& status) {
  return detail::fail(status, errc::store_unavailable,
                      std::string("ZooKeeper ") + what +
                          " kept losing its compare-and-set to other "
                          "writers for the store's timeout (" +
                          std::to_string(options.timeout.count()) + " ms): retry");
}

bool gave_up(const ZooKeeperStoreOptions& options, const char* what, int retries, Status& status) {
  return detail::fail(status, errc::store_unavailable,
                      status.message() + " [" + what + " gave up after " + std::to_string(retries) +
                          " retries within the store's timeout of " +
                          std::to_string(options.timeout.count()) + " ms]");
}

std::uint64_t SeenNodes::epoch() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return epoch_;
}

bool SeenNodes::deleted(const std::string& path, std::uint64_t sent_at) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto known = nodes_.find(path);
  return known != nodes_.end() && known->second.epoch <= sent_at;
}

std::int64_t SeenNodes::seen(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto known = nodes_.find(path);
  return known != nodes_.end() ? known->second.czxid : 0;
}

bool SeenNodes::identify(const std::string& path, std::int64_t czxid, std::int64_t& first) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto known = nodes_.find(path);
  if (known == nodes_.end()) {
    nodes_[path] = Seen{czxid, ++epoch_};
    first = czxid;
    return true;
  }
  first = known->second.czxid;
  return first == czxid;
}

}  // namespace zk
}  // namespace lease
}  // namespace cosid
