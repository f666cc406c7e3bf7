// SPDX-License-Identifier: Apache-2.0
#include "buffering_fs.h"

#include <signal.h>

#include <algorithm>
#include <cstring>

namespace cosid {
namespace testing_fs {
namespace {

constexpr std::size_t kSector = 512;

}  // namespace

BufferingFileSystem::BufferingFileSystem(int kill_at_sync, TearMode mode, std::uint64_t seed)
    : real_(posix_file_system()), kill_at_sync_(kill_at_sync), mode_(mode), random_(seed) {}

std::error_code BufferingFileSystem::open_directory(const std::string& path, int& fd) {
  return real_.open_directory(path, fd);
}

std::error_code BufferingFileSystem::open_existing(int dir, const std::string& name, int& fd) {
  return real_.open_existing(dir, name, fd);
}

std::error_code BufferingFileSystem::create_exclusive(int dir, const std::string& name, int& fd) {
  return real_.create_exclusive(dir, name, fd);
}

std::error_code BufferingFileSystem::read_at(int fd, void* data, std::size_t size,
                                             std::int64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto* out = static_cast<unsigned char*>(data);
  // The real file first; a read past its end is fine if pending writes cover the rest.
  std::int64_t end_of_pending = 0;
  const auto it = pending_.find(fd);
  if (it != pending_.end()) {
    for (const PendingWrite& write : it->second) {
      end_of_pending =
          std::max(end_of_pending, write.offset + static_cast<std::int64_t>(write.bytes.size()));
    }
  }
  std::error_code io = real_.read_at(fd, data, size, offset);
  if (io && end_of_pending < offset + static_cast<std::int64_t>(size)) return io;
  if (io) std::memset(data, 0, size);  // wholly covered below (the writes cover the range)
  if (it == pending_.end()) return {};
  for (const PendingWrite& write : it->second) {  // in order: later writes win
    const std::int64_t from = std::max(offset, write.offset);
    const std::int64_t to = std::min(offset + static_cast<std::int64_t>(size),
                                     write.offset + static_cast<std::int64_t>(write.bytes.size()));
    if (from >= to) continue;
    std::memcpy(out + (from - offset), write.bytes.data() + (from - write.offset),
                static_cast<std::size_t>(to - from));
  }
  return {};
}

std::error_code BufferingFileSystem::write_at(int fd, const void* data, std::size_t size,
                                              std::int64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto* in = static_cast<const unsigned char*>(data);
  pending_[fd].push_back(PendingWrite{offset, std::vector<unsigned char>(in, in + size)});
  return {};
}

std::error_code BufferingFileSystem::flush_locked(int fd, bool data_only) {
  ++syncs_;
  std::vector<PendingWrite> writes;
  const auto it = pending_.find(fd);
  if (it != pending_.end()) {
    writes.swap(it->second);
    pending_.erase(it);
  }
  const bool die = kill_at_sync_ > 0 && syncs_ == kill_at_sync_;
  for (const PendingWrite& write : writes) {
    if (!die) {
      if (std::error_code io =
              real_.write_at(fd, write.bytes.data(), write.bytes.size(), write.offset)) {
        return io;
      }
      continue;
    }
    if (mode_ == TearMode::kWrites) {
      if (random_() % 2 == 0) {
        (void)real_.write_at(fd, write.bytes.data(), write.bytes.size(), write.offset);
      }
      continue;
    }
    for (std::size_t at = 0; at < write.bytes.size(); at += kSector) {
      if (random_() % 2 != 0) continue;
      const std::size_t n = std::min(kSector, write.bytes.size() - at);
      (void)real_.write_at(fd, write.bytes.data() + at, n,
                           write.offset + static_cast<std::int64_t>(at));
    }
  }
  if (die) {
    (void)real_.sync(fd);  // what was applied is on disk; the rest never will be
    raise(SIGKILL);
  }
  return data_only ? real_.sync_data(fd) : real_.sync(fd);
}

std::error_code BufferingFileSystem::sync(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  return flush_locked(fd, false);
}

std::error_code BufferingFileSystem::sync_data(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  return flush_locked(fd, true);
}

std::error_code BufferingFileSystem::rename_noreplace(int dir, const std::string& from,
                                                      const std::string& to) {
  return real_.rename_noreplace(dir, from, to);
}

std::error_code BufferingFileSystem::unlink(int dir, const std::string& name) {
  return real_.unlink(dir, name);
}

std::error_code BufferingFileSystem::stat(int fd, FileInfo& info) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::error_code io = real_.stat(fd, info);
  if (io) return io;
  // A file whose size is still only in pending writes shows that size, as the page cache would.
  const auto it = pending_.find(fd);
  if (it != pending_.end()) {
    for (const PendingWrite& write : it->second) {
      info.size = std::max(info.size, write.offset + static_cast<std::int64_t>(write.bytes.size()));
    }
  }
  return {};
}

std::error_code BufferingFileSystem::stat_at(int dir, const std::string& name, FileInfo& info) {
  return real_.stat_at(dir, name, info);
}

std::error_code BufferingFileSystem::lock(int fd) { return real_.lock(fd); }

void BufferingFileSystem::close(int fd) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.erase(fd);  // unsynced data of a closed file is lost, as after a power loss
  }
  real_.close(fd);
}

int BufferingFileSystem::syncs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return syncs_;
}

}  // namespace testing_fs
}  // namespace cosid
