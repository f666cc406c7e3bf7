// SPDX-License-Identifier: Apache-2.0
// FileSystem: the narrow seam through which cosid touches files.
//
// The state file needs a handful of POSIX calls; they all go through this interface, so a test can
// fail any call with any errno, or keep writes in memory and drop what was not synced to model a
// power loss. Descriptors are plain ints owned by the FileSystem that returned them.
//
// Every call returns an empty std::error_code on success, else the errno as
// std::error_code(errno, std::generic_category()), so ENOSPC and EIO stay distinct. EINTR is
// retried inside the implementation, except on close.
//
// Thread safety: implementations must allow concurrent calls on different descriptors; cosid
// never uses one descriptor from two threads at once. posix_file_system() is stateless.
//
// File size limit: under RLIMIT_FSIZE (`ulimit -f`), a write that starts at or past the limit
// raises SIGXFSZ, whose default action kills the process without a word. The POSIX write_at never
// makes such a write: it checks the limit first and fails with EFBIG, which cosid reports like any
// other write error. Other writes can still raise it (the file lease store's, the program's own):
// a program that may run under a file size limit should ignore SIGXFSZ (signal(SIGXFSZ, SIG_IGN),
// as the `cosid` tool does), so that they fail with EFBIG too. The library leaves the signal's
// disposition to the program.
#ifndef COSID_FS_H_
#define COSID_FS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <system_error>

#include "cosid/export.h"

namespace cosid {

struct COSID_EXPORT FileInfo {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::uint64_t links = 0;
  std::int64_t size = 0;
  bool regular = false;
};

class COSID_EXPORT FileSystem {
 public:
  virtual ~FileSystem() = default;

  // open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC).
  virtual std::error_code open_directory(const std::string& path, int& fd) = 0;
  // openat(dir, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW). Never returns a descriptor below 3, so a
  // stray write to stdout or stderr can never land in the state file. Must not block on a name
  // that is not a regular file (a FIFO): the POSIX implementation opens with O_NONBLOCK and
  // clears it at once; the caller's stat() refuses such a file.
  virtual std::error_code open_existing(int dir, const std::string& name, int& fd) = 0;
  // openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW): for looking at a file (`cosid state
  // show`) without needing the right to write it. Never blocks, as open_existing.
  virtual std::error_code open_for_reading(int dir, const std::string& name, int& fd) = 0;
  // openat(dir, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600).
  virtual std::error_code create_exclusive(int dir, const std::string& name, int& fd) = 0;
  // pread of exactly `size` bytes; a short read is reported as EIO.
  virtual std::error_code read_at(int fd, void* data, std::size_t size, std::int64_t offset) = 0;
  // Like read_at, but reads what is on the device, bypassing the page cache (O_DIRECT), so that
  // bytes which only reached the page cache before a failed sync are never mistaken for durable
  // ones. EINVAL where the file system cannot (tmpfs): then the caller reads through the page
  // cache and must make what it relies on durable itself.
  virtual std::error_code read_durable(int fd, void* data, std::size_t size,
                                       std::int64_t offset) = 0;
  // pwrite of exactly `size` bytes; a short write is reported as EIO. EFBIG, without writing,
  // when the write would pass the file size limit (RLIMIT_FSIZE): see the top of this file.
  virtual std::error_code write_at(int fd, const void* data, std::size_t size,
                                   std::int64_t offset) = 0;
  // fsync(fd): data and metadata, for a new file and for directories.
  virtual std::error_code sync(int fd) = 0;
  // fdatasync(fd): data and the metadata needed to read it, for overwrites in place.
  virtual std::error_code sync_data(int fd) = 0;
  // renameat2(dir, from, dir, to, RENAME_NOREPLACE): moves a file to its final name in one step,
  // never replacing an existing one (EEXIST). Where the file system lacks RENAME_NOREPLACE the
  // POSIX implementation links and then unlinks `from`; a crash between the two can then leave
  // the file with a second name, which the next open refuses as state_file_replaced.
  virtual std::error_code rename_noreplace(int dir, const std::string& from,
                                           const std::string& to) = 0;
  // unlinkat(dir, name, 0).
  virtual std::error_code unlink(int dir, const std::string& name) = 0;
  virtual std::error_code stat(int fd, FileInfo& info) = 0;
  // fstatat(dir, name, AT_SYMLINK_NOFOLLOW).
  virtual std::error_code stat_at(int dir, const std::string& name, FileInfo& info) = 0;
  // An exclusive open-file-description lock on the whole file (F_OFD_SETLK, F_WRLCK), taken
  // without waiting. Held until the descriptor is closed; a second descriptor in the same process
  // conflicts with it, unlike a POSIX record lock. EAGAIN or EACCES when someone else holds it.
  virtual std::error_code lock(int fd) = 0;
  // close(fd). Not retried on EINTR: the descriptor is gone either way.
  virtual void close(int fd) = 0;

  // The calls below serve the file stores (cosid/lease/file_store.h, segment/file_range_store.h)
  // only. They are not pure, so that a FileSystem written before them keeps compiling; by default
  // they fail with ENOSYS, and a file store over such a FileSystem fails with store_unavailable.
  //
  // openat(dir, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0660), plus O_TRUNC when
  // `truncate`: a file that every process of a host shares (group-writable).
  virtual std::error_code open_shared(int dir, const std::string& name, bool truncate, int& fd);
  // renameat(dir, from, dir, to): moves `from` over `to` in one step, replacing it.
  virtual std::error_code rename_replace(int dir, const std::string& from, const std::string& to);
  // mkdirat(dir, name, 0770): a store's directory, made only by an explicit init (EEXIST when
  // something of that name exists).
  virtual std::error_code make_directory(int dir, const std::string& name);

  // For the message of a refused lock(): the pid of a process that holds a lock on the file open
  // as `fd`, or -1 when it cannot be told. Not pure, as above; by default -1.
  virtual int lock_holder(int fd);
};

inline int FileSystem::lock_holder(int) { return -1; }

inline std::error_code FileSystem::open_shared(int, const std::string&, bool, int& fd) {
  fd = -1;
  return std::make_error_code(std::errc::function_not_supported);
}

inline std::error_code FileSystem::rename_replace(int, const std::string&, const std::string&) {
  return std::make_error_code(std::errc::function_not_supported);
}

inline std::error_code FileSystem::make_directory(int, const std::string&) {
  return std::make_error_code(std::errc::function_not_supported);
}

// The real file system. Lives for the whole program.
COSID_EXPORT FileSystem& posix_file_system() noexcept;

}  // namespace cosid

#endif  // COSID_FS_H_
