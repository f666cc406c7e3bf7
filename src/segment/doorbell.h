// SPDX-License-Identifier: Apache-2.0
// Internal: a doorbell that a lock-free caller rings to wake one sleeping background thread.
//
// ring() never blocks and takes no lock: one atomic increment, and one futex system call only
// when the thread is asleep (or about to sleep). wait() sleeps until a ring after `seen` or the
// timeout, in real time: a sleeping thread cannot be woken by a test's manual clock, so the
// background thread's backstop is a real 100 ms whatever Clock it measures rates with.
//
// Thread safety: ring() from any thread; wait() from one thread at a time.
#ifndef COSID_SRC_SEGMENT_DOORBELL_H_
#define COSID_SRC_SEGMENT_DOORBELL_H_

#include <atomic>
#include <chrono>
#include <cstdint>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#else
#include <condition_variable>
#include <mutex>
#endif

namespace cosid {
namespace segment {
namespace detail {

class Doorbell {
 public:
  // The rings so far: take it before checking whether there is work, and pass it to wait().
  std::uint32_t seen() const noexcept { return rings_.load(std::memory_order_seq_cst); }

  void ring() noexcept {
    // seq_cst on both sides (Dekker): either this load of waiting_ sees the sleeper's increment
    // and wakes it, or the sleeper's load of rings_ sees this increment and does not sleep (and
    // a futex wait that starts after the increment returns at once: the kernel compares the word).
    rings_.fetch_add(1, std::memory_order_seq_cst);
    if (waiting_.load(std::memory_order_seq_cst) == 0) return;
#if defined(__linux__)
    syscall(SYS_futex, word(), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
#else
    std::lock_guard<std::mutex> lock(mutex_);
    condition_.notify_all();
#endif
  }

  void wait(std::uint32_t seen, std::chrono::nanoseconds timeout) noexcept {
    if (timeout.count() <= 0) return;
    waiting_.fetch_add(1, std::memory_order_seq_cst);
    if (rings_.load(std::memory_order_seq_cst) == seen) {
#if defined(__linux__)
      timespec relative{};
      relative.tv_sec = static_cast<time_t>(timeout.count() / 1000000000);
      relative.tv_nsec = static_cast<long>(timeout.count() % 1000000000);
      // Returns on a wake, a ring between the check and the call (EAGAIN), the timeout or a
      // signal; the caller re-evaluates in every case.
      syscall(SYS_futex, word(), FUTEX_WAIT_PRIVATE, seen, &relative, nullptr, 0);
#else
      std::unique_lock<std::mutex> lock(mutex_);
      condition_.wait_for(lock, timeout,
                          [&] { return rings_.load(std::memory_order_seq_cst) != seen; });
#endif
    }
    waiting_.fetch_sub(1, std::memory_order_seq_cst);
  }

 private:
#if defined(__linux__)
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) &&
                    std::atomic<std::uint32_t>::is_always_lock_free,
                "the futex word is the atomic's own storage");
  std::uint32_t* word() noexcept { return reinterpret_cast<std::uint32_t*>(&rings_); }
#else
  std::mutex mutex_;
  std::condition_variable condition_;
#endif
  std::atomic<std::uint32_t> rings_{0};
  std::atomic<std::uint32_t> waiting_{0};
};

}  // namespace detail
}  // namespace segment
}  // namespace cosid

#endif  // COSID_SRC_SEGMENT_DOORBELL_H_
