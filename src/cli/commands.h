// The commands of the cosid tool, one file each (NAME_command.cc). main.cc lists them in the order
// `cosid --help` shows them; a new command adds its accessor here and a line there.
#ifndef COSID_CLI_COMMANDS_H_
#define COSID_CLI_COMMANDS_H_

#include "cli/command.h"

namespace cosid {
namespace cli {

const Command& parse_command();   // cosid parse: decode ids
const Command& layout_command();  // cosid layout: describe a layout

}  // namespace cli
}  // namespace cosid

#endif  // COSID_CLI_COMMANDS_H_
