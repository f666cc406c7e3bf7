// SPDX-License-Identifier: Apache-2.0
#include "config/config_scalar.h"

namespace cosid {
namespace detail {
namespace {

bool is_space(char c) noexcept { return c == ' ' || c == '\t'; }

std::string_view trim_right(std::string_view text) noexcept {
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

bool reason(std::string& why, const std::string& text) {
  why = text;
  return false;
}

bool read_quoted(std::string_view text, std::string& out, std::string& why) {
  const char quote_char = text[0];
  out.clear();
  std::size_t pos = 1;
  bool closed = false;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (c == quote_char) {
      if (quote_char == '\'' && pos < text.size() && text[pos] == '\'') {
        out += '\'';
        ++pos;
        continue;
      }
      closed = true;
      break;
    }
    if (c != '\\' || quote_char == '\'') {
      out += c;
      continue;
    }
    const char escaped = pos < text.size() ? text[pos++] : '\0';
    switch (escaped) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      default:
        return reason(why,
                      "unsupported escape in a double-quoted value: use \\\", \\\\, \\n "
                      "or \\t");
    }
  }
  if (!closed) {
    return reason(
        why, std::string("no closing ") + quote_char + ": a quoted value must end on its own line");
  }
  const std::string_view rest = text.substr(pos);
  const std::size_t next = rest.find_first_not_of(" \t");
  if (next != std::string_view::npos && (rest[next] != '#' || next == 0)) {
    return reason(why,
                  "text after the closing quote: only a comment (after a space) may "
                  "follow");
  }
  return true;
}

}  // namespace

bool read_scalar(std::string_view text, std::string& out, std::string& why) {
  const char c = text[0];
  if (c == '"' || c == '\'') return read_quoted(text, out, why);
  if (c == '{' || c == '[' || c == '}' || c == ']' || c == ',') {
    return reason(why, "flow style ({...} or [...]) is not supported: write one value per key");
  }
  if (c == '&' || c == '*') return reason(why, "anchors and aliases (&a, *a) are not supported");
  if (c == '!') return reason(why, "tags (!tag) are not supported");
  if (c == '|' || c == '>') {
    return reason(why, "block scalars (| or >) are not supported: write the value on one line");
  }
  if (c == '%' || c == '@' || c == '`') {
    return reason(why, std::string("a plain value cannot start with '") + c + "': quote it");
  }
  if ((c == '-' || c == '?' || c == ':') && (text.size() == 1 || is_space(text[1]))) {
    return reason(why, "lists and complex keys are not supported: give a single value");
  }
  std::size_t end = text.size();
  for (std::size_t i = 1; i < text.size(); ++i) {
    if (text[i] == '#' && is_space(text[i - 1])) {
      end = i;
      break;
    }
  }
  const std::string_view value = trim_right(text.substr(0, end));
  if (value.back() == ':' || value.find(": ") != std::string_view::npos ||
      value.find(":\t") != std::string_view::npos) {
    return reason(why, "a ': ' inside a plain value starts a mapping in YAML: quote the value");
  }
  if (value == "~" || value == "null" || value == "Null" || value == "NULL") {
    return reason(why, "YAML reads " + std::string(value) +
                           " as null: give a value (quote it to mean the text), or remove the "
                           "key");
  }
  out.assign(value);
  return true;
}

}  // namespace detail
}  // namespace cosid
