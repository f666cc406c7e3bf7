// SPDX-License-Identifier: Apache-2.0
#include "cli/man_page.h"

#include <cstring>
#include <string_view>

#include "cli/config_flags.h"
#include "config/config_keys.h"

namespace cosid {
namespace cli {
namespace {

// Text as roff input: a backslash is printed, not an escape; '-' is a minus sign, so that an
// option copied from the page works; a line may not start a request ('.' or '\'').
std::string escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  return out;
}

// One line of roff text from `text` (which holds no '\n').
std::string text_line(std::string_view text) {
  const std::string line = escape(text);
  return (!line.empty() && (line[0] == '.' || line[0] == '\'')) ? "\\&" + line + '\n' : line + '\n';
}

// "\fB\-n\fR, \fB\-\-count\fR \fICOUNT\fR".
std::string option_label(const OptionSpec& option) {
  std::string label;
  if (option.short_name != '\0') {
    label += "\\fB\\-";
    label += option.short_name;
    label += "\\fR, ";
  }
  label += "\\fB\\-\\-" + escape(option.long_name) + "\\fR";
  if (option.value_name != nullptr) label += " \\fI" + escape(option.value_name) + "\\fR";
  return label;
}

std::string option_list(const std::vector<OptionSpec>& options) {
  std::string out;
  for (const OptionSpec& option : options) {
    out += ".TP\n" + option_label(option) + '\n' + text_line(option.help);
  }
  return out;
}

std::string exit_status_list(const std::vector<ExitStatusDoc>& statuses) {
  std::string out;
  for (const ExitStatusDoc& status : statuses) {
    out += ".TP\n.B " + std::to_string(status.status) + '\n' + text_line(status.meaning);
  }
  return out;
}

// The paragraphs of a help description: plain lines are filled into paragraphs, lines indented by
// two spaces (examples, formats, tables) are kept as they are, indented.
std::string description(std::string_view text) {
  std::string out;
  enum class Block { kNone, kText, kLiteral } block = Block::kNone;
  const auto end_block = [&] {
    if (block == Block::kLiteral) out += ".fi\n.RE\n";
    block = Block::kNone;
  };
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    if (line.empty()) {
      end_block();
      continue;
    }
    const bool literal = line.size() > 2 && line.substr(0, 2) == "  ";
    if (literal && block != Block::kLiteral) {
      end_block();
      out += ".PP\n.RS 4\n.nf\n";
      block = Block::kLiteral;
    } else if (!literal && block != Block::kText) {
      end_block();
      out += ".PP\n";
      block = Block::kText;
    }
    out += text_line(literal ? line.substr(2) : line);
  }
  end_block();
  return out;
}

// "Config flags (precedence: ...)" -> "Config flags".
std::string_view short_title(std::string_view title) { return title.substr(0, title.find(" (")); }

bool same_group(const OptionGroup& a, const OptionGroup& b) {
  if (std::strcmp(a.title, b.title) != 0 || a.options.size() != b.options.size()) return false;
  for (std::size_t i = 0; i < a.options.size(); ++i) {
    if (std::strcmp(a.options[i].long_name, b.options[i].long_name) != 0 ||
        std::strcmp(a.options[i].help, b.options[i].help) != 0) {
      return false;
    }
  }
  return true;
}

// The groups that two or more commands have, each once, in the order they first appear. A
// command's first group (its own options and --help) is never shared.
std::vector<OptionGroup> shared_groups(const std::vector<const Command*>& commands) {
  std::vector<OptionGroup> shared;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const std::vector<OptionGroup>& groups = commands[i]->option_groups;
    for (std::size_t g = 1; g < groups.size(); ++g) {
      const OptionGroup& group = groups[g];
      bool known = false;
      for (const OptionGroup& seen : shared) known = known || same_group(seen, group);
      if (known) continue;
      bool again = false;
      for (std::size_t j = i + 1; j < commands.size() && !again; ++j) {
        const std::vector<OptionGroup>& others = commands[j]->option_groups;
        for (std::size_t h = 1; h < others.size(); ++h)
          again = again || same_group(group, others[h]);
      }
      if (again) shared.push_back(group);
    }
  }
  return shared;
}

