// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>  // renameat2, RENAME_NOREPLACE
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "cosid/fs.h"

namespace cosid {
namespace {

constexpr std::size_t kDirectAlignment = 4096;

std::error_code last_error() noexcept { return {errno, std::generic_category()}; }

// Retries a call interrupted by a signal; every call here but close() is safe to repeat.
template <typename Call>
auto retry_on_eintr(Call call) noexcept {
  for (;;) {
    auto result = call();
    if (result != -1 || errno != EINTR) return result;
  }
}

// Moves a descriptor below 3 to 3 or above: descriptors 0, 1 and 2 receive stray writes from code
// that believes it writes to a terminal (SQLite's "how to corrupt" list).
std::error_code keep_above_stdio(int& fd) noexcept {
  if (fd >= 3) return {};
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const std::error_code ec = moved < 0 ? last_error() : std::error_code();
  ::close(fd);
  fd = moved;
  return ec;
}

std::error_code open_at(int dir, const std::string& name, int flags, int& fd) noexcept {
  fd = retry_on_eintr([&] { return ::openat(dir, name.c_str(), flags, 0600); });
  if (fd < 0) return last_error();
  return keep_above_stdio(fd);
}

// open_at for a name that may be anything: O_NONBLOCK for the open alone, since opening a FIFO
// for reading waits for a writer (for ever if none comes) and a terminal may wait for a carrier.
// The caller's stat then refuses what is not a regular file. Cleared before returning, so reads
// and writes block as the rest of this file expects (on a regular file it changes nothing anyway).
std::error_code open_existing_at(int dir, const std::string& name, int flags, int& fd) noexcept {
  if (std::error_code ec = open_at(dir, name, flags | O_NONBLOCK, fd)) return ec;
  const int now = ::fcntl(fd, F_GETFL);
  if (now < 0 || ::fcntl(fd, F_SETFL, now & ~O_NONBLOCK) < 0) {
    const std::error_code ec = last_error();
    ::close(fd);
    fd = -1;
    return ec;
  }
  return {};
}

// Whether a write of `size` bytes at `offset` passes the file size limit (RLIMIT_FSIZE, `ulimit
// -f`). The kernel cuts such a write at the limit, and refuses one that starts at or past it with
// EFBIG and SIGXFSZ, whose default action kills the process without a word.
bool exceeds_file_size_limit(std::size_t size, std::int64_t offset) noexcept {
  struct rlimit limit {};
  return ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
         static_cast<std::uint64_t>(offset) + size > static_cast<std::uint64_t>(limit.rlim_cur);
}

void fill(const struct stat& st, FileInfo& info) noexcept {
  info.device = static_cast<std::uint64_t>(st.st_dev);
  info.inode = static_cast<std::uint64_t>(st.st_ino);
  info.links = static_cast<std::uint64_t>(st.st_nlink);
  info.size = static_cast<std::int64_t>(st.st_size);
  info.regular = S_ISREG(st.st_mode);
}

bool all_digits(const char* name) {
  if (*name == '\0') return false;
  for (; *name != '\0'; ++name) {
    if (*name < '0' || *name > '9') return false;
  }
  return true;
}

// Whether the file of /proc/PID/fdinfo/FD lists a lock on the file `id` names.
bool fdinfo_has_lock(const std::string& path, const char* id) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, 5, "lock:") == 0 && line.find(id) != std::string::npos) return true;
  }
  return false;
}

// The pid of a process with an open file that holds a lock on the file `id` names
// (" MAJ:MIN:INODE ", as the kernel prints it), or -1. /proc/locks cannot tell: it shows an OFD
// lock's pid as -1 (it belongs to an open file, not a process). But /proc/PID/fdinfo/FD lists
// the locks of the open file behind FD, so the process holding the file open with the lock is
// found there. Processes this one may not inspect (another user's, without root) are not seen.
int pid_with_lock_on(const char* id) {
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return -1;
  int found = -1;
  while (found < 0) {
    const dirent* process = ::readdir(proc);
    if (process == nullptr) break;
    if (!all_digits(process->d_name)) continue;
    const std::string fdinfo = std::string("/proc/") + process->d_name + "/fdinfo";
    DIR* files = ::opendir(fdinfo.c_str());
    if (files == nullptr) continue;
    while (const dirent* file = ::readdir(files)) {
      if (all_digits(file->d_name) && fdinfo_has_lock(fdinfo + "/" + file->d_name, id)) {
        found = std::atoi(process->d_name);
        break;
      }
    }
    ::closedir(files);
  }
  ::closedir(proc);
  return found;
}

