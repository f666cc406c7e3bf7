// SPDX-License-Identifier: Apache-2.0
#include "cli/lease_store_open.h"

#include <cstdint>
#include <string>

#include "cli/config_flags.h"
#include "cli/tool_stores.h"

namespace cosid {
namespace cli {
namespace {

const char kNoStore[] =
    "no lease store is configured (the distributor type is static): name one with --store "
    "file:DIR, --store zookeeper:CONNECT or cosid.machine.distributor.type in the config file";

}  // namespace

int resolve_lease_store(const Invocation& invocation, const char* name, OpenLeaseStore& out) {
  Options& options = out.options;
  int exit_status = kExitOk;
  // Without a store the configuration is static, which asks for a slot first; a lease command
  // needs a store, so that is what it asks for.
  if (!resolve_command_options(invocation, name, options, nullptr, exit_status, kNoStore)) {
    return exit_status;
  }
  // A missing setting, like a missing slot elsewhere: a usage error (exit 2).
  if (!options.uses_store()) {
    return usage_error(invocation.err, name, std::string(name) + ": " + kNoStore);
  }
  out.terms.slot_limit = std::uint32_t{1} << options.layout.slot_bits;
  out.terms.tolerance = options.tolerance;
  return kExitOk;
}

bool open_resolved_lease_store(OpenLeaseStore& out, Status& status) {
  const Options& options = out.options;
  // A missing store is refused by the store itself (store_not_initialized), never made.
  out.registry = make_store_registry(status);
  if (out.registry == nullptr) return false;
  out.store = out.registry->open(StoreContext{options, out.clock}, status);
  return out.store != nullptr;
}

int open_lease_store(const Invocation& invocation, const char* name, OpenLeaseStore& out) {
  if (const int exit_status = resolve_lease_store(invocation, name, out)) return exit_status;
  Status status;
  if (!open_resolved_lease_store(out, status)) return call_failed(invocation.err, name, status);
  return kExitOk;
}

}  // namespace cli
}  // namespace cosid