bool is_shared(const OptionGroup& group, const std::vector<OptionGroup>& shared) {
  for (const OptionGroup& known : shared) {
    if (same_group(known, group)) return true;
  }
  return false;
}

// A usage line with the tool and command names in bold: "cosid state show FILE [--json]".
std::string usage_line(std::string_view usage, std::string_view command_name) {
  const std::string prefix = "cosid " + std::string(command_name);
  if (usage.substr(0, prefix.size()) == prefix) {
    return "\\fB" + escape(prefix) + "\\fR" + escape(usage.substr(prefix.size())) + "\n.br\n";
  }
  return escape(usage) + "\n.br\n";
}

std::string command_section(const Command& command, const std::vector<OptionGroup>& shared) {
  std::string out = ".SS \"cosid " + escape(command.name) + "\"\n";
  out += usage_line(command.usage, command.name);
  out += description(command.description);
  for (std::size_t g = 0; g < command.option_groups.size(); ++g) {
    const OptionGroup& group = command.option_groups[g];
    if (g > 0 && is_shared(group, shared)) {
      out += ".PP\n" + escape(short_title(group.title)) + ": see \\fBOPTIONS\\fR.\n";
      continue;
    }
    out += ".PP\n" + text_line(std::string(group.title) + ":");
    out += ".RS\n" + option_list(group.options) + ".RE\n";
  }
  out += ".PP\nExit status:\n.RS\n" + exit_status_list(command.exit_statuses) + ".RE\n";
  return out;
}

std::string environment_section() {
  std::string out = ".SH ENVIRONMENT\n";
  out += ".TP\n.B COSID_CONFIG\n" +
         text_line("The config file to read when no --config is given. There is no default path.");
  for (detail::Key key = 0; key < detail::kKeyCount; ++key) {
    const detail::ConfigKey& row = detail::kConfigKeyRows[key];
    if (row.variable == nullptr) continue;
    out += ".TP\n.B " + escape(row.variable) + '\n';
    std::string text = "Sets " + std::string(row.key);
    if (row.flag != nullptr) {
      text += " as --" + std::string(row.flag) + " does: " + config_flag_help(key);
    }
    out += text_line(text + '.');
  }
  out += ".TP\n.B HOSTNAME\n" +
         text_line(
             "With --slot-from-hostname (slot-source: stateful-set) the slot is the "
             "ordinal at the end of this name (order-service-3 is slot 3); when it is not "
             "set or empty, gethostname(2).");
  out += ".PP\n" + text_line(
                       "A flag wins over a COSID_* variable, a variable over the config file, the "
                       "file over the default. Values in a config file may name any variable, "
                       "such as slot: ${POD_ORDINAL} or ${VAR:-DEFAULT}; flags and COSID_* values "
                       "are taken literally.");
  return out;
}

