// SPDX-License-Identifier: Apache-2.0
// A disk that fails or stalls on demand, for tests of a real `cosid` process (which has no
// FileSystem seam a test can reach): preloaded with LD_PRELOAD, it makes pwrite(2), fsync(2) and
// fdatasync(2) of the process fail with EIO while the file that COSID_TEST_DISK_FAULT names holds
// "fail", makes them sleep N ms first while it holds "slow N", and makes only the two syncs sleep
// while it holds "slow-sync N". With COSID_TEST_SYNC_MARK set, every sync first appends a line to
// that file, so that a test knows a sync has begun. Without the variables, or while the fault
// file is absent, every call passes straight through. Writes to standard output and standard
// error use write(2), which it leaves alone. tests/cli/cli_ride_test.cc and cli_signal_test.cc use
// it.
//
// Thread safety: every call reads the file anew and keeps no state but the real functions'
// addresses, which dlsym gives the same to every thread.

// The build's large-file flags make the headers name pwrite pwrite64; this library defines both
// names itself, each passing on to the function of that name.
#undef _FILE_OFFSET_BITS
#undef _TIME_BITS
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

enum class Fault { kNone, kFail, kSlow, kSlowSync };

// What the fault file asks for now; `slow_ms` the stall of "slow N".
Fault current_fault(long& slow_ms) {
  const char* path = std::getenv("COSID_TEST_DISK_FAULT");
  if (path == nullptr) return Fault::kNone;
  const int saved = errno;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    errno = saved;
    return Fault::kNone;
  }
  char text[32] = {};
  const ssize_t got = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  errno = saved;
  if (got <= 0) return Fault::kNone;
  if (std::strncmp(text, "fail", 4) == 0) return Fault::kFail;
  if (std::strncmp(text, "slow ", 5) == 0) {
    slow_ms = std::strtol(text + 5, nullptr, 10);
    return Fault::kSlow;
  }
  if (std::strncmp(text, "slow-sync ", 10) == 0) {
    slow_ms = std::strtol(text + 10, nullptr, 10);
    return Fault::kSlowSync;
  }
  return Fault::kNone;
}

// Appends a line to the file COSID_TEST_SYNC_MARK names, if any: a sync has begun.
void mark_sync() {
  const char* mark = std::getenv("COSID_TEST_SYNC_MARK");
  if (mark == nullptr) return;
  const int saved = errno;
  const int fd = ::open(mark, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd >= 0) {
    (void)!::write(fd, "sync\n", 5);
    ::close(fd);
  }
  errno = saved;
}

// True when the call (`sync`: fsync or fdatasync) must fail with EIO; sleeps first for "slow N",
// and for "slow-sync N" when it is a sync.
bool inject(bool sync) {
  if (sync) mark_sync();
  long slow_ms = 0;
  switch (current_fault(slow_ms)) {
    case Fault::kFail:
      errno = EIO;
      return true;
    case Fault::kSlowSync:
      if (!sync) return false;
      [[fallthrough]];
    case Fault::kSlow: {
      timespec wait{slow_ms / 1000, (slow_ms % 1000) * 1000000L};
      while (nanosleep(&wait, &wait) != 0 && errno == EINTR) {
      }
      return false;
    }
    case Fault::kNone:
      break;
  }
  return false;
}

template <typename Function>
Function real(const char* name) {
  return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

ssize_t pwrite(int fd, const void* data, size_t size, off_t offset) {
  static const auto next = real<ssize_t (*)(int, const void*, size_t, off_t)>("pwrite");
  return inject(false) ? -1 : next(fd, data, size, offset);
}

ssize_t pwrite64(int fd, const void* data, size_t size, off64_t offset) {
  static const auto next = real<ssize_t (*)(int, const void*, size_t, off64_t)>("pwrite64");
  return inject(false) ? -1 : next(fd, data, size, offset);
}

int fsync(int fd) {
  static const auto next = real<int (*)(int)>("fsync");
  return inject(true) ? -1 : next(fd);
}

int fdatasync(int fd) {
  static const auto next = real<int (*)(int)>("fdatasync");
  return inject(true) ? -1 : next(fd);
}

}  // extern "C"
