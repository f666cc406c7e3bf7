// SPDX-License-Identifier: Apache-2.0
// How the cosid CLI prints values: instants as RFC 3339, and records (named fields) either as
// `name: value` lines or as one JSON object a line, so that both forms of a command stay in step.
#ifndef COSID_SRC_CLI_OUTPUT_FORMAT_H_
#define COSID_SRC_CLI_OUTPUT_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cosid {
namespace cli {

// "2026-11-30T02:22:58.123Z", UTC, always with milliseconds. An instant past the year 9999 (a
// wide layout's end), which RFC 3339 cannot write, is written as its Unix milliseconds, as the
// library's config values are (detail::format_instant in parse_util.h). REQUIRES: unix_ms >= 0.
std::string format_time(std::int64_t unix_ms);

// `text` as a JSON string literal, quotes included.
std::string json_string(std::string_view text);

// An ordered list of named fields.
class Record {
 public:
  Record& add_string(const char* name, std::string value);
  Record& add_number(const char* name, std::string digits);  // already decimal text
  Record& add_number(const char* name, std::int64_t value);
  Record& add_number(const char* name, std::uint64_t value);
  Record& add_bool(const char* name, bool value);
  Record& add_null(const char* name);
  // A value that is already JSON (an object, an array); printed as is in both forms.
  Record& add_json(const char* name, std::string json);

  // `name: value` a line, each line ending in '\n'.
  std::string to_text() const;
  // `{"name":value,...}` on one line without spaces.
  std::string to_json() const;
  // to_json() and '\n'.
  std::string to_json_line() const;

 private:
  struct Field {
    const char* name;
    std::string value;  // as printed in text form
    bool is_string;     // quoted in JSON
  };
  std::vector<Field> fields_;
};

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_OUTPUT_FORMAT_H_
