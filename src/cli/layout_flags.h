// SPDX-License-Identifier: Apache-2.0
// The layout flags every command that reads or makes ids shares:
//
//   --layout NAME   a preset (cosid::layout_preset), "default" when not given; then
//   --epoch MS, --unit ms|s, --timestamp-bits N, --slot-bits N, --sequence-bits N override its
//   fields.
//
// --epoch is always Unix milliseconds; for a second-unit layout it must be a whole second. When
// --unit changes the unit without --epoch, the preset's epoch is converted to the new unit.
// These rules are the library's (cosid::layout_from_settings): each flag is mapped to its
// cosid.layout.* key through its row of the config key table (config_keys.h), so a flag and a
// config file are held to the same rules and messages.
#ifndef COSID_SRC_CLI_LAYOUT_FLAGS_H_
#define COSID_SRC_CLI_LAYOUT_FLAGS_H_

#include <string>

#include "cli/args.h"
#include "cli/command.h"
#include "cosid/layout.h"

namespace cosid {
namespace cli {

// The "Layout flags" group of a command's help and options.
OptionGroup layout_flags_group();

// The layout the flags in `args` describe. On a usage error (a malformed value, an epoch that is
// not a whole second, a layout that Layout::validate refuses) returns false and stores the
// library's message, which names the key, the value, the flag and the rule.
bool layout_from_flags(const ParsedArgs& args, Layout& layout, std::string& error);

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_LAYOUT_FLAGS_H_
