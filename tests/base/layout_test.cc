// SPDX-License-Identifier: Apache-2.0
#include "cosid/layout.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "support/test_util.h"

namespace cosid {
namespace {

constexpr Layout kPresets[] = {layouts::kDefault, layouts::kSeconds, layouts::kJsSafe,
                               layouts::kJsSafeSeconds};

Layout make(int timestamp_bits, int slot_bits, int sequence_bits,
            TimeUnit unit = TimeUnit::kMillisecond, std::int64_t epoch = 1577203200000) {
  return Layout{epoch, unit, timestamp_bits, slot_bits, sequence_bits};
}

TEST(Layout, PresetsAreValidAndAsSpecified) {
  for (const Layout& layout : kPresets) {
    Status status;
    EXPECT_TRUE(layout.validate(status)) << status.message();
  }
  EXPECT_EQ(layouts::kDefault, make(41, 10, 12));
  EXPECT_EQ(layouts::kSeconds, make(31, 10, 22, TimeUnit::kSecond, 1577203200));
  EXPECT_EQ(layouts::kJsSafe, make(41, 3, 9));
  EXPECT_EQ(layouts::kJsSafeSeconds, make(31, 3, 19, TimeUnit::kSecond, 1577203200));
  EXPECT_EQ(layouts::kDefault.epoch_ms(), layouts::kSeconds.epoch_ms());
}

TEST(Layout, JsSafePresetsStayBelowTwoToThe53) {
  EXPECT_EQ(layouts::kJsSafe.max_id(), (std::uint64_t{1} << 53) - 1);
  EXPECT_EQ(layouts::kJsSafeSeconds.max_id(), (std::uint64_t{1} << 53) - 1);
}

TEST(Layout, PresetByName) {
  Status status;
  EXPECT_EQ(layout_preset("default", status), layouts::kDefault);
  EXPECT_EQ(layout_preset("seconds", status), layouts::kSeconds);
  EXPECT_EQ(layout_preset("js-safe", status), layouts::kJsSafe);
  EXPECT_EQ(layout_preset("js-safe-seconds", status), layouts::kJsSafeSeconds);
  EXPECT_OK(status);
}

TEST(Layout, UnknownPresetNamesTheChoices) {
  Status status;
  (void)layout_preset("js_safe", status);
  EXPECT_STATUS(status, errc::unknown_layout);
  EXPECT_NE(status.message().find("\"js_safe\""), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("js-safe-seconds"), std::string::npos) << status.message();
}

TEST(Layout, EveryFieldNeedsOneBit) {
  for (const Layout& layout :
       {make(0, 10, 12), make(41, 0, 12), make(41, 10, 0), make(-1, 10, 12)}) {
    Status status;
    EXPECT_FALSE(layout.validate(status));
    EXPECT_STATUS(status, errc::layout_field_empty);
    EXPECT_NE(status.message().find("at least 1 bit"), std::string::npos) << status.message();
  }
}

TEST(Layout, AtMost63Bits) {
  Status status;
  EXPECT_TRUE(make(41, 10, 12).validate(status));
  EXPECT_TRUE(make(41, 11, 11).validate(status));
  EXPECT_FALSE(make(41, 10, 13).validate(status));
  EXPECT_STATUS(status, errc::layout_too_wide);
  EXPECT_NE(status.message().find("64 bits"), std::string::npos) << status.message();
  EXPECT_FALSE(make(61, 61, 61).validate(status));
  EXPECT_STATUS(status, errc::layout_too_wide);
  // A huge field must not overflow the sum.
  EXPECT_FALSE(make(2147483647, 1, 1).validate(status));
  EXPECT_STATUS(status, errc::layout_too_wide);
}

TEST(Layout, SlotAndSequenceHoldAtMost32Bits) {
  Status status;
  EXPECT_TRUE(make(29, 2, 32).validate(status)) << status.message();
  EXPECT_FALSE(make(28, 2, 33).validate(status));
  EXPECT_STATUS(status, errc::layout_too_wide);
  EXPECT_NE(status.message().find("sequence field has more than 32 bits"), std::string::npos)
      << status.message();
  EXPECT_FALSE(make(28, 33, 2).validate(status));
  EXPECT_STATUS(status, errc::layout_too_wide);
}

TEST(Layout, EpochBefore1970IsRefused) {
  Status status;
  EXPECT_FALSE(make(41, 10, 12, TimeUnit::kMillisecond, -1).validate(status));
  EXPECT_STATUS(status, errc::layout_epoch_invalid);
  EXPECT_NE(status.message().find("1970"), std::string::npos) << status.message();
}

TEST(Layout, LastTimestampMustFitIn64BitMilliseconds) {
  Status status;
  // 61 timestamp bits of seconds overflow int64 milliseconds.
  EXPECT_FALSE(make(61, 1, 1, TimeUnit::kSecond, 0).validate(status));
  EXPECT_STATUS(status, errc::layout_epoch_invalid);
  // 53 bits of seconds fit (2^53 s is about 9e18 ms).
  EXPECT_TRUE(make(53, 1, 1, TimeUnit::kSecond, 0).validate(status)) << status.message();
  // An epoch so late that the range runs past int64.
  EXPECT_FALSE(make(61, 1, 1, TimeUnit::kMillisecond, 9000000000000000000).validate(status));
  EXPECT_STATUS(status, errc::layout_epoch_invalid);
}

TEST(Layout, EpochInTheFutureOfTheClockIsRefused) {
  Status status;
  const Layout layout = layouts::kDefault;
  EXPECT_TRUE(layout.validate_at(layout.epoch_ms(), status));
  EXPECT_FALSE(layout.validate_at(layout.epoch_ms() - 1, status));
  EXPECT_STATUS(status, errc::layout_epoch_in_future);
  EXPECT_NE(status.message().find("2019-12-24T16:00:00.000Z"), std::string::npos)
      << status.message();
  // An epoch in seconds mistaken for milliseconds is far in the past, but one in ms given to a
  // second-unit layout is far in the future.
  EXPECT_FALSE(
      make(31, 10, 22, TimeUnit::kSecond, 1577203200000).validate_at(1796005378123, status));
  EXPECT_STATUS(status, errc::layout_epoch_in_future);
}

TEST(Layout, ComposeAndParseBoundaries) {
  for (const Layout& layout : kPresets) {
    const IdParts corners[] = {
        {0, 0, 0},
        {layout.max_timestamp(), layout.max_slot(), layout.max_sequence()},
        {layout.max_timestamp(), 0, 0},
        {0, layout.max_slot(), 0},
        {0, 0, layout.max_sequence()},
        {1, 1, 1},
    };
    for (const IdParts& parts : corners) {
      const std::uint64_t id = layout.compose(parts);
      EXPECT_TRUE(layout.fits(id));
      EXPECT_LT(id, std::uint64_t{1} << 63);
      EXPECT_EQ(layout.parse(id), parts);
    }
    EXPECT_EQ(layout.compose(layout.max_timestamp(), layout.max_slot(), layout.max_sequence()),
              layout.max_id());
  }
}

TEST(Layout, ComposeAndParseRandomRoundTrip) {
  std::mt19937_64 random(42);
  for (const Layout& layout : kPresets) {
    for (int i = 0; i < 100000; ++i) {
      IdParts parts;
      parts.timestamp =
          static_cast<std::int64_t>(random() % (std::uint64_t(layout.max_timestamp()) + 1));
      parts.slot = static_cast<std::uint32_t>(random() % (std::uint64_t{layout.max_slot()} + 1));
      parts.sequence =
          static_cast<std::uint32_t>(random() % (std::uint64_t{layout.max_sequence()} + 1));
      ASSERT_EQ(layout.parse(layout.compose(parts)), parts);
    }
  }
}

TEST(Layout, FieldsNeverBleedIntoEachOther) {
  const Layout layout = layouts::kDefault;
  EXPECT_EQ(layout.compose(0, 0, layout.max_sequence()) + 1, layout.compose(0, 1, 0));
  EXPECT_EQ(layout.compose(0, layout.max_slot(), layout.max_sequence()) + 1,
            layout.compose(1, 0, 0));
  EXPECT_FALSE(layout.fits(layout.max_id() + 1));
}

TEST(Layout, OrderOfIdsFollowsTime) {
  const Layout layout = layouts::kDefault;
  EXPECT_LT(layout.compose(5, layout.max_slot(), layout.max_sequence()), layout.compose(6, 0, 0));
}

TEST(Layout, TicksInMilliseconds) {
  const Layout layout = layouts::kDefault;
  const std::int64_t t = layout.tick_of(1796005378123);
  EXPECT_EQ(t, 1796005378123 - 1577203200000);
  EXPECT_EQ(layout.tick_start_ms(t), 1796005378123);
  EXPECT_EQ(layout.tick_end_ms(t), 1796005378123);
  EXPECT_EQ(layout.tick_of(layout.epoch_ms() - 1), -1);
}

TEST(Layout, TicksInSecondsCoverTheWholeSecond) {
  const Layout layout = layouts::kSeconds;
  const std::int64_t t = layout.tick_of(1796005378123);
  EXPECT_EQ(t, 1796005378 - 1577203200);
  EXPECT_EQ(layout.tick_start_ms(t), 1796005378000);
  EXPECT_EQ(layout.tick_end_ms(t), 1796005378999);
  EXPECT_EQ(layout.tick_of(1796005378999), t);
  EXPECT_EQ(layout.tick_of(1796005379000), t + 1);
  // Before the epoch, floor division: the millisecond before the epoch is tick -1.
  EXPECT_EQ(layout.tick_of(layout.epoch_ms() - 1), -1);
  EXPECT_EQ(layout.tick_of(layout.epoch_ms() - 1000), -1);
  EXPECT_EQ(layout.tick_of(layout.epoch_ms() - 1001), -2);
}

TEST(Layout, EndOfTheLayout) {
  EXPECT_EQ(layouts::kDefault.end_ms(), 1577203200000 + (std::int64_t{1} << 41));
  EXPECT_EQ(layouts::kSeconds.end_ms(), (1577203200 + (std::int64_t{1} << 31)) * 1000);
}

}  // namespace
}  // namespace cosid
