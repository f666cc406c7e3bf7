#include "cli/config_flags.h"

#include <string>

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
      }};
}

OptionSources option_sources_from_args(const ParsedArgs& args) {
  OptionSources sources;
  sources.config_file = args.value_or("config", "");
  for (const ConfigFlag& flag : kConfigFlags) {
    if (!args.has(flag.flag)) continue;
    sources.flags.emplace_back(flag.key, flag.implied_value != nullptr
                                             ? std::string(flag.implied_value)
                                             : args.value_or(flag.flag, ""));
  }
  return sources;
}

}  // namespace cli
}  // namespace cosid
