// SPDX-License-Identifier: Apache-2.0
// How a `cosid lease` command reaches its store: the config flags resolved (a store is required),
// the store opened as a runtime would open it, and the namespace's terms.
//
// Thread safety: for the CLI's one thread.
#ifndef COSID_SRC_CLI_LEASE_STORE_OPEN_H_
#define COSID_SRC_CLI_LEASE_STORE_OPEN_H_

#include <memory>

#include "cli/command.h"
#include "cosid/clock.h"
#include "cosid/lease/store.h"
#include "cosid/options.h"
#include "cosid/store_registry.h"

namespace cosid {
namespace cli {

// An open store with what it refers to: the clock and the registry outlive the store.
struct OpenLeaseStore {
  Options options;
  lease::NamespaceTerms terms;  // 2^slot bits of the layout, and the tolerance
  SystemClock clock;
  std::unique_ptr<StoreRegistry> registry;
  std::shared_ptr<lease::SlotLeaseStore> store;
};

// Resolves the config flags of `invocation` into out.options and out.terms (a static
// configuration, or a slot, is a usage error: `name` wants a store). Returns kExitOk, or the exit
// status after the error was reported.
int resolve_lease_store(const Invocation& invocation, const char* name, OpenLeaseStore& out);

// Opens the store out.options names, as a runtime would, after resolve_lease_store() (a store
// that was never made is refused with store_not_initialized: a lease command makes no store).
// False with `status` set, reported to nobody: the caller says how.
bool open_resolved_lease_store(OpenLeaseStore& out, Status& status);

// Both, reporting a failure as `name`'s error. Returns kExitOk, or the exit status after the
// error was reported.
int open_lease_store(const Invocation& invocation, const char* name, OpenLeaseStore& out);

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_LEASE_STORE_OPEN_H_
