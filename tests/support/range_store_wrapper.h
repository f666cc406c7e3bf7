// SPDX-License-Identifier: Apache-2.0
// A RangeStore for the segment generator's tests: a MemoryRangeStore behind a wrapper that
// counts calls, records every range it handed out, fails claims on demand and can delay each
// claim.
//
// Thread safety: every call from any thread (the inner store's mutex, plus one of its own for the
// record of ranges).
#ifndef COSID_TESTS_SUPPORT_RANGE_STORE_WRAPPER_H_
#define COSID_TESTS_SUPPORT_RANGE_STORE_WRAPPER_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/fail.h"
#include "cosid/segment/memory_range_store.h"
#include "cosid/segment/range_store.h"

namespace cosid {
namespace segment {

class WrappedRangeStore final : public RangeStore {
 public:
  explicit WrappedRangeStore(std::shared_ptr<RangeStore> inner) : inner_(std::move(inner)) {}
  WrappedRangeStore() : inner_(std::make_shared<MemoryRangeStore>()) {}

  bool claim(const RangeRequest& request, Range& range, Status& status) override {
    claims_.fetch_add(1, std::memory_order_relaxed);
    const auto delay = std::chrono::microseconds(delay_us_.load(std::memory_order_relaxed));
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    const int code = fail_code_.load(std::memory_order_relaxed);
    if (code != 0) {
      return cosid::detail::fail(status, static_cast<errc>(code),
                                 "the test store refuses claims of " + request.key + " (injected)");
    }
    if (!inner_->claim(request, range, status)) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    ranges_.push_back(range);
    return true;
  }
  bool give_back(const std::string& key, const Range& unused, bool& returned,
                 Status& status) override {
    give_backs_.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(mutex_);
    given_back_.push_back(unused);
    return inner_->give_back(key, unused, returned, status);
  }
  bool seal(const std::string& key, RangeState& state, Status& status) override {
    return inner_->seal(key, state, status);
  }
  bool read(const std::string& key, RangeState& state, Status& status) override {
    return inner_->read(key, state, status);
  }

  // Every claim fails with `code` from now on; errc{} (0) to succeed again.
  void fail_claims(errc code) { fail_code_.store(static_cast<int>(code)); }
  void delay_claims(std::chrono::microseconds delay) { delay_us_.store(delay.count()); }
  int claims() const { return claims_.load(); }
  int give_backs() const { return give_backs_.load(); }
  std::vector<Range> ranges() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return ranges_;
  }
  std::vector<Range> given_back() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return given_back_;
  }
  // The ranges handed out, by first value.
  std::vector<Range> sorted_ranges() const {
    std::vector<Range> ranges = this->ranges();
    std::sort(ranges.begin(), ranges.end(),
              [](const Range& a, const Range& b) { return a.first < b.first; });
    return ranges;
  }

 private:
  const std::shared_ptr<RangeStore> inner_;
  std::atomic<int> fail_code_{0};
  std::atomic<long long> delay_us_{0};
  std::atomic<int> claims_{0};
  std::atomic<int> give_backs_{0};
  mutable std::mutex mutex_;
  std::vector<Range> ranges_;      // guarded by mutex_
  std::vector<Range> given_back_;  // guarded by mutex_
};

// Whether `id` lies in one of `sorted` (sorted_ranges()).
inline bool within(const std::vector<Range>& sorted, std::int64_t id) {
  auto it = std::upper_bound(sorted.begin(), sorted.end(), id,
                             [](std::int64_t v, const Range& r) { return v < r.first; });
  if (it == sorted.begin()) return false;
  --it;
  return id < it->end;
}

}  // namespace segment
}  // namespace cosid

#endif  // COSID_TESTS_SUPPORT_RANGE_STORE_WRAPPER_H_
