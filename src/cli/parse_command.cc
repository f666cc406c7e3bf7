// SPDX-License-Identifier: Apache-2.0
// cosid parse: decodes ids and prints their time, slot and sequence.
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

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
    "With no ID, or for an ID of `-`, the ids are read from standard input, one a line (spaces\n"
    "around them are dropped, blank lines skipped), each printed as soon as it is read:\n"
    "\n"
    "  cosid next -n 3 | cosid parse\n"
    "\n"
    "The layout is resolved as `cosid next` resolves it: from the layout flags, over the config\n"
    "file (--config or COSID_CONFIG), so that a service's config decodes its ids.\n"
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

// Decodes `text` and prints it; false (reported) if it is not an id of the layout.
bool parse_one(Invocation& invocation, const IdReading& reading, const std::string& text) {
  Status decoded;
  std::uint64_t id = 0;
  if (!decode_id(text, reading, id, decoded)) {
    call_failed(invocation.err, std::string(kName) + ": " + quote(text), decoded);
    return false;
  }
  const std::string line = describe(id, reading.layout, invocation.args.has("json"));
  std::fwrite(line.data(), 1, line.size(), invocation.out);
  return true;
}

// Each line of standard input, without the spaces and tabs around it (a '\r' too, for a file
// written on Windows), as an ID; blank lines are skipped. Each line is printed as soon as it is
// read, so that `cosid next -n 0 | cosid parse` follows the stream. False if one was not an id or
// the input could not be read.
bool parse_input(Invocation& invocation, const IdReading& reading) {
  bool all_good = true;
  std::string line;
  for (int c = 0; c != EOF;) {
    c = std::getc(stdin);
    if (c != '\n' && c != EOF) {
      line += static_cast<char>(c);
      continue;
    }
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string::npos) {
      const std::size_t last = line.find_last_not_of(" \t\r");
      all_good = parse_one(invocation, reading, line.substr(first, last - first + 1)) && all_good;
      std::fflush(invocation.out);
    }
    line.clear();
  }
  if (std::ferror(stdin)) {
    runtime_error(invocation.err, std::string(kName) + ": reading standard input: " +
                                      std::strerror(errno) + ". Give the ids as arguments instead");
    return false;
  }
  return all_good;
}

int run_parse(Invocation& invocation) {
  const ParsedArgs& args = invocation.args;
  IdReading reading;
  int status = kExitOk;
  if (!id_reading_from_flags(invocation, kName, reading, status)) return status;
  std::vector<std::string> ids = args.positionals();
  if (ids.empty()) {
    // A person at a terminal who typed `cosid parse` alone did not mean to type ids into it.
    if (isatty(STDIN_FILENO)) {
      return usage_error(
          invocation.err, kName,
          std::string(kName) + ": no ID given: give one or more ids to decode, or pipe them in");
    }
    ids.emplace_back("-");
  }
  for (const std::string& text : ids) {
    const bool good =
        text == "-" ? parse_input(invocation, reading) : parse_one(invocation, reading, text);
    if (!good) status = kExitFailure;
  }
  return status;
}

}  // namespace

const Command& parse_command() {
  static const Command command{
      kName,
      "decode ids and print their time, slot and sequence",
      "cosid parse [--format auto|decimal|radix62|radix36|friendly] [--json] [--config FILE] "
      "[layout flags] [ID|-]...",
      kDescription,
      {
          {"Options",
           {
               {"format", '\0', "FORMAT",
                "auto (the default), decimal, radix62, radix36 or friendly"},
               {"json", '\0', nullptr, "print one JSON object a line instead of text"},
               config_file_option(),
               help_option(),
           }},
          layout_flags_group(),
      },
      {
          {kExitOk, "every ID was decoded and printed"},
          {kExitFailure,
           "an ID could not be read or does not fit the layout, or standard input could not be "
           "read (see standard error)"},
          usage_exit_status(),
      },
      run_parse,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
