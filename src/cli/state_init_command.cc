// SPDX-License-Identifier: Apache-2.0
// cosid state init: creates a state file with a chosen floor, for a migration.
#include <cstdio>
#include <string>
#include <system_error>

#include "base/time_format.h"
#include "cli/commands.h"
#include "cli/layout_flags.h"
#include "cli/output_format.h"
#include "cli/state_owner.h"
#include "cosid/clock.h"
#include "cosid/fs.h"
#include "cosid/options.h"
#include "cosid/state_file.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "state init";

constexpr const char* kDescription =
    "Creates the state file FILE for slot N with its floor at TIME: a process that opens it\n"
    "issues no timestamp at or before TIME. Use it when moving a slot from another id\n"
    "generator, with TIME past the last id that generator issued, for instance:\n"
    "\n"
    "  cosid state init FILE --slot N --not-before $(cosid not-before --from-id MAX_ID)\n"
    "\n"
    "TIME is Unix milliseconds or RFC 3339 (2026-11-30T02:22:58.123Z); without it the floor is\n"
    "0 and the file only guards against later clock changes. The file belongs to the slot, the\n"
    "layout and the namespace it is made for: give the same ones to `cosid next`. An existing\n"
    "file is never replaced, since its ceiling could then go back. COSID_* variables and config\n"
    "files are not read.\n";

int run_state_init(Invocation& invocation) {
  std::string path;
  Options options;
  if (const int status = resolve_state_file_args(invocation, kName, path, options)) return status;
  Status status;
  const StateFileOwner owner{options.slot, options.layout, options.namespace_name};
  SystemClock clock;
  if (!create_state_file(posix_file_system(), clock, path, owner, options.not_before_ms, status)) {
    return call_failed(invocation.err, kName, status);
  }
  std::fprintf(invocation.out, "created %s for slot %u with floor %s\n", path.c_str(),
               static_cast<unsigned>(options.slot),
               detail::format_floor(options.not_before_ms, options.layout.epoch_ms()).c_str());
  return kExitOk;
}

}  // namespace

const Command& state_init_command() {
  static const Command command{
      kName,
      "create a state file with a chosen floor (migrations)",
      "cosid state init FILE --slot N [--not-before TIME] [--namespace NS] [layout flags]",
      kDescription,
      {
          {"Options",
           {
               {"slot", '\0', "N", "the slot the file is for (required)"},
               {"not-before", '\0', "TIME", "the floor: Unix ms or RFC 3339 (default 0: none)"},
               {"namespace", '\0', "NS",
                "the namespace of the state file, not in the ids (default cosid)"},
               help_option(),
           }},
          layout_flags_group(),
      },
      {
          {kExitOk, "the file was created"},
          {kExitFailure,
           "the file exists or could not be created, or a value is not valid (see standard "
           "error)"},
          usage_exit_status(),
      },
      run_state_init,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
