// SPDX-License-Identifier: Apache-2.0
// The keeper a Runtime runs, chosen by its options: a lease keeper on the store the options name,
// opened through the environment's StoreRegistry, or the state file's keeper. Kept apart from
// runtime.cc so that neither keeper needs to know the registry or the Options it comes from, and
// so that a program that opens static slots only (Runtime::open_static()) links no store.
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
// The same for a static slot only: the state file's keeper (runtime.cc), which never fails.
std::unique_ptr<WindowKeeper> open_state_file_keeper(const Options& options,
                                                     const RuntimeEnvironment& environment,
                                                     Clock& clock, FileSystem& fs,
                                                     ForkGuard& fork_guard, KeeperLoop* loop,
                                                     Status& status);

// What Runtime::open() and Runtime::open_static() differ in: the check of the options and the
// keeper they may open. open() (runtime_open.cc) takes validate_options() and
// open_runtime_keeper(); open_static() (runtime.cc) its static check and open_state_file_keeper(),
// so that a program calling only open_static() links no store, registry or store option check.
struct RuntimeStart {
  bool (*validate)(const Options& options, Status& status);
  std::unique_ptr<WindowKeeper> (*open_keeper)(const Options& options,
                                               const RuntimeEnvironment& environment, Clock& clock,
                                               FileSystem& fs, ForkGuard& fork_guard,
                                               KeeperLoop* loop, Status& status);
};

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_RUNTIME_KEEPER_H_
