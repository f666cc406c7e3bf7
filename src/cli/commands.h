// SPDX-License-Identifier: Apache-2.0
// The commands of the cosid tool, one file each (NAME_command.cc). main.cc lists them in the order
// `cosid --help` shows them; a new command adds its accessor here and a line there.
#ifndef COSID_SRC_CLI_COMMANDS_H_
#define COSID_SRC_CLI_COMMANDS_H_

#include <string>

#include "cli/command.h"

namespace cosid {
namespace cli {

const Command& parse_command();         // cosid parse: decode ids
const Command& layout_command();        // cosid layout: describe a layout
const Command& next_command();          // cosid next: issue ids
const Command& state_show_command();    // cosid state show: print a state file
const Command& state_init_command();    // cosid state init: create a state file
const Command& state_repair_command();  // cosid state repair: a floor for a damaged file
const Command& state_check_command();   // cosid state check: is the file held and renewed
const Command& not_before_command();    // cosid not-before: the not-before after an id
const Command& config_check_command();  // cosid config check: the effective settings
const Command& bench_command();         // cosid bench: ids per second against the limit
const Command& lease_list_command();    // cosid lease list: the slot leases of a namespace
const Command& lease_fence_command();   // cosid lease fence: later holders start after a time
const Command& lease_check_command();   // cosid lease check: is an owner's lease live and renewed
const Command& segment_next_command();  // cosid segment next: segment ids of a key
const Command& segment_show_command();  // cosid segment show: a key's record in a range store
const Command& store_init_command();    // cosid store init: create a lease or range store
const Command& version_command();       // cosid version: the tool's version

// "0.6.0", from cosid/version.h; and the line `cosid version` and `cosid --version` print.
std::string version_number();
std::string version_line();

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_COMMANDS_H_
