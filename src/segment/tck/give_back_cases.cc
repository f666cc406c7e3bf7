// SPDX-License-Identifier: Apache-2.0
// The give_back and seal rows of segment/range_store.h, and a record recreated behind the store.
#include "segment/tck/harness.h"

namespace cosid {
namespace segment {
namespace tck {
namespace internal {
namespace {

// Expects the key's record to be exactly `expected` (what a call that changes nothing left).
void expect_unchanged(Harness& h, const std::string& key, const RangeState& expected) {
  const RangeState now = h.state_of(key);
  EXPECT_EQ(now.exists, expected.exists);
  EXPECT_EQ(now.next, expected.next);
  EXPECT_EQ(now.sealed, expected.sealed);
  EXPECT_EQ(now.version, expected.version);
}

void the_last_claimers_tail_is_taken_back_and_claimed_next(Harness& h) {
  const std::string key = h.key();
  const Range claimed = h.claim(key, 10);  // [1, 11); 1 to 3 used
  EXPECT_TRUE(h.give_back(key, Range{4, claimed.end, claimed.version}));
  const RangeState state = h.state_of(key);
  EXPECT_EQ(state.next, 4);
  EXPECT_NE(state.version, claimed.version);
  const Range again = h.claim(key, 5);
  EXPECT_EQ(again.first, 4);
  EXPECT_EQ(again.end, 9);
  // The whole range, none of it used, comes back as well.
  EXPECT_TRUE(h.give_back(key, again));
  EXPECT_EQ(h.claim(key, 1).first, 4);
}

void a_give_back_after_another_claim_is_refused(Harness& h) {
  const std::string key = h.key();
  const Range mine = h.claim(key, 10);
  const Range theirs = h.claim(key, 10);
  const RangeState before = h.state_of(key);
  EXPECT_FALSE(h.give_back(key, Range{5, mine.end, mine.version}));
  expect_unchanged(h, key, before);
  EXPECT_EQ(h.claim(key, 1).first, theirs.end);
}

void a_replayed_give_back_is_refused(Harness& h) {
  const std::string key = h.key();
  const Range claimed = h.claim(key, 10);
  const Range tail{6, claimed.end, claimed.version};
  EXPECT_TRUE(h.give_back(key, tail));
  const RangeState after_first = h.state_of(key);
  EXPECT_FALSE(h.give_back(key, tail)) << "the same give_back twice";
  expect_unchanged(h, key, after_first);

  // Someone else claims the values given back, gives them back in turn, and claims them again:
  // the key's next value is tail.end once more, as when `tail` was taken. Only the version tells
  // the replay from a give-back of the latest claim: it carries the first claim's.
  const Range other = h.claim(key, 5);
  EXPECT_EQ(other.first, tail.first);
  EXPECT_EQ(other.end, tail.end);
  EXPECT_TRUE(h.give_back(key, other));
  EXPECT_EQ(h.state_of(key).next, tail.first);
  EXPECT_EQ(h.claim(key, 5).end, tail.end);
  const RangeState before_replay = h.state_of(key);
  EXPECT_FALSE(h.give_back(key, tail)) << "a replay on a key back at the same next value";
  expect_unchanged(h, key, before_replay);
}

void a_give_back_on_a_key_back_at_the_same_next_value_is_refused(Harness& h) {
  const std::string key = h.key();
  const Range mine = h.claim(key, 10);  // [1, 11)
  // Another caller claims [11, 21) and gives all of it back: the next value is 11 again, the end
  // of my claim, but the key changed twice since my claim.
  const Range theirs = h.claim(key, 10);
  EXPECT_TRUE(h.give_back(key, theirs));
  const RangeState before = h.state_of(key);
  ASSERT_EQ(before.next, mine.end);
  EXPECT_FALSE(h.give_back(key, Range{5, mine.end, mine.version}));
  expect_unchanged(h, key, before);
}

void a_give_back_with_a_wrong_version_is_refused(Harness& h) {
  const std::string key = h.key();
  const Range claimed = h.claim(key, 10);
  const RangeState before = h.state_of(key);
  for (const std::uint64_t wrong : {claimed.version + 1, claimed.version - 1, std::uint64_t{0}}) {
    if (wrong == claimed.version) continue;
    EXPECT_FALSE(h.give_back(key, Range{2, claimed.end, wrong})) << "version " << wrong;
    expect_unchanged(h, key, before);
  }
  // The right version with the wrong end is no give-back of this claim's tail either.
  EXPECT_FALSE(h.give_back(key, Range{2, claimed.end - 1, claimed.version}));
  expect_unchanged(h, key, before);
  EXPECT_FALSE(h.give_back(h.key("absent"), Range{1, 2, claimed.version}));
  EXPECT_FALSE(h.state_of(h.key("absent")).exists);
}

void give_back_arguments_are_checked(Harness& h) {
  const std::string key = h.key();
  const Range claimed = h.claim(key, 10);
  const RangeState before = h.state_of(key);
  for (const Range& bad :
       {Range{5, 5, claimed.version}, Range{6, 5, claimed.version},
        Range{0, claimed.end, claimed.version}, Range{-3, claimed.end, claimed.version}}) {
    bool returned = true;
    Status status;
    EXPECT_FALSE(h.store().give_back(key, bad, returned, status))
        << "[" << bad.first << ", " << bad.end << ")";
    TCK_EXPECT_ERRC(status, errc::invalid_argument);
    TCK_EXPECT_MESSAGE(status);
  }
  expect_unchanged(h, key, before);
}

void a_sealed_key_refuses_claims_and_give_backs(Harness& h) {
  const std::string key = h.key();
  const Range claimed = h.claim(key, 10);
  RangeState sealed;
  Status status;
  TCK_ASSERT_OK(h.store().seal(key, sealed, status), status);
  EXPECT_TRUE(sealed.exists);
  EXPECT_TRUE(sealed.sealed);
  EXPECT_EQ(sealed.next, claimed.end);
  EXPECT_NE(sealed.version, claimed.version);
  expect_unchanged(h, key, sealed);

  Range range;
  EXPECT_FALSE(h.store().claim(Harness::request(key, 1), range, status));
  TCK_EXPECT_ERRC(status, errc::range_sealed);
  EXPECT_NE(status.message().find(key), std::string::npos) << status.message();
  EXPECT_FALSE(h.give_back(key, Range{5, claimed.end, sealed.version}));
  EXPECT_FALSE(h.give_back(key, Range{5, claimed.end, claimed.version}));
  expect_unchanged(h, key, sealed);

  RangeState again;
  TCK_ASSERT_OK(h.store().seal(key, again, status), status);
  EXPECT_TRUE(again.sealed);
  EXPECT_EQ(again.next, sealed.next);
  EXPECT_EQ(again.version, sealed.version);
  expect_unchanged(h, key, sealed);
}

void sealing_an_absent_key_is_an_invalid_argument(Harness& h) {
  RangeState state;
  Status status;
  EXPECT_FALSE(h.store().seal(h.key("absent"), state, status));
  TCK_EXPECT_ERRC(status, errc::invalid_argument);
  TCK_EXPECT_MESSAGE(status);
  EXPECT_FALSE(h.state_of(h.key("absent")).exists);
}

void a_recreated_record_is_refused(Harness& h) {
  if (!h.kit().recreate_record) {
    GTEST_SKIP() << h.kit().name << " has no hook to recreate a record behind the store";
  }
  const std::string key = h.key();
  const Range claimed = h.claim(key, 10);
  EXPECT_EQ(h.state_of(key).next, claimed.end);  // the store has seen the record
  std::string why;
  ASSERT_TRUE(h.kit().recreate_record(key, why)) << why;

  // The record starts the key over at 1: handing [1, 11) out again would repeat values.
  Range range;
  Status status;
  EXPECT_FALSE(h.store().claim(Harness::request(key, 5), range, status));
  TCK_EXPECT_ERRC(status, errc::store_corrupt);
  TCK_EXPECT_MESSAGE(status);
  RangeState state;
  EXPECT_FALSE(h.store().read(key, state, status));
  TCK_EXPECT_ERRC(status, errc::store_corrupt);
  bool returned = true;
  EXPECT_FALSE(h.store().give_back(key, Range{5, claimed.end, claimed.version}, returned, status));
  TCK_EXPECT_ERRC(status, errc::store_corrupt);

  // The refusals left the record as the hook made it: a store that has never seen the key reads
  // it with the next value 1 (or refuses it too, if it shares what the first store saw).
  h.close_store();
  h.open_store();
  if (::testing::Test::HasFatalFailure()) return;
  if (h.store().read(key, state, status)) {
    EXPECT_TRUE(state.exists);
    EXPECT_EQ(state.next, 1);
    EXPECT_FALSE(state.sealed);
  } else {
    TCK_EXPECT_ERRC(status, errc::store_corrupt);
  }
}

}  // namespace

std::vector<Case> give_back_cases() {
  return {
      {"TheLastClaimersTailIsTakenBackAndClaimedNext",
       the_last_claimers_tail_is_taken_back_and_claimed_next},
      {"AGiveBackAfterAnotherClaimIsRefused", a_give_back_after_another_claim_is_refused},
      {"AReplayedGiveBackIsRefused", a_replayed_give_back_is_refused},
      {"AGiveBackOnAKeyBackAtTheSameNextValueIsRefused",
       a_give_back_on_a_key_back_at_the_same_next_value_is_refused},
      {"AGiveBackWithAWrongVersionIsRefused", a_give_back_with_a_wrong_version_is_refused},
      {"GiveBackArgumentsAreChecked", give_back_arguments_are_checked},
      {"ASealedKeyRefusesClaimsAndGiveBacks", a_sealed_key_refuses_claims_and_give_backs},
      {"SealingAnAbsentKeyIsAnInvalidArgument", sealing_an_absent_key_is_an_invalid_argument},
      {"ARecreatedRecordIsRefused", a_recreated_record_is_refused},
  };
}

}  // namespace internal
}  // namespace tck
}  // namespace segment
}  // namespace cosid
