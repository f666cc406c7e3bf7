// SPDX-License-Identifier: Apache-2.0
#include "cosid/segment/conformance.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include "segment/tck/harness.h"

namespace cosid {
namespace segment {
namespace tck {
namespace internal {
namespace {

// A random suffix, so that runs and cases never share a key even on a shared store.
std::string random_suffix() {
  std::random_device device;
  char text[9];
  std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(device()));
  return text;
}

}  // namespace

Harness::Harness(const RangeStoreKit& kit) : kit_(kit) {
  // Short, without the case's name: a message quotes a key only up to 64 bytes, and cases look
  // for their key in messages.
  prefix_ = "tck-" + random_suffix() + "-";
  open_store();
}

void Harness::open_store() {
  store_ = kit_.make_store();
  if (store_ == nullptr) ADD_FAILURE() << "the store factory of " << kit_.name << " returned null";
}

RangeRequest Harness::request(const std::string& key, std::int64_t count, std::int64_t offset) {
  RangeRequest request;
  request.key = key;
  request.count = count;
  request.offset = offset;
  return request;
}

Range Harness::claim(const std::string& key, std::int64_t count, std::int64_t offset) {
  Range range;
  Status status;
  if (!store_->claim(request(key, count, offset), range, status)) {
    ADD_FAILURE() << "claim of " << count << " on " << key << ": " << status.message();
    return Range{};
  }
  EXPECT_EQ(range.size(), count) << key;
  return range;
}

bool Harness::give_back(const std::string& key, const Range& unused) {
  bool returned = false;
  Status status;
  EXPECT_TRUE(store_->give_back(key, unused, returned, status)) << status.message();
  return returned;
}

RangeState Harness::state_of(const std::string& key) {
  RangeState state;
  Status status;
  EXPECT_TRUE(store_->read(key, state, status)) << status.message();
  return state;
}

bool mentions_number(const std::string& text, std::int64_t value) {
  const std::string digits = std::to_string(value);
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  for (std::size_t at = text.find(digits); at != std::string::npos;
       at = text.find(digits, at + 1)) {
    const bool starts = at == 0 || (!is_digit(text[at - 1]) && text[at - 1] != '-');
    const std::size_t after = at + digits.size();
    if (starts && (after == text.size() || !is_digit(text[after]))) return true;
  }
  return false;
}

void expect_disjoint_and_covering(std::vector<Range> ranges, std::int64_t next) {
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.first < b.first; });
  std::int64_t expected_first = 1;
  for (const Range& range : ranges) {
    ASSERT_LT(range.first, range.end)
        << "an empty range [" << range.first << ", " << range.end << ")";
    ASSERT_EQ(range.first, expected_first)
        << (range.first < expected_first ? "ranges overlap" : "a gap") << " at " << range.first;
    expected_first = range.end;
  }
  EXPECT_EQ(expected_first, next) << "the key's next value is not the end of the last range";
}

}  // namespace internal

bool register_range_conformance_tests(const RangeStoreKit& kit) {
  return tck_support::register_kit<internal::Harness>(
      "RangeStoreConformance/" + kit.name, kit,
      {internal::claim_cases(), internal::give_back_cases(), internal::concurrency_cases()});
}

}  // namespace tck
}  // namespace segment
}  // namespace cosid
