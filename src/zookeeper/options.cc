// SPDX-License-Identifier: Apache-2.0
// The ZooKeeper stores' keys of a store instance, and their factories for a StoreRegistry.
#include "base/fail.h"
#include "cosid/zookeeper/lease_store.h"
#include "cosid/zookeeper/range_store.h"

namespace cosid {
namespace lease {
namespace {

using std::chrono::milliseconds;

constexpr std::size_t kMaxConnectStringBytes = 4096;
constexpr milliseconds kMaxWait{10 * 60 * 1000};

}  // namespace

bool parse_zookeeper_options(StoreSettings& settings, ZooKeeperStoreOptions& options,
                             Status& status) {
  std::int64_t retries = options.retry_max_retries;
  const bool read =
      settings.read_duration("timeout", milliseconds(10), kMaxWait, options.timeout, status) &&
      settings.read_text("options.connectString", kMaxConnectStringBytes, options.connect_string,
                         status) &&
      settings.read_duration("options.sessionTimeout", milliseconds(1000), kMaxWait,
                             options.session_timeout, status) &&
      settings.read_duration("options.connectionTimeout", milliseconds(100), kMaxWait,
                             options.connection_timeout, status) &&
      settings.read_duration("options.blockUntilConnectedWait", milliseconds(0), kMaxWait,
                             options.block_until_connected_wait, status) &&
      settings.read_duration("options.retry.baseSleepTime", milliseconds(1), kMaxWait,
                             options.retry_base_sleep, status) &&
      settings.read_whole("options.retry.maxRetries", 0, 100, retries, status) &&
      settings.read_duration("options.retry.maxSleep", milliseconds(1), kMaxWait,
                             options.retry_max_sleep, status) &&
      settings.finish(status);
  if (!read) return false;
  options.retry_max_retries = static_cast<int>(retries);
  if (options.retry_max_sleep < options.retry_base_sleep) {
    return detail::fail(status, errc::invalid_value,
                        "the ZooKeeper store's options.retry.maxSleep (" +
                            std::to_string(options.retry_max_sleep.count()) +
                            " ms) is below options.retry.baseSleepTime (" +
                            std::to_string(options.retry_base_sleep.count()) +
                            " ms): give a maxSleep of at least the base");
  }
  status.clear();
  return true;
}

namespace {

// A factory's options: the instance's keys (defaults without an instance) and the listener.
// Lease times come from the servers' mtimes (clock left null): every host of the fleet must
// decide expiry on the same clock, and a runtime's own clock is only this host's.
bool instance_options(const StoreConfig* config, EventListener* listener,
                      ZooKeeperStoreOptions& options, Status& status) {
  StoreSettings settings(config);
  if (!parse_zookeeper_options(settings, options, status)) return false;
  options.listener = listener;
  return true;
}

}  // namespace

bool add_zookeeper_store(StoreRegistry& registry, Status& status) {
  return registry.add(
             "zookeeper",
             [](const StoreContext& context,
                Status& factory_status) -> std::shared_ptr<SlotLeaseStore> {
               ZooKeeperStoreOptions options;
               if (!instance_options(context.config, context.listener, options, factory_status)) {
                 return nullptr;
               }
               return ZooKeeperLeaseStore::open(options, factory_status);
             },
             status) &&
         registry.add_range(
             "zookeeper",
             [](const RangeStoreContext& context,
                Status& factory_status) -> std::shared_ptr<segment::RangeStore> {
               ZooKeeperStoreOptions options;
               if (!instance_options(context.config, context.listener, options, factory_status)) {
                 return nullptr;
               }
               return segment::ZooKeeperRangeStore::open(options, factory_status);
             },
             status) &&
         registry.add_initializer(
             "zookeeper",
             [](const StoreContext& context, StoreInitReport& report, Status& init_status) {
               ZooKeeperStoreOptions options;
               return instance_options(context.config, context.listener, options, init_status) &&
                      init_zookeeper_store(options, report, init_status);
             },
             status);
}

}  // namespace lease
}  // namespace cosid
