// SPDX-License-Identifier: Apache-2.0
// StoreRegistry: the lease stores a Runtime can be configured with, by type name
// (cosid.machine.distributor.type, `--store TYPE`).
//
// A registry knows "memory" and "file" from the start; a program adds its own store under a name
// of its choosing and passes the registry in RuntimeEnvironment::stores. There is no global
// registry (cosid keeps no global state): each program, and each test, holds its own.
//
//   memory  one MemoryLeaseStore per registry, made on first use and shared by every runtime
//           opened with this registry: runtimes of one process lease distinct slots only if they
//           share one registry. Never shared across processes. It decides expiry on the
//           registry's clock (the constructor's), never on a runtime's: the store outlives the
//           runtime that opened it first, and with it that runtime's clock.
//   file    a FileLeaseStore in the configured directory
//   (cosid.machine.distributor.file.directory),
//           shared by every process on the host that names the same directory.
//
// It holds range stores for segment ids (segment/range_store.h) the same way, by the same type
// names: add_range() and open_range(), chosen by cosid.segment.distributor.type.
//
// A store is created only by init() (`cosid store init`), never by opening it: a store that was
// meant to exist and does not (a mistyped directory or ZooKeeper chroot, a moved directory) would
// start every slot and key over from zero, and ids would repeat. So open() and open_range() of a
// missing file store or ZooKeeper root fail with errc::store_not_initialized, and init() creates
// it, by the same type names: "file" makes the directory (FileLeaseStore::init), "zookeeper" the
// root nodes (init_zookeeper_store), and a program's own type provides its initializer with
// add_initializer(). One store, once made, serves both leases and ranges.
//
// Thread safety: add() must not race open(); open(), contains() and types() may be called from
// any thread at once.
#ifndef COSID_STORE_REGISTRY_H_
#define COSID_STORE_REGISTRY_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cosid/clock.h"
#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/events.h"
#include "cosid/export.h"
#include "cosid/lease/store.h"
#include "cosid/options.h"
#include "cosid/segment/options.h"
#include "cosid/segment/range_store.h"

namespace cosid {

// What a factory is given to make a store: the runtime's options (type, directory, namespace,
// terms), its clock and its listener, and the store instance options.store_type names, if it
// names one. All of them live only as long as that runtime: a store the factory hands to more
// than one runtime (or keeps) must not keep a reference to any.
struct StoreContext {
  const Options& options;
  Clock& clock;
  // The runtime's listener, for what the store reports (EventKind::kStoreLog); null: none.
  EventListener* listener = nullptr;
  // The instance of options.stores named by options.store_type; null when store_type names a
  // registered type directly. open() sets it: a caller leaves it null.
  const StoreConfig* config = nullptr;
};

// The keys of one store instance as its factory reads them, typed: each read takes the key
// below the instance ("timeout", "options.connectString") and, when the key was not given,
// leaves `value` as it is (the caller's default). A value that does not parse or lies outside
// [min, max] is errc::invalid_value naming the key (cosid.stores.NAME.KEY), the value, its origin
// and the rule. finish() refuses, with errc::config_unknown_key, a key that no read asked for: a
// misspelt key is never ignored.
//
// Thread safety: one factory call uses it, from one thread.
class COSID_EXPORT StoreSettings {
 public:
  // `config` null: no instance, every read keeps its default. REQUIRES: `config` outlives this.
  explicit StoreSettings(const StoreConfig* config) noexcept : config_(config) {}

  [[nodiscard]] bool read_text(std::string_view key, std::size_t max_bytes, std::string& value,
                               Status& status);
  // A duration in the config syntax ("100ms", "3s", "1m").
  [[nodiscard]] bool read_duration(std::string_view key, std::chrono::milliseconds min,
                                   std::chrono::milliseconds max, std::chrono::milliseconds& value,
                                   Status& status);
  [[nodiscard]] bool read_whole(std::string_view key, std::int64_t min, std::int64_t max,
                                std::int64_t& value, Status& status);
  // Fails for a key given but never read (above); true and `status` ok otherwise.
  [[nodiscard]] bool finish(Status& status) const;

 private:
  // The setting for `key`, marked as read; null when it was not given.
  const StoreSetting* take(std::string_view key);
  std::string full_key(std::string_view key) const;