class PosixFileSystem final : public FileSystem {
 public:
  std::error_code open_directory(const std::string& path, int& fd) override {
    fd = retry_on_eintr([&] { return ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
    if (fd < 0) return last_error();
    return keep_above_stdio(fd);
  }

  std::error_code open_existing(int dir, const std::string& name, int& fd) override {
    return open_existing_at(dir, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW, fd);
  }

  std::error_code open_for_reading(int dir, const std::string& name, int& fd) override {
    return open_existing_at(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, fd);
  }

  std::error_code create_exclusive(int dir, const std::string& name, int& fd) override {
    return open_at(dir, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fd);
  }

  std::error_code read_at(int fd, void* data, std::size_t size, std::int64_t offset) override {
    auto* out = static_cast<char*>(data);
    while (size > 0) {
      const ssize_t n = retry_on_eintr([&] { return ::pread(fd, out, size, offset); });
      if (n < 0) return last_error();
      if (n == 0) return {EIO, std::generic_category()};  // the file is shorter than expected
      out += n;
      size -= static_cast<std::size_t>(n);
      offset += n;
    }
    return {};
  }

  std::error_code read_durable(int fd, void* data, std::size_t size, std::int64_t offset) override {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0) return last_error();
    // EINVAL here where the file system has no direct I/O.
    if (::fcntl(fd, F_SETFL, flags | O_DIRECT) < 0) return last_error();
    // Direct I/O wants the buffer, the size and the offset aligned to the device's logical block;
    // 4,096 covers every common device, and the state file's blocks are 4,096 bytes.
    void* aligned = nullptr;
    std::error_code io;
    if (::posix_memalign(&aligned, kDirectAlignment, size) != 0) {
      io = std::error_code(ENOMEM, std::generic_category());
    } else {
      io = read_at(fd, aligned, size, offset);
      if (!io) std::memcpy(data, aligned, size);
      std::free(aligned);
    }
    // Back to buffered I/O for the writes that follow (they are synced explicitly).
    if (::fcntl(fd, F_SETFL, flags) < 0 && !io) io = last_error();
    return io;
  }

  std::error_code write_at(int fd, const void* data, std::size_t size,
                           std::int64_t offset) override {
    // A write the file size limit would cut or refuse is not tried: it fails with EFBIG, never
    // with a part of a record on disk, and never raises SIGXFSZ, so a program that does not ignore
    // the signal is not killed by the state file's writes.
    if (exceeds_file_size_limit(size, offset)) return {EFBIG, std::generic_category()};
    // One pwrite per call and a short count is an error: a record is never completed by a second
    // write that a crash could separate from the first. A count cut by a limit lowered since the
    // check above is EFBIG too, so that the message names the cause.
    const ssize_t n = retry_on_eintr([&] { return ::pwrite(fd, data, size, offset); });
    if (n < 0) return last_error();
    if (static_cast<std::size_t>(n) != size) {
      return {exceeds_file_size_limit(size, offset) ? EFBIG : EIO, std::generic_category()};
    }
    return {};
  }

  std::error_code sync(int fd) override {
    return retry_on_eintr([&] { return ::fsync(fd); }) < 0 ? last_error() : std::error_code();
  }

  std::error_code sync_data(int fd) override {
    return retry_on_eintr([&] { return ::fdatasync(fd); }) < 0 ? last_error() : std::error_code();
  }

  std::error_code rename_noreplace(int dir, const std::string& from,
                                   const std::string& to) override {
    if (::renameat2(dir, from.c_str(), dir, to.c_str(), RENAME_NOREPLACE) == 0) return {};
    if (errno != EINVAL && errno != ENOSYS) return last_error();
    // No RENAME_NOREPLACE here (some network and FUSE file systems): link, which also never
    // replaces, then drop the temporary name.
    if (::linkat(dir, from.c_str(), dir, to.c_str(), 0) < 0) return last_error();
    (void)::unlinkat(dir, from.c_str(), 0);
    return {};
  }

  std::error_code unlink(int dir, const std::string& name) override {
    return ::unlinkat(dir, name.c_str(), 0) < 0 ? last_error() : std::error_code();
  }

  std::error_code stat(int fd, FileInfo& info) override {
    struct stat st {};
    if (::fstat(fd, &st) < 0) return last_error();
    fill(st, info);
    return {};
  }

  std::error_code stat_at(int dir, const std::string& name, FileInfo& info) override {
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) < 0) return last_error();
    fill(st, info);
    return {};
  }

  std::error_code lock(int fd) override {
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;  // start 0, length 0: the whole file, however it grows
    return ::fcntl(fd, F_OFD_SETLK, &lock) < 0 ? last_error() : std::error_code();
  }

  void close(int fd) override { ::close(fd); }

  int lock_holder(int fd) override {
    struct stat st {};
    if (::fstat(fd, &st) < 0) return -1;
    char id[64];
    std::snprintf(id, sizeof id, " %02x:%02x:%llu ", major(st.st_dev), minor(st.st_dev),
                  static_cast<unsigned long long>(st.st_ino));
    return pid_with_lock_on(id);
  }

  std::error_code open_shared(int dir, const std::string& name, bool truncate, int& fd) override {
    const int flags = O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (truncate ? O_TRUNC : 0);
    fd = retry_on_eintr([&] { return ::openat(dir, name.c_str(), flags, 0660); });
    if (fd < 0) return last_error();
    return keep_above_stdio(fd);
  }

  std::error_code rename_replace(int dir, const std::string& from, const std::string& to) override {
    return ::renameat(dir, from.c_str(), dir, to.c_str()) < 0 ? last_error() : std::error_code();
  }

  std::error_code make_directory(int dir, const std::string& name) override {
    // Group-writable, as the store's files are: every process of the host shares it.
    return ::mkdirat(dir, name.c_str(), 0770) < 0 ? last_error() : std::error_code();
  }
};

}  // namespace

FileSystem& posix_file_system() noexcept {
  // Stateless and trivially destructible in effect: safe to use from static destructors too.
  static PosixFileSystem fs;
  return fs;
}

}  // namespace cosid
