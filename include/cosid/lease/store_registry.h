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
// Thread safety: add() must not race open(); open(), contains() and types() may be called from
// any thread at once.
#ifndef COSID_LEASE_STORE_REGISTRY_H_
#define COSID_LEASE_STORE_REGISTRY_H_

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
#include "cosid/export.h"
#include "cosid/lease/store.h"
#include "cosid/options.h"

namespace cosid {
namespace lease {

// What a factory is given to make a store: the runtime's options (type, directory, namespace,
// terms) and its clock. Both live only as long as that runtime: a store the factory hands to
// more than one runtime (or keeps) must not keep a reference to either.
struct StoreContext {
  const Options& options;
  Clock& clock;
};

// Makes (or hands out a shared) store for `context`; on failure returns null and sets `status`
// (cosid/error.h) with the code and the message. A store that several runtimes should share is
// returned to each.
using StoreFactory =
    std::function<std::shared_ptr<SlotLeaseStore>(const StoreContext& context, Status& status)>;

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

  bool contains(std::string_view type) const;
  // The registered names, in the order they were added.
  std::vector<std::string> types() const;

  // The store for context.options.store_type. Fails with unknown_store_type (the message lists
  // the registered names) or with the factory's error (store_unavailable if the factory returned
  // null and left `status` ok).
  [[nodiscard]] std::shared_ptr<SlotLeaseStore> open(const StoreContext& context, Status& status);

 private:
  SystemClock system_clock_;
  Clock& clock_;  // the memory store's: system_clock_ or the constructor's
  std::vector<std::pair<std::string, StoreFactory>> factories_;
  std::mutex memory_mutex_;  // guards memory_
  std::shared_ptr<SlotLeaseStore> memory_;
};

}  // namespace lease
}  // namespace cosid

#endif  // COSID_LEASE_STORE_REGISTRY_H_
