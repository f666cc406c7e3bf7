// SPDX-License-Identifier: Apache-2.0
// cosid not-before: the not-before that makes a new generator start after a given id.
#include <cstdint>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/config_flags.h"
#include "cli/id_text.h"
#include "cli/layout_flags.h"
#include "cli/output_format.h"
#include "cosid/codec.h"
#include "cosid/layout.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "not-before";

constexpr const char* kDescription =
    "Prints the not-before, in Unix milliseconds, past which a new generator issues only ids\n"
    "greater than ID: the last millisecond of ID's tick. Give the largest id the old generator\n"
    "issued, and the layout flags of the layout that issued it. For a migration:\n"
    "\n"
    "  cosid state init FILE --slot N --not-before $(cosid not-before --from-id MAX_ID)\n"
    "\n"
    "or pass it to `cosid next --not-before` or COSID_NOT_BEFORE. The layout is resolved as\n"
    "`cosid next` resolves it (the layout flags over --config or COSID_CONFIG); an ID that cannot\n"
    "be read or does not fit it is a usage error (status 2). With --json it prints one\n"
    "JSON object:\n"
    "\n"
    "  {\"not_before_ms\":UNIX_MS,\"not_before\":TIME,\"from_id\":ID}\n";

int run_not_before(Invocation& invocation) {
  const ParsedArgs& args = invocation.args;
  IdReading reading;
  int exit_status = kExitOk;
  if (!id_reading_from_flags(invocation, kName, reading, exit_status)) return exit_status;
  if (!args.has("from-id")) {
    return usage_error(invocation.err, kName,
                       std::string(kName) + ": no --from-id given: give the largest id issued");
  }
  if (!args.positionals().empty()) {
    return usage_error(invocation.err, kName,
                       std::string(kName) + ": unexpected argument " +
                           quote(args.positionals().front()) + ": give the id with --from-id");
  }
  const std::string text = args.value_or("from-id", "");
  std::uint64_t id = 0;
  Status status;
  if (!decode_id(text, reading, id, status)) {
    // A flag's value that is not an id of the layout: a usage error, as any malformed value.
    const std::string why = status.message();
    return usage_error(invocation.err, kName,
                       std::string(kName) + ": --from-id " + quote(text) + ": " + why);
  }
  const Layout& layout = reading.layout;
  const std::int64_t not_before_ms = layout.tick_end_ms(layout.parse(id).timestamp);
  const std::string line = args.has("json")
                               ? Record()
                                     .add_number("not_before_ms", not_before_ms)
                                     .add_string("not_before", format_time(not_before_ms))
                                     .add_string("from_id", std::to_string(id))
                                     .to_json_line()
                               : std::to_string(not_before_ms) + '\n';
  std::fwrite(line.data(), 1, line.size(), invocation.out);
  return kExitOk;
}

}  // namespace

const Command& not_before_command() {
  static const Command command{
      kName,
      "print the not-before that starts a new generator after an id",
      "cosid not-before --from-id ID [--format auto|decimal|radix62|radix36|friendly] [--json] "
      "[--config FILE] [layout flags]",
      kDescription,
      {
          {"Options",
           {
               {"from-id", '\0', "ID", "the largest id the old generator issued (required)"},
               {"format", '\0', "FORMAT",
                "format of ID: auto (the default), decimal, radix62, radix36 or friendly"},
               {"json", '\0', nullptr, "print one JSON object instead of the number"},
               config_file_option(),
               help_option(),
           }},
          layout_flags_group(),
      },
      {
          {kExitOk, "the not-before was printed"},
          {kExitFailure, "the output could not be written (see standard error)"},
          usage_exit_status(),
      },
      run_not_before,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
