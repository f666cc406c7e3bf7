// SPDX-License-Identifier: Apache-2.0
#include "cosid/codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/time_format.h"
#include "support/test_util.h"

namespace cosid {
namespace {

constexpr std::uint64_t kMaxId = (std::uint64_t{1} << 63) - 1;
constexpr IdFormat kAllFormats[] = {IdFormat::kDecimal, IdFormat::kRadix62, IdFormat::kRadix36,
                                    IdFormat::kFriendly};
const std::pair<const char*, Layout> kPresets[] = {{"default", layouts::kDefault},
                                                   {"seconds", layouts::kSeconds},
                                                   {"js-safe", layouts::kJsSafe},
                                                   {"js-safe-seconds", layouts::kJsSafeSeconds}};

// Encodes into a buffer filled with a sentinel, and checks the encoder wrote no NUL and nothing
// past the length it returned.
std::string encode_checked(std::uint64_t id, IdFormat format,
                           const Layout& layout = layouts::kDefault) {
  char buf[kMaxEncodedChars + 1];
  std::fill(std::begin(buf), std::end(buf), '#');
  const std::size_t n = encode(id, format, layout, buf);
  EXPECT_GT(n, 0u);
  EXPECT_LE(n, kMaxEncodedChars);
  EXPECT_EQ(buf[n], '#') << "wrote past the returned length";
  const std::string text(buf, n);
  EXPECT_EQ(text.find('\0'), std::string::npos);
  EXPECT_EQ(text, to_string(id, format, layout));
  return text;
}

// Decodes, starting from a set error code, and expects success.
std::uint64_t decode_ok(std::string_view text, IdFormat format,
                        const Layout& layout = layouts::kDefault) {
  Status status(make_error_code(errc::closed), "untouched");
  const std::uint64_t id = decode(text, format, layout, status);
  EXPECT_OK(status) << " decoding " << ::testing::PrintToString(std::string(text)) << ": "
                    << status.message();
  return id;
}

// How a message quotes its input: printable ASCII but '"' and '\' as is, other bytes as \xNN,
// at most 40 characters and then "...".
std::string message_quote(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < 40; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f && byte != '"' && byte != '\\') {
      out += text[i];
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      out += hex;
    }
  }
  return out + (text.size() > 40 ? "...\"" : "\"");
}

// Expects decoding to fail with exactly `code`, with and without a message, and the message to
// quote the input.
void expect_error(IdFormat format, std::string_view text, errc code,
                  const Layout& layout = layouts::kDefault) {
  SCOPED_TRACE(std::string(to_string(format)) + " " + ::testing::PrintToString(std::string(text)));
  Status status;
  std::string message;
  EXPECT_EQ(decode(text, format, layout, status), 0u);
  EXPECT_STATUS(status, code);
  EXPECT_NE(status.message().find(std::string(to_string(format)) + " id " + message_quote(text)),
            std::string::npos)
      << status.message();
  EXPECT_LT(status.message().size(), 400u) << status.message();

  Status again;
  EXPECT_EQ(decode(text, format, layout, again), 0u);
  EXPECT_STATUS(again, code);
}

std::string with_nul() {
  return std::string(
      "12\0"
      "34",
      5);
}

TEST(Codec, FormatNames) {
  for (const IdFormat format : kAllFormats) {
    IdFormat parsed = format == IdFormat::kDecimal ? IdFormat::kFriendly : IdFormat::kDecimal;
    EXPECT_TRUE(parse_format(to_string(format), parsed)) << to_string(format);
    EXPECT_EQ(parsed, format);
  }
  EXPECT_STREQ(to_string(IdFormat::kDecimal), "decimal");
  EXPECT_STREQ(to_string(IdFormat::kRadix62), "radix62");
  EXPECT_STREQ(to_string(IdFormat::kRadix36), "radix36");
  EXPECT_STREQ(to_string(IdFormat::kFriendly), "friendly");
  IdFormat format = IdFormat::kRadix36;
  for (const char* bad : {"", "Decimal", "json", "auto", "radix", "decimal "}) {
    EXPECT_FALSE(parse_format(bad, format)) << bad;
  }
  EXPECT_EQ(format, IdFormat::kRadix36) << "a failed parse must leave the format alone";
}

