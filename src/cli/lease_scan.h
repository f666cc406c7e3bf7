// SPDX-License-Identifier: Apache-2.0
// Reading a namespace's slot records from the configured lease store, without changing them: what
// `cosid lease list` prints and `cosid lease check` judges.
//
// Thread safety: a function of its arguments, for the command's one thread.
#ifndef COSID_SRC_CLI_LEASE_SCAN_H_
#define COSID_SRC_CLI_LEASE_SCAN_H_

#include <cstdint>
#include <vector>

#include "cli/command.h"
#include "cosid/error.h"
#include "cosid/lease/store.h"
#include "cosid/options.h"

namespace cosid {
namespace cli {

// What a scan found: the namespace's records and the store's clock when it read them.
struct LeaseScan {
  Options options;
  std::vector<lease::SlotRecord> records;
  std::int64_t store_now = 0;
};

// Resolves the options of command `name` (a store is required: without one, a usage error) and
// reads the records. False with `exit_status` when the options are wrong (reported); false with
// `store_failure` set (not reported: the caller says how) when the store could not be opened or
// read, or its file directory does not exist.
bool scan_lease_store(const Invocation& invocation, const char* name, LeaseScan& scan,
                      Status& store_failure, int& exit_status);

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_LEASE_SCAN_H_
