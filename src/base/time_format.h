// SPDX-License-Identifier: Apache-2.0
// Internal: UTC calendar arithmetic, the two textual time forms cosid prints, gaps between
// instants for a message, and the conversion of wait bounds to nanoseconds.
//
// Proleptic Gregorian calendar, UTC, no leap seconds (as Unix time). Pure functions; no locale, no
// time zone database, no allocation.
#ifndef COSID_SRC_BASE_TIME_FORMAT_H_
#define COSID_SRC_BASE_TIME_FORMAT_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace cosid {
namespace detail {

struct CivilTime {
  std::int64_t year = 1970;
  int month = 1;  // 1..12
  int day = 1;    // 1..31
  int hour = 0;
  int minute = 0;
  int second = 0;
  int millisecond = 0;
};

// Days since 1970-01-01 of a calendar date, and back.
std::int64_t days_from_civil(std::int64_t year, int month, int day) noexcept;
CivilTime civil_from_unix_ms(std::int64_t unix_ms) noexcept;
// REQUIRES: every field in its calendar range (day valid for the month).
std::int64_t unix_ms_from_civil(const CivilTime& civil) noexcept;
int days_in_month(std::int64_t year, int month) noexcept;

// A wait bound in nanoseconds, saturating instead of overflowing for absurdly large bounds (a
// bound of centuries is "forever", not undefined behaviour).
constexpr std::int64_t to_nanos(std::chrono::milliseconds bound) noexcept {
  constexpr std::int64_t kMaxMs = INT64_MAX / 1000000;
  return bound.count() >= kMaxMs ? INT64_MAX : bound.count() < 0 ? 0 : bound.count() * 1000000;
}

// Longest output of the formatters below, with room to spare.
inline constexpr std::size_t kMaxTimeChars = 40;

// An instant for a message or a config value: RFC 3339 UTC with milliseconds
// ("2026-11-30T02:22:58.123Z") from 1970 to the year 9999, plain Unix milliseconds outside that
// range (a damaged ceiling or a far layout end), so no value ever prints as a wrong date.
std::string format_instant(std::int64_t unix_ms);

// A new state file's floor for a message: format_instant(floor_ms) + " (not-before)", or, when
// the floor lies before the layout's epoch (0: no not-before given), the epoch + " (the layout's
// epoch)": no id lies before it, so 1970 would tell the reader nothing.
std::string format_floor(std::int64_t floor_ms, std::int64_t epoch_ms);

// A span of time for a message, in the units a reader thinks in, cut (never rounded up) to two
// units at most: "250 ms", "12.5 s", "3 min 20 s", "3 h 20 min", "1 day 6 h", "365 days"
// (whole days only from 10 days on). Negative spans get a leading "-".
std::string format_gap(std::int64_t ms);

// "2026-11-30T02:22:58.123Z". Writes no NUL; returns the number of characters.
// REQUIRES: the year is in 0..9999.
std::size_t format_rfc3339_ms(std::int64_t unix_ms, char* out) noexcept;
// "20261130022258123" (17 digits). REQUIRES: the year is in 0..9999.
std::size_t format_compact_ms(std::int64_t unix_ms, char* out) noexcept;

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_BASE_TIME_FORMAT_H_
