// SPDX-License-Identifier: Apache-2.0
#include "cli/state_owner.h"

#include <system_error>

#include "cli/config_flags.h"

namespace cosid {
namespace cli {
namespace {

const char* no_environment(const char* /*name*/) { return nullptr; }

}  // namespace

int resolve_state_file_args(Invocation& invocation, const char* name, std::string& path,
                            Options& options) {
  const ParsedArgs& args = invocation.args;
  std::string error;
  if (!one_positional(args, "FILE", "name the state file", path, error)) {
    return usage_error(invocation.err, name, std::string(name) + ": " + error);
  }
  if (!args.has("slot")) {
    return usage_error(invocation.err, name,
                       std::string(name) + ": no --slot given: give the slot the file is for");
  }
  OptionSources sources;
  Status status;
  if (option_sources_from_args(args, sources, status)) {
    sources.env = no_environment;
    options = resolve_options(sources, status);
  }
  if (!status.ok()) return call_failed(invocation.err, name, status);
  return kExitOk;
}

}  // namespace cli
}  // namespace cosid
