// SPDX-License-Identifier: Apache-2.0
#include "cli/lease_scan.h"

#include <sys/stat.h>

#include <memory>
#include <string>

#include "cli/config_flags.h"
#include "cli/store_registry.h"
#include "cosid/clock.h"
#include "cosid/lease/store_registry.h"
#include "fail.h"
#include "options_internal.h"

namespace cosid {
namespace cli {
namespace {

const char kNoStore[] =
    "no lease store is configured (the distributor type is static): name one with --store "
    "file:DIR, --store zookeeper:CONNECT or cosid.machine.distributor.type in the config file";

}  // namespace

bool scan_lease_store(const Invocation& invocation, const char* name, LeaseScan& scan,
                      Status& store_failure, int& exit_status) {
  Options& options = scan.options;
  exit_status = kExitFailure;
  // Without a store the configuration is static, which asks for a slot first; these commands
  // need a store, so that is what they ask for.
  if (!resolve_command_options(invocation, name, options, nullptr, exit_status, kNoStore)) {
    return false;
  }
  // A missing setting, like a missing slot elsewhere: a usage error (exit 2).
  if (!options.uses_store()) {
    exit_status = usage_error(invocation.err, name, std::string(name) + ": " + kNoStore);
    return false;
  }
  exit_status = kExitFailure;
  // A reading changes nothing: a file store's directory that does not exist is reported, not
  // made (opening the store would create it). Every other store is opened as a runtime would.
  struct stat directory;
  if (detail::store_type_of(options) == "file" &&
      stat(options.store_directory.c_str(), &directory) != 0) {
    return detail::fail(store_failure, make_error_code(errc::store_unavailable),
                        "no lease store at " + options.store_directory +
                            ": the directory does not exist; check the path");
  }
  SystemClock clock;
  const std::unique_ptr<lease::StoreRegistry> stores = make_store_registry(store_failure);
  if (stores == nullptr) return false;
  const std::shared_ptr<lease::SlotLeaseStore> store =
      stores->open(lease::StoreContext{options, clock}, store_failure);
  lease::NamespaceTerms terms;
  terms.slot_limit = std::uint32_t{1} << options.layout.slot_bits;
  terms.tolerance = options.tolerance;
  return store != nullptr &&
         store->scan(options.namespace_name, terms, scan.records, scan.store_now, store_failure);
}

}  // namespace cli
}  // namespace cosid
