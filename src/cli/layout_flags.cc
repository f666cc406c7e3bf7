// SPDX-License-Identifier: Apache-2.0
#include "cli/layout_flags.h"

#include <vector>

#include "config/config_keys.h"
#include "cosid/options.h"

namespace cosid {
namespace cli {

OptionGroup layout_flags_group() {
  OptionGroup group{"Layout flags", {}};
  for (detail::Key key = 0; key < detail::kKeyCount; ++key) {
    const detail::ConfigKey& row = detail::kConfigKeyRows[key];
    if (detail::is_layout_key(key))
      group.options.push_back({row.flag, '\0', row.value_name, row.summary});
  }
  return group;
}

bool layout_from_flags(const ParsedArgs& args, Layout& layout, std::string& error) {
  // The flags become their cosid.layout.* keys (config_keys.h), and the library applies the same
  // rules and messages as to a config file: the layout rules live in layout_from_settings().
  std::vector<KeyValue> settings;
  for (detail::Key key = 0; key < detail::kKeyCount; ++key) {
    const detail::ConfigKey& row = detail::kConfigKeyRows[key];
    if (detail::is_layout_key(key) && args.has(row.flag)) {
      settings.emplace_back(row.key, args.value_or(row.flag, ""));
    }
  }
  Status status;
  const Layout result = layout_from_settings(settings, status);
  if (!status.ok()) {
    error = status.message();
    return false;
  }
  layout = result;
  return true;
}

}  // namespace cli
}  // namespace cosid
