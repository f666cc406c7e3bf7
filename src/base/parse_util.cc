// SPDX-License-Identifier: Apache-2.0
#include "base/parse_util.h"

#include <cstdio>
#include <limits>

#include "base/fail.h"
#include "base/time_format.h"

namespace cosid {
namespace detail {
namespace {

constexpr std::int64_t kMsPerSecond = 1000;
constexpr std::int64_t kMsPerMinute = 60 * kMsPerSecond;
constexpr std::int64_t kMsPerHour = 60 * kMsPerMinute;
constexpr std::uint64_t kMaxInt64 =
    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
// 9999-12-31T23:59:59.999Z: the last instant with a four-digit year.
constexpr std::size_t kMaxQuotedChars = 64;

// Refuses `text` as its key's type; the caller frames the clause with the key and the value.
bool refuse(Status& status, std::string clause) {
  return fail(status, make_error_code(errc::invalid_value), std::move(clause));
}

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// Reads exactly `width` digits at `text[pos]`; false if any is missing or not a digit.
bool fixed_digits(std::string_view text, std::size_t pos, std::size_t width, int& value) noexcept {
  if (pos + width > text.size()) return false;
  value = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (!is_digit(text[i])) return false;
    value = value * 10 + (text[i] - '0');
  }
  return true;
}

const char kInstantForms[] =
    "give Unix milliseconds or an RFC 3339 time with seconds and a zone, such as "
    "2026-11-30T02:22:58Z, 2026-11-30T02:22:58.123Z or 2026-11-30T07:52:58+05:30";

// Parses the RFC 3339 form; `text` is known not to be all digits.
bool parse_rfc3339(std::string_view text, std::int64_t& unix_ms, Status& status) noexcept {
  CivilTime civil;
  int year = 0;
  if (!fixed_digits(text, 0, 4, year) || text.size() < 19 || text[4] != '-' || text[7] != '-' ||
      text[10] != 'T' || text[13] != ':' || text[16] != ':' ||
      !fixed_digits(text, 5, 2, civil.month) || !fixed_digits(text, 8, 2, civil.day) ||
      !fixed_digits(text, 11, 2, civil.hour) || !fixed_digits(text, 14, 2, civil.minute) ||
      !fixed_digits(text, 17, 2, civil.second)) {
    return refuse(status, std::string("not an instant: ") + kInstantForms);
  }
  civil.year = year;
  if (civil.month < 1 || civil.month > 12 || civil.day < 1 ||
      civil.day > days_in_month(civil.year, civil.month)) {
    return refuse(status, "not a calendar date: " + std::to_string(civil.year) + " month " +
                              std::to_string(civil.month) + " has no day " +
                              std::to_string(civil.day));
  }
  if (civil.hour > 23 || civil.minute > 59 || civil.second > 60) {
    return refuse(status, "not a time of day: hours are 00-23, minutes and seconds 00-59");
  }
  if (civil.second == 60) {
    return refuse(status, "a leap second (:60) has no Unix time: use :59.999 or the next minute");
  }
  std::size_t pos = 19;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    std::size_t digits = 0;
    int fraction = 0;
    while (pos < text.size() && is_digit(text[pos])) {
      if (++digits > 3) {
        return refuse(status,
                      "more than 3 fraction digits: cosid counts milliseconds, such as "
                      "2026-11-30T02:22:58.123Z");
      }
      fraction = fraction * 10 + (text[pos++] - '0');
    }
    if (digits == 0) return refuse(status, "a '.' needs fraction digits after it, such as :58.123");
    for (std::size_t i = digits; i < 3; ++i) fraction *= 10;
    civil.millisecond = fraction;
  }
  std::int64_t offset_ms = 0;
  if (pos == text.size()) {
    return refuse(status, "no time zone: end with Z for UTC or give an offset such as +01:00");
  }
  if (text[pos] == 'Z') {
    ++pos;
  } else if (text[pos] == '+' || text[pos] == '-') {
    int hours = 0;
    int minutes = 0;
    if (!fixed_digits(text, pos + 1, 2, hours) || pos + 3 >= text.size() || text[pos + 3] != ':' ||
        !fixed_digits(text, pos + 4, 2, minutes) || hours > 23 || minutes > 59) {
      return refuse(status, "a zone offset is +HH:MM or -HH:MM with hours 00-23, such as +05:30");
    }
    offset_ms = (text[pos] == '-' ? -1 : 1) * (hours * kMsPerHour + minutes * kMsPerMinute);
    pos += 6;
  } else {
    return refuse(status, std::string("not an instant: ") + kInstantForms);
  }
  if (pos != text.size()) {
    return refuse(status, std::string("unexpected text after the time zone: ") + kInstantForms);
  }
  // Local time minus its offset is UTC: 07:52+05:30 is 02:22Z.
  const std::int64_t result = unix_ms_from_civil(civil) - offset_ms;
  if (result < 0) {
    return refuse(status,
                  "before 1970-01-01T00:00:00Z: instants are Unix time, which starts there");
  }
  unix_ms = result;
  return true;
}

}  // namespace

