// SPDX-License-Identifier: Apache-2.0
// cosid version: prints the tool's version, as `cosid --version` does.
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cosid/version.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "version";

int run_version(Invocation& invocation) {
  if (!invocation.args.positionals().empty()) {
    return usage_error(invocation.err, kName,
                       std::string(kName) + ": unexpected argument " +
                           quote(invocation.args.positionals().front()) + ": it takes none");
  }
  const std::string line = version_line();
  std::fwrite(line.data(), 1, line.size(), invocation.out);
  return kExitOk;
}

}  // namespace

std::string version_number() {
  return std::to_string(COSID_VERSION_MAJOR) + "." + std::to_string(COSID_VERSION_MINOR) + "." +
         std::to_string(COSID_VERSION_PATCH);
}

std::string version_line() { return "cosid " + version_number() + "\n"; }

const Command& version_command() {
  static const Command command{
      kName,
      "print the version of the tool (as --version)",
      "cosid version",
      "Prints `cosid VERSION`, such as `cosid 0.6.0`, the version of the tool and of the library\n"
      "it was built with.\n",
      {{"Options", {help_option()}}},
      {
          {kExitOk, "the version was printed"},
          {kExitFailure, "the output could not be written (see standard error)"},
          usage_exit_status(),
      },
      run_version,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