TEST(Codec, KnownEncodings) {
  EXPECT_EQ(encode_checked(0, IdFormat::kDecimal), "0");
  EXPECT_EQ(encode_checked(kMaxId, IdFormat::kDecimal), "9223372036854775807");
  EXPECT_EQ(encode_checked(0, IdFormat::kRadix62), "00000000000");
  EXPECT_EQ(encode_checked(61, IdFormat::kRadix62), "0000000000z");
  EXPECT_EQ(encode_checked(62, IdFormat::kRadix62), "00000000010");
  EXPECT_EQ(encode_checked(10, IdFormat::kRadix62), "0000000000A");
  EXPECT_EQ(encode_checked(36, IdFormat::kRadix62), "0000000000a");
  EXPECT_EQ(encode_checked(kMaxId, IdFormat::kRadix62), "AzL8n0Y58m7");
  EXPECT_EQ(encode_checked(0, IdFormat::kRadix36), "0000000000000");
  EXPECT_EQ(encode_checked(35, IdFormat::kRadix36), "000000000000z");
  EXPECT_EQ(encode_checked(36, IdFormat::kRadix36), "0000000000010");
  EXPECT_EQ(encode_checked(kMaxId, IdFormat::kRadix36), "1y2p0ij32e8e7");
  EXPECT_EQ(encode_checked(0, IdFormat::kFriendly), "20191224160000000-0-0");
}

TEST(Codec, BoundaryValuesRoundTrip) {
  std::vector<std::uint64_t> values = {0, 1, 35, 36, 61, 62, 63, 3843, 3844, kMaxId - 1, kMaxId};
  for (const auto& preset : kPresets) values.push_back(preset.second.max_id());
  for (const std::uint64_t id : values) {
    for (const IdFormat format : kAllFormats) {
      const std::string text = encode_checked(id, format);
      EXPECT_EQ(decode_ok(text, format), id) << to_string(format) << " " << text;
      EXPECT_EQ(encode_checked(decode_ok(text, format), format), text);
    }
  }
  EXPECT_EQ(encode_checked(kMaxId, IdFormat::kFriendly), "20890830074735551-1023-4095");
}

TEST(Codec, RandomIdsRoundTripInEveryCodec) {
  std::mt19937_64 random(20261130);
  std::uniform_int_distribution<int> shift(1, 63);
  for (int i = 0; i < 100000; ++i) {
    // Random magnitudes, so short decimal ids and long runs of leading zeros are covered too.
    const std::uint64_t id = random() >> shift(random);
    for (const IdFormat format : kAllFormats) {
      char buf[kMaxEncodedChars];
      const std::string_view text(buf, encode(id, format, layouts::kDefault, buf));
      Status status;
      const std::uint64_t decoded = decode(text, format, layouts::kDefault, status);
      ASSERT_OK(status) << to_string(format) << " " << text;
      ASSERT_EQ(decoded, id) << to_string(format) << " " << text;
      // Every encoding is recognised, but a fixed-width one of digits only reads as decimal.
      const bool all_digits = text.find_first_not_of("0123456789") == std::string_view::npos;
      ASSERT_EQ(detect_format(text), all_digits ? IdFormat::kDecimal : format) << text;
    }
  }
}

