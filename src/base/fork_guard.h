// SPDX-License-Identifier: Apache-2.0
// Internal: tells, without a system call, whether this process is a child forked after the guard
// was made.
//
// A forked child inherits a copy of every generator's state and of the state file's descriptor.
// Issuing from that copy would repeat the parent's ids, and writing the file could roll its
// ceiling back. The guard's flag lives in a page marked MADV_WIPEONFORK, which the kernel hands
// to a child zero-filled, so the check on the hot path is one load. Where the kernel lacks
// MADV_WIPEONFORK (before Linux 4.14) the guard compares getpid() instead: correct, one system
// call slower.
//
// Thread safety: forked() may be called from any thread; the guard is immutable after
// construction.
#ifndef COSID_SRC_BASE_FORK_GUARD_H_
#define COSID_SRC_BASE_FORK_GUARD_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>

namespace cosid {
namespace detail {

class ForkGuard {
 public:
  ForkGuard() noexcept;
  ~ForkGuard();
  ForkGuard(const ForkGuard&) = delete;
  ForkGuard& operator=(const ForkGuard&) = delete;

  bool forked() const noexcept {
    // Relaxed: the flag is written once, before the guard is shared, and only the kernel changes
    // it afterwards (to zero, in a child), which no memory order could order anyway.
    if (flag_ != nullptr) return flag_->load(std::memory_order_relaxed) == 0;
    return slow_forked();
  }

 private:
  bool slow_forked() const noexcept;

  std::atomic<std::uint32_t>* flag_ = nullptr;  // in the wipe-on-fork page, or null
  pid_t pid_;
};

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_BASE_FORK_GUARD_H_
