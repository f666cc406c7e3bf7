// SPDX-License-Identifier: Apache-2.0
// WatchedFs: the real file system seen through the FileSystem seam, for the file stores' tests
// (lease/file_store.h, segment/file_range_store.h): calls failed on demand, hooks around the lock
// and the directory fsync, and what a power loss would keep of one record file. And a lock taken
// as another process would take it.
#ifndef COSID_TESTS_SUPPORT_WATCHED_FS_H_
#define COSID_TESTS_SUPPORT_WATCHED_FS_H_

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <utility>

#include "cosid/fs.h"
#include "test_util.h"

namespace cosid::testing {

// The real file system, with faults and a record of what a power loss would keep: after each
// successful fsync of the store's directory, the record file as it then is, provided its data was
// synced after its last write (else the test sees a record that was never on the disk).
class WatchedFs final : public FileSystem {
 public:
  WatchedFs(std::string directory, std::string record_name)
      : directory_(std::move(directory)), record_name_(std::move(record_name)) {}

  // Faults and hooks, set by the test before the store call. Each counter fails the next N calls
  // of its kind with `fault` (EIO unless set).
  int fail_directory_syncs = 0;  // fsyncs of the directory
  int fail_file_syncs = 0;       // fsyncs of any other descriptor
  int fail_writes = 0;
  int fail_renames = 0;       // rename_replace
  int fail_shared_opens = 0;  // open_shared (the lock and temporary files)
  int fault = EIO;
  std::function<void()> before_lock;        // runs before each lock() is passed on
  std::function<void()> on_directory_sync;  // runs inside each fsync of the directory (a slow one)

  // What the test reads back.
  int directory_syncs_ok = 0;
  int lock_file_opens = 0;
  bool durable_exists = false;  // whether the record existed at the last good directory fsync
  std::string durable;          // its bytes then

  // A power loss: the record goes back to what the last good directory fsync made durable.
  void power_loss() {
    const std::string path = directory_ + "/" + record_name_;
    if (!durable_exists) {
      ::unlink(path.c_str());
      return;
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << durable;
  }

  std::error_code open_directory(const std::string& path, int& fd) override {
    const std::error_code ec = real().open_directory(path, fd);
    if (!ec) directory_fd_ = fd;
    return ec;
  }
  std::error_code open_existing(int dir, const std::string& name, int& fd) override {
    return real().open_existing(dir, name, fd);
  }
  std::error_code open_for_reading(int dir, const std::string& name, int& fd) override {
    return real().open_for_reading(dir, name, fd);
  }
  std::error_code create_exclusive(int dir, const std::string& name, int& fd) override {
    return real().create_exclusive(dir, name, fd);
  }
  std::error_code open_shared(int dir, const std::string& name, bool truncate, int& fd) override {
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".lock") == 0) ++lock_file_opens;
    if (fail_shared_opens > 0) {
      --fail_shared_opens;
      fd = -1;
      return {fault, std::generic_category()};
    }
    return real().open_shared(dir, name, truncate, fd);
  }
  std::error_code read_at(int fd, void* data, std::size_t size, std::int64_t offset) override {
    return real().read_at(fd, data, size, offset);
  }
  std::error_code read_durable(int fd, void* data, std::size_t size, std::int64_t offset) override {
    return real().read_durable(fd, data, size, offset);
  }
  std::error_code write_at(int fd, const void* data, std::size_t size,
                           std::int64_t offset) override {
    synced_.erase(inode_of(fd));
    if (fail_writes > 0) {
      --fail_writes;
      return {fault, std::generic_category()};
    }
    return real().write_at(fd, data, size, offset);
  }
  std::error_code sync(int fd) override {
    if (fd != directory_fd_) {
      if (fail_file_syncs > 0) {
        --fail_file_syncs;
        return {fault, std::generic_category()};
      }
      const std::error_code ec = real().sync(fd);
      if (!ec) synced_.insert(inode_of(fd));
      return ec;
    }
    if (on_directory_sync) on_directory_sync();
    if (fail_directory_syncs > 0) {
      --fail_directory_syncs;
      return {fault, std::generic_category()};
    }
    const std::error_code ec = real().sync(fd);
    if (ec) return ec;
    ++directory_syncs_ok;
    FileInfo info;
    durable_exists = !real().stat_at(fd, record_name_, info);
    durable = durable_exists && synced_.count(info.inode) != 0
                  ? read_file(directory_ + "/" + record_name_)
                  : std::string("(renamed into place with data never synced)");
    return ec;
  }
  std::error_code sync_data(int fd) override { return real().sync_data(fd); }
  std::error_code rename_noreplace(int dir, const std::string& from,
                                   const std::string& to) override {
    return real().rename_noreplace(dir, from, to);
  }
  std::error_code rename_replace(int dir, const std::string& from, const std::string& to) override {
    if (fail_renames > 0) {
      --fail_renames;
      return {fault, std::generic_category()};
    }
    return real().rename_replace(dir, from, to);
  }
  std::error_code make_directory(int dir, const std::string& name) override {
    return real().make_directory(dir, name);
  }
  std::error_code unlink(int dir, const std::string& name) override {
    return real().unlink(dir, name);
  }
  std::error_code stat(int fd, FileInfo& info) override { return real().stat(fd, info); }
  std::error_code stat_at(int dir, const std::string& name, FileInfo& info) override {
    return real().stat_at(dir, name, info);
  }
  std::error_code lock(int fd) override {
    if (before_lock) before_lock();
    return real().lock(fd);
  }
  void close(int fd) override { real().close(fd); }

 private:
  static FileSystem& real() { return posix_file_system(); }
  std::uint64_t inode_of(int fd) {
    FileInfo info;
    return real().stat(fd, info) ? 0 : info.inode;
  }

  const std::string directory_;
  const std::string record_name_;
  int directory_fd_ = -1;
  std::set<std::uint64_t> synced_;  // inodes whose data was synced after their last write
};

// Locks `path` as another process would, through a descriptor of its own (OFD locks of two
// descriptors conflict even within one process). Returns the descriptor, -1 on failure.
inline int lock_as_another_process(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0660);
  if (fd < 0) return -1;
  struct flock lock;
  std::memset(&lock, 0, sizeof lock);
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  if (::fcntl(fd, F_OFD_SETLK, &lock) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace cosid::testing

#endif  // COSID_TESTS_SUPPORT_WATCHED_FS_H_
