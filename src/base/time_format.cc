// SPDX-License-Identifier: Apache-2.0
#include "base/time_format.h"

namespace cosid {
namespace detail {
namespace {

constexpr std::int64_t kMsPerDay = 86400000;

// Floor division and the matching non-negative remainder. REQUIRES: b > 0. Defined for every a,
// INT64_MIN included (negating a would overflow there).
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  return a / b - (a % b < 0 ? 1 : 0);
}

// Writes `value` as exactly `width` decimal digits, most significant first.
char* put_digits(char* out, std::int64_t value, int width) noexcept {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
  return out + width;
}

}  // namespace

// Howard Hinnant's days_from_civil / civil_from_days algorithms (public domain description at
// howardhinnant.github.io/date_algorithms.html): eras of 400 years, March-based years so that the
// leap day is last.
std::int64_t days_from_civil(std::int64_t year, int month, int day) noexcept {
  year -= month <= 2 ? 1 : 0;
  const std::int64_t era = floor_div(year, 400);
  const std::int64_t year_of_era = year - era * 400;
  const std::int64_t month_index = month > 2 ? month - 3 : month + 9;
  const std::int64_t day_of_year = (153 * month_index + 2) / 5 + day - 1;
  const std::int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

CivilTime civil_from_unix_ms(std::int64_t unix_ms) noexcept {
  const std::int64_t days = floor_div(unix_ms, kMsPerDay);
  std::int64_t ms_of_day = unix_ms % kMsPerDay;  // not unix_ms - days * kMsPerDay: can overflow
  if (ms_of_day < 0) ms_of_day += kMsPerDay;

  const std::int64_t z = days + 719468;
  const std::int64_t era = floor_div(z, 146097);
  const std::int64_t day_of_era = z - era * 146097;
  const std::int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const std::int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const std::int64_t month_index = (5 * day_of_year + 2) / 153;

  CivilTime civil;
  civil.day = static_cast<int>(day_of_year - (153 * month_index + 2) / 5 + 1);
  civil.month = static_cast<int>(month_index < 10 ? month_index + 3 : month_index - 9);
  civil.year = year_of_era + era * 400 + (civil.month <= 2 ? 1 : 0);
  civil.hour = static_cast<int>(ms_of_day / 3600000);
  ms_of_day %= 3600000;
  civil.minute = static_cast<int>(ms_of_day / 60000);
  ms_of_day %= 60000;
  civil.second = static_cast<int>(ms_of_day / 1000);
  civil.millisecond = static_cast<int>(ms_of_day % 1000);
  return civil;
}

std::int64_t unix_ms_from_civil(const CivilTime& civil) noexcept {
  return days_from_civil(civil.year, civil.month, civil.day) * kMsPerDay +
         civil.hour * std::int64_t{3600000} + civil.minute * std::int64_t{60000} +
         civil.second * std::int64_t{1000} + civil.millisecond;
}

int days_in_month(std::int64_t year, int month) noexcept {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

std::size_t format_rfc3339_ms(std::int64_t unix_ms, char* out) noexcept {
  const CivilTime c = civil_from_unix_ms(unix_ms);
  char* p = put_digits(out, c.year, 4);
  *p++ = '-';
  p = put_digits(p, c.month, 2);
  *p++ = '-';
  p = put_digits(p, c.day, 2);
  *p++ = 'T';
  p = put_digits(p, c.hour, 2);
  *p++ = ':';
  p = put_digits(p, c.minute, 2);
  *p++ = ':';
  p = put_digits(p, c.second, 2);
  *p++ = '.';
  p = put_digits(p, c.millisecond, 3);
  *p++ = 'Z';
  return static_cast<std::size_t>(p - out);
}

std::size_t format_compact_ms(std::int64_t unix_ms, char* out) noexcept {
  const CivilTime c = civil_from_unix_ms(unix_ms);
  char* p = put_digits(out, c.year, 4);
  p = put_digits(p, c.month, 2);
  p = put_digits(p, c.day, 2);
  p = put_digits(p, c.hour, 2);
  p = put_digits(p, c.minute, 2);
  p = put_digits(p, c.second, 2);
  p = put_digits(p, c.millisecond, 3);
  return static_cast<std::size_t>(p - out);
}

std::string format_gap(std::int64_t ms) {
  // Unsigned, so that the magnitude of INT64_MIN is representable.
  const std::uint64_t gap =
      ms < 0 ? 0 - static_cast<std::uint64_t>(ms) : static_cast<std::uint64_t>(ms);
  const std::string sign = ms < 0 ? "-" : "";
  const auto two = [&sign](std::uint64_t big, const char* big_unit, std::uint64_t small,
                           const char* small_unit) {
    std::string text = sign + std::to_string(big) + big_unit;
    if (small != 0) text += " " + std::to_string(small) + small_unit;
    return text;
  };
  constexpr std::uint64_t kSecond = 1000;
  constexpr std::uint64_t kMinute = 60 * kSecond;
  constexpr std::uint64_t kHour = 60 * kMinute;
  constexpr std::uint64_t kDay = 24 * kHour;
  if (gap < kSecond) return sign + std::to_string(gap) + " ms";
  if (gap < kMinute) {
    const std::uint64_t tenths = gap % kSecond / 100;
    return sign + std::to_string(gap / kSecond) +
           (tenths != 0 ? "." + std::to_string(tenths) : std::string()) + " s";
  }
  if (gap < kHour) return two(gap / kMinute, " min", gap % kMinute / kSecond, " s");
  if (gap < kDay) return two(gap / kHour, " h", gap % kHour / kMinute, " min");
  const std::uint64_t days = gap / kDay;
  const char* day_unit = days == 1 ? " day" : " days";
  if (days >= 10) return sign + std::to_string(days) + day_unit;
  return two(days, day_unit, gap % kDay / kHour, " h");
}

std::string format_floor(std::int64_t floor_ms, std::int64_t epoch_ms) {
  return floor_ms < epoch_ms ? format_instant(epoch_ms) + " (the layout's epoch)"
                             : format_instant(floor_ms) + " (not-before)";
}

std::string format_instant(std::int64_t unix_ms) {
  constexpr std::int64_t kLastMsOfYear9999 = 253402300799999;
  if (unix_ms < 0 || unix_ms > kLastMsOfYear9999) return std::to_string(unix_ms);
  char buf[kMaxTimeChars];
  return std::string(buf, format_rfc3339_ms(unix_ms, buf));
}

}  // namespace detail
}  // namespace cosid
