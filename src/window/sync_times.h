// SPDX-License-Identifier: Apache-2.0
// Internal: SyncTimes, the longest state-file sync of the last minute, behind the gauge
// cosid_state_sync_max_seconds (metrics.h).
//
// "The last minute" is six 10-second intervals of the monotonic clock: the one in progress and
// the five before it. A sync counts in the interval in which it ended, so it is shown for at least
// 50 s and at most 60 s after it ended, and a minute after the last slow one the value is that
// of the syncs since. Each interval has one word of a fixed ring: nothing is allocated, and the
// writer never waits for a reader.
//
// Thread safety: one writer at a time (record(): the state file keeper, under its mutex_ or
// before any other thread exists), any number of readers (longest_us(): metrics(), on any thread
// and in a forked child) without a lock. Each word is an atomic holding an interval's number and
// its longest sync together, so a reader never pairs one interval's number with another's time.
#ifndef COSID_SRC_WINDOW_SYNC_TIMES_H_
#define COSID_SRC_WINDOW_SYNC_TIMES_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

namespace cosid {
namespace detail {

class SyncTimes {
 public:
  static constexpr std::int64_t kIntervalNs = 10'000'000'000;
  static constexpr std::uint32_t kIntervals = 6;

  // A sync of `duration_ns` that ended at `end_ns`, both on the monotonic clock.
  void record(std::int64_t end_ns, std::int64_t duration_ns) noexcept {
    const std::uint32_t interval = interval_of(end_ns);
    std::atomic<std::uint64_t>& word = words_[interval % kIntervals];
    // Relaxed throughout: a word publishes no other data, and only this writer changes it.
    const std::uint64_t old = word.load(std::memory_order_relaxed);
    // A word of an interval gone by starts over.
    const std::uint32_t longest = number_of(old) == interval
                                      ? std::max(micros_of(old), to_micros(duration_ns))
                                      : to_micros(duration_ns);
    word.store(std::uint64_t{interval} << 32 | longest, std::memory_order_relaxed);
  }

  // The longest sync that ended in the last minute before `now_ns`, in microseconds; 0 if none.
  std::int64_t longest_us(std::int64_t now_ns) const noexcept {
    const std::uint32_t now = interval_of(now_ns);
    std::uint32_t longest = 0;
    for (const std::atomic<std::uint64_t>& word : words_) {
      const std::uint64_t value = word.load(std::memory_order_relaxed);
      // Unsigned: an interval after `now` (a sync that ended after the caller read the clock)
      // is a huge age and not shown, which is right at the moment `now_ns` was read.
      const std::uint32_t age = now - number_of(value);
      if (age < kIntervals) longest = std::max(longest, micros_of(value));
    }
    return longest;
  }

 private:
  // A word: the interval's number in the high 32 bits (monotonic ns / kIntervalNs, modulo 2^32,
  // which wraps after 1,361 years), its longest sync in microseconds in the low 32 bits (at
  // most 2^32 - 1: 71 minutes, far past any ahead).
  static std::uint32_t interval_of(std::int64_t ns) noexcept {
    return static_cast<std::uint32_t>(std::max<std::int64_t>(ns, 0) / kIntervalNs);
  }
  static std::uint32_t to_micros(std::int64_t ns) noexcept {
    constexpr std::int64_t kMax = 0xffffffff;
    return static_cast<std::uint32_t>(std::clamp<std::int64_t>(ns / 1000, 0, kMax));
  }
  static std::uint32_t number_of(std::uint64_t word) noexcept {
    return static_cast<std::uint32_t>(word >> 32);
  }
  static std::uint32_t micros_of(std::uint64_t word) noexcept {
    return static_cast<std::uint32_t>(word);
  }

  std::array<std::atomic<std::uint64_t>, kIntervals> words_{};
};

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_WINDOW_SYNC_TIMES_H_
