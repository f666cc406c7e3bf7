#include "cosid/lease/store_registry.h"

#include "cosid/lease/file_store.h"
#include "cosid/lease/memory_store.h"
#include "fail.h"
#include "options_internal.h"
#include "parse_util.h"

namespace cosid {
namespace lease {
namespace {

constexpr std::size_t kMaxTypeBytes = 64;

bool valid_type_name(std::string_view type) {
  if (type.empty() || type.size() > kMaxTypeBytes) return false;
  for (const char c : type) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) {
      return false;
    }
  }
  return true;
}

using detail::fail;

}  // namespace

StoreRegistry::StoreRegistry(Clock* clock) : clock_(clock != nullptr ? *clock : system_clock_) {
  factories_.emplace_back(
      "memory",
      [this](const StoreContext& context, Status& status) -> std::shared_ptr<SlotLeaseStore> {
        // It has no keys: an instance of type memory that gives one is refused, not ignored.
        if (!StoreSettings(context.config).finish(status)) return nullptr;
        // One store for every runtime of this registry: two memory stores would each give slot 0.
        // On the registry's clock: the store lives as long as the registry, and context.clock
        // only as long as the runtime that happens to open it first.
        std::lock_guard<std::mutex> lock(memory_mutex_);
        if (!memory_) memory_ = std::make_shared<MemoryLeaseStore>(clock_);
        status.clear();
        return memory_;
      });
  factories_.emplace_back(
      "file", [](const StoreContext& context, Status& status) -> std::shared_ptr<SlotLeaseStore> {
        // Its one key is cosid.machine.distributor.file.directory: an instance of type file has
        // none of its own, and any key it gives is refused rather than ignored.
        if (!StoreSettings(context.config).finish(status)) return nullptr;
        if (context.options.store_directory.empty()) {
          fail(status, errc::invalid_argument,
               "the file store needs a directory (cosid.machine.distributor.file.directory, or "
               "--store file:DIR)");
          return nullptr;
        }
        // The host's clock: every process of the host must decide expiry on the same one.
        FileLeaseStoreOptions options;
        return FileLeaseStore::open(context.options.store_directory, options, status);
      });
}

bool StoreRegistry::add(const std::string& type, StoreFactory factory, Status& status) {
  if (type == "static") {
    return fail(status, errc::invalid_argument,
                "\"static\" is the configured slot, not a store: register the store under "
                "another name");
  }
  if (!valid_type_name(type)) {
    return fail(status, errc::invalid_argument,
                "store type " + detail::quote(type) +
                    " is not a name: use lower-case letters, digits, '-', '_', '.' (1 to 64)");
  }
  if (contains(type)) {
    return fail(status, errc::invalid_argument,
                "a store is registered as " + detail::quote(type) +
                    " already: register yours under another name");
  }
  if (!factory) {
    return fail(status, errc::invalid_argument,
                "the factory for store type " + detail::quote(type) + " is empty");
  }
  factories_.emplace_back(type, std::move(factory));
  status.clear();
  return true;
}

#if COSID_HAS_EXCEPTIONS
void StoreRegistry::add(const std::string& type, StoreFactory factory) {
  Status status;
  (void)add(type, std::move(factory), status);
  detail::throw_if_failed(status);
}
#endif

bool StoreRegistry::contains(std::string_view type) const {
  for (const auto& entry : factories_) {
    if (entry.first == type) return true;
  }
  return false;
}

std::vector<std::string> StoreRegistry::types() const {
  std::vector<std::string> names;
  for (const auto& entry : factories_) names.push_back(entry.first);
  return names;
}

std::shared_ptr<SlotLeaseStore> StoreRegistry::open(const StoreContext& context, Status& status) {
  StoreContext resolved = context;
  resolved.config = detail::selected_store(context.options);
  const std::string& type = detail::store_type_of(context.options);
  // An instance named like a registered type must be of that type: "file" that makes a
  // ZooKeeper store would mislead every reader of the config.
  const StoreConfig* config = resolved.config;
  if (config != nullptr && contains(config->name) && config->type != config->name) {
    fail(status, errc::invalid_argument,
         "store instance cosid.stores." + config->name + " has type " +
             detail::quote(config->type) + " but is named like the registered store type " +
             detail::quote(config->name) + ": rename the instance, or give it type " +
             config->name);
    return nullptr;
  }
  for (const auto& entry : factories_) {
    if (entry.first != type) continue;
    std::shared_ptr<SlotLeaseStore> store = entry.second(resolved, status);
    if (store == nullptr && status.ok()) {
      fail(status, errc::store_unavailable,
           "the factory of lease store type " + detail::quote(type) +
               " returned no store and no error: fix the factory to set the Status it is given");
    }
    return store;
  }
  std::string known;
  for (const auto& entry : factories_) known += (known.empty() ? "" : ", ") + entry.first;
  if (resolved.config != nullptr) {
    fail(status, errc::unknown_store_type,
         "store instance cosid.stores." + resolved.config->name + " has type " +
             detail::quote(type) + ", which no lease store is registered as: use one of " + known +
             " (a program built without that store cannot open it)");
    return nullptr;
  }
  fail(status, errc::unknown_store_type,
       "no lease store is registered as " + detail::quote(type) +
           " (cosid.machine.distributor.type), and no store instance of cosid.stores has that "
           "name: use static or one of " +
           known + ", or register the store in the StoreRegistry given to the runtime");
  return nullptr;
}

}  // namespace lease
}  // namespace cosid
