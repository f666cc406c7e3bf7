// SPDX-License-Identifier: Apache-2.0
// cosid state show: prints what a state file holds, without locking or changing it.
#include <cstdint>
#include <cstdio>
#include <string>
#include <system_error>

#include "cli/commands.h"
#include "cli/output_format.h"
#include "cosid/fs.h"
#include "cosid/state_file.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "state show";

constexpr const char* kDescription =
    "Reads the state file FILE without locking or changing it (it may be in use) and prints\n"
    "both of its blocks, A and B: whether the block is valid (or why not), its generation, the\n"
    "ceiling (no id of the slot was issued after it) in Unix ms and RFC 3339, the slot, whether\n"
    "it was written by a clean shutdown, when it was written and its format (2; 1 for cosid\n"
    "0.1); then which block is current, the valid one with the higher generation, and whether a\n"
    "start may rely on it (not when it is the only valid block and of format 1: then `cosid\n"
    "state repair`). With --json it prints one JSON object:\n"
    "\n"
    "  {\"file\":FILE,\"current\":\"A\"|\"B\"|null,\"provable\":B,\"blocks\":[{\"block\":\"A\",\n"
    "   \"valid\":true,\"generation\":G,\"ceiling_ms\":MS,\"ceiling\":TIME,\"slot\":S,\n"
    "   \"clean_shutdown\":B,\"written_at_ms\":MS,\"format\":F,\"problem\":null},{\"block\":\"B\",...}]}\n";

constexpr const char* kBlockNames[2] = {"A", "B"};

Record block_record(const StateFileView& view, int block) {
  const StateRecord& record = view.records[block];
  Record fields;
  fields.add_string("block", kBlockNames[block])
      .add_bool("valid", view.valid[block])
      .add_number("generation", record.generation)
      .add_number("ceiling_ms", record.ceiling_ms)
      .add_string("ceiling", record.ceiling_ms >= 0 ? format_time(record.ceiling_ms) : "")
      .add_number("slot", std::uint64_t{record.slot})
      .add_bool("clean_shutdown", record.clean_shutdown)
      .add_number("written_at_ms", record.written_at_ms)
      .add_number("format", std::uint64_t{record.format_version});
  if (view.valid[block]) {
    fields.add_null("problem");
  } else {
    fields.add_string("problem", view.problem[block]);
  }
  return fields;
}

std::string to_json(const std::string& path, const StateFileView& view) {
  std::string blocks = "[";
  for (int block = 0; block < 2; ++block) {
    if (block > 0) blocks += ',';
    blocks += block_record(view, block).to_json();
  }
  blocks += ']';
  Record record;
  record.add_string("file", path);
  if (view.current >= 0) {
    record.add_string("current", kBlockNames[view.current]);
  } else {
    record.add_null("current");
  }
  record.add_bool("provable", view.provable);
  return record.add_json("blocks", blocks).to_json_line();
}

std::string to_text(const std::string& path, const StateFileView& view) {
  std::string text = "file: " + path + '\n';
  if (view.current < 0) {
    text += "current: none: no block is valid, so the file cannot be opened as it is\n";
  } else if (!view.provable) {
    text += "current: " + std::string(kBlockNames[view.current]) +
            ", which cannot be relied on: it is the only valid block and of format 1, so it may "
            "be the older one; run `cosid state repair " +
            path + " --slot N --not-before TIME`\n";
  } else {
    text += "current: " + std::string(kBlockNames[view.current]) + '\n';
  }
  for (int block = 0; block < 2; ++block) {
    text += "block " + std::string(kBlockNames[block]) + ": ";
    if (!view.valid[block]) {
      text += std::string("not valid: ") + view.problem[block] + '\n';
      continue;
    }
    const StateRecord& record = view.records[block];
    text += "valid\n";
    text += "  generation: " + std::to_string(record.generation) + '\n';
    text += "  ceiling: " + std::to_string(record.ceiling_ms) + " (" +
            format_time(record.ceiling_ms) + ")\n";
    text += "  slot: " + std::to_string(record.slot) + '\n';
    text += std::string("  clean_shutdown: ") + (record.clean_shutdown ? "true" : "false") + '\n';
    text += "  written_at: " + std::to_string(record.written_at_ms) + " (" +
            (record.written_at_ms >= 0 ? format_time(record.written_at_ms) : std::string("?")) +
            ")\n";
    text += "  format: " + std::to_string(record.format_version) + '\n';
  }
  return text;
}

int run_state_show(Invocation& invocation) {
  const ParsedArgs& args = invocation.args;
  std::string path;
  std::string error;
  if (!one_positional(args, "FILE", "name the state file to show", path, error)) {
    return usage_error(invocation.err, kName, std::string(kName) + ": " + error);
  }

  StateFileView view;
  Status status;
  if (!read_state_file(posix_file_system(), path, view, status)) {
    return call_failed(invocation.err, kName, status);
  }
  const std::string text = args.has("json") ? to_json(path, view) : to_text(path, view);
  std::fwrite(text.data(), 1, text.size(), invocation.out);
  return kExitOk;
}

}  // namespace

const Command& state_show_command() {
  static const Command command{
      kName,
      "print the blocks of a state file",
      "cosid state show FILE [--json]",
      kDescription,
      {
          {"Options",
           {
               {"json", '\0', nullptr, "print one JSON object instead of text"},
               help_option(),
           }},
      },
      {
          {kExitOk, "the file was read and printed, even if no block is valid"},
          {kExitFailure, "the file could not be read (see standard error)"},
          usage_exit_status(),
      },
      run_state_show,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
