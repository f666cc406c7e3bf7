// SPDX-License-Identifier: Apache-2.0
// cosid state repair: gives a damaged or unprovable state file a floor the operator vouches for.
#include <cstdio>
#include <string>
#include <system_error>

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

constexpr const char* kName = "state repair";

constexpr const char* kDescription =
    "Rewrites both blocks of the state file FILE of slot N with the floor TIME, for a file that\n"
    "`cosid next` refuses as damaged: no valid record, two writers, or one damaged block next to\n"
    "a record of cosid 0.1 that cannot prove it covers every id issued. TIME must lie after the\n"
    "last id this slot ever issued, for instance:\n"
    "\n"
    "  cosid state repair FILE --slot N --not-before $(cosid not-before --from-id MAX_ID)\n"
    "\n"
    "with MAX_ID the largest id of the slot seen anywhere (logs, databases). The floor is never\n"
    "set below a ceiling that a valid block holds. The file must not be in use, and must be\n"
    "written for the given slot, layout and namespace. COSID_* variables and config files are\n"
    "not read.\n";

int run_state_repair(Invocation& invocation) {
  if (!invocation.args.has("not-before")) {
    return usage_error(invocation.err, kName,
                       std::string(kName) +
                           ": no --not-before given: give a time after the last id this slot "
                           "issued (`cosid not-before --from-id ID`)");
  }
  std::string path;
  Options options;
  if (const int status = resolve_state_file_args(invocation, kName, path, options)) return status;
  const StateFileOwner owner{options.slot, options.layout, options.namespace_name};
  SystemClock clock;
  std::int64_t floor = 0;
  Status status;
  if (!repair_state_file(posix_file_system(), clock, path, owner, options.not_before_ms, &floor,
                         status)) {
    return call_failed(invocation.err, kName, status);
  }
  std::fprintf(invocation.out, "repaired %s for slot %u: floor %s\n", path.c_str(),
               static_cast<unsigned>(options.slot), format_time(floor).c_str());
  return kExitOk;
}

}  // namespace

const Command& state_repair_command() {
  static const Command command{
      kName,
      "give a damaged state file a floor after the last id issued",
      "cosid state repair FILE --slot N --not-before TIME [--namespace NS] [layout flags]",
      kDescription,
      {
          {"Options",
           {
               {"slot", '\0', "N", "the slot the file is for (required)"},
               {"not-before", '\0', "TIME",
                "the floor: Unix ms or RFC 3339, after the last id issued (required)"},
               {"namespace", '\0', "NS",
                "the namespace of the state file, not in the ids (default cosid)"},
               help_option(),
           }},
          layout_flags_group(),
      },
      {
          {kExitOk, "the file was repaired"},
          {kExitFailure,
           "the file is missing, in use, of another slot, layout or namespace, not 8192 bytes, "
           "or could not be written (see standard error)"},
          usage_exit_status(),
      },
      run_state_repair,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
