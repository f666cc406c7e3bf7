// SPDX-License-Identifier: Apache-2.0
// The cosid command-line tool: finds the command named by the first words and runs it.
//
//   cosid COMMAND [ARG]...       a command (a subcommand is two words: "state show")
//   cosid help [COMMAND]         the help of the tool or of a command
//   cosid help --man             the manual page, cosid(1), as roff
//   cosid --help | --version
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/man_page.h"
#include "cosid/config.h"
#include "cosid/version.h"

namespace cosid {
namespace cli {
namespace {

// Every command, in the order the help lists them.
std::vector<const Command*> all_commands() {
  return {&next_command(),        &parse_command(),        &layout_command(),
          &state_show_command(),  &state_init_command(),   &state_repair_command(),
          &state_check_command(), &not_before_command(),   &config_check_command(),
          &bench_command(),       &lease_list_command(),   &lease_check_command(),
          &lease_fence_command(), &segment_next_command(), &segment_show_command(),
          &store_init_command(),  &version_command()};
}

// The tool's own documentation: the source of `cosid --help` and of the manual page.
ToolDoc tool_doc() {
  return {
      "issue and inspect 64-bit Snowflake ids",
      "Issues and inspects 64-bit Snowflake ids: a timestamp, the slot that issued the id and a\n"
      "sequence within the tick. Also issues segment ids (segment next): dense, increasing\n"
      "numbers of one key, claimed in ranges from a store.\n",
      {"cosid COMMAND [OPTION]... [ARG]...", "cosid help [COMMAND | --man | --options]",
       "cosid --help | --version"},
      {help_option(), {"version", '\0', nullptr, "print the version and exit"}},
      {
          {kExitOk, "done"},
          {kExitFailure,
           "a runtime error, explained on standard error as `cosid: WHAT: WHY. WHAT TO DO`"},
          usage_exit_status(),
          signal_exit_status(),
      },
      all_commands(),
      "print help of the tool or COMMAND; --man: the manual page; --options: all options",
      version_number(),
      COSID_RELEASE_DATE,
  };
}

std::string tool_help() {
  const ToolDoc tool = tool_doc();
  std::string help = "Usage: ";
  for (std::size_t i = 0; i < tool.usages.size(); ++i) {
    help += (i == 0 ? "" : "       ") + std::string(tool.usages[i]) + '\n';
  }
  help += '\n';
  help += tool.description;
  help += "\nCommands:\n";
  for (const Command* command : tool.commands) {
    std::string label = "  " + std::string(command->name);
    label.resize(16, ' ');
    help += label + command->summary + '\n';
  }
  help += "  help          " + std::string(tool.help_summary) + "\n\nOptions:\n";
  for (const OptionSpec& option : tool.options) {
    std::string label = option.short_name != '\0' ? std::string("  -") + option.short_name + ", "
                                                  : std::string(6, ' ');
    label += "--" + std::string(option.long_name);
    label.resize(17, ' ');
    help += label + option.help + '\n';
  }
  help += "\nRun 'cosid COMMAND --help' for the options of a command.\n\nExit status:\n";
  for (const ExitStatusDoc& status : tool.exit_statuses) {
    help += "  " + std::to_string(status.status) + "  " + status.meaning + '\n';
  }
  return help;
}

// How many leading `words` spell `name` ("state show" takes two), or 0 if they do not.
std::size_t words_matching(std::string_view name, const std::vector<std::string_view>& words) {
  std::size_t matched = 0;
  while (!name.empty()) {
    const std::size_t space = name.find(' ');
    if (matched >= words.size() || words[matched] != name.substr(0, space)) return 0;
    ++matched;
    name = space == std::string_view::npos ? std::string_view() : name.substr(space + 1);
  }
  return matched;
}

// The command that the leading `words` name, with how many words it takes; or null and a usage
// message.
const Command* find_command(const std::vector<std::string_view>& words, std::size_t& used,
                            std::string& error) {
  const Command* found = nullptr;
  used = 0;
  std::string subcommands;  // of words[0], if it is only the first word of some commands
  std::vector<std::string> first_words = {"help"};
  std::vector<std::string> second_words;  // the subcommands of words[0]
  for (const Command* command : all_commands()) {
    const std::size_t matched = words_matching(command->name, words);
    if (matched > used) {
      found = command;
      used = matched;
    }
    const std::string_view name = command->name;
    const std::size_t space = name.find(' ');
    first_words.emplace_back(name.substr(0, space));
    if (space != std::string_view::npos && name.substr(0, space) == words.front()) {
      subcommands += (subcommands.empty() ? "" : ", ") + std::string(name.substr(space + 1));
      second_words.emplace_back(name.substr(space + 1));
    }
  }
  if (found != nullptr) return found;
  if (!subcommands.empty()) {
    error = "'" + std::string(words.front()) + "' needs one of the subcommands: " + subcommands +
            (words.size() > 1 ? did_you_mean(words[1], second_words) : std::string());
  } else {
    error = "unknown command " + quote(words.front()) + did_you_mean(words.front(), first_words) +
            ": see the list of commands";
  }
  return nullptr;
}

// `cosid help --options`: every option of every command, one a line, for the bash completion
// (cosid.bash asks for it as it completes, so it cannot drift from the tool) and for tests:
//
//   COMMAND<TAB>--LONG<TAB>-S<TAB>VALUE_NAME
//
// with -S and VALUE_NAME empty for an option without a short name or a flag without a value.
std::string option_list() {
  std::string list;
  for (const Command* command : all_commands()) {
    for (const OptionSpec& option : all_options(*command)) {
      list += std::string(command->name) + "\t--" + option.long_name + '\t' +
              (option.short_name != '\0' ? std::string("-") + option.short_name : std::string()) +
              '\t' + (option.value_name != nullptr ? option.value_name : "") + '\n';
    }
  }
  return list;
}

// The first word of subcommands alone ("help state", "state --help"): the help of each of them;
// empty when `word` starts no subcommand.
std::string group_help(std::string_view word) {
  std::string helps;
  for (const Command* candidate : all_commands()) {
    const std::string_view name = candidate->name;
    if (name.substr(0, name.find(' ')) != word || name.find(' ') == name.npos) continue;
    helps += (helps.empty() ? "" : "\n") + render_help(*candidate);
  }
  return helps;
}

bool is_help_flag(std::string_view arg) { return arg == "--help" || arg == "-h"; }

int run_help(const std::vector<std::string_view>& topic) {
  if (topic.empty() || is_help_flag(topic.front())) {
    return print_help(tool_help(), stdout, stderr);
  }
  if (topic.front() == "--man" || topic.front() == "--options") {
    if (topic.size() > 1) {
      return usage_error(stderr, "",
                         "help: " + std::string(topic.front()) +
                             " takes no arguments, but was given " + quote(topic[1]));
    }
    return print_help(topic.front() == "--man" ? render_man_page(tool_doc()) : option_list(),
                      stdout, stderr);
  }
  std::size_t used = 0;
  std::string error;
  const Command* command = find_command(topic, used, error);
  if (command == nullptr && topic.size() == 1) {
    const std::string helps = group_help(topic.front());
    if (!helps.empty()) return print_help(helps, stdout, stderr);
  }
  if (command == nullptr) return usage_error(stderr, "", "help: " + error);
  if (used != topic.size()) {
    return usage_error(stderr, "", "help: unexpected argument " + quote(topic[used]));
  }
  return print_help(render_help(*command), stdout, stderr);
}

int run_tool(const std::vector<std::string_view>& args) {
  if (args.empty()) return usage_error(stderr, "", "no command given");
  const std::string_view first = args.front();
  const std::vector<std::string_view> rest(args.begin() + 1, args.end());
  if (is_help_flag(first)) return print_help(tool_help(), stdout, stderr);
  if (first == "help") return run_help(rest);
  if (first == "--version") {
    if (!rest.empty()) {
      return usage_error(stderr, "",
                         "--version takes no arguments, but was given " + quote(rest.front()));
    }
    return print_help(version_line(), stdout, stderr);
  }
  if (first.size() > 1 && first[0] == '-') {
    return usage_error(stderr, "",
                       "unknown option " + quote(first) +
                           did_you_mean(first, {"--help", "--version"}) + ": give a command first");
  }
  std::size_t used = 0;
  std::string error;
  const Command* command = find_command(args, used, error);
  if (command == nullptr && args.size() == 2 && is_help_flag(args[1])) {
    const std::string helps = group_help(first);
    if (!helps.empty()) return print_help(helps, stdout, stderr);
  }
  if (command == nullptr) return usage_error(stderr, "", error);
  const std::vector<std::string_view> command_args(args.begin() + static_cast<std::ptrdiff_t>(used),
                                                   args.end());
  return run_command(*command, command_args, stdout, stderr);
}

}  // namespace
}  // namespace cli
}  // namespace cosid

int main(int argc, char** argv) {
  // Under a file size limit (`ulimit -f`) a write at or past it raises SIGXFSZ, which would kill
  // the tool without a word; ignored, the write fails with EFBIG and the error says so.
  std::signal(SIGXFSZ, SIG_IGN);
  char** const first_arg = argv + (argc > 0 ? 1 : 0);
#if COSID_HAS_EXCEPTIONS
  // Nothing is thrown on purpose; this only keeps an exception (std::bad_alloc) from escaping.
  try {
    return cosid::cli::run_tool(std::vector<std::string_view>(first_arg, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cosid: internal error: %s. Please report it as a bug\n", e.what());
  } catch (...) {
    std::fprintf(stderr,
                 "cosid: internal error: an unknown exception. Please report it as a bug\n");
  }
  return cosid::cli::kExitFailure;
#else
  return cosid::cli::run_tool(std::vector<std::string_view>(first_arg, argv + argc));
#endif
}
