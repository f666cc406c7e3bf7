// SPDX-License-Identifier: Apache-2.0
// What a test that forks needs to know of the machine it runs on.
#ifndef COSID_TESTS_SUPPORT_FORK_SUPPORT_H_
#define COSID_TESTS_SUPPORT_FORK_SUPPORT_H_

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <string>

#include "sanitizers.h"

// Why this machine cannot show the fork guard's fast path working, or empty if it can: a page
// marked MADV_WIPEONFORK must reach a forked child zero-filled. qemu-user (7.2, Debian 12's)
// answers madvise with success and does nothing, so under it a child keeps the parent's flag.
// Where the kernel refuses the advice, the guard compares getpid() instead, which works anywhere.
inline std::string wipe_on_fork_not_honoured() {
#ifdef MADV_WIPEONFORK
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* memory = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return "";
  auto* flag = static_cast<volatile int*>(memory);
  if (madvise(memory, page, MADV_WIPEONFORK) == 0) {
    *flag = 1;
    const pid_t child = fork();
    if (child == 0) _exit(*flag == 0 ? 0 : 1);
    int status = 0;
    const bool kept = child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
                      WEXITSTATUS(status) == 1;
    munmap(memory, page);
    if (kept) {
      return "madvise(MADV_WIPEONFORK) succeeded but a forked child still saw the page's data "
             "(qemu-user ignores madvise): the fork guard cannot see a fork here, so a forked "
             "child would issue the parent's ids. Run this test natively";
    }
    return "";
  }
  munmap(memory, page);
#endif
  return "";
}

// Why a child forked from a process with other threads must not allocate here, or null. ASan's
// allocator (clang 14) takes no lock across fork(): a thread of the parent inside malloc at the
// fork leaves the child's allocator locked, and the child's first allocation waits forever (seen
// on CI: ForkTest's child stuck in SizeClassAllocator64::GetFromAllocator, 1 run in 3). glibc's
// malloc locks itself across fork, so the other builds keep the case with a thread under test.
inline const char* allocating_in_a_forked_child_can_deadlock() {
#if COSID_TEST_ASAN
  return "ASan's allocator can be left locked in a child forked while another thread allocates";
#endif
  return nullptr;
}

#endif  // COSID_TESTS_SUPPORT_FORK_SUPPORT_H_
