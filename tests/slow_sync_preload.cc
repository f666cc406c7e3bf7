// SPDX-License-Identifier: Apache-2.0
// A library preloaded (LD_PRELOAD) into the real `cosid` by tests/cli_signal_test.cc: every
// fsync() and fdatasync() first appends a line to the file COSID_TEST_SLOW_SYNC_MARK names (so
// the test knows a sync has begun), then sleeps COSID_TEST_SLOW_SYNC_MS milliseconds, then syncs.
// It slows the real FileSystem (posix_fs.cc) at its system calls, so the binary under test is the
// one users run, with no test hook in it. Without the variables it only syncs.
//
// Thread safety: each call reads the environment and writes its line on its own; no state.
#include <dlfcn.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>

namespace {

using SyncCall = int (*)(int);

// Marks the start of a sync and sleeps as the variables say.
void before_sync() {
  if (const char* mark = std::getenv("COSID_TEST_SLOW_SYNC_MARK")) {
    const int fd = open(mark, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd >= 0) {
      (void)!write(fd, "sync\n", 5);
      close(fd);
    }
  }
  const char* delay = std::getenv("COSID_TEST_SLOW_SYNC_MS");
  const long ms = delay != nullptr ? std::strtol(delay, nullptr, 10) : 0;
  if (ms <= 0) return;
  timespec wait{ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&wait, &wait) != 0) {
  }
}

SyncCall next_call(const char* name) {
  return reinterpret_cast<SyncCall>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" int fsync(int fd) {
  static const SyncCall real = next_call("fsync");
  before_sync();
  return real(fd);
}

extern "C" int fdatasync(int fd) {
  static const SyncCall real = next_call("fdatasync");
  before_sync();
  return real(fd);
}
