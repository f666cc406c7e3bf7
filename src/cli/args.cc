// SPDX-License-Identifier: Apache-2.0
#include "cli/args.h"

#include <algorithm>
#include <cstddef>

#include "base/parse_util.h"

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

// The optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbours, each 1.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// "unknown option "--sate-file" (did you mean '--state-file'?)".
std::string unknown_option(std::string_view spelled, std::string_view name,
                           const std::vector<OptionSpec>& options) {
  std::vector<std::string> names;
  for (const OptionSpec& option : options) names.push_back(display_name(option));
  return "unknown option " + quote(spelled) + did_you_mean(name, names);
}

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

ParsedArgs ParsedArgs::without(std::string_view long_name) const {
  ParsedArgs copy = *this;
  const auto found = copy.values_.find(long_name);
  if (found != copy.values_.end()) copy.values_.erase(found);
  return copy;
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
        const std::string_view spelled =
            arg.substr(0, equals == std::string_view::npos ? arg.size() : equals + 2);
        error = unknown_option(spelled, spelled, options);
        return false;
      }
      if (equals != std::string_view::npos) {
        attached_value = body.substr(equals + 1);
        has_attached_value = true;
      }
    } else {
      option = find_short(options, arg[1]);
      if (option == nullptr) {
        // "-state-file": a long option with one dash is suggested with two.
        error = unknown_option(arg.substr(0, 2), "-" + std::string(arg), options);
        return false;
      }
      if (arg.size() > 2) {
        attached_value = arg.substr(2);
        has_attached_value = true;
      }
    }

    if (parsed.has(option->long_name)) {
      error = display_name(*option) + " given twice: give it once";
      return false;
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

std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates) {
  // A third of the word, at most 3: "--sate-file" is a typo of "--state-file", "--bogus" of
  // nothing.
  const std::size_t allowed = std::min<std::size_t>(3, std::max<std::size_t>(1, given.size() / 3));
  const std::string* best = nullptr;
  std::size_t best_distance = allowed + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(given, candidate);
    if (distance < best_distance) {
      best = &candidate;
      best_distance = distance;
    }
  }
  return best == nullptr ? std::string() : " (did you mean '" + *best + "'?)";
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
