// SPDX-License-Identifier: Apache-2.0
// The strict value parsers: whole numbers, booleans, durations and instants (tests/SCENARIOS.md,
// B-02), and the canonical printers that config check uses.
#include "base/parse_util.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

namespace cosid {
namespace detail {
namespace {

using std::chrono::milliseconds;

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();
constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();

TEST(ParseUint, AcceptsPlainDigits) {
  cosid::Status ignored;
  std::uint64_t value = 7;
  ASSERT_TRUE(parse_uint("0", kMax64, value, ignored));
  EXPECT_EQ(value, 0u);
  ASSERT_TRUE(parse_uint("10", kMax64, value, ignored));
  EXPECT_EQ(value, 10u);
  ASSERT_TRUE(parse_uint("18446744073709551615", kMax64, value, ignored));
  EXPECT_EQ(value, kMax64);
  ASSERT_TRUE(parse_uint("63", 63, value, ignored));
  EXPECT_EQ(value, 63u);
}

TEST(ParseUint, RefusesEverythingElse) {
  const char* const refused[] = {
      "",
      " 12",
      "12 ",
      "12abc",
      "+5",
      "-0",
      "-1",
      "0x10",
      "1e3",
      "1.0",
      "010",
      "00",
      "12\n",
      "\xd9\xa1\xd9\xa2",  // Arabic-Indic digits one and two
      "18446744073709551616",
      "99999999999999999999",
  };
  for (const char* text : refused) {
    std::uint64_t value = 7;
    cosid::Status why;
    EXPECT_FALSE(parse_uint(text, kMax64, value, why)) << text;
    EXPECT_EQ(value, 7u) << text;
    EXPECT_EQ(why.code(), cosid::errc::invalid_value) << text;
  }
}

TEST(ParseUint, RespectsTheMaximum) {
  std::uint64_t value = 0;
  cosid::Status why;
  EXPECT_FALSE(parse_uint("64", 63, value, why));
  EXPECT_EQ(why.message(), "larger than the maximum, 63");
  EXPECT_TRUE(parse_uint("63", 63, value, why));
}

TEST(ParseUint, ExplainsTheRule) {
  std::uint64_t value = 0;
  cosid::Status why;
  EXPECT_FALSE(parse_uint("010", kMax64, value, why));
  EXPECT_NE(why.message().find("write 10"), std::string::npos) << why.message();
  EXPECT_FALSE(parse_uint("", kMax64, value, why));
  EXPECT_NE(why.message().find("empty"), std::string::npos) << why.message();
}

TEST(ParseBool, OnlyTrueAndFalse) {
  cosid::Status ignored;
  bool value = false;
  ASSERT_TRUE(parse_bool("true", value, ignored));
  EXPECT_TRUE(value);
  ASSERT_TRUE(parse_bool("false", value, ignored));
  EXPECT_FALSE(value);
  for (const char* text : {"", "True", "TRUE", "yes", "no", "on", "1", "0", " true", "true "}) {
    cosid::Status why;
    EXPECT_FALSE(parse_bool(text, value, why)) << text;
    EXPECT_EQ(why.message(), "not a boolean: give true or false");
  }
}

TEST(ParseDuration, AcceptsCountAndUnit) {
  const struct {
    const char* text;
    std::int64_t ms;
  } cases[] = {
      {"0ms", 0},
      {"500ms", 500},
      {"10s", 10000},
      {"1m", 60000},
      {"1h", 3600000},
      {"90s", 90000},
      {"9223372036854775807ms", kMaxInt64},
      {"2562047788015h", 2562047788015 * 3600000},
  };
  for (const auto& c : cases) {
    milliseconds value{-1};
    cosid::Status why;
    EXPECT_TRUE(parse_duration(c.text, value, why)) << c.text << ": " << why.message();
    EXPECT_EQ(value.count(), c.ms) << c.text;
  }
}

TEST(ParseDuration, RefusesOtherForms) {
  const char* const refused[] = {
      "",
      "10",
      "1.5s",
      "10 s",
      "-1s",
      "+1s",
      "9223372036854775808ms",
      "2562047788016h",
      "1d",
      "1S",
      "1MS",
      "ms",
      "s",
      " 10s",
      "10s ",
      "010s",
      "1e3ms",
      "10sec",
      "1h30m",
      "0x10s",
      "\xd9\xa1s",
  };
  for (const char* text : refused) {
    milliseconds value{-1};
    cosid::Status why;
    EXPECT_FALSE(parse_duration(text, value, why)) << text;
    EXPECT_EQ(value.count(), -1) << text;
    EXPECT_EQ(why.code(), cosid::errc::invalid_value) << text;
  }
}

TEST(ParseDuration, SaysWhatIsMissing) {
  milliseconds value{0};
  cosid::Status why;
  EXPECT_FALSE(parse_duration("10", value, why));
  EXPECT_EQ(why.message(), "a duration needs a unit: such as 500ms, 10s, 1m or 1h");
  EXPECT_FALSE(parse_duration("1.5s", value, why));
  EXPECT_NE(why.message().find("1500ms"), std::string::npos) << why.message();
  EXPECT_FALSE(parse_duration("-1s", value, why));
  EXPECT_NE(why.message().find("no sign"), std::string::npos) << why.message();
  EXPECT_FALSE(parse_duration("9223372036854775808ms", value, why));
  EXPECT_NE(why.message().find("too long"), std::string::npos) << why.message();
}

TEST(FormatDuration, UsesTheLargestExactUnit) {
  EXPECT_EQ(format_duration(milliseconds(0)), "0ms");
  EXPECT_EQ(format_duration(milliseconds(1)), "1ms");
  EXPECT_EQ(format_duration(milliseconds(1500)), "1500ms");
  EXPECT_EQ(format_duration(milliseconds(10000)), "10s");
  EXPECT_EQ(format_duration(milliseconds(90000)), "90s");
  EXPECT_EQ(format_duration(milliseconds(60000)), "1m");
  EXPECT_EQ(format_duration(milliseconds(5400000)), "90m");
  EXPECT_EQ(format_duration(milliseconds(86400000)), "24h");
  EXPECT_EQ(format_duration(milliseconds(kMaxInt64)), "9223372036854775807ms");
}

TEST(FormatDuration, RoundTrips) {
  cosid::Status ignored;
  std::mt19937_64 rng(42);
  std::vector<std::int64_t> values = {
      0, 1, 999, 1000, 59999, 60000, 3600000, kMaxInt64, 2562047788015 * 3600000};
  for (int i = 0; i < 10000; ++i) {
    const int shift = static_cast<int>(rng() % 63);
    values.push_back(static_cast<std::int64_t>(rng() >> (1 + shift)));
    values.push_back(static_cast<std::int64_t>(rng() % 100) * 1000 * (i % 2 == 0 ? 60 : 1));
  }
  for (const std::int64_t ms : values) {
    const std::string text = format_duration(milliseconds(ms));
    milliseconds back{-1};
    ASSERT_TRUE(parse_duration(text, back, ignored)) << text;
    EXPECT_EQ(back.count(), ms) << text;
  }
}

TEST(ParseInstant, AcceptsEpochMillisecondsAndRfc3339) {
  const struct {
    const char* text;
    std::int64_t ms;
  } cases[] = {
      {"0", 0},
      {"1796005378123", 1796005378123},
      {"9223372036854775807", kMaxInt64},
      {"1970-01-01T00:00:00Z", 0},
      {"2026-11-30T02:22:58Z", 1796005378000},
      {"2026-11-30T02:22:58.123Z", 1796005378123},
      {"2026-11-30T02:22:58.1Z", 1796005378100},
      {"2026-11-30T02:22:58.12Z", 1796005378120},
      {"2026-11-30T02:22:58.000Z", 1796005378000},
      {"2026-11-30T02:22:58+00:00", 1796005378000},
      {"2026-11-30T02:22:58-00:00", 1796005378000},
      {"2026-11-30T07:52:58+05:30", 1796005378000},
      {"2026-11-29T18:22:58.123-08:00", 1796005378123},
      {"2024-02-29T00:00:00Z", 1709164800000},
      {"2019-12-24T16:00:00Z", 1577203200000},
      {"9999-12-31T23:59:59.999Z", 253402300799999},
  };
  for (const auto& c : cases) {
    std::int64_t value = -1;
    cosid::Status why;
    EXPECT_TRUE(parse_instant(c.text, value, why)) << c.text << ": " << why.message();
    EXPECT_EQ(value, c.ms) << c.text;
  }
}

TEST(ParseInstant, RefusesOtherForms) {
  const char* const refused[] = {
      "",
      "-1",
      "+5",
      " 0",
      "0123",
      "9223372036854775808",
      "1796005378.123",
      "2026-11-30T02:22:58",   // no zone
      "2026-11-30 02:22:58Z",  // space for T
      "2026-11-30t02:22:58z",  // lower case
      "2026-11-30T23:59:60Z",  // leap second
      "2016-12-31T23:59:60Z",  // a real one, still no Unix time
      "2026-02-29T00:00:00Z",  // not a leap year
      "2026-13-01T00:00:00Z",
      "2026-00-01T00:00:00Z",
      "2026-11-31T00:00:00Z",
      "2026-11-00T00:00:00Z",
      "2026-11-30T24:00:00Z",
      "2026-11-30T02:60:00Z",
      "2026-11-30T02:22Z",  // no seconds
      "2026-11-30",
      "2026-11-30T02:22:58.Z",
      "2026-11-30T02:22:58.1234Z",  // below a millisecond
      "2026-11-30T02:22:58+0530",
      "2026-11-30T02:22:58+05",
      "2026-11-30T02:22:58+24:00",
      "2026-11-30T02:22:58+05:60",
      "2026-11-30T02:22:58ZZ",
      "2026-11-30T02:22:58Z ",
      "1969-12-31T23:59:59Z",  // before Unix time
      "1970-01-01T00:00:00+00:01",
      "26-11-30T02:22:58Z",
      "+2026-11-30T02:22:58Z",
  };
  for (const char* text : refused) {
    std::int64_t value = -1;
    cosid::Status why;
    EXPECT_FALSE(parse_instant(text, value, why)) << text;
    EXPECT_EQ(value, -1) << text;
    EXPECT_EQ(why.code(), cosid::errc::invalid_value) << text;
  }
}

TEST(ParseInstant, ExplainsLeapSecondsAndZones) {
  std::int64_t value = 0;
  cosid::Status why;
  EXPECT_FALSE(parse_instant("2026-11-30T23:59:60Z", value, why));
  EXPECT_NE(why.message().find("leap second"), std::string::npos) << why.message();
  EXPECT_FALSE(parse_instant("2026-11-30T02:22:58", value, why));
  EXPECT_NE(why.message().find("no time zone"), std::string::npos) << why.message();
  EXPECT_FALSE(parse_instant("2026-02-30T02:22:58Z", value, why));
  EXPECT_EQ(why.message(), "not a calendar date: 2026 month 2 has no day 30");
}

TEST(FormatInstant, RoundTrips) {
  cosid::Status ignored;
  EXPECT_EQ(format_instant(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_instant(1796005378123), "2026-11-30T02:22:58.123Z");
  EXPECT_EQ(format_instant(253402300799999), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(format_instant(253402300800000), "253402300800000");
  std::mt19937_64 rng(7);
  std::vector<std::int64_t> values = {0, 1, 253402300799999, 253402300800000, kMaxInt64};
  for (int i = 0; i < 10000; ++i) {
    values.push_back(static_cast<std::int64_t>(rng() % 253402300800000));
    values.push_back(static_cast<std::int64_t>(rng() >> 1));
  }
  for (const std::int64_t ms : values) {
    const std::string text = format_instant(ms);
    std::int64_t back = -1;
    ASSERT_TRUE(parse_instant(text, back, ignored)) << text;
    EXPECT_EQ(back, ms) << text;
  }
}

TEST(Quote, EscapesAndCuts) {
  EXPECT_EQ(quote("abc"), "\"abc\"");
  EXPECT_EQ(quote("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\x01\"");
  const std::string long_text(300, 'x');
  EXPECT_EQ(quote(long_text), "\"" + std::string(64, 'x') + "\"... (300 bytes)");
}

}  // namespace
}  // namespace detail
}  // namespace cosid
