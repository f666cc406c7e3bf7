// SPDX-License-Identifier: Apache-2.0
#include "cosid/store_registry.h"

#include "base/fail.h"
#include "base/parse_util.h"
#include "config/options_values.h"
#include "cosid/lease/file_store.h"
#include "cosid/lease/memory_store.h"
#include "cosid/segment/file_range_store.h"
#include "cosid/segment/memory_range_store.h"

namespace cosid {

using lease::FileLeaseStore;
using lease::FileLeaseStoreOptions;
using lease::MemoryLeaseStore;
using lease::SlotLeaseStore;

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

struct StoreKind;

// The sentences of this file's refusals, at its end, so that each registration and lookup reads
// without stepping over text. `noun` is "store", "range store" or "store initializer".
std::string static_is_not_a_store_message(const char* noun);
std::string not_a_type_name_message(const char* noun, const std::string& type);
std::string already_registered_message(const char* noun, const std::string& type);
std::string empty_factory_message(const char* noun, const std::string& type);
std::string misnamed_instance_message(const StoreConfig& config);
std::string unregistered_instance_type_message(const StoreKind& kind, const StoreConfig& config,
                                               const std::string& known);
std::string unregistered_type_message(const StoreKind& kind, const std::string& type,
                                      const std::string& known);
std::string factory_gave_nothing_message(const StoreKind& kind, const std::string& type);
std::string lease_directory_missing_message();
std::string range_directory_missing_message();
std::string memory_store_init_message();
std::string init_directory_missing_message();
std::string no_range_store_message();

// The checks add() and add_range() share: `noun` is "store" or "range store".
bool check_new_type(const std::string& type, bool registered, bool empty_factory, const char* noun,
                    Status& status) {
  if (type == "static") {
    return fail(status, errc::invalid_argument, static_is_not_a_store_message(noun));
  }
  if (!valid_type_name(type)) {
    return fail(status, errc::invalid_argument, not_a_type_name_message(noun, type));
  }
  if (registered) {
    return fail(status, errc::invalid_argument, already_registered_message(noun, type));
  }
  if (empty_factory) {
    return fail(status, errc::invalid_argument, empty_factory_message(noun, type));
  }
  return true;
}

// Adds `entry` to `entries` under `type`, after check_new_type().
template <typename Entry>
bool add_entry(std::vector<std::pair<std::string, Entry>>& entries, const std::string& type,
               Entry entry, const char* noun, Status& status) {
  bool registered = false;
  for (const auto& known : entries) registered = registered || known.first == type;
  if (!check_new_type(type, registered, !entry, noun, status)) return false;
  entries.emplace_back(type, std::move(entry));
  status.clear();
  return true;
}

// What the messages of open() and open_range() say of the stores they open.
struct StoreKind {
  const char* noun;          // "lease store"
  const char* type_key;      // the key that names the type
  const char* alternatives;  // what the type may be besides a registered name
  const char* registration;  // how a program adds a store of its own
};
constexpr StoreKind kLeaseKind{"lease store", "cosid.machine.distributor.type", "static or ",
                               "register the store in the StoreRegistry given to the runtime"};
constexpr StoreKind kRangeKind{"range store", "cosid.segment.distributor.type", "",
                               "register the range store with StoreRegistry::add_range"};
constexpr StoreKind kInitKind{"store initializer", "--store or cosid.machine.distributor.type", "",
                              "register one with StoreRegistry::add_initializer"};

// The factory of `factories` that `store_type` selects, as open() and open_range() both resolve
// it: the instance of `stores` of that name (`config` receives it) made by its type's factory,
// else the factory registered under that name (`config` null). Null, with `status` set, for an
// instance named like a registered type but of another, and for a name that is neither.
template <typename Factory>
const Factory* find_factory(const std::vector<std::pair<std::string, Factory>>& factories,
                            const StoreKind& kind, const std::string& store_type,
                            const std::vector<StoreConfig>& stores, const StoreConfig*& config,
                            Status& status) {
  config = detail::selected_store(store_type, stores);
  const std::string& type = config != nullptr ? config->type : store_type;
  const auto find = [&factories](const std::string& name) -> const Factory* {
    for (const auto& entry : factories) {
      if (entry.first == name) return &entry.second;
    }
    return nullptr;
  };
  // An instance named like a registered type must be of that type: "file" that makes a
  // ZooKeeper store would mislead every reader of the config.
  if (config != nullptr && find(config->name) != nullptr && config->type != config->name) {
    fail(status, errc::invalid_argument, misnamed_instance_message(*config));
    return nullptr;
  }
  if (const Factory* factory = find(type)) return factory;
  std::string known;
  for (const auto& entry : factories) known += (known.empty() ? "" : ", ") + entry.first;
  if (config != nullptr) {
    fail(status, errc::unknown_store_type,
         unregistered_instance_type_message(kind, *config, known));
    return nullptr;
  }
  fail(status, errc::unknown_store_type, unregistered_type_message(kind, type, known));
  return nullptr;
}

// A factory that returned null and left `status` ok.
template <typename Context>
void factory_gave_nothing(const StoreKind& kind, const Context& context, Status& status) {
  const std::string& type =
      context.config != nullptr ? context.config->type : context.options.store_type;
  fail(status, errc::store_unavailable, factory_gave_nothing_message(kind, type));
}

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
          fail(status, errc::invalid_argument, lease_directory_missing_message());
          return nullptr;
        }
        // The host's clock: every process of the host must decide expiry on the same one.
        FileLeaseStoreOptions options;
        return FileLeaseStore::open(context.options.store_directory, options, status);
      });
  using RangeStorePtr = std::shared_ptr<segment::RangeStore>;
  range_factories_.emplace_back(
      "memory", [this](const RangeStoreContext& context, Status& status) -> RangeStorePtr {
        if (!StoreSettings(context.config).finish(status)) return nullptr;
        // One store for every caller of this registry: two memory stores would each hand out the
        // values of a key from offset + 1 again.
        std::lock_guard<std::mutex> lock(memory_mutex_);
        if (!memory_ranges_) memory_ranges_ = std::make_shared<segment::MemoryRangeStore>();
        status.clear();
        return memory_ranges_;
      });
  range_factories_.emplace_back(
      "file", [](const RangeStoreContext& context, Status& status) -> RangeStorePtr {
        // Its one key is cosid.segment.distributor.file.directory, as the lease store's is the
        // machine's: an instance of type file has none of its own.
        if (!StoreSettings(context.config).finish(status)) return nullptr;
        if (context.options.store_directory.empty()) {
          fail(status, errc::invalid_argument, range_directory_missing_message());
          return nullptr;
        }
        segment::FileRangeStoreOptions options;
        options.listener = context.listener;  // a new key is a warning
        return segment::FileRangeStore::open(context.options.store_directory, options, status);
      });
  initializers_.emplace_back("memory", [](const StoreContext&, StoreInitReport&, Status& status) {
    return fail(status, errc::invalid_argument, memory_store_init_message());
  });
  initializers_.emplace_back(
      "file", [](const StoreContext& context, StoreInitReport& report, Status& status) {
        if (!StoreSettings(context.config).finish(status)) return false;
        const std::string& directory = context.options.store_directory;
        if (directory.empty()) {
          return fail(status, errc::invalid_argument, init_directory_missing_message());
        }
        bool created = false;
        if (!FileLeaseStore::init(directory, FileLeaseStoreOptions(), created, status)) {
          return false;
        }
        report.store = "file store " + directory;
        if (created) report.created.push_back(directory);
        return true;
      });
}

