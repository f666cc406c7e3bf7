// SPDX-License-Identifier: Apache-2.0
// cosid state show: prints what a state file holds, without locking or changing it.
#include <cstdint>
#include <cstdio>
#include <string>
#include <system_error>

#include "cli/commands.h"
#include "cli/config_flags.h"
#include "cli/layout_flags.h"
#include "cli/output_format.h"
#include "cosid/fs.h"
#include "cosid/options.h"
#include "cosid/state_file.h"
#include "window/state_record.h"

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
    "state repair`).\n"
    "\n"
    "A record holds the layout only as a fingerprint and the namespace only as a hash; both are\n"
    "printed, and compared with the namespace and layout configured as `cosid next` resolves\n"
    "them (config flags, COSID_* variables, --config FILE or COSID_CONFIG, else the defaults):\n"
    "`namespace: hash H (matches \"NAME\")` or `(does not match the configured \"NAME\", hash\n"
    "H)`, and likewise the layout, named as bits, unit and epoch. No slot is needed. With --json\n"
    "it prints one JSON object:\n"
    "\n"
    "  {\"file\":FILE,\"current\":\"A\"|\"B\"|null,\"provable\":B,\"blocks\":[{\"block\":\"A\",\n"
    "   \"valid\":true,\"generation\":G,\"ceiling_ms\":MS,\"ceiling\":TIME,\"slot\":S,\n"
    "   \"clean_shutdown\":B,\"written_at_ms\":MS,\"format\":F,\"layout_fingerprint\":HEX,\n"
    "   \"namespace_hash\":HEX,\"problem\":null},{\"block\":\"B\",...}],\n"
    "   \"namespace\":{\"configured\":NAME,\"hash\":HEX,\"matches\":B|null},\n"
    "   \"layout\":{\"configured\":LAYOUT,\"fingerprint\":HEX,\"matches\":B|null}}\n"
    "\n"
    "where `matches` is null when no block is valid.\n";

// The namespace and layout the configuration names, to compare with the file's record.
struct Configured {
  std::string namespace_name;
  std::uint64_t namespace_hash = 0;
  std::string layout;
  std::uint64_t layout_fingerprint = 0;
};

Configured configured_of(const Options& options) {
  return {options.namespace_name, detail::namespace_hash(options.namespace_name),
          detail::describe_layout(options.layout), detail::layout_fingerprint(options.layout)};
}

// `"matches":B|null` and the configured side, as one JSON object.
std::string comparison_json(const std::string& name, const char* key, std::uint64_t value,
                            const StateFileView& view, std::uint64_t held) {
  Record record;
  record.add_string("configured", name).add_string(key, detail::hex64(value));
  if (view.current < 0) {
    record.add_null("matches");
  } else {
    record.add_bool("matches", held == value);
  }
  return record.to_json();
}

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
      .add_number("format", std::uint64_t{record.format_version})
      .add_string("layout_fingerprint", detail::hex64(record.layout_fingerprint))
      .add_string("namespace_hash", detail::hex64(record.namespace_hash));
  if (view.valid[block]) {
    fields.add_null("problem");
  } else {
    fields.add_string("problem", view.problem[block]);
  }
  return fields;
}

std::string to_json(const std::string& path, const StateFileView& view,
                    const Configured& configured) {
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
  const StateRecord& current = view.records[view.current < 0 ? 0 : view.current];
  return record.add_json("blocks", blocks)
      .add_json("namespace",
                comparison_json(configured.namespace_name, "hash", configured.namespace_hash, view,
                                current.namespace_hash))
      .add_json("layout",
                comparison_json(configured.layout, "fingerprint", configured.layout_fingerprint,
                                view, current.layout_fingerprint))
      .to_json_line();
}

// The current record's namespace and layout, and whether they are the configured ones.
std::string comparison_text(const StateRecord& record, const Configured& configured) {
  std::string text = "namespace: hash " + detail::hex64(record.namespace_hash);
  text += record.namespace_hash == configured.namespace_hash
              ? " (matches \"" + configured.namespace_name + "\")\n"
              : " (does not match the configured \"" + configured.namespace_name + "\", hash " +
                    detail::hex64(configured.namespace_hash) + ")\n";
  text += "layout: fingerprint " + detail::hex64(record.layout_fingerprint);
  text += record.layout_fingerprint == configured.layout_fingerprint
              ? " (matches the configured " + configured.layout + ")\n"
              : " (does not match the configured " + configured.layout + ", fingerprint " +
                    detail::hex64(configured.layout_fingerprint) + ")\n";
  return text;
}

std::string to_text(const std::string& path, const StateFileView& view,
                    const Configured& configured) {
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
  if (view.current >= 0) text += comparison_text(view.records[view.current], configured);
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
    text += "  layout_fingerprint: " + detail::hex64(record.layout_fingerprint) + '\n';
    text += "  namespace_hash: " + detail::hex64(record.namespace_hash) + '\n';
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

  // The namespace and layout to compare with, resolved as `next` resolves them, but no slot.
  OptionSources sources;
  Options options;
  bool slot_given = false;
  Status status;
  if (!option_sources_from_args(args, sources, status) ||
      !resolve_options_without_slot(sources, options, slot_given, status)) {
    return call_failed(invocation.err, kName, status);
  }
  const Configured configured = configured_of(options);

  StateFileView view;
  if (!read_state_file(posix_file_system(), path, view, status)) {
    return call_failed(invocation.err, kName, status);
  }
  const std::string text =
      args.has("json") ? to_json(path, view, configured) : to_text(path, view, configured);
  std::fwrite(text.data(), 1, text.size(), invocation.out);
  return kExitOk;
}

}  // namespace

const Command& state_show_command() {
  static const Command command{
      kName,
      "print the blocks of a state file",
      "cosid state show FILE [--json] [config flags]",
      kDescription,
      {
          {"Options",
           {
               {"json", '\0', nullptr, "print one JSON object instead of text"},
               help_option(),
           }},
          config_flags_group(),
          layout_flags_group(),
      },
      {
          {kExitOk, "the file was read and printed, even if no block is valid"},
          {kExitFailure, "the file or the config file could not be read (see standard error)"},
          usage_exit_status(),
      },
      run_state_show,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
