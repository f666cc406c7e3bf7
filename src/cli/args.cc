#include "cli/args.h"

#include <cstddef>

#include "parse_util.h"

namespace cosid {
namespace cli {
namespace {

const OptionSpec* find_long(const std::vector<OptionSpec>& options, std::string_view name) {
  for (const OptionSpec& option : options) {
    if (name == option.long_name) return &option;
  }
  return nullptr;
}

const OptionSpec* find_short(const std::vector<OptionSpec>& options, char name) {
  for (const OptionSpec& option : options) {
    if (option.short_name != '\0' && option.short_name == name) return &option;
  }
  return nullptr;
}

// "--format": how messages name an option.
std::string display_name(const OptionSpec& option) { return std::string("--") + option.long_name; }

}  // namespace

bool ParsedArgs::has(std::string_view long_name) const {
  return values_.find(long_name) != values_.end();
}

std::string ParsedArgs::value_or(std::string_view long_name, std::string_view fallback) const {
  const auto found = values_.find(long_name);
  return found == values_.end() ? std::string(fallback) : found->second;
}

void ParsedArgs::set(std::string_view long_name, std::string value) {
  values_[std::string(long_name)] = std::move(value);
}

bool parse_args(const std::vector<std::string_view>& args, const std::vector<OptionSpec>& options,
                ParsedArgs& parsed, std::string& error) {
  bool options_ended = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (options_ended || arg.size() < 2 || arg[0] != '-') {
      parsed.add_positional(std::string(arg));
      continue;
    }
    if (arg == "--") {
      options_ended = true;
      continue;
    }

    const OptionSpec* option = nullptr;
    std::string_view attached_value;  // the VALUE of --name=VALUE or -nVALUE
    bool has_attached_value = false;
    if (arg[1] == '-') {
      const std::string_view body = arg.substr(2);
      const std::size_t equals = body.find('=');
      option = find_long(options, body.substr(0, equals));
      if (option == nullptr) {
        error = "unknown option " +
                quote(arg.substr(0, equals == std::string_view::npos ? arg.size() : equals + 2));
        return false;
      }
      if (equals != std::string_view::npos) {
        attached_value = body.substr(equals + 1);
        has_attached_value = true;
      }
    } else {
      option = find_short(options, arg[1]);
      if (option == nullptr) {
        error = "unknown option " + quote(arg.substr(0, 2));
        return false;
      }
      if (arg.size() > 2) {
        attached_value = arg.substr(2);
        has_attached_value = true;
      }
    }

    if (option->value_name == nullptr) {
      if (has_attached_value) {
        error = "option " + display_name(*option) + " takes no value, but was given " +
                quote(attached_value);
        return false;
      }
      parsed.set(option->long_name, "");
    } else if (has_attached_value) {
      parsed.set(option->long_name, std::string(attached_value));
    } else if (i + 1 < args.size()) {
      parsed.set(option->long_name, std::string(args[++i]));
    } else {
      error = "option " + display_name(*option) + " needs a value (" + option->value_name + ")";
      return false;
    }
  }
  return true;
}

bool one_positional(const ParsedArgs& args, const char* what, const char* hint, std::string& value,
                    std::string& error) {
  const std::vector<std::string>& given = args.positionals();
  if (given.size() == 1) {
    value = given.front();
    return true;
  }
  error = given.empty() ? std::string("no ") + what + " given: " + hint
                        : "unexpected argument " + quote(given[1]) + ": give one " + what;
  return false;
}

bool parse_decimal(std::string_view text, std::uint64_t max, std::uint64_t& value) {
  if (text.empty()) return false;
  std::uint64_t result = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (result > (max - digit) / 10) return false;  // result * 10 + digit > max
    result = result * 10 + digit;
  }
  value = result;
  return true;
}

bool parse_option_number(std::string_view name, std::string_view text, std::uint64_t max,
                         std::uint64_t& value, std::string& error) {
  if (parse_decimal(text, max, value)) return true;
  bool digits_only = !text.empty();
  for (const char c : text) digits_only = digits_only && c >= '0' && c <= '9';
  error = "--" + std::string(name) + ": " + quote(text) +
          (digits_only ? " is too large: give at most " + std::to_string(max)
                       : std::string(" is not a whole number: give digits only, such as 10"));
  return false;
}

std::string quote(std::string_view text) { return detail::quote(text); }

}  // namespace cli
}  // namespace cosid