bool StoreRegistry::add(const std::string& type, StoreFactory factory, Status& status) {
  if (!check_new_type(type, contains(type), !factory, "store", status)) return false;
  factories_.emplace_back(type, std::move(factory));
  status.clear();
  return true;
}

bool StoreRegistry::add_range(const std::string& type, RangeStoreFactory factory, Status& status) {
  return add_entry(range_factories_, type, std::move(factory), "range store", status);
}

bool StoreRegistry::add_initializer(const std::string& type, StoreInitializer initializer,
                                    Status& status) {
  return add_entry(initializers_, type, std::move(initializer), "store initializer", status);
}

bool StoreRegistry::init(const StoreContext& context, StoreInitReport& report, Status& status) {
  report = StoreInitReport{};
  StoreContext resolved = context;
  const StoreInitializer* initializer =
      find_factory(initializers_, kInitKind, context.options.store_type, context.options.stores,
                   resolved.config, status);
  if (initializer == nullptr || !(*initializer)(resolved, report, status)) return false;
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
  const StoreFactory* factory = find_factory(factories_, kLeaseKind, context.options.store_type,
                                             context.options.stores, resolved.config, status);
  if (factory == nullptr) return nullptr;
  std::shared_ptr<SlotLeaseStore> store = (*factory)(resolved, status);
  if (store == nullptr && status.ok()) factory_gave_nothing(kLeaseKind, resolved, status);
  return store;
}

