// SPDX-License-Identifier: Apache-2.0
#include "base/time_format.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

namespace cosid::detail {
namespace {

std::string rfc3339(std::int64_t ms) {
  char buf[kMaxTimeChars];
  return std::string(buf, format_rfc3339_ms(ms, buf));
}

std::string compact(std::int64_t ms) {
  char buf[kMaxTimeChars];
  return std::string(buf, format_compact_ms(ms, buf));
}

TEST(TimeFormat, KnownInstants) {
  EXPECT_EQ(rfc3339(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(rfc3339(1577203200000), "2019-12-24T16:00:00.000Z");
  EXPECT_EQ(rfc3339(1796005378123), "2026-11-30T02:22:58.123Z");
  EXPECT_EQ(rfc3339(951782400000), "2000-02-29T00:00:00.000Z");   // leap day of a 400-year
  EXPECT_EQ(rfc3339(4107542399999), "2100-02-28T23:59:59.999Z");  // 2100 is no leap year
  EXPECT_EQ(rfc3339(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(compact(1796005378123), "20261130022258123");
}

TEST(TimeFormat, CivilRoundTripOverFourCenturies) {
  std::mt19937_64 random(7);
  std::uniform_int_distribution<std::int64_t> instant(-62135596800000, 253402300799999);
  for (int i = 0; i < 100000; ++i) {
    const std::int64_t ms = instant(random);
    EXPECT_EQ(unix_ms_from_civil(civil_from_unix_ms(ms)), ms);
  }
}

// Found by fuzz/layout_fuzzer (corpus regression-validate-at-int64-min): a "now" of INT64_MIN in
// Layout::validate_at's message overflowed floor_div (UBSan). Out of range the text means little,
// but formatting any int64 must be defined.
TEST(TimeFormat, ExtremeValuesAreDefined) {
  for (const std::int64_t ms :
       {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::min() + 1,
        std::numeric_limits<std::int64_t>::max()}) {
    EXPECT_FALSE(rfc3339(ms).empty());
    EXPECT_FALSE(compact(ms).empty());
  }
  EXPECT_EQ(rfc3339(-86400000), "1969-12-31T00:00:00.000Z");
  EXPECT_EQ(rfc3339(-86400001), "1969-12-30T23:59:59.999Z");
}

TEST(TimeFormat, DaysInMonth) {
  EXPECT_EQ(days_in_month(2024, 2), 29);
  EXPECT_EQ(days_in_month(2026, 2), 28);
  EXPECT_EQ(days_in_month(2000, 2), 29);
  EXPECT_EQ(days_in_month(1900, 2), 28);
  EXPECT_EQ(days_in_month(2026, 4), 30);
  EXPECT_EQ(days_in_month(2026, 12), 31);
}

// Gaps in messages (a floor far ahead, a clock set back) in the units a reader thinks in, cut to
// two units, never rounded up: a gap a millisecond short of a day is not "1 day".
TEST(TimeFormat, GapsReadAsTheirLargestUnits) {
  EXPECT_EQ(format_gap(0), "0 ms");
  EXPECT_EQ(format_gap(250), "250 ms");
  EXPECT_EQ(format_gap(999), "999 ms");
  EXPECT_EQ(format_gap(1000), "1 s");
  EXPECT_EQ(format_gap(12500), "12.5 s");
  EXPECT_EQ(format_gap(12599), "12.5 s");
  EXPECT_EQ(format_gap(59999), "59.9 s");
  EXPECT_EQ(format_gap(60000), "1 min");
  EXPECT_EQ(format_gap(200000), "3 min 20 s");
  EXPECT_EQ(format_gap(3600000), "1 h");
  EXPECT_EQ(format_gap(12000000), "3 h 20 min");
  EXPECT_EQ(format_gap(86399999), "23 h 59 min");
  EXPECT_EQ(format_gap(86400000), "1 day");
  EXPECT_EQ(format_gap(86400000 + 6 * 3600000), "1 day 6 h");
  EXPECT_EQ(format_gap(2 * 86400000LL), "2 days");
  EXPECT_EQ(format_gap(10 * 86400000LL - 1), "9 days 23 h");
  EXPECT_EQ(format_gap(10 * 86400000LL), "10 days");
  EXPECT_EQ(format_gap(10 * 86400000LL + 3600000), "10 days");
  EXPECT_EQ(format_gap(365 * 86400000LL + 10000), "365 days");
  // A not-before years ahead: whole days, never the milliseconds.
  EXPECT_EQ(format_gap(412 * 86400000LL + 23 * 3600000LL + 59 * 60000 + 999), "412 days");
  EXPECT_EQ(format_gap(-412 * 86400000LL), "-412 days");
  EXPECT_EQ(format_gap(10000 * 86400000LL), "10000 days");
  EXPECT_EQ(format_gap(-60000), "-1 min");
  EXPECT_EQ(format_gap(-12500), "-12.5 s");
  EXPECT_EQ(format_gap(std::numeric_limits<std::int64_t>::min()), "-106751991167 days");
  EXPECT_EQ(format_gap(std::numeric_limits<std::int64_t>::max()), "106751991167 days");
}

}  // namespace
}  // namespace cosid::detail
