// SPDX-License-Identifier: Apache-2.0
// The arguments of the commands that write a state file for a slot without running it (state
// init, state repair): FILE, --slot N, --not-before, --namespace and the layout flags, from the
// command line alone (no COSID_* variable, no config file: what such a file is for must be said).
#ifndef COSID_SRC_CLI_STATE_OWNER_H_
#define COSID_SRC_CLI_STATE_OWNER_H_

#include <string>

#include "cli/command.h"
#include "cosid/options.h"

namespace cosid {
namespace cli {

// Resolves FILE into `path` and the flags into `options` by the rules and with the messages of
// every other command. Returns kExitOk, or the exit status of the error it reported.
int resolve_state_file_args(Invocation& invocation, const char* name, std::string& path,
                            Options& options);

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_STATE_OWNER_H_
