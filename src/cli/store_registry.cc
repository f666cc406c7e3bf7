#include "cli/store_registry.h"

#if COSID_CLI_WITH_ZOOKEEPER
#include "cosid/lease/zookeeper_store.h"
#endif

namespace cosid {
namespace cli {

std::unique_ptr<lease::StoreRegistry> make_store_registry(Status& status) {
  auto registry = std::make_unique<lease::StoreRegistry>();
#if COSID_CLI_WITH_ZOOKEEPER
  if (!lease::add_zookeeper_store(*registry, status)) return nullptr;
#endif
  status.clear();
  return registry;
}

}  // namespace cli
}  // namespace cosid
