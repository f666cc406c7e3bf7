// SPDX-License-Identifier: Apache-2.0
#include "cli/output_format.h"

#include <utility>

#include "base/parse_util.h"

namespace cosid {
namespace cli {

std::string format_time(std::int64_t unix_ms) { return detail::format_instant(unix_ms); }

std::string json_string(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string json = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      json += '\\';
      json += c;
    } else if (byte < 0x20) {
      json += "\\u00";
      json += kHex[byte >> 4];
      json += kHex[byte & 0xf];
    } else {
      json += c;
    }
  }
  json += '"';
  return json;
}

Record& Record::add_string(const char* name, std::string value) {
  fields_.push_back({name, std::move(value), true});
  return *this;
}

Record& Record::add_number(const char* name, std::string digits) {
  fields_.push_back({name, std::move(digits), false});
  return *this;
}

Record& Record::add_number(const char* name, std::int64_t value) {
  return add_number(name, std::to_string(value));
}

Record& Record::add_number(const char* name, std::uint64_t value) {
  return add_number(name, std::to_string(value));
}

Record& Record::add_bool(const char* name, bool value) {
  fields_.push_back({name, value ? "true" : "false", false});
  return *this;
}

std::string Record::to_text() const {
  std::string text;
  for (const Field& field : fields_) {
    text += field.name;
    text += ": ";
    text += field.value;
    text += '\n';
  }
  return text;
}

Record& Record::add_null(const char* name) { return add_json(name, "null"); }

Record& Record::add_json(const char* name, std::string json) {
  fields_.push_back({name, std::move(json), false});
  return *this;
}

std::string Record::to_json_line() const { return to_json() + '\n'; }

std::string Record::to_json() const {
  std::string json = "{";
  for (const Field& field : fields_) {
    if (json.size() > 1) json += ',';
    json += json_string(field.name);
    json += ':';
    json += field.is_string ? json_string(field.value) : field.value;
  }
  json += '}';
  return json;
}

}  // namespace cli
}  // namespace cosid
