// SPDX-License-Identifier: Apache-2.0
#include "cli/lease_scan.h"

#include "cli/lease_store_open.h"

namespace cosid {
namespace cli {

bool scan_lease_store(const Invocation& invocation, const char* name, LeaseScan& scan,
                      Status& store_failure, int& exit_status) {
  OpenLeaseStore opened;
  exit_status = resolve_lease_store(invocation, name, opened);
  if (exit_status != kExitOk) return false;
  exit_status = kExitFailure;
  scan.options = opened.options;
  return open_resolved_lease_store(opened, store_failure) &&
         opened.store->scan(scan.options.namespace_name, opened.terms, scan.records, scan.store_now,
                            store_failure);
}

}  // namespace cli
}  // namespace cosid
