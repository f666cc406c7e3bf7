// SPDX-License-Identifier: Apache-2.0
#include "runtime_keeper.h"

#include <cstdint>
#include <utility>

#include "base/fail.h"
#include "cosid/store_registry.h"
#include "lease/keeper.h"

namespace cosid {
namespace detail {
namespace {

bool memory_store_without_registry(Status& status) {
  return fail(status, make_error_code(errc::unknown_store_type),
              "the memory store needs a StoreRegistry in RuntimeEnvironment::stores, shared by "
              "every runtime that should lease from it: a memory store of one runtime alone "
              "would give each runtime of the process the same slot");
}

// The lease keeper's terms, from the runtime's options.
lease::KeeperOptions keeper_options(const Options& options, const std::atomic<bool>* cancel) {
  lease::KeeperOptions terms;
  terms.name_space = options.namespace_name;
  terms.owner_key = options.owner_key;
  // validate_options() holds slot_bits to 31 for a store.
  terms.terms.slot_limit = std::uint32_t{1} << options.layout.slot_bits;
  terms.terms.tolerance = options.tolerance;
  terms.ttl = options.ttl;
  terms.preferred_slot = options.preferred_slot;
  terms.not_before_ms = options.not_before_ms;
  terms.cancel = cancel;
  return terms;
}

std::unique_ptr<WindowKeeper> open_lease_keeper(const Options& options,
                                                const RuntimeEnvironment& environment, Clock& clock,
                                                KeeperLoop* loop, Status& status) {
  StoreRegistry* stores = environment.stores;
  // A registry of the runtime's own knows the built-in stores only, and of those it can open
  // only the file store (memory is refused), which keeps nothing of the registry: it may go once
  // the store is open.
  std::unique_ptr<StoreRegistry> own_stores;
  if (stores == nullptr) {
    if (options.store_type == "memory") {
      memory_store_without_registry(status);
      return nullptr;
    }
    own_stores = std::make_unique<StoreRegistry>();
    stores = own_stores.get();
  }
  std::shared_ptr<lease::SlotLeaseStore> store =
      stores->open(StoreContext{options, clock, environment.listener}, status);
  if (!store) return nullptr;
  return lease::LeaseKeeper::unstarted(std::move(store),
                                       keeper_options(options, environment.cancel), clock,
                                       environment.listener, loop);
}

}  // namespace

std::unique_ptr<WindowKeeper> open_runtime_keeper(const Options& options,
                                                  const RuntimeEnvironment& environment,
                                                  Clock& clock, FileSystem& fs,
                                                  ForkGuard& fork_guard, KeeperLoop* loop,
                                                  Status& status) {
  if (options.uses_store()) return open_lease_keeper(options, environment, clock, loop, status);
  return open_state_file_keeper(options, environment, clock, fs, fork_guard, loop, status);
}

}  // namespace detail
}  // namespace cosid
