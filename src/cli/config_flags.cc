// SPDX-License-Identifier: Apache-2.0
#include "cli/config_flags.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "config/resolver.h"
#include "cosid/segment/options.h"

namespace cosid {
namespace cli {

namespace {

// "how far ahead the ceiling is written (COSID_AHEAD; default 10s)": a row's summary with its
// variable and its default, for --help.
std::string help_line(const detail::ConfigKey& row) {
  std::string extra = row.variable != nullptr ? row.variable : "";
  const std::string_view default_text = row.default_text;
  if (row.implied == nullptr && default_text.substr(0, 4) != "none") {
    extra += (extra.empty() ? "default " : "; default ") + std::string(default_text);
  }
  return extra.empty() ? std::string(row.summary) : std::string(row.summary) + " (" + extra + ")";
}

}  // namespace

const char* config_flag_help(detail::Key key) {
  // Made once: OptionSpec holds a pointer, and the rows do not change.
  static const std::vector<std::string> lines = [] {
    std::vector<std::string> all;
    for (const detail::ConfigKey& row : detail::kConfigKeyRows) all.push_back(help_line(row));
    return all;
  }();
  return lines[key].c_str();
}

OptionSpec config_file_option() {
  return {"config", '\0', "FILE", "read the config file FILE (else the one COSID_CONFIG names)"};
}

OptionGroup config_flags_group() {
  OptionGroup group{"Config flags (precedence: flag > COSID_* variable > config file > default)",
                    {config_file_option()}};
  for (detail::Key key = 0; key < detail::kKeyCount; ++key) {
    const detail::ConfigKey& row = detail::kConfigKeyRows[key];
    // --store sets two keys and is listed once, with the first.
    if (row.flag == nullptr || detail::is_layout_key(key) ||
        detail::find_config_flag(row.flag) != &row) {
      continue;
    }
    group.options.push_back({row.flag, '\0', row.value_name, config_flag_help(key)});
  }
  return group;
}

OptionGroup config_flags_group_without(std::initializer_list<std::string_view> left_out) {
  OptionGroup group = config_flags_group();
  auto& options = group.options;
  options.erase(std::remove_if(options.begin(), options.end(),
                               [&](const OptionSpec& option) {
                                 return std::find(left_out.begin(), left_out.end(),
                                                  option.long_name) != left_out.end();
                               }),
                options.end());
  return group;
}

bool option_sources_from_args(const ParsedArgs& args, OptionSources& sources, Status& status) {
  sources = OptionSources();
  sources.config_file = args.value_or("config", "");
  if (args.has("store") &&
      !detail::split_store_flag(args.value_or("store", ""), sources.flags, status)) {
    return false;
  }
  for (const detail::ConfigKey& row : detail::kConfigKeyRows) {
    if (row.flag == nullptr || !args.has(row.flag) || std::string_view(row.flag) == "store") {
      continue;
    }
    sources.flags.emplace_back(
        row.key, row.implied != nullptr ? std::string(row.implied) : args.value_or(row.flag, ""));
  }
  status.clear();
  return true;
}

bool resolve_command_options(const Invocation& invocation, const char* name, Options& options,
                             std::vector<Setting>* settings, int& status, const char* no_slot,
                             Status* missing_slot) {
  const ParsedArgs& args = invocation.args;
  if (!args.positionals().empty()) {
    status = usage_error(
        invocation.err, name,
        std::string(name) + ": unexpected argument " + quote(args.positionals().front()));
    return false;
  }
  Status resolved;
  OptionSources sources;
  if (option_sources_from_args(args, sources, resolved)) {
    options = settings != nullptr ? resolve_options(sources, *settings, resolved)
                                  : resolve_options(sources, resolved);
  }
  if (missing_slot != nullptr) missing_slot->clear();
  if (missing_slot != nullptr && resolved.code() == errc::no_slot_configured) {
    *missing_slot = resolved;
    bool slot_given = false;
    // A failure of the rest is in `resolved`, reported below.
    (void)resolve_options_without_slot(sources, options, slot_given, resolved, settings);
  }
  if (!resolved.ok() && no_slot != nullptr && resolved.code() == errc::no_slot_configured) {
    status = usage_error(invocation.err, name, std::string(name) + ": " + no_slot);
    return false;
  }
  if (!resolved.ok()) {
    status = call_failed(invocation.err, name, resolved);
    return false;
  }
  return true;
}

bool resolve_options_without_slot(const OptionSources& sources, Options& options, bool& slot_given,
                                  Status& status, std::vector<Setting>* settings) {
  detail::Resolution resolved;
  const bool resolves = detail::resolve_sources(sources, /*need_slot=*/false, resolved, status);
  options = resolved.options;  // what was resolved before a failure too, as callers read it
  if (!resolves) return false;
  const std::string& slot_origin = resolved.slot_origin;
  // With a store the origin says the slot is leased at start: none is known now.
  slot_given = !slot_origin.empty() && !options.uses_store();
  if (settings != nullptr) {
    const bool unknown = !slot_given && !options.uses_store();
    detail::describe_settings(resolved, unknown ? "not given" : slot_origin, *settings);
    for (Setting& setting : *settings) {
      if (unknown && setting.key == detail::key_name(detail::kSlot)) setting.value.clear();
    }
  }
  return true;
}

bool resolve_command_layout(const Invocation& invocation, const char* name, Layout& layout,
                            int& status) {
  Status resolved;
  OptionSources sources;
  Options options;
  bool slot_given = false;
  if (option_sources_from_args(invocation.args, sources, resolved) &&
      resolve_options_without_slot(sources, options, slot_given, resolved)) {
    layout = options.layout;
    return true;
  }
  status = call_failed(invocation.err, name, resolved);
  return false;
}

}  // namespace cli
}  // namespace cosid
