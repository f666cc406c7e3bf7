// SPDX-License-Identifier: Apache-2.0
#include "cli/command.h"

#include <cerrno>
#include <csignal>
#include <cstring>

namespace cosid {
namespace cli {
namespace {

// Help texts align option explanations at this column; a longer option name gets its own line.
constexpr std::size_t kHelpColumn = 26;

// "  -n, --count N" or "      --json".
std::string option_label(const OptionSpec& option) {
  std::string label = "  ";
  if (option.short_name != '\0') {
    label += '-';
    label += option.short_name;
    label += ", ";
  } else {
    label += "    ";
  }
  label += "--";
  label += option.long_name;
  if (option.value_name != nullptr) {
    label += ' ';
    label += option.value_name;
  }
  return label;
}

bool is_help_word(std::string_view arg) { return arg == "--help" || arg == "-h"; }

}  // namespace

OptionSpec help_option() { return {"help", 'h', nullptr, "print this help and exit"}; }

ExitStatusDoc usage_exit_status() {
  // A malformed value is one of a flag, a COSID_* variable or the config file
  // (src/config/README.md).
  return {kExitUsage,
          "usage error: an unknown command or option, an option given twice, a missing or "
          "malformed value"};
}

ExitStatusDoc signal_exit_status() {
  return {kExitSignal + SIGTERM,
          "next or segment next stopped by SIGTERM (128 + the signal: 130 for SIGINT, 129 for "
          "SIGHUP) before all the ids of -n N got out; it shut down cleanly, and standard error "
          "says how many did"};
}

std::vector<OptionSpec> all_options(const Command& command) {
  std::vector<OptionSpec> options;
  for (const OptionGroup& group : command.option_groups) {
    options.insert(options.end(), group.options.begin(), group.options.end());
  }
  return options;
}

std::string render_help(const Command& command) {
  std::string help = "Usage: ";
  help += command.usage;
  help += "\n\n";
  help += command.description;
  for (const OptionGroup& group : command.option_groups) {
    help += '\n';
    help += group.title;
    help += ":\n";
    for (const OptionSpec& option : group.options) {
      std::string label = option_label(option);
      if (label.size() + 2 > kHelpColumn) {
        label += '\n';
        label += std::string(kHelpColumn, ' ');
      } else {
        label.resize(kHelpColumn, ' ');
      }
      help += label;
      help += option.help;
      help += '\n';
    }
  }
  help += "\nExit status:\n";
  for (const ExitStatusDoc& exit_status : command.exit_statuses) {
    help += "  " + std::to_string(exit_status.status) + "  " + exit_status.meaning + '\n';
  }
  return help;
}

int print_help(const std::string& help, std::FILE* out, std::FILE* err) {
  std::fwrite(help.data(), 1, help.size(), out);
  return finish_output(kExitOk, out, err);
}

int usage_error(std::FILE* err, std::string_view help_topic, const std::string& message) {
  std::string topic = help_topic.empty() ? std::string() : std::string(help_topic) + ' ';
  std::fprintf(err, "cosid: %s\nTry 'cosid %s--help'.\n", message.c_str(), topic.c_str());
  return kExitUsage;
}

int runtime_error(std::FILE* err, const std::string& message) {
  std::fprintf(err, "cosid: %s\n", message.c_str());
  return kExitFailure;
}

const char* write_hint(const std::error_code& ec, std::string_view message) noexcept {
  if (ec != std::errc::file_too_large) return "";
  // The state file is written whole at creation, so a limit below its size refuses every start.
  return message.find("state file") != std::string_view::npos
             ? "; the file size limit (ulimit -f) is below the state file's 8192 bytes: raise it"
             : "; the file size limit (ulimit -f) is below the size of the file written: raise it";
}

bool is_usage_code(const std::error_code& ec) noexcept {
  if (ec.category() != error_category()) return false;
  switch (static_cast<errc>(ec.value())) {
    case errc::layout_too_wide:
    case errc::layout_field_empty:
    case errc::layout_epoch_invalid:
    case errc::layout_epoch_in_future:
    case errc::unknown_layout:
    case errc::slot_out_of_range:
    case errc::invalid_argument:
    case errc::no_slot_configured:
    case errc::invalid_slot:
    case errc::no_hostname_ordinal:
    case errc::unset_variable:
    case errc::config_syntax:
    case errc::config_unknown_key:
    case errc::config_duplicate_key:
    case errc::invalid_value:
    case errc::unknown_store_type:
      return true;
    default:
      return false;
  }
}

int call_failed(std::FILE* err, std::string_view name, const Status& status) {
  const std::string text = status.message();
  const std::string message = std::string(name) + ": " + text + write_hint(status.code(), text);
  if (!is_usage_code(status.code())) return runtime_error(err, message);
  // Reported as every usage error is, with the help of the command: `name` starts with it
  // ("parse", or "not-before: --from-id ...").
  return usage_error(err, name.substr(0, name.find(':')), message);
}

int finish_output(int status, std::FILE* out, std::FILE* err) {
  if (std::fflush(out) == 0 && !std::ferror(out)) return status;
  const int error_number = errno;
  const std::string why = error_number != 0 ? std::strerror(error_number) : "the write failed";
  return runtime_error(err, "writing the output: " + why +
                                write_hint({error_number, std::generic_category()}, "output") +
                                ". Check that the file, pipe or disk it goes to can take it");
}

int run_command(const Command& command, const std::vector<std::string_view>& args, std::FILE* out,
                std::FILE* err) {
  for (const std::string_view arg : args) {
    if (arg == "--") break;
    if (is_help_word(arg)) return print_help(render_help(command), out, err);
  }
  Invocation invocation{command, ParsedArgs(), out, err};
  std::string error;
  if (!parse_args(args, all_options(command), invocation.args, error)) {
    return usage_error(err, command.name, std::string(command.name) + ": " + error);
  }
  return finish_output(command.run(invocation), out, err);
}

}  // namespace cli
}  // namespace cosid