  const StoreConfig* config_;
  std::vector<std::string> read_;  // the keys asked for so far
};

// Makes (or hands out a shared) store for `context`; on failure returns null and sets `status`
// (cosid/error.h) with the code and the message. A store that several runtimes should share is
// returned to each.
using StoreFactory = std::function<std::shared_ptr<lease::SlotLeaseStore>(
    const StoreContext& context, Status& status)>;

// What a factory is given to make a range store (segment/range_store.h): the segment options
// (type, directory, instances), a listener, and the instance options.store_type names, if it names
// one (open_range() sets it). As for StoreContext, none of them outlive the call.
struct RangeStoreContext {
  const segment::SegmentOptions& options;
  // What the store reports: EventKind::kRangeKeyStarted when a claim creates a key's record (the
  // file and ZooKeeper stores; the memory store, new with every process, does not). Null: none.
  EventListener* listener = nullptr;
  const StoreConfig* config = nullptr;
};

using RangeStoreFactory = std::function<std::shared_ptr<segment::RangeStore>(
    const RangeStoreContext& context, Status& status)>;

// What init() did to a store.
struct StoreInitReport {
  // The store as messages name it: "file store /var/lib/cosid/leases", "ZooKeeper store
  // zk1:2181/app".
  std::string store;
  // What it created, in order: the directory, or the nodes ("/cosid", "/cosid/slot", ...). Empty:
  // the store existed whole, and nothing was changed.
  std::vector<std::string> created;
};

// Creates the store `context` names if it is missing, and only what is missing; an existing store
// is left as it is (report.created empty). On failure returns false and sets `status`. It must be
// safe to repeat, and must never change a record a store holds.
using StoreInitializer =
    std::function<bool(const StoreContext& context, StoreInitReport& report, Status& status)>;

class COSID_EXPORT StoreRegistry {
 public:
  // A registry with memory and file. `clock` is the memory store's: null for the system clock
  // (the registry's own). REQUIRES: `clock`, if not null, outlives the registry.
  explicit StoreRegistry(Clock* clock = nullptr);
  StoreRegistry(const StoreRegistry&) = delete;
  StoreRegistry& operator=(const StoreRegistry&) = delete;

  // Registers `factory` under `type`. Fails with invalid_argument for "static", a name that is
  // not lower-case letters, digits, '-', '_', '.' (1 to 64), or a name already registered.
  [[nodiscard]] bool add(const std::string& type, StoreFactory factory, Status& status);
#if COSID_HAS_EXCEPTIONS
  void add(const std::string& type, StoreFactory factory);
#endif

  // Registers a range store factory under `type`, by the rules of add(); a type may have a lease
  // store, a range store or both (file, memory and zookeeper have both).
  [[nodiscard]] bool add_range(const std::string& type, RangeStoreFactory factory, Status& status);

  // Registers the initializer of store type `type`, by the rules of add(); file, zookeeper (with
  // add_zookeeper_store) and memory (which refuses: it lives in one process, with nothing to
  // create) have theirs.
  [[nodiscard]] bool add_initializer(const std::string& type, StoreInitializer initializer,
                                     Status& status);

  // Creates the store for context.options.store_type (resolved as open() resolves it: an instance
  // of options.stores, or a registered type) with its type's initializer: the directory of a file
  // store (options.store_directory), the root nodes of a ZooKeeper store. `report` says what was
  // created; nothing when the store existed. Fails with unknown_store_type (no initializer for
  // the type), invalid_argument, or the initializer's error (store_unavailable: the ensemble or
  // disk; a file store's parent directory must exist).
  [[nodiscard]] bool init(const StoreContext& context, StoreInitReport& report, Status& status);

  bool contains(std::string_view type) const;
  // The registered names, in the order they were added.
  std::vector<std::string> types() const;

  // The store for context.options.store_type: the instance of context.options.stores of that
  // name, made by the factory of its type (the factory's context.config points at it), else the
  // factory registered under that name (context.config null). Fails with unknown_store_type for
  // a name that is neither, or an instance whose type is not registered (the message lists the
  // registered names), invalid_argument for an instance named like a registered type but of
  // another type, or with the factory's error (store_unavailable if the factory returned null
  // and left `status` ok).
  [[nodiscard]] std::shared_ptr<lease::SlotLeaseStore> open(const StoreContext& context,
                                                            Status& status);

  // The range store for context.options.store_type, by the rules of open(): memory (one
  // MemoryRangeStore per registry, shared by every caller), file (a FileRangeStore in
  // options.store_directory), an added type, or an instance of options.stores. Fails also with
  // invalid_argument when no type is configured (the message names cosid.segment.distributor.type
  // and --store).
  [[nodiscard]] std::shared_ptr<segment::RangeStore> open_range(const RangeStoreContext& context,
                                                                Status& status);

 private:
  SystemClock system_clock_;
  Clock& clock_;  // the memory store's: system_clock_ or the constructor's
  std::vector<std::pair<std::string, StoreFactory>> factories_;
  std::mutex memory_mutex_;  // guards memory_
  std::shared_ptr<lease::SlotLeaseStore> memory_;
  std::vector<std::pair<std::string, RangeStoreFactory>> range_factories_;
  std::shared_ptr<segment::RangeStore> memory_ranges_;  // guarded by memory_mutex_
  std::vector<std::pair<std::string, StoreInitializer>> initializers_;
};

}  // namespace cosid

#endif  // COSID_STORE_REGISTRY_H_