TEST(Codec, FixedWidthCodecsPreserveOrder) {
  std::mt19937_64 random(42);
  std::uniform_int_distribution<int> shift(1, 63);
  for (const IdFormat format : {IdFormat::kRadix62, IdFormat::kRadix36}) {
    std::vector<std::pair<std::uint64_t, std::string>> ids;
    for (int i = 0; i < 20000; ++i) {
      const std::uint64_t id = random() >> shift(random);
      ids.emplace_back(id, encode_checked(id, format));
    }
    ids.emplace_back(0, encode_checked(0, format));
    ids.emplace_back(kMaxId, encode_checked(kMaxId, format));
    std::vector<std::pair<std::uint64_t, std::string>> by_string = ids;
    std::sort(ids.begin(), ids.end());
    std::sort(by_string.begin(), by_string.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    EXPECT_EQ(ids, by_string) << to_string(format);
  }
}

TEST(Codec, DecimalAcceptsLeadingZerosUpToNineteenDigits) {
  EXPECT_EQ(decode_ok("0", IdFormat::kDecimal), 0u);
  EXPECT_EQ(decode_ok("007", IdFormat::kDecimal), 7u);
  EXPECT_EQ(decode_ok("0000000000000000001", IdFormat::kDecimal), 1u);
  EXPECT_EQ(decode_ok("9223372036854775807", IdFormat::kDecimal), kMaxId);
}

TEST(Codec, DecimalErrors) {
  const IdFormat f = IdFormat::kDecimal;
  expect_error(f, "", errc::id_empty);
  expect_error(f, "-1", errc::id_bad_character);
  expect_error(f, "+1", errc::id_bad_character);
  expect_error(f, " 1", errc::id_bad_character);
  expect_error(f, "1 ", errc::id_bad_character);
  expect_error(f, "12a", errc::id_bad_character);
  expect_error(f, "1.0", errc::id_bad_character);
  expect_error(f, with_nul(), errc::id_bad_character);
  expect_error(f, "12\xC3\xA9", errc::id_bad_character);
  expect_error(f, "00000000000000000001", errc::id_bad_length);  // 20 characters
  // 2^64 has 20 digits: more than a decimal id has, which is reported before its value.
  expect_error(f, "18446744073709551616", errc::id_bad_length);
  expect_error(f, "9223372036854775808", errc::id_overflow);  // 2^63
  expect_error(f, "9999999999999999999", errc::id_overflow);  // the largest 19 digits
}

TEST(Codec, Radix62Errors) {
  const IdFormat f = IdFormat::kRadix62;
  EXPECT_EQ(decode_ok("AzL8n0Y58m7", f), kMaxId);
  expect_error(f, "", errc::id_empty);
  expect_error(f, "AzL8n0Y58m-", errc::id_bad_character);
  expect_error(f, "+zL8n0Y58m7", errc::id_bad_character);
  expect_error(f, "AzL8n Y58m7", errc::id_bad_character);
  expect_error(f, std::string("AzL8n\0Y58m7", 11), errc::id_bad_character);
  expect_error(f, "AzL8n\xC3Y58m7", errc::id_bad_character);
  expect_error(f, "ABC", errc::id_bad_length);
  expect_error(f, "0000000000", errc::id_bad_length);    // 10
  expect_error(f, "000000000000", errc::id_bad_length);  // 12
  expect_error(f, "AzL8n0Y58m8", errc::id_overflow);     // 2^63
  expect_error(f, "LygHa16AHYF", errc::id_overflow);     // 2^64 - 1
  expect_error(f, "LygHa16AHYG", errc::id_overflow);     // 2^64: would wrap to 0 unguarded
  expect_error(f, "zzzzzzzzzzz", errc::id_overflow);     // 62^11 - 1
}

TEST(Codec, Radix36Errors) {
  const IdFormat f = IdFormat::kRadix36;
  EXPECT_EQ(decode_ok("1y2p0ij32e8e7", f), kMaxId);
  expect_error(f, "", errc::id_empty);
  expect_error(f, "1Y2P0IJ32E8E7", errc::id_bad_character);  // upper case
  expect_error(f, "1y2p0ij32e8eA", errc::id_bad_character);
  expect_error(f, "1y2p0ij32e8e-", errc::id_bad_character);
  expect_error(f, "+y2p0ij32e8e7", errc::id_bad_character);
  expect_error(f, " y2p0ij32e8e7", errc::id_bad_character);
  expect_error(f,
               std::string("1y2p0ij\0"
                           "2e8e7",
                           13),
               errc::id_bad_character);
  expect_error(f,
               "1y2p0ij\xC3"
               "2e8e7",
               errc::id_bad_character);
  expect_error(f, "abc", errc::id_bad_length);
  expect_error(f, "000000000000", errc::id_bad_length);    // 12
  expect_error(f, "00000000000000", errc::id_bad_length);  // 14
  expect_error(f, "1y2p0ij32e8e8", errc::id_overflow);     // 2^63
  expect_error(f, "3w5e11264sgsf", errc::id_overflow);     // 2^64 - 1
  expect_error(f, "3w5e11264sgsg", errc::id_overflow);     // 2^64: would wrap to 0 unguarded
  expect_error(f, "zzzzzzzzzzzzz", errc::id_overflow);     // 36^13 - 1
}

TEST(Codec, MessagesSayWhatIsWrongAndWhatIsExpected) {
  Status status;
  (void)decode_radix62("ABC", status);
  EXPECT_EQ(status.message(),
            "radix62 id \"ABC\" has 3 characters; a radix62 id has exactly 11 characters "
            "(0-9A-Za-z, zero-padded)");
  (void)decode_radix36("1Y2P0IJ32E8E7", status);
  EXPECT_EQ(status.message(),
            "radix36 id \"1Y2P0IJ32E8E7\" has 'Y' at position 2; a radix36 id has exactly 13 "
            "characters (0-9a-z, lower case only, zero-padded)");
  (void)decode_decimal("12\xC3", status);
  EXPECT_NE(status.message().find("'\\xc3' at position 3"), std::string::npos) << status.message();
  (void)decode_decimal("9223372036854775808", status);
  EXPECT_NE(status.message().find("9223372036854775807"), std::string::npos) << status.message();
  (void)decode_radix62("AzL8n0Y58m8", status);
  EXPECT_NE(status.message().find("AzL8n0Y58m7"), std::string::npos) << status.message();
  (void)decode_friendly("20260230022258123-3-17", layouts::kDefault, status);
  EXPECT_NE(status.message().find("day 30"), std::string::npos) << status.message();
  (void)decode_friendly("20261130022258123-1024-17", layouts::kDefault, status);
  EXPECT_NE(status.message().find("slot 1024"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("1023"), std::string::npos) << status.message();
  (void)decode_friendly("20191224155959999-0-0", layouts::kDefault, status);
  EXPECT_NE(status.message().find("2019-12-24T16:00:00.000Z"), std::string::npos)
      << status.message();

  // A long input is cut short in the message; quotes and backslashes are escaped.
  const std::string long_input(1000, 'x');
  (void)decode_radix62(long_input, status);
  EXPECT_NE(status.message().find(message_quote(long_input)), std::string::npos)
      << status.message();
  EXPECT_LT(status.message().size(), 200u);
  (void)decode_decimal("1\"\\", status);
  EXPECT_NE(status.message().find("\"1\\x22\\x5c\""), std::string::npos) << status.message();
}

TEST(Codec, SuccessClearsTheStatus) {
  Status status(make_error_code(errc::id_empty), "before");
  EXPECT_EQ(decode_radix62("00000000010", status), 62u);
  EXPECT_OK(status);
  EXPECT_EQ(status.message(), "");
}

TEST(Codec, FriendlyKnownVector) {
  const Layout& layout = layouts::kDefault;
  const std::int64_t unix_ms = 1796005378123;  // 2026-11-30T02:22:58.123Z
  ASSERT_EQ(detail::unix_ms_from_civil({2026, 11, 30, 2, 22, 58, 123}), unix_ms);
  const std::int64_t tick = layout.tick_of(unix_ms);
  ASSERT_EQ(tick, 218802178123);
  const std::uint64_t id = layout.compose(tick, 3, 17);
  EXPECT_EQ(id, 917722850910023697u);
  EXPECT_EQ(encode_checked(id, IdFormat::kFriendly), "20261130022258123-3-17");
  EXPECT_EQ(decode_ok("20261130022258123-3-17", IdFormat::kFriendly), id);
}

TEST(Codec, FriendlyRoundTripInEveryPreset) {
  std::mt19937_64 random(7);
  for (const auto& [name, layout] : kPresets) {
    SCOPED_TRACE(name);
    std::uniform_int_distribution<std::uint64_t> any_id(0, layout.max_id());
    std::vector<std::uint64_t> ids = {0, 1, layout.max_id()};
    for (int i = 0; i < 10000; ++i) ids.push_back(any_id(random));
    for (const std::uint64_t id : ids) {
      const std::string text = encode_checked(id, IdFormat::kFriendly, layout);
      ASSERT_EQ(decode_ok(text, IdFormat::kFriendly, layout), id) << text;
      if (layout.unit == TimeUnit::kSecond) {
        ASSERT_EQ(text.substr(14, 4), "000-") << text;
      }
    }
  }
  EXPECT_EQ(encode_checked(layouts::kSeconds.max_id(), IdFormat::kFriendly, layouts::kSeconds),
            "20880111191407000-1023-4194303");
  EXPECT_EQ(encode_checked(layouts::kJsSafe.max_id(), IdFormat::kFriendly, layouts::kJsSafe),
            "20890830074735551-7-511");
}

TEST(Codec, FriendlyShapeErrors) {
  const IdFormat f = IdFormat::kFriendly;
  expect_error(f, "", errc::id_empty);
  expect_error(f, "20261130022258123-3-1a", errc::id_bad_character);
  expect_error(f, "20261130022258123-3-+17", errc::id_bad_character);
  expect_error(f, "20261130022258123-3- 17", errc::id_bad_character);
  expect_error(f, "2026-11-30T02:22:58.123Z", errc::id_bad_character);
  expect_error(f, std::string("20261130022258123-3\0-17", 23), errc::id_bad_character);
  expect_error(f, "20261130022258123-3-\xC3", errc::id_bad_character);
  expect_error(f, "20261130022258123-3", errc::id_bad_length);
  expect_error(f, "20261130022258123-3-17-1", errc::id_bad_length);
  expect_error(f, "-", errc::id_bad_length);
  expect_error(f, "--", errc::id_bad_length);
  expect_error(f, "2026113002225812-3-17", errc::id_bad_length);    // 16 digits
  expect_error(f, "202611300222581230-3-17", errc::id_bad_length);  // 18 digits
  expect_error(f, "20261130022258123--17", errc::id_bad_length);    // empty slot
  expect_error(f, "20261130022258123-3-", errc::id_bad_length);     // empty sequence
  expect_error(f, "20261130022258123-03-17", errc::id_bad_length);  // two spellings of 3
  expect_error(f, "20261130022258123-3-017", errc::id_bad_length);
  EXPECT_EQ(decode_ok("20261130022258123-0-0", f) >> 22, 218802178123u);
}

TEST(Codec, FriendlyFieldErrors) {
  const IdFormat f = IdFormat::kFriendly;
  const errc out = errc::id_field_out_of_range;
  expect_error(f, "20260230022258123-3-17", out);  // Feb 30
  expect_error(f, "20260229000000000-3-17", out);  // 2026 is no leap year
  decode_ok("20280229000000000-3-17", f);          // 2028 is
  expect_error(f, "20261131000000000-3-17", out);  // Nov 31
  expect_error(f, "20261300000000000-3-17", out);  // month 13
  expect_error(f, "20260001000000000-3-17", out);  // month 0
  expect_error(f, "20260100000000000-3-17", out);  // day 0
  expect_error(f, "20260101240000000-3-17", out);  // hour 24
  expect_error(f, "20260101006000000-3-17", out);  // minute 60
  expect_error(f, "20260101000060000-3-17", out);  // second 60: no leap seconds
  decode_ok("20260101235959999-1023-4095", f);
  expect_error(f, "20261130022258123-1024-17", out);
  expect_error(f, "20261130022258123-3-4096", out);
  expect_error(f, "20261130022258123-99999999999999999999999-17", out);
  expect_error(f, "20261130022258123-3-18446744073709551617", out);
  expect_error(f, "20261130022258123-8-0", out, layouts::kJsSafe);
  decode_ok("20261130022258123-7-511", f, layouts::kJsSafe);
  expect_error(f, "20261130022258123-7-512", out, layouts::kJsSafe);

  // A second-unit layout has no milliseconds to keep.
  expect_error(f, "20261130022258123-3-17", out, layouts::kSeconds);
  expect_error(f, "20261130022258001-3-17", out, layouts::kJsSafeSeconds);
  decode_ok("20261130022258000-3-17", f, layouts::kSeconds);

  // The layout's range: from its epoch to its last tick.
  EXPECT_EQ(decode_ok("20191224160000000-0-0", f), 0u);
  expect_error(f, "20191224155959999-0-0", out);
  expect_error(f, "19700101000000000-0-0", out);
  expect_error(f, "00000101000000000-0-0", out);
  expect_error(f, "20191224155959000-0-0", out, layouts::kSeconds);
  EXPECT_EQ(decode_ok("20890830074735551-0-0", f) >> 22, 2199023255551u);
  expect_error(f, "20890830074735552-0-0", out);
  expect_error(f, "99991231235959999-0-0", out);
  decode_ok("20880111191407000-0-0", f, layouts::kSeconds);
  expect_error(f, "20880111191408000-0-0", out, layouts::kSeconds);
}

TEST(Codec, FriendlyBeyondYear9999ShowsTheWholeYear) {
  // A valid custom layout whose range passes 9999-12-31: the year keeps all its digits (a
  // 17-digit time cannot hold it, so the decoder refuses it by length rather than misread it).
  const Layout wide{1577203200000, TimeUnit::kMillisecond, 50, 6, 7};
  Status status;
  ASSERT_TRUE(wide.validate(status)) << status.message();
  const std::int64_t year_10000 = detail::unix_ms_from_civil({10000, 1, 1, 0, 0, 0, 0});
  const std::uint64_t id = wide.compose(wide.tick_of(year_10000 + 1), 2, 5);
  EXPECT_EQ(encode_checked(id, IdFormat::kFriendly, wide), "100000101000000001-2-5");
  expect_error(IdFormat::kFriendly, "100000101000000001-2-5", errc::id_bad_length, wide);
  EXPECT_EQ(
      encode_checked(wide.compose(wide.tick_of(year_10000 - 1), 2, 5), IdFormat::kFriendly, wide),
      "99991231235959999-2-5");
}

TEST(Codec, DetectFormat) {
  EXPECT_EQ(detect_format("0"), IdFormat::kDecimal);
  EXPECT_EQ(detect_format("9223372036854775807"), IdFormat::kDecimal);
  EXPECT_EQ(detect_format(""), IdFormat::kDecimal);
  EXPECT_EQ(detect_format("12345678901"), IdFormat::kDecimal);    // 11 digits: named as decimal
  EXPECT_EQ(detect_format("1234567890123"), IdFormat::kDecimal);  // 13 digits likewise
  EXPECT_EQ(detect_format("AzL8n0Y58m7"), IdFormat::kRadix62);
  EXPECT_EQ(detect_format("0000000000z"), IdFormat::kRadix62);
  EXPECT_EQ(detect_format("ABC"), IdFormat::kRadix62);
  EXPECT_EQ(detect_format("1 2"), IdFormat::kRadix62);
  EXPECT_EQ(detect_format("1y2p0ij32e8e7"), IdFormat::kRadix36);
  EXPECT_EQ(detect_format("ABCDEFGHIJKLM"), IdFormat::kRadix36);
  EXPECT_EQ(detect_format("20261130022258123-3-17"), IdFormat::kFriendly);
  EXPECT_EQ(detect_format("-1"), IdFormat::kFriendly);
}

#if COSID_HAS_EXCEPTIONS
TEST(Codec, ThrowingDecodeCarriesCodeAndMessage) {
  EXPECT_EQ(decode("00000000010", IdFormat::kRadix62), 62u);
  try {
    (void)decode("ABC", IdFormat::kRadix62);
    FAIL() << "no exception";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), make_error_code(errc::id_bad_length));
    EXPECT_NE(std::string(error.what()).find("\"ABC\""), std::string::npos) << error.what();
  }
}
#endif

}  // namespace
}  // namespace cosid
