// SPDX-License-Identifier: Apache-2.0
// What a cosid CLI command is: its documentation (one record per command, from which both the
// --help text and, later, the man page are made), its options, and the function that runs it;
// plus the exit statuses and the error lines every command prints the same way.
#ifndef COSID_SRC_CLI_COMMAND_H_
#define COSID_SRC_CLI_COMMAND_H_

#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cli/args.h"
#include "cosid/error.h"

namespace cosid {
namespace cli {

// The exit statuses of src/cli/README.md, shared by every command.
enum ExitStatus : int {
  kExitOk = 0,       // done
  kExitFailure = 1,  // a runtime error, reported as `cosid: WHAT: WHY. WHAT TO DO`
  kExitUsage = 2,    // the command line is wrong
  // + the signal: `next -n N` or `segment next -n N` stopped by SIGINT, SIGTERM or SIGHUP before
  // its N ids got out, after a clean shutdown (cli/id_output.h)
  kExitSignal = 128,
};

// Options listed under one heading of the help ("Options", "Layout flags").
struct OptionGroup {
  const char* title;
  std::vector<OptionSpec> options;
};

struct ExitStatusDoc {
  int status;
  const char* meaning;
};

struct Command;

// One run of a command: the checked arguments and where to write.
struct Invocation {
  const Command& command;
  ParsedArgs args;
  std::FILE* out;
  std::FILE* err;
};

struct Command {
  const char* name;         // "parse"; a subcommand is spelled "state show"
  const char* summary;      // one line for the command list of `cosid --help`
  const char* usage;        // "cosid parse [--json] [layout flags] ID..."
  const char* description;  // paragraphs, each line ending in '\n', at most 100 columns
  std::vector<OptionGroup> option_groups;
  std::vector<ExitStatusDoc> exit_statuses;
  int (*run)(Invocation& invocation);
};

// -h, --help: every command lists it in its first option group.
OptionSpec help_option();
// The meaning of exit status 2, the same for every command.
ExitStatusDoc usage_exit_status();
// The meaning of 128 + a signal (listed as 143, SIGTERM's), for the tool and the commands that
// issue ids.
ExitStatusDoc signal_exit_status();

// Every option of every group of `command`, for the parser.
std::vector<OptionSpec> all_options(const Command& command);

// The --help text of `command`.
std::string render_help(const Command& command);

// Prints `help` (--help output) to `out`; exits 0 unless the write fails.
int print_help(const std::string& help, std::FILE* out, std::FILE* err);

// Prints "cosid: `message`" and "Try 'cosid `help_topic` --help'." to `err`; returns kExitUsage.
// `help_topic` is a command name, or empty for the tool itself.
int usage_error(std::FILE* err, std::string_view help_topic, const std::string& message);

// Prints "cosid: `message`" as one line to `err`. The message says what failed, why, and what to
// do. Returns kExitFailure.
int runtime_error(std::FILE* err, const std::string& message);

// What to add to `message`, the report of a failed write, that the library's messages cannot know:
// for EFBIG (the file size limit, `ulimit -f`, stopped the write; main() ignores SIGXFSZ so that
// it fails rather than kills) that the limit must be raised; "" for any other error. Allocates
// nothing, so an event listener may call it.
const char* write_hint(const std::error_code& ec, std::string_view message) noexcept;

// Whether `ec`, the code of a failed library call, says that what the user gave is wrong: a
// flag, a COSID_* variable or a config file's value that is malformed or out of range, a bad
// layout, an unknown key or store type, a setting that is required but missing (no slot, an unset
// ${VAR}). Such a failure is a usage error (exit 2) wherever it was found, since the fix is to
// change the command line or the configuration; everything else (a config file that cannot be
// read, the state file, the clock, a store, an id that cannot be decoded) is a runtime failure.
bool is_usage_code(const std::error_code& ec) noexcept;

// Reports a library call that failed: prints "cosid: `name`: " and the message of `status` (the
// code's own text when the call gave none), and its write_hint(), as one line. The one way a
// command reports a failed call. If is_usage_code(status.code()), it is a usage error: the line
// is followed by usage_error()'s "Try 'cosid COMMAND --help'." (COMMAND: `name` up to its first
// ':') and kExitUsage returned; else kExitFailure.
int call_failed(std::FILE* err, std::string_view name, const Status& status);

// Flushes `out` and reports a failed write (a full disk, a closed pipe) as a runtime error.
// Returns `status` if the output reached its destination, else kExitFailure.
int finish_output(int status, std::FILE* out, std::FILE* err);

// Runs `command` with `args` (the words after its name): --help anywhere before "--" prints the
// help; a usage error is reported as such; otherwise the command's run() decides the status.
int run_command(const Command& command, const std::vector<std::string_view>& args, std::FILE* out,
                std::FILE* err);

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_COMMAND_H_
