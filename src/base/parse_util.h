// SPDX-License-Identifier: Apache-2.0
// Internal: strict parsers for configuration values, and their canonical printers.
//
// Every value that reaches Options goes through one of these, whatever its source (flag, COSID_*
// variable, config file). They accept one spelling per value and refuse everything else, so that a
// typo is an error rather than a surprise:
//
//   whole number   ASCII digits only, no leading zero ("0" itself is fine): no sign, space, "0x",
//                  exponent or fraction. "010" is refused because YAML 1.1 reads it as octal.
//   boolean        "true" or "false".
//   duration       a whole number and a unit, no space: "500ms", "10s", "1m", "1h". No bare number,
//                  sign, fraction or other unit; a total beyond int64 milliseconds is refused.
//   instant        Unix milliseconds as a whole number, or RFC 3339 with seconds and a zone:
//                  "2026-11-30T02:22:58Z", "2026-11-30T02:22:58.123Z", "...T07:52:58+05:30".
//                  Upper-case T and Z only, 1 to 3 fraction digits, no leap second (":60"), at
//                  or after 1970.
//
// On failure a parser sets `status` to errc::invalid_value with the rule the text breaks as its
// message, a clause meant to follow "KEY = "VALUE" (ORIGIN): ". Pure functions; call them from
// any thread.
#ifndef COSID_SRC_BASE_PARSE_UTIL_H_
#define COSID_SRC_BASE_PARSE_UTIL_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/time_format.h"  // format_instant, which parse_instant reads back
#include "cosid/error.h"

namespace cosid {
namespace detail {

// A whole number no greater than `max`.
bool parse_uint(std::string_view text, std::uint64_t max, std::uint64_t& value,
                Status& status) noexcept;

bool parse_bool(std::string_view text, bool& value, Status& status) noexcept;

// A duration of at least 0 ms. Range rules of a particular setting are the caller's.
bool parse_duration(std::string_view text, std::chrono::milliseconds& value,
                    Status& status) noexcept;

// The duration in its largest exact unit: 3600000 ms is "1h", 90000 ms "90s", 1500 ms "1500ms",
// 0 "0ms". parse_duration reads it back to the same value. REQUIRES: value >= 0.
std::string format_duration(std::chrono::milliseconds value);

// An instant as Unix milliseconds (>= 0).
bool parse_instant(std::string_view text, std::int64_t& unix_ms, Status& status) noexcept;

// `text` in double quotes for a message: quotes, backslashes and control bytes escaped, and cut
// after 64 characters (saying how long it was), so that a message stays one readable line.
std::string quote(std::string_view text);

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_BASE_PARSE_UTIL_H_