std::shared_ptr<segment::RangeStore> StoreRegistry::open_range(const RangeStoreContext& context,
                                                               Status& status) {
  if (context.options.store_type.empty()) {
    fail(status, errc::invalid_argument, no_range_store_message());
    return nullptr;
  }
  RangeStoreContext resolved = context;
  const RangeStoreFactory* factory =
      find_factory(range_factories_, kRangeKind, context.options.store_type, context.options.stores,
                   resolved.config, status);
  if (factory == nullptr) return nullptr;
  std::shared_ptr<segment::RangeStore> store = (*factory)(resolved, status);
  if (store == nullptr && status.ok()) factory_gave_nothing(kRangeKind, resolved, status);
  return store;
}

// The sentences.
namespace {

std::string static_is_not_a_store_message(const char* noun) {
  return "\"static\" is the configured slot, not a store: register the " + std::string(noun) +
         " under another name";
}

std::string not_a_type_name_message(const char* noun, const std::string& type) {
  return std::string(noun) + " type " + detail::quote(type) +
         " is not a name: use lower-case letters, digits, '-', '_', '.' (1 to 64)";
}

std::string already_registered_message(const char* noun, const std::string& type) {
  return "a " + std::string(noun) + " is registered as " + detail::quote(type) +
         " already: register yours under another name";
}

std::string empty_factory_message(const char* noun, const std::string& type) {
  return "the factory for " + std::string(noun) + " type " + detail::quote(type) + " is empty";
}

std::string misnamed_instance_message(const StoreConfig& config) {
  return "store instance cosid.stores." + config.name + " has type " + detail::quote(config.type) +
         " but is named like the registered store type " + detail::quote(config.name) +
         ": rename the instance, or give it type " + config.name;
}

std::string unregistered_instance_type_message(const StoreKind& kind, const StoreConfig& config,
                                               const std::string& known) {
  return "store instance cosid.stores." + config.name + " has type " + detail::quote(config.type) +
         ", which no " + kind.noun + " is registered as: use one of " + known +
         " (a program built without that store cannot open it)";
}

std::string unregistered_type_message(const StoreKind& kind, const std::string& type,
                                      const std::string& known) {
  return "no " + std::string(kind.noun) + " is registered as " + detail::quote(type) + " (" +
         kind.type_key + "), and no store instance of cosid.stores has that name: use " +
         kind.alternatives + "one of " + known + ", or " + kind.registration;
}

std::string factory_gave_nothing_message(const StoreKind& kind, const std::string& type) {
  return "the factory of " + std::string(kind.noun) + " type " + detail::quote(type) +
         " returned no store and no error: fix the factory to set the Status it is given";
}

std::string lease_directory_missing_message() {
  return "the file store needs a directory (cosid.machine.distributor.file.directory, or --store "
         "file:DIR)";
}

std::string range_directory_missing_message() {
  return "the file range store needs a directory (cosid.segment.distributor.file.directory, or "
         "--store file:DIR)";
}

std::string memory_store_init_message() {
  return "the memory store lives in one process and is new with each, so there is nothing to "
         "create: init a store that processes share, file:DIR or zookeeper:CONNECT";
}

std::string init_directory_missing_message() {
  return "the file store needs a directory to create (--store file:DIR, or "
         "cosid.machine.distributor.file.directory)";
}

std::string no_range_store_message() {
  return "no range store is configured for segment ids: give cosid.segment.distributor.type (file, "
         "zookeeper, memory or a store instance of cosid.stores) in the config file, or --store "
         "file:DIR";
}

}  // namespace

}  // namespace cosid