// Every key of the config key table: how it is given, its default and its rule.
std::string configuration_section() {
  std::string out = ".SH CONFIGURATION\n" +
                    text_line(
                        "Each key, as a config file writes it (cosid: machine: static: slot: 3 is "
                        "cosid.machine.static.slot), with its flag, its variable, its default and "
                        "its rule. A value out of its rule is refused with the key, the value, "
                        "where it came from and the rule.");
  for (detail::Key key = 0; key < detail::kKeyCount; ++key) {
    const detail::ConfigKey& row = detail::kConfigKeyRows[key];
    out += ".TP\n.B " + escape(row.key) + '\n';
    std::string given;
    if (row.flag != nullptr) {
      given += "--" + std::string(row.flag);
      if (row.value_name != nullptr) given += " " + std::string(row.value_name);
    }
    if (row.variable != nullptr) given += (given.empty() ? "" : ", ") + std::string(row.variable);
    if (!given.empty()) out += text_line(given);
    out += ".br\n" + text_line("Default: " + std::string(row.default_text) + ". " + row.wording);
    const std::string range = detail::range_text(key);
    if (!range.empty()) out += ".br\n" + text_line("Range: " + range + ".");
  }
  // The segment keys: a table of their own, read by `cosid segment` and the segment options.
  for (detail::SegmentKey key = 0; key < detail::kSegmentKeyCount; ++key) {
    const detail::ConfigKey& row = detail::kSegmentKeyRows[key];
    out += ".TP\n.B " + escape(row.key) + '\n';
    if (row.flag != nullptr) {
      out += text_line("--" + std::string(row.flag) + " " + row.value_name + " (cosid segment)");
    }
    out += ".br\n" + text_line("Default: " + std::string(row.default_text) + ". " + row.wording);
    out += ".br\n" + text_line("Range: " + detail::segment_range_text(key) + ".");
  }
  // The store instances have no rows: their keys are their store's.
  out += ".TP\n.B " + escape(std::string(detail::kStoresBlock) + ".NAME.type") + '\n' +
         text_line("--store zookeeper:CONNECT (the instance zookeeper)") + ".br\n" +
         text_line(
             "A store instance: NAME is lower-case letters, digits, '-' and '_' (1 to 64 bytes); "
             "type, required, is the registered store type that makes it, and every other key "
             "below NAME (cosid.stores.NAME.KEY, nested blocks as dotted keys) belongs to that "
             "store, which checks it when it opens. cosid.machine.distributor.type selects the "
             "instance by its NAME; an instance it does not select is refused as having no "
             "effect (cosid.segment.distributor.type may select it too). No COSID_* variable "
             "reaches an instance's keys.");
  return out;
}

constexpr const char* kFiles =
    ".TP\n"
    ".I config file\n"
    "Given with \\fB\\-\\-config\\fR or \\fBCOSID_CONFIG\\fR; there is none by default. A small "
    "YAML\n"
    "subset: block mappings of scalars under one top\\-level \\fBcosid:\\fR key, such as\n"
    ".RS\n"
    ".PP\n"
    ".nf\n"
    "cosid:\n"
    "  namespace: orders\n"
    "  machine:\n"
    "    static:\n"
    "      slot: ${POD_ORDINAL}\n"
    "      state\\-file: /var/lib/cosid/state\n"
    ".fi\n"
    ".PP\n"
    "\\fBcosid config check\\fR prints every key with its effective value and origin.\n"
    ".RE\n"
    ".TP\n"
    ".I state file\n"
    "The file \\fBstate\\-file\\fR names (often under /var/lib/cosid) keeps the window of one "
    "slot\n"
    "across restarts: the ceiling no id was issued after. One file per slot, on storage that\n"
    "survives a restart; it is locked while in use. \\fBcosid state show\\fR prints it,\n"
    "\\fBcosid state init\\fR creates one with a chosen floor, \\fBcosid state repair\\fR gives\n"
    "a damaged one a floor after the last id issued, \\fBcosid state check\\fR tells whether it\n"
    "is held and renewed.\n";

constexpr const char* kExamples =
    "Issue five ids on slot 3, keeping the slot's window in a state file:\n"
    ".PP\n"
    ".RS 4\n"
    ".nf\n"
    "cosid next \\-n 5 \\-\\-slot 3 \\-\\-state\\-file /var/lib/cosid/state\n"
    ".fi\n"
    ".RE\n"
    ".PP\n"
    "Create a file store once, then lease a slot from it in every process of the host:\n"
    ".PP\n"
    ".RS 4\n"
    ".nf\n"
    "cosid store init \\-\\-store file:/var/lib/cosid/leases\n"
    "cosid next \\-n 0 \\-\\-store file:/var/lib/cosid/leases\n"
    ".fi\n"
    ".RE\n"
    ".PP\n"
    "Decode an id:\n"
    ".PP\n"
    ".RS 4\n"
    ".nf\n"
    "$ cosid parse 917722850910023697\n"
    "917722850910023697\t2026\\-11\\-30T02:22:58.123Z\tslot=3\tsequence=17\n"
    ".fi\n"
    ".RE\n"
    ".PP\n"
    "Move slot 3 from another generator whose largest id was MAX_ID:\n"
    ".PP\n"
    ".RS 4\n"
    ".nf\n"
    "cosid state init /var/lib/cosid/state \\-\\-slot 3 \\e\n"
    "    \\-\\-not\\-before \"$(cosid not\\-before \\-\\-from\\-id MAX_ID)\"\n"
    ".fi\n"
    ".RE\n"
    ".PP\n"
    "After a lease store was restored from a backup, and before any process of the namespace\n"
    "starts, make every later holder of its slots issue only after MAX_ID:\n"
    ".PP\n"
    ".RS 4\n"
    ".nf\n"
    "cosid lease fence \\-\\-store file:/var/lib/cosid/leases \\-\\-namespace orders \\e\n"
    "    \\-\\-not\\-before \"$(cosid not\\-before \\-\\-from\\-id MAX_ID)\"\n"
    ".fi\n"
    ".RE\n"
    ".PP\n"
    "A readiness probe for a service configured by the file COSID_CONFIG names:\n"
    ".PP\n"
    ".RS 4\n"
    ".nf\n"
    "cosid state check \\-\\-min\\-lead 2s\n"
    ".fi\n"
    ".RE\n";

