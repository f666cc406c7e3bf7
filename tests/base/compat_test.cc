// SPDX-License-Identifier: Apache-2.0
// Compatibility with the Java CosId: for each preset, ids and their radix62 and friendly text are
// computed here from CosId's definitions (epoch 1577203200000, timestamp << (slot + sequence
// bits) | slot << sequence bits | sequence; radix62 over 0-9A-Za-z, 11 characters padded with '0';
// friendly yyyyMMddHHmmssSSS-slot-sequence, in UTC on cosid's side) and compared with cosid's.
// The code below deliberately repeats those definitions instead of calling cosid's helpers.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "cosid/codec.h"
#include "cosid/layout.h"

namespace cosid {
namespace {

constexpr std::int64_t kCosIdEpochMs = 1577203200000;

struct Preset {
  const char* name;
  int timestamp_bits, slot_bits, sequence_bits;
  bool seconds;
};
constexpr Preset kCosIdPresets[] = {
    {"default", 41, 10, 12, false},        // MillisecondSnowflakeId
    {"seconds", 31, 10, 22, true},         // SecondSnowflakeId
    {"js-safe", 41, 3, 9, false},          // SafeJavaScriptSnowflakeId, milliseconds
    {"js-safe-seconds", 31, 3, 19, true},  // SafeJavaScriptSnowflakeId, seconds
};

struct Triple {
  std::int64_t ticks;
  std::uint32_t slot, sequence;
};

std::uint64_t expected_id(const Preset& p, const Triple& t) {
  return (static_cast<std::uint64_t>(t.ticks) << (p.slot_bits + p.sequence_bits)) |
         (std::uint64_t{t.slot} << p.sequence_bits) | t.sequence;
}

std::string expected_radix62(std::uint64_t id) {
  const std::string alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::string out(11, '0');
  for (int i = 10; i >= 0 && id != 0; --i, id /= 62)
    out[static_cast<std::size_t>(i)] = alphabet[static_cast<std::size_t>(id % 62)];
  return out;
}

std::string expected_friendly(const Preset& p, const Triple& t) {
  const std::int64_t unix_ms =
      p.seconds ? (kCosIdEpochMs / 1000 + t.ticks) * 1000 : kCosIdEpochMs + t.ticks;
  const std::time_t secs = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d%02d%02d%02d%02d%02d%03d-%u-%u", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(unix_ms % 1000), t.slot, t.sequence);
  return buf;
}

// Small, mid-range and largest fields of each preset.
std::vector<Triple> triples(const Preset& p) {
  const std::int64_t max_ticks = (std::int64_t{1} << p.timestamp_bits) - 1;
  const std::uint32_t max_slot = (1u << p.slot_bits) - 1;
  const std::uint32_t max_seq = (1u << p.sequence_bits) - 1;
  return {{0, 0, 0},
          {1, 1, 1},
          {p.seconds ? 218'332'800 : 218'332'800'123, 5, 17},  // 2026-11-24T16:00:00(.123)Z
          {max_ticks / 3, max_slot / 2, max_seq / 2},
          {max_ticks, max_slot, max_seq}};
}

TEST(CompatTest, PresetsHaveCosIdsEpochAndBits) {
  for (const Preset& p : kCosIdPresets) {
    SCOPED_TRACE(p.name);
    const Layout layout = layout_preset(p.name);
    EXPECT_EQ(layout.epoch_ms(), kCosIdEpochMs);
    EXPECT_EQ(layout.unit, p.seconds ? TimeUnit::kSecond : TimeUnit::kMillisecond);
    EXPECT_EQ(layout.timestamp_bits, p.timestamp_bits);
    EXPECT_EQ(layout.slot_bits, p.slot_bits);
    EXPECT_EQ(layout.sequence_bits, p.sequence_bits);
  }
}

TEST(CompatTest, IdsAndTextMatchTheDefinitions) {
  for (const Preset& p : kCosIdPresets) {
    const Layout layout = layout_preset(p.name);
    for (const Triple& t : triples(p)) {
      SCOPED_TRACE(std::string(p.name) + " ticks " + std::to_string(t.ticks) + " slot " +
                   std::to_string(t.slot) + " sequence " + std::to_string(t.sequence));
      const std::uint64_t id = layout.compose(t.ticks, t.slot, t.sequence);
      ASSERT_EQ(id, expected_id(p, t));
      char buf[kMaxEncodedChars];
      EXPECT_EQ(std::string(buf, encode_radix62(id, buf)), expected_radix62(id));
      EXPECT_EQ(std::string(buf, encode_friendly(id, layout, buf)), expected_friendly(p, t));
      Status status;
      EXPECT_EQ(decode_radix62(expected_radix62(id), status), id);
      EXPECT_TRUE(status.ok()) << status.message();
      EXPECT_EQ(decode_friendly(expected_friendly(p, t), layout, status), id);
      EXPECT_TRUE(status.ok()) << status.message();
    }
  }
}

// Fixed strings, so the test's own definitions are checked too.
TEST(CompatTest, KnownIdInUtc) {
  const Layout layout = layouts::kDefault;
  const std::uint64_t id = layout.compose(218'332'800'123, 5, 17);
  EXPECT_EQ(id, (std::uint64_t{218'332'800'123} << 22) | (5u << 12) | 17u);
  char buf[kMaxEncodedChars];
  EXPECT_EQ(std::string(buf, encode_friendly(id, layout, buf)), "20261124160000123-5-17");
  EXPECT_EQ(expected_radix62(61), "0000000000z");
  EXPECT_EQ(expected_radix62(62), "00000000010");
  EXPECT_EQ(std::string(buf, encode_radix62(0, buf)), "00000000000");
  EXPECT_EQ(std::string(buf, encode_radix62((std::uint64_t{1} << 63) - 1, buf)), "AzL8n0Y58m7");
}

// CosId without padStart writes radix62 unpadded; cosid reads the padded form only, as
// src/base/IDS.md says.
TEST(CompatTest, UnpaddedRadix62IsRefused) {
  Status status;
  EXPECT_EQ(decode_radix62("1z", status), 0u);
  EXPECT_EQ(status.code(), make_error_code(errc::id_bad_length));
  EXPECT_EQ(decode_radix62("0000000001z", status), 123u);
  EXPECT_TRUE(status.ok()) << status.message();
}

}  // namespace
}  // namespace cosid
