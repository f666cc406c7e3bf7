// SPDX-License-Identifier: Apache-2.0
// The claim row of segment/range_store.h: where a key starts, adjacent ranges, the argument
// checks, offsets, the 2^63 - 1 bound, reads and versions.
#include <random>
#include <set>

#include "segment/tck/harness.h"

namespace cosid {
namespace segment {
namespace tck {
namespace internal {
namespace {

void a_new_key_starts_at_offset_plus_one(Harness& h) {
  const Range zero = h.claim(h.key("zero"), 10);
  EXPECT_EQ(zero.first, 1);
  EXPECT_EQ(zero.end, 11);
  const Range thousand = h.claim(h.key("thousand"), 5, 1000);
  EXPECT_EQ(thousand.first, 1001);
  EXPECT_EQ(thousand.end, 1006);
  const RangeState state = h.state_of(h.key("thousand"));
  EXPECT_TRUE(state.exists);
  EXPECT_EQ(state.next, 1006);
  EXPECT_FALSE(state.sealed);
}

void consecutive_claims_are_adjacent_and_increasing(Harness& h) {
  const std::string key = h.key();
  std::int64_t expected_first = 1;
  for (const std::int64_t count : {1, 7, 100, 1, 3000}) {
    const Range range = h.claim(key, count);
    EXPECT_EQ(range.first, expected_first);
    EXPECT_EQ(range.end, expected_first + count);
    expected_first = range.end;
  }
  EXPECT_EQ(h.state_of(key).next, expected_first);
}

void counts_from_one_to_the_maximum_are_taken(Harness& h) {
  const std::string key = h.key();
  const Range one = h.claim(key, 1);
  EXPECT_EQ(one.first, 1);
  EXPECT_EQ(one.end, 2);
  const Range most = h.claim(key, kMaxClaim);
  EXPECT_EQ(most.first, 2);
  EXPECT_EQ(most.end, 2 + kMaxClaim);
  const RangeState before = h.state_of(key);
  for (const std::int64_t count : {std::int64_t{0}, std::int64_t{-1}, kMaxClaim + 1}) {
    Range range;
    Status status;
    EXPECT_FALSE(h.store().claim(Harness::request(key, count), range, status)) << count;
    TCK_EXPECT_ERRC(status, errc::invalid_argument);
    TCK_EXPECT_MESSAGE(status);
  }
  Range range;
  Status status;
  EXPECT_FALSE(h.store().claim(Harness::request(key, 1, -1), range, status));
  TCK_EXPECT_ERRC(status, errc::invalid_argument);
  TCK_EXPECT_MESSAGE(status);
  const RangeState after = h.state_of(key);
  EXPECT_EQ(after.next, before.next);
  EXPECT_EQ(after.version, before.version);
}

void bad_keys_are_invalid_arguments(Harness& h) {
  // The longest key there may be is taken.
  const std::string longest = h.key() + std::string(kMaxKeyBytes - h.key().size(), 'x');
  ASSERT_EQ(longest.size(), kMaxKeyBytes);
  EXPECT_EQ(h.claim(longest, 3).first, 1);
  for (const std::string& bad : {std::string(), longest + "x", h.key("a/b"), std::string("."),
                                 std::string(".."), h.key("a b")}) {
    Range range;
    Status status;
    EXPECT_FALSE(h.store().claim(Harness::request(bad, 1), range, status)) << bad;
    TCK_EXPECT_ERRC(status, errc::invalid_argument);
    TCK_EXPECT_MESSAGE(status);
    bool returned = true;
    EXPECT_FALSE(h.store().give_back(bad, Range{1, 2, 1}, returned, status)) << bad;
    TCK_EXPECT_ERRC(status, errc::invalid_argument);
    RangeState state;
    EXPECT_FALSE(h.store().seal(bad, state, status)) << bad;
    TCK_EXPECT_ERRC(status, errc::invalid_argument);
    EXPECT_FALSE(h.store().read(bad, state, status)) << bad;
    TCK_EXPECT_ERRC(status, errc::invalid_argument);
  }
}

void raising_the_offset_jumps_and_lowering_it_has_no_effect(Harness& h) {
  const std::string key = h.key();
  EXPECT_EQ(h.claim(key, 10).first, 1);
  const Range jumped = h.claim(key, 5, 1000);
  EXPECT_EQ(jumped.first, 1001);
  EXPECT_EQ(jumped.end, 1006);
  const Range lower = h.claim(key, 5, 500);
  EXPECT_EQ(lower.first, 1006);
  EXPECT_EQ(lower.end, 1011);
  const Range none = h.claim(key, 5, 0);
  EXPECT_EQ(none.first, 1011);
  // An offset exactly at the next value minus one is no jump either.
  EXPECT_EQ(h.claim(key, 1, 1015).first, 1016);
  EXPECT_EQ(h.claim(key, 1, 1016).first, 1017);
}

void the_last_values_before_two_to_the_63_are_claimed_then_exhausted(Harness& h) {
  const std::string key = h.key();
  // The key starts 10 values below 2^63 - 1: it can hand out 10 more, up to 2^63 - 2.
  const Range near = h.claim(key, 5, kMaxValue - 11);
  EXPECT_EQ(near.first, kMaxValue - 10);
  EXPECT_EQ(near.end, kMaxValue - 5);
  const RangeState before = h.state_of(key);
  Range range;
  Status status;
  EXPECT_FALSE(h.store().claim(Harness::request(key, 6), range, status));
  TCK_EXPECT_ERRC(status, errc::range_exhausted);
  EXPECT_NE(status.message().find(key), std::string::npos) << status.message();
  EXPECT_TRUE(mentions_number(status.message(), 5))
      << "says how many are left: " << status.message();
  const RangeState after = h.state_of(key);
  EXPECT_EQ(after.next, before.next);
  EXPECT_EQ(after.version, before.version);
  EXPECT_FALSE(after.sealed);

  const Range last = h.claim(key, 5);
  EXPECT_EQ(last.first, kMaxValue - 5);
  EXPECT_EQ(last.end, kMaxValue);
  EXPECT_FALSE(h.store().claim(Harness::request(key, 1), range, status));
  TCK_EXPECT_ERRC(status, errc::range_exhausted);
  EXPECT_TRUE(mentions_number(status.message(), 0)) << status.message();
  EXPECT_EQ(h.state_of(key).next, kMaxValue);
  // An offset past every value is exhausted at once, on a new key too.
  EXPECT_FALSE(h.store().claim(Harness::request(h.key("past"), 1, kMaxValue - 1), range, status));
  TCK_EXPECT_ERRC(status, errc::range_exhausted);
  EXPECT_FALSE(h.state_of(h.key("past")).exists);
}

void read_of_an_absent_key_shows_no_record(Harness& h) {
  const RangeState state = h.state_of(h.key("never"));
  EXPECT_FALSE(state.exists);
  EXPECT_FALSE(state.sealed);
}

void read_shows_next_sealed_and_version(Harness& h) {
  const std::string key = h.key();
  const Range first = h.claim(key, 10);
  RangeState state = h.state_of(key);
  EXPECT_TRUE(state.exists);
  EXPECT_EQ(state.next, 11);
  EXPECT_FALSE(state.sealed);
  EXPECT_EQ(state.version, first.version);
  const Range second = h.claim(key, 4);
  state = h.state_of(key);
  EXPECT_EQ(state.next, 15);
  EXPECT_EQ(state.version, second.version);
  EXPECT_NE(second.version, first.version);
}

void the_version_changes_with_every_change_and_never_repeats(Harness& h) {
  const std::string key = h.key();
  std::set<std::uint64_t> seen;
  const auto expect_new = [&](std::uint64_t version, const char* after) {
    EXPECT_TRUE(seen.insert(version).second) << "version " << version << " again after " << after;
  };
  const Range a = h.claim(key, 10);
  expect_new(a.version, "a claim");
  EXPECT_EQ(h.state_of(key).version, a.version);
  EXPECT_TRUE(h.give_back(key, Range{5, a.end, a.version}));
  expect_new(h.state_of(key).version, "a give_back");
  const Range b = h.claim(key, 6);  // [5, 11) again, the same next value as after `a`
  EXPECT_EQ(b.first, 5);
  EXPECT_EQ(b.end, a.end);
  expect_new(b.version, "a claim after a give_back");
  EXPECT_TRUE(h.give_back(key, b));
  expect_new(h.state_of(key).version, "a second give_back");
  const Range c = h.claim(key, 6);
  expect_new(c.version, "a third claim");
  RangeState sealed;
  Status status;
  TCK_ASSERT_OK(h.store().seal(key, sealed, status), status);
  expect_new(sealed.version, "a seal");
  EXPECT_EQ(h.state_of(key).version, sealed.version);
}

// Claims with random counts and offsets, and give-backs that must be taken (the latest claim's
// tail) or not (a wrong version, an earlier claim's tail): after each call the next value is at
// least what it was, but after a give_back that was taken, when it is the given-back first value.
void the_next_value_only_grows_but_by_a_give_back(Harness& h) {
  const std::string key = h.key();
  std::mt19937_64 random(20261201);
  const auto below = [&random](std::int64_t bound) {
    return static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(bound));
  };
  std::int64_t next = 1;
  Range latest{0, 0, 0};   // the latest claim, while nothing changed the key since
  Range earlier{0, 0, 0};  // a claim the key moved past
  for (int step = 0; step < 200; ++step) {
    const std::int64_t roll = below(4);
    if (roll < 2 || latest.size() == 0) {
      const std::int64_t offset = roll == 1 ? below(next + 40) : 0;
      if (latest.size() != 0) earlier = latest;
      latest = h.claim(key, below(50) + 1, offset);
      ASSERT_GE(latest.first, next) << "a claim went below the next value, step " << step;
      ASSERT_GE(latest.first, offset + 1);
    } else if (roll == 2) {
      const Range unused{latest.first + below(latest.size()), latest.end, latest.version};
      EXPECT_TRUE(h.give_back(key, unused)) << "the latest claim's tail, step " << step;
      EXPECT_EQ(h.state_of(key).next, unused.first) << "step " << step;
      next = unused.first;
      earlier = latest;
      latest = Range{0, 0, 0};
      continue;
    } else {
      Range stale = earlier;
      if (earlier.size() == 0 || below(2) == 0) {
        stale = latest;
        stale.version += static_cast<std::uint64_t>(below(3)) + 1;
      }
      stale.first += below(stale.size());
      EXPECT_FALSE(h.give_back(key, stale)) << "a stale give_back was taken, step " << step;
    }
    const std::int64_t now = h.state_of(key).next;
    ASSERT_GE(now, next) << "the next value went down at step " << step;
    next = now;
  }
}

}  // namespace

std::vector<Case> claim_cases() {
  return {
      {"ANewKeyStartsAtOffsetPlusOne", a_new_key_starts_at_offset_plus_one},
      {"ConsecutiveClaimsAreAdjacentAndIncreasing", consecutive_claims_are_adjacent_and_increasing},
      {"CountsFromOneToTheMaximumAreTaken", counts_from_one_to_the_maximum_are_taken},
      {"BadKeysAreInvalidArguments", bad_keys_are_invalid_arguments},
      {"RaisingTheOffsetJumpsAndLoweringItHasNoEffect",
       raising_the_offset_jumps_and_lowering_it_has_no_effect},
      {"TheLastValuesBeforeTwoToThe63AreClaimedThenExhausted",
       the_last_values_before_two_to_the_63_are_claimed_then_exhausted},
      {"ReadOfAnAbsentKeyShowsNoRecord", read_of_an_absent_key_shows_no_record},
      {"ReadShowsNextSealedAndVersion", read_shows_next_sealed_and_version},
      {"TheVersionChangesWithEveryChangeAndNeverRepeats",
       the_version_changes_with_every_change_and_never_repeats},
      {"TheNextValueOnlyGrowsButByAGiveBack", the_next_value_only_grows_but_by_a_give_back},
  };
}

}  // namespace internal
}  // namespace tck
}  // namespace segment
}  // namespace cosid
