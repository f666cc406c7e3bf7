// cosid parse: decodes ids and prints their time, slot and sequence.
#include <cstdint>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/id_text.h"
#include "cli/layout_flags.h"
#include "cli/output_format.h"
#include "cosid/codec.h"
#include "cosid/layout.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "parse";

constexpr const char* kDescription =
    "Decodes each ID and prints the time, slot and sequence it holds, one line per ID:\n"
    "\n"
    "  ID<TAB>TIME<TAB>slot=S<TAB>sequence=Q\n"
    "\n"
    "where ID is the id in decimal and TIME the first millisecond of its tick in RFC 3339 UTC,\n"
    "such as 2026-11-30T02:22:58.123Z. With --json each line is one JSON object:\n"
    "\n"
    "  {\"id\":\"ID\",\"timestamp_ms\":UNIX_MS,\"time\":\"TIME\",\"slot\":S,\"sequence\":Q}\n"
    "\n"
    "The format auto reads an ID with a '-' as friendly, one of digits only as decimal, one of\n"
    "13 characters as radix36 and any other as radix62: name the format for a radix62 id that\n"
    "happens to be all digits. Give the layout flags of the layout that issued the ids.\n"
    "\n"
    "An ID that cannot be read, or that uses bits the layout does not have, is reported on\n"
    "standard error as `cosid: parse: \"ID\": WHY` and the other IDs are still printed.\n";

std::string describe(std::uint64_t id, const Layout& layout, bool json) {
  if (json) return id_record(id, layout).to_json_line();
  const IdParts parts = layout.parse(id);
  return std::to_string(id) + '\t' + format_time(layout.tick_start_ms(parts.timestamp)) +
         "\tslot=" + std::to_string(parts.slot) + "\tsequence=" + std::to_string(parts.sequence) +
         '\n';
}

int run_parse(Invocation& invocation) {
  const ParsedArgs& args = invocation.args;
  std::string error;
  IdReading reading;
  if (!id_reading_from_flags(args, reading, error)) {
    return usage_error(invocation.err, kName, std::string(kName) + ": " + error);
  }
  if (args.positionals().empty()) {
    return usage_error(invocation.err, kName,
                       std::string(kName) + ": no ID given: give one or more ids to decode");
  }

  const bool json = args.has("json");
  int status = kExitOk;
  for (const std::string& text : args.positionals()) {
    Status decoded;
    std::uint64_t id = 0;
    if (!decode_id(text, reading, id, decoded)) {
      status = call_failed(invocation.err, std::string(kName) + ": " + quote(text), decoded);
      continue;
    }
    const std::string line = describe(id, reading.layout, json);
    std::fwrite(line.data(), 1, line.size(), invocation.out);
  }
  return status;
}

}  // namespace

const Command& parse_command() {
  static const Command command{
      kName,
      "decode ids and print their time, slot and sequence",
      "cosid parse [--format auto|decimal|radix62|radix36|friendly] [--json] [layout flags] ID...",
      kDescription,
      {
          {"Options",
           {
               {"format", '\0', "FORMAT",
                "auto (the default), decimal, radix62, radix36 or friendly"},
               {"json", '\0', nullptr, "print one JSON object a line instead of text"},
               help_option(),
           }},
          layout_flags_group(),
      },
      {
          {kExitOk, "every ID was decoded and printed"},
          {kExitFailure, "an ID could not be read or does not fit the layout (see standard error)"},
          usage_exit_status(),
      },
      run_parse,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
