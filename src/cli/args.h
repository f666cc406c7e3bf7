// SPDX-License-Identifier: Apache-2.0
// The cosid CLI's own argument parser and strict number parsing. No dependency, no exceptions.
//
//   --name VALUE, --name=VALUE, -n VALUE, -nVALUE   an option that takes a value
//   --name, -n                                      a boolean flag (giving it a value is an error)
//   anything else                                   a positional argument, in order
//   --                                              ends the options: the rest is positional
//
// Options and positionals may be mixed in any order. A lone "-" is positional. An option given
// twice, in any spelling (`--slot 1 --slot 2`, `-n 1 --count 2`, `--json --json`), is refused:
// "the last one wins" would hide a mistake in a long command line or a script's concatenation.
// An unknown option is refused with the closest option's name when one is close (did_you_mean).
#ifndef COSID_SRC_CLI_ARGS_H_
#define COSID_SRC_CLI_ARGS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cosid {
namespace cli {

// One option a command accepts. The same record drives the parser and the help text.
struct OptionSpec {
  const char* long_name;   // without the leading "--", e.g. "format"
  char short_name;         // e.g. 'n', or '\0' for none
  const char* value_name;  // e.g. "FORMAT"; nullptr for a boolean flag
  const char* help;        // one line: what the option does
};

// What a command line said, once checked against the options it may use.
class ParsedArgs {
 public:
  // True iff the option (value or flag) was given.
  bool has(std::string_view long_name) const;
  // The value of the option, or `fallback` when it was not given.
  std::string value_or(std::string_view long_name, std::string_view fallback) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

  void set(std::string_view long_name, std::string value);
  // A copy without the option `long_name`: for a command whose own option shares a name with a
  // config flag it passes on (`lease fence --slot`).
  ParsedArgs without(std::string_view long_name) const;
  void add_positional(std::string value) { positionals_.push_back(std::move(value)); }

 private:
  std::map<std::string, std::string, std::less<>> values_;  // a flag maps to ""
  std::vector<std::string> positionals_;
};

// Parses `args` (the words after the command name) against `options`. On a usage error returns
// false and stores a message without any prefix, such as "unknown option '--bogus'".
bool parse_args(const std::vector<std::string_view>& args, const std::vector<OptionSpec>& options,
                ParsedArgs& parsed, std::string& error);

// " (did you mean '--state-file'?)" when one of `candidates` is within a small edit distance of
// `given` (a mistyped letter, one too many or too few, two swapped), the closest one; "" when none
// is close enough to be a likely typo.
std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates);

// The single positional argument of a command that takes exactly one (`what` names it, such as
// "FILE"; `hint` says what to give when it is missing). Returns false with a usage message when
// there is none or more than one.
bool one_positional(const ParsedArgs& args, const char* what, const char* hint, std::string& value,
                    std::string& error);

// Strict unsigned decimal: one or more ASCII digits and nothing else (no sign, no space, no "0x"),
// at most `max`. Returns false on anything else.
bool parse_decimal(std::string_view text, std::uint64_t max, std::uint64_t& value);

// parse_decimal for the value of option `--name`, with a usage message on failure such as
// "--slot-bits: \"12abc\" is not a whole number: give digits only, such as 10".
bool parse_option_number(std::string_view name, std::string_view text, std::uint64_t max,
                         std::uint64_t& value, std::string& error);

// `text` between double quotes, with quotes, backslashes and control bytes escaped and anything
// past 64 characters cut, so that a message quoting user input stays one readable line
// (detail::quote, as the library's messages quote).
std::string quote(std::string_view text);

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_ARGS_H_