// Where the rest is written: the documents of the source tree, which the page cannot repeat.
constexpr const char* kSeeAlso =
    ".BR systemd.service (5),\n"
    ".BR bash (1)\n"
    ".PP\n"
    "README.md of cosid\\-cpp: what it is, which generator to pick, a quick start, and the "
    "documents beside the code: src/config/README.md (the configuration reference), "
    "src/cli/OPERATIONS.md (operations), src/lease/README.md (lease stores), "
    "src/segment/SEGMENTS.md (segment ids), src/API.md (the library's API).\n"
    ".br\n"
    "examples/systemd and examples/kubernetes of the source tree: a service and a StatefulSet "
    "that run \\fBcosid next\\fR with a state file or a leased slot.\n"
    ".br\n"
    "src/lease/PROTOCOL.md: the slot lease protocol.\n";

}  // namespace

std::string render_man_page(const ToolDoc& tool) {
  const std::vector<OptionGroup> shared = shared_groups(tool.commands);
  std::string out =
      ".\\\" Generated by `cosid help --man` from the tool's --help texts: do not edit.\n";
  out += ".TH COSID 1 \"" + std::string(tool.release_date) + "\" \"cosid " + escape(tool.version) +
         "\" \"User Commands\"\n";
  // Left-aligned and without hyphenation: option names must not be split or stretched.
  out += ".ad l\n.nh\n";
  out += ".SH NAME\ncosid \\- " + escape(tool.summary) + '\n';
  out += ".SH SYNOPSIS\n";
  for (const char* usage : tool.usages) out += usage_line(usage, "");
  for (const Command* command : tool.commands) out += usage_line(command->usage, command->name);
  out += ".SH DESCRIPTION\n" + description(tool.description);
  out += ".PP\n" + text_line(
                       "Each command is described below with its options; the option "
                       "groups several commands share are under OPTIONS.");
  out += ".SH COMMANDS\n";
  for (const Command* command : tool.commands) out += command_section(*command, shared);
  out += ".SS \"cosid help\"\n" + usage_line(tool.usages[1], "help");
  out += ".PP\n" + text_line(std::string(tool.help_summary) + ".");
  out += ".SH OPTIONS\n" + text_line("Before any command:") + ".RS\n" + option_list(tool.options) +
         ".RE\n";
  for (const OptionGroup& group : shared) {
    out += ".SS \"" + escape(group.title) + "\"\n" + option_list(group.options);
  }
  out += ".SH \"EXIT STATUS\"\n" + exit_status_list(tool.exit_statuses);
  out += ".PP\n" + text_line("Each command lists what its statuses mean for it.");
  out += configuration_section();
  out += environment_section();
  out += std::string(".SH FILES\n") + kFiles;
  out += std::string(".SH EXAMPLES\n") + kExamples;
  out += std::string(".SH \"SEE ALSO\"\n") + kSeeAlso;
  return out;
}

}  // namespace cli
}  // namespace cosid
