// SPDX-License-Identifier: Apache-2.0
// BufferingFileSystem: the buffer-until-fsync shim (tests/SCENARIOS.md, "Harnesses").
//
// Wraps the real file system, but write_at() only records the bytes in this process's memory;
// they reach the real file (real pwrite, then the real fsync or fdatasync) only when the library
// syncs that descriptor. read_at() sees the real file overlaid with the pending writes, as a page
// cache would. So a SIGKILL of the process loses exactly what was not synced: the power-loss model
// with a real kill and no root. Directory operations (create, rename, unlink) go straight to the
// real file system; only file data is buffered.
//
// Kill during a sync (C-03): with kill_at_sync = k > 0, the k-th sync of a file descriptor (counted
// from 1 over all descriptors) applies a random subset of the pending data, syncs it and then
// raise(SIGKILL)s the process, like SQLite's test6.c exiting inside xSync. In kWrites mode each
// pending write is applied whole or not at all; in kSectors mode each 512-byte sector of each
// pending write is (a torn write). The subset comes from `seed`.
//
// Thread safety: all calls are serialised by one mutex.
#ifndef COSID_TESTS_SUPPORT_BUFFERING_FS_H_
#define COSID_TESTS_SUPPORT_BUFFERING_FS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <vector>

#include "cosid/fs.h"

namespace cosid {
namespace testing_fs {

class BufferingFileSystem final : public FileSystem {
 public:
  enum class TearMode { kWrites, kSectors };

  // `kill_at_sync` 0: never kill.
  BufferingFileSystem(int kill_at_sync, TearMode mode, std::uint64_t seed);

  std::error_code open_directory(const std::string& path, int& fd) override;
  std::error_code open_existing(int dir, const std::string& name, int& fd) override;
  std::error_code open_for_reading(int dir, const std::string& name, int& fd) override {
    return real_.open_for_reading(dir, name, fd);
  }
  std::error_code create_exclusive(int dir, const std::string& name, int& fd) override;
  std::error_code read_at(int fd, void* data, std::size_t size, std::int64_t offset) override;
  // The real file holds only what was synced: read it past the pending writes.
  std::error_code read_durable(int fd, void* data, std::size_t size, std::int64_t offset) override {
    return real_.read_durable(fd, data, size, offset);
  }
  std::error_code write_at(int fd, const void* data, std::size_t size,
                           std::int64_t offset) override;
  std::error_code sync(int fd) override;
  std::error_code sync_data(int fd) override;
  std::error_code rename_noreplace(int dir, const std::string& from,
                                   const std::string& to) override;
  std::error_code unlink(int dir, const std::string& name) override;
  std::error_code stat(int fd, FileInfo& info) override;
  std::error_code stat_at(int dir, const std::string& name, FileInfo& info) override;
  std::error_code lock(int fd) override;
  void close(int fd) override;

  // How many syncs of file descriptors were made so far.
  int syncs() const;

 private:
  struct PendingWrite {
    std::int64_t offset;
    std::vector<unsigned char> bytes;
  };
  std::error_code flush_locked(int fd, bool data_only);

  FileSystem& real_;
  const int kill_at_sync_;
  const TearMode mode_;
  std::mt19937_64 random_;
  mutable std::mutex mutex_;
  std::map<int, std::vector<PendingWrite>> pending_;
  int syncs_ = 0;
};

}  // namespace testing_fs
}  // namespace cosid

#endif  // COSID_TESTS_SUPPORT_BUFFERING_FS_H_
