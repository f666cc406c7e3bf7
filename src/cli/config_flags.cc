#include "cli/config_flags.h"

#include <string>
#include <system_error>
#include <vector>

namespace cosid {
namespace cli {

OptionGroup config_flags_group() {
  return {
      "Config flags (precedence: flag > COSID_* variable > config file > default)",
      {
          {"config", '\0', "FILE", "read the config file FILE (else the one COSID_CONFIG names)"},
          {"namespace", '\0', "NS", "namespace of the ids (COSID_NAMESPACE; default cosid)"},
          {"slot", '\0', "N", "the slot this process issues ids on (COSID_SLOT)"},
          {"slot-from-hostname", '\0', nullptr,
           "take the slot from the ordinal at the end of the host name"},
          {"state-file", '\0', "PATH",
           "state file that keeps the window across restarts (COSID_STATE_FILE)"},
          {"ahead", '\0', "DUR", "how far ahead the ceiling is written (COSID_AHEAD; 10s)"},
          {"not-before", '\0', "TIME",
           "issue no timestamp at or before TIME, Unix ms or RFC 3339 (COSID_NOT_BEFORE)"},
          {"require-state-file", '\0', nullptr, "refuse to run without a state file"},
          {"store", '\0', "TYPE[:DIR]",
           "lease the slot: memory, or file:DIR shared by the namespace (default static)"},
          {"ttl", '\0', "DUR", "how long a lease lasts unless renewed (30s)"},
          {"tolerance", '\0', "DUR",
           "how far past expiry a lease may issue, alike in a namespace (1s)"},
          {"owner-key", '\0', "KEY", "the lease holder's name (COSID_OWNER_KEY; HOST:PID)"},
          {"preferred-slot", '\0', "N", "the slot to lease when it is free (COSID_PREFERRED_SLOT)"},
      }};
}

OptionSources option_sources_from_args(const ParsedArgs& args) {
  OptionSources sources;
  sources.config_file = args.value_or("config", "");
  if (args.has("store")) {
    for (KeyValue& setting : split_store_flag(args.value_or("store", ""))) {
      sources.flags.push_back(std::move(setting));
    }
  }
  for (const ConfigFlag& flag : kConfigFlags) {
    if (!args.has(flag.flag) || std::string_view(flag.flag) == "store") continue;
    sources.flags.emplace_back(flag.key, flag.implied_value != nullptr
                                             ? std::string(flag.implied_value)
                                             : args.value_or(flag.flag, ""));
  }
  return sources;
}

bool resolve_command_options(const Invocation& invocation, const char* name, Options& options,
                             std::vector<Setting>* settings, int& status) {
  const ParsedArgs& args = invocation.args;
  if (!args.positionals().empty()) {
    status = usage_error(
        invocation.err, name,
        std::string(name) + ": unexpected argument " + quote(args.positionals().front()));
    return false;
  }
  std::error_code ec;
  std::string message;
  const OptionSources sources = option_sources_from_args(args);
  const bool resolved = settings != nullptr
                            ? resolve_options(sources, options, *settings, ec, &message)
                            : resolve_options(sources, options, ec, &message);
  if (!resolved) {
    status = call_failed(invocation.err, name, Status(ec, message));
    return false;
  }
  return true;
}

}  // namespace cli
}  // namespace cosid
