// SPDX-License-Identifier: Apache-2.0
#include "cli/tool_stores.h"

#include "config/config_keys.h"
#include "config/options_values.h"

#if COSID_CLI_WITH_ZOOKEEPER
#include "cosid/zookeeper/lease_store.h"
#endif

namespace cosid {
namespace cli {

std::unique_ptr<StoreRegistry> make_store_registry(Status& status) {
  auto registry = std::make_unique<StoreRegistry>();
#if COSID_CLI_WITH_ZOOKEEPER
  if (!lease::add_zookeeper_store(*registry, status)) return nullptr;
#endif
  status.clear();
  return registry;
}

bool check_store_instance(const Options& options, Status& status) {
  const StoreConfig* config = detail::selected_store(options);
  StoreSettings settings(config);
#if COSID_CLI_WITH_ZOOKEEPER
  if (config != nullptr && config->type == detail::kZooKeeperType) {
    lease::ZooKeeperStoreOptions parsed;
    return lease::parse_zookeeper_options(settings, parsed, status);
  }
#endif
  // The built-in stores read no key of an instance (cosid/store_registry.h).
  if (config != nullptr && (config->type == "memory" || config->type == "file")) {
    return settings.finish(status);
  }
  status.clear();
  return true;
}

}  // namespace cli
}  // namespace cosid
