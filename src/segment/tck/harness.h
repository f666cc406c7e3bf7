// SPDX-License-Identifier: Apache-2.0
// Internal to the range conformance kit: the set-up every case shares, and the case lists.
#ifndef COSID_SRC_SEGMENT_TCK_HARNESS_H_
#define COSID_SRC_SEGMENT_TCK_HARNESS_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cosid/error.h"
#include "cosid/segment/conformance.h"
#include "cosid/segment/range_store.h"
#include "store/tck/kit_support.h"

namespace cosid {
namespace segment {
namespace tck {
namespace internal {

constexpr std::int64_t kMaxValue = INT64_MAX;  // 2^63 - 1, which no next value passes

// One case's store and its keys.
class Harness {
 public:
  explicit Harness(const RangeStoreKit& kit);

  const RangeStoreKit& kit() const { return kit_; }
  RangeStore& store() { return *store_; }

  // A key of this case alone: "tck-SUFFIX-name", SUFFIX random per case and run.
  std::string key(const std::string& name = "k") const { return prefix_ + name; }
  static RangeRequest request(const std::string& key, std::int64_t count, std::int64_t offset = 0);
  // claim() that must succeed (a failed expectation otherwise, and an empty range).
  Range claim(const std::string& key, std::int64_t count, std::int64_t offset = 0);
  // give_back() that must succeed; returns `returned`.
  bool give_back(const std::string& key, const Range& unused);
  // read() that must succeed.
  RangeState state_of(const std::string& key);

  // Destroys the case's store, and makes it again. A process case closes it before it forks: a
  // store whose client runs threads would leave the children a copy of locks those threads held.
  void close_store() { store_.reset(); }
  void open_store();

 private:
  const RangeStoreKit& kit_;
  std::unique_ptr<RangeStore> store_;
  std::string prefix_;
};

// Whether `text` holds `value` in decimal as a whole number (not inside a longer one).
bool mentions_number(const std::string& text, std::int64_t value);

// Expects `ranges` (in any order) to be disjoint and to cover exactly [1, next).
void expect_disjoint_and_covering(std::vector<Range> ranges, std::int64_t next);

struct Case {
  const char* name;
  void (*run)(Harness& h);
};

std::vector<Case> claim_cases();
std::vector<Case> give_back_cases();
std::vector<Case> concurrency_cases();

}  // namespace internal
}  // namespace tck
}  // namespace segment
}  // namespace cosid

#endif  // COSID_SRC_SEGMENT_TCK_HARNESS_H_
