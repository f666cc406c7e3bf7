// SPDX-License-Identifier: Apache-2.0
// The cosid(1) manual page, made from the same records as the --help texts: the tool's own
// description and every Command's usage, description, options and exit statuses. Printed by
// `cosid help --man` as roff with the man(7) macros; the build writes it to cosid.1.
#ifndef COSID_SRC_CLI_MAN_PAGE_H_
#define COSID_SRC_CLI_MAN_PAGE_H_

#include <string>
#include <vector>

#include "cli/command.h"

namespace cosid {
namespace cli {

// What the tool as a whole says about itself, for `cosid --help` and the manual page.
struct ToolDoc {
  const char* summary;              // one line, for NAME: "issue and inspect 64-bit Snowflake ids"
  const char* description;          // paragraphs, each line ending in '\n'
  std::vector<const char*> usages;  // "cosid COMMAND [OPTION]... [ARG]..." and the others
  std::vector<OptionSpec> options;  // the options the tool takes before any command
  std::vector<ExitStatusDoc> exit_statuses;
  std::vector<const Command*> commands;  // in the order the help lists them
  const char* help_summary;              // what `cosid help` does, one line
  std::string version;                   // "0.1.0"
  const char* release_date;              // "2026-12-01", the date of the page (.TH)
};

// The manual page of `tool` in roff (man(7) macros: TH, SH, SS, PP, TP, RS/RE, nf/fi, B, I).
// A group of options that several commands share (the layout flags, the config flags) is
// described once, under OPTIONS, and each of those commands refers to it.
std::string render_man_page(const ToolDoc& tool);

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_MAN_PAGE_H_
