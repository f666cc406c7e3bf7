// SPDX-License-Identifier: Apache-2.0
#include "base/fork_guard.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace cosid {
namespace detail {
namespace {

std::size_t page_size() noexcept {
  const long size = sysconf(_SC_PAGESIZE);
  return size > 0 ? static_cast<std::size_t>(size) : 4096;
}

}  // namespace

ForkGuard::ForkGuard() noexcept : pid_(getpid()) {
#ifdef MADV_WIPEONFORK
  void* page =
      mmap(nullptr, page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return;
  if (madvise(page, page_size(), MADV_WIPEONFORK) != 0) {
    munmap(page, page_size());
    return;
  }
  flag_ = new (page) std::atomic<std::uint32_t>(1);
#endif
}

ForkGuard::~ForkGuard() {
  if (flag_ != nullptr) munmap(flag_, page_size());
}

bool ForkGuard::slow_forked() const noexcept { return getpid() != pid_; }

}  // namespace detail
}  // namespace cosid
