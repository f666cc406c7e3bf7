#include "cli/layout_flags.h"

#include <string_view>
#include <system_error>
#include <vector>

#include "cosid/options.h"

namespace cosid {
namespace cli {
namespace {

constexpr std::string_view kLayoutKeyPrefix = "cosid.layout.";

}  // namespace

OptionGroup layout_flags_group() {
  return {"Layout flags",
          {
              {"layout", '\0', "NAME",
               "preset: default (the default), seconds, js-safe or js-safe-seconds"},
              {"epoch", '\0', "MS",
               "instant of timestamp 0 in Unix ms; a whole second if the unit is s"},
              {"unit", '\0', "UNIT", "unit of the timestamp: ms or s"},
              {"timestamp-bits", '\0', "N",
               "bits of the timestamp; the three fields take 63 bits at most"},
              {"slot-bits", '\0', "N", "bits of the slot: 2^N slots"},
              {"sequence-bits", '\0', "N", "bits of the sequence: 2^N ids per tick and slot"},
          }};
}

bool layout_from_flags(const ParsedArgs& args, Layout& layout, std::string& error) {
  // The flags become their cosid.layout.* keys (kConfigFlags), and the library applies the same
  // rules and messages as to a config file: the layout rules live in layout_from_settings().
  std::vector<KeyValue> settings;
  for (const ConfigFlag& flag : kConfigFlags) {
    if (std::string_view(flag.key).rfind(kLayoutKeyPrefix, 0) != 0 || !args.has(flag.flag)) {
      continue;
    }
    settings.emplace_back(flag.key, args.value_or(flag.flag, ""));
  }
  std::error_code ec;
  std::string message;
  if (!layout_from_settings(settings, layout, ec, &message)) {
    error = message.empty() ? ec.message() : message;
    return false;
  }
  return true;
}

}  // namespace cli
}  // namespace cosid