bool parse_uint(std::string_view text, std::uint64_t max, std::uint64_t& value,
                Status& status) noexcept {
  if (text.empty()) return refuse(status, "empty: give a whole number, such as 10");
  std::uint64_t result = 0;
  for (const char c : text) {
    if (!is_digit(c)) {
      return refuse(status,
                    "not a whole number: give ASCII digits only, without sign, space, \"0x\", "
                    "fraction or exponent, such as 10");
    }
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (result > (max - digit) / 10) {
      return refuse(status, "larger than the maximum, " + std::to_string(max));
    }
    result = result * 10 + digit;
  }
  if (text.size() > 1 && text[0] == '0') {
    return refuse(status, "a leading zero is refused (YAML reads 010 as octal): write " +
                              std::to_string(result));
  }
  value = result;
  return true;
}

bool parse_bool(std::string_view text, bool& value, Status& status) noexcept {
  if (text == "true" || text == "false") {
    value = text == "true";
    return true;
  }
  return refuse(status, "not a boolean: give true or false");
}

bool parse_duration(std::string_view text, std::chrono::milliseconds& value,
                    Status& status) noexcept {
  static const char kForms[] = "such as 500ms, 10s, 1m or 1h";
  if (text.empty()) return refuse(status, std::string("empty: give a duration ") + kForms);
  std::size_t digits = 0;
  while (digits < text.size() && is_digit(text[digits])) ++digits;
  if (digits == 0) {
    const bool signed_number = (text[0] == '-' || text[0] == '+') && text.size() > 1;
    return refuse(status, std::string(signed_number ? "a duration has no sign: give "
                                                    : "not a duration: give a whole number and a "
                                                      "unit, ") +
                              kForms);
  }
  const std::string_view unit = text.substr(digits);
  if (unit.empty()) return refuse(status, std::string("a duration needs a unit: ") + kForms);
  if (unit[0] == '.') {
    return refuse(status, "a duration is a whole number of its unit: write 1500ms, not 1.5s");
  }
  if (unit[0] == ' ' || unit[0] == '\t') {
    return refuse(status, std::string("no space between number and unit: ") + kForms);
  }
  std::int64_t per_unit = 0;
  if (unit == "ms") {
    per_unit = 1;
  } else if (unit == "s") {
    per_unit = kMsPerSecond;
  } else if (unit == "m") {
    per_unit = kMsPerMinute;
  } else if (unit == "h") {
    per_unit = kMsPerHour;
  } else {
    return refuse(status, "unknown unit: use ms, s, m or h, " + std::string(kForms));
  }
  std::uint64_t count = 0;
  Status count_status;
  if (!parse_uint(text.substr(0, digits), kMaxInt64 / static_cast<std::uint64_t>(per_unit), count,
                  count_status)) {
    if (count_status.message().rfind("larger", 0) == 0) {
      return refuse(status,
                    "too long: the largest duration is " + std::to_string(kMaxInt64) + "ms");
    }
    status = count_status;
    return false;
  }
  value = std::chrono::milliseconds(static_cast<std::int64_t>(count) * per_unit);
  return true;
}

std::string format_duration(std::chrono::milliseconds value) {
  const std::int64_t ms = value.count();
  if (ms != 0 && ms % kMsPerHour == 0) return std::to_string(ms / kMsPerHour) + "h";
  if (ms != 0 && ms % kMsPerMinute == 0) return std::to_string(ms / kMsPerMinute) + "m";
  if (ms != 0 && ms % kMsPerSecond == 0) return std::to_string(ms / kMsPerSecond) + "s";
  return std::to_string(ms) + "ms";
}

bool parse_instant(std::string_view text, std::int64_t& unix_ms, Status& status) noexcept {
  if (text.empty()) return refuse(status, std::string("empty: ") + kInstantForms);
  bool all_digits = true;
  for (const char c : text) all_digits = all_digits && is_digit(c);
  if (!all_digits) return parse_rfc3339(text, unix_ms, status);
  std::uint64_t value = 0;
  if (!parse_uint(text, kMaxInt64, value, status)) return false;
  unix_ms = static_cast<std::int64_t>(value);
  return true;
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  const std::size_t shown = text.size() > kMaxQuotedChars ? kMaxQuotedChars : text.size();
  for (std::size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  if (shown < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace detail
}  // namespace cosid
