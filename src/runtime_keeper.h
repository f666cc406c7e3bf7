// SPDX-License-Identifier: Apache-2.0
// The keeper a Runtime runs, chosen by its options: a lease keeper on the store the options name,
// opened through the environment's StoreRegistry, or the state file's keeper. Kept apart from
// runtime.cc so that neither keeper needs to know the registry or the Options it comes from.
//
// Thread safety: one call per runtime start.
#ifndef COSID_SRC_RUNTIME_KEEPER_H_
#define COSID_SRC_RUNTIME_KEEPER_H_

#include <memory>

#include "base/fork_guard.h"
#include "cosid/error.h"
#include "cosid/runtime.h"
#include "window/window_keeper.h"

namespace cosid {
namespace detail {

// The runtime's keeper, not started yet (its start() leases a slot or reads the state file). For a
// store: fails with unknown_store_type or the store's own errors, and returns null. `loop` may be
// null (no background thread). REQUIRES: every argument outlives the keeper.
std::unique_ptr<WindowKeeper> open_runtime_keeper(const Options& options,
                                                  const RuntimeEnvironment& environment,
                                                  Clock& clock, FileSystem& fs,
                                                  ForkGuard& fork_guard, KeeperLoop* loop,
                                                  Status& status);

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_RUNTIME_KEEPER_H_
