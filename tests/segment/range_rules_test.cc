// SPDX-License-Identifier: Apache-2.0
// The pure range rules (segment/range_rules.h), row by row as functions, and the record's value
// text read back strictly. The stores' behaviour is the conformance kit's (range_tck_test); these
// tests pin what a store cannot show: a RangeState the rules are handed directly, and the codec.
#include "cosid/segment/range_rules.h"

#include <gtest/gtest.h>

#include <limits>

#include "support/test_util.h"

namespace cosid::segment {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

RangeRequest request(std::int64_t count, std::int64_t offset = 0) {
  RangeRequest r;
  r.key = "orders";
  r.count = count;
  r.offset = offset;
  return r;
}

RangeState record(std::int64_t next, std::uint64_t version, bool sealed = false) {
  RangeState state;
  state.exists = true;
  state.next = next;
  state.version = version;
  state.sealed = sealed;
  return state;
}

TEST(RangeRulesTest, AClaimOnNoRecordStartsAtOffsetPlusOne) {
  for (const std::int64_t offset : {std::int64_t{0}, std::int64_t{1000}}) {
    RangeState state;
    Range range;
    Status status;
    ASSERT_TRUE(apply_claim(state, request(10, offset), range, status)) << status.message();
    EXPECT_EQ(range.first, offset + 1);
    EXPECT_EQ(range.end, offset + 11);
    EXPECT_EQ(range.version, 1u);
    EXPECT_TRUE(state.exists);
    EXPECT_EQ(state.next, offset + 11);
    EXPECT_EQ(state.version, 1u);
  }
}

TEST(RangeRulesTest, AClaimTakesTheNextValueOrAHigherOffset) {
  RangeState state = record(50, 7);
  Range range;
  Status status;
  ASSERT_TRUE(apply_claim(state, request(5, 10), range, status));
  EXPECT_EQ(range.first, 50);
  EXPECT_EQ(range.end, 55);
  EXPECT_EQ(range.version, 8u);
  ASSERT_TRUE(apply_claim(state, request(5, 99), range, status));
  EXPECT_EQ(range.first, 100);
  EXPECT_EQ(state.next, 105);
  EXPECT_EQ(state.version, 9u);
}

TEST(RangeRulesTest, AClaimOnASealedRecordIsRefusedAndChangesNothing) {
  RangeState state = record(50, 7, true);
  Range range;
  Status status;
  EXPECT_FALSE(apply_claim(state, request(5), range, status));
  EXPECT_STATUS(status, errc::range_sealed);
  EXPECT_NE(status.message().find("\"orders\""), std::string::npos) << status.message();
  EXPECT_EQ(state.next, 50);
  EXPECT_EQ(state.version, 7u);
}

TEST(RangeRulesTest, AClaimPastTwoToThe63IsExhaustedAndChangesNothing) {
  RangeState state = record(kMax - 5, 3);
  Range range;
  Status status;
  EXPECT_FALSE(apply_claim(state, request(6), range, status));
  EXPECT_STATUS(status, errc::range_exhausted);
  EXPECT_NE(status.message().find("has 5 values left"), std::string::npos) << status.message();
  EXPECT_EQ(state.next, kMax - 5);
  EXPECT_EQ(state.version, 3u);
  ASSERT_TRUE(apply_claim(state, request(5), range, status));
  EXPECT_EQ(range.end, kMax);
  EXPECT_FALSE(apply_claim(state, request(1), range, status));
  EXPECT_NE(status.message().find("has 0 values left"), std::string::npos) << status.message();
  // An offset at the top: no value is left for a new key either.
  RangeState fresh;
  EXPECT_FALSE(apply_claim(fresh, request(1, kMax), range, status));
  EXPECT_STATUS(status, errc::range_exhausted);
  EXPECT_FALSE(fresh.exists);
}

TEST(RangeRulesTest, AGiveBackIsTakenOnlyOnTheClaimsVersionAndEnd) {
  RangeState state = record(11, 4);
  bool returned = false;
  apply_give_back(state, Range{5, 11, 3}, returned);  // an older version
  EXPECT_FALSE(returned);
  apply_give_back(state, Range{5, 10, 4}, returned);  // not the end of the key's last claim
  EXPECT_FALSE(returned);
  EXPECT_EQ(state.next, 11);
  EXPECT_EQ(state.version, 4u);
  apply_give_back(state, Range{5, 11, 4}, returned);
  EXPECT_TRUE(returned);
  EXPECT_EQ(state.next, 5);
  EXPECT_EQ(state.version, 5u);
  apply_give_back(state, Range{5, 11, 4}, returned);  // the same again: the version moved on
  EXPECT_FALSE(returned);
  EXPECT_EQ(state.next, 5);

  RangeState sealed = record(11, 4, true);
  apply_give_back(sealed, Range{5, 11, 4}, returned);
  EXPECT_FALSE(returned);
  RangeState none;
  apply_give_back(none, Range{1, 2, 0}, returned);
  EXPECT_FALSE(returned);
  EXPECT_FALSE(none.exists);
}

TEST(RangeRulesTest, SealingSealsOnceAndNeedsARecord) {
  RangeState state = record(11, 4);
  Status status;
  ASSERT_TRUE(apply_seal(state, "orders", status));
  EXPECT_TRUE(state.sealed);
  EXPECT_EQ(state.version, 5u);
  ASSERT_TRUE(apply_seal(state, "orders", status));
  EXPECT_EQ(state.version, 5u);
  RangeState none;
  EXPECT_FALSE(apply_seal(none, "orders", status));
  EXPECT_STATUS(status, errc::invalid_argument);
}

TEST(RangeRulesTest, TheChecksRefuseBadArgumentsAndLeaveStatusAloneOtherwise) {
  Status status;
  for (const std::string& bad : {std::string(), std::string(201, 'a'), std::string("a/b"),
                                 std::string("."), std::string(".."), std::string("a b")}) {
    EXPECT_FALSE(check_key(bad, status)) << bad;
    EXPECT_STATUS(status, errc::invalid_argument);
  }
  status = Status();
  EXPECT_TRUE(check_key(std::string(200, 'a'), status));
  EXPECT_TRUE(check_key("Orders_2026.eu-west", status));
  EXPECT_TRUE(check_key("...", status));
  EXPECT_OK(status);
  for (const std::int64_t count : {std::int64_t{0}, std::int64_t{-1}, kMaxClaim + 1}) {
    EXPECT_FALSE(check_claim(request(count), status)) << count;
    EXPECT_STATUS(status, errc::invalid_argument);
  }
  EXPECT_FALSE(check_claim(request(1, -1), status));
  EXPECT_STATUS(status, errc::invalid_argument);
  status = Status();
  EXPECT_TRUE(check_claim(request(kMaxClaim), status));
  EXPECT_TRUE(check_claim(request(1), status));
  for (const Range& bad : {Range{5, 5, 1}, Range{6, 5, 1}, Range{0, 5, 1}, Range{-1, 5, 1}}) {
    EXPECT_FALSE(check_give_back("orders", bad, status)) << bad.first << " " << bad.end;
    EXPECT_STATUS(status, errc::invalid_argument);
  }
  status = Status();
  EXPECT_TRUE(check_give_back("orders", Range{1, 2, 0}, status));
  EXPECT_OK(status);
}

TEST(RangeRulesTest, TheValueTextIsReadBackOnlyAsItIsWritten) {
  for (const char* bad :
       {"0", "01", "-1", "+1", " 1", "1 ", "1:Sealed", "1:sealed:sealed", ":sealed", "",
        "9223372036854775808", "1:sealed\n", "1\n", "0x10", "1sealed", "1:"}) {
    RangeState state;
    EXPECT_FALSE(parse_range_value(bad, state)) << '"' << bad << '"';
    EXPECT_FALSE(state.exists) << bad;
  }
  for (const std::int64_t next : {std::int64_t{1}, std::int64_t{10}, std::int64_t{1234567}, kMax}) {
    for (const bool sealed : {false, true}) {
      RangeState written = record(next, 9, sealed);
      const std::string text = format_range_value(written);
      EXPECT_EQ(text, std::to_string(next) + (sealed ? ":sealed" : ""));
      RangeState read;
      ASSERT_TRUE(parse_range_value(text, read)) << text;
      EXPECT_TRUE(read.exists);
      EXPECT_EQ(read.next, next);
      EXPECT_EQ(read.sealed, sealed);
    }
  }
}

}  // namespace
}  // namespace cosid::segment
