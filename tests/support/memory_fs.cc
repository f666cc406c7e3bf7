// SPDX-License-Identifier: Apache-2.0
#include "memory_fs.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <numeric>

namespace cosid::testing {
namespace {

constexpr std::size_t kSector = 512;
constexpr std::size_t kNoShort = std::numeric_limits<std::size_t>::max();

std::error_code errno_code(int value) { return {value, std::generic_category()}; }

void split(const std::string& path, std::string& dir, std::string& name) {
  const std::size_t slash = path.rfind('/');
  dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  name = slash == std::string::npos ? path : path.substr(slash + 1);
}

// Copies bytes [from, to) of a write (relative to its start) into `image`, growing it.
void apply_range(std::vector<unsigned char>& image, std::int64_t offset,
                 const std::vector<unsigned char>& data, std::size_t from, std::size_t to) {
  if (from >= to) return;
  const std::size_t end = static_cast<std::size_t>(offset) + to;
  if (image.size() < end) image.resize(end);
  std::memcpy(image.data() + static_cast<std::size_t>(offset) + from, data.data() + from,
              to - from);
}

// The sector boundaries inside a write, relative to its start: 0, the first boundary after the
// start, ..., the write's size.
std::vector<std::size_t> sector_cuts(std::int64_t offset, std::size_t size) {
  std::vector<std::size_t> cuts{0};
  const std::size_t start = static_cast<std::size_t>(offset);
  for (std::size_t at = (start / kSector + 1) * kSector; at < start + size; at += kSector) {
    cuts.push_back(at - start);
  }
  cuts.push_back(size);
  return cuts;
}

}  // namespace

const char* MemoryFs::to_string(CrashMode mode) {
  switch (mode) {
    case CrashMode::kDropAll:
      return "drop-all";
    case CrashMode::kPrefix:
      return "prefix";
    case CrashMode::kSubset:
      return "subset";
    case CrashMode::kTorn:
      return "torn";
    case CrashMode::kGarbage:
      return "garbage";
  }
  return "?";
}

MemoryFs::MemoryFs() { directories_["."]; }

void MemoryFs::fail(Op op, int error, int nth, bool persistent) {
  std::lock_guard<std::mutex> lock(mutex_);
  faults_.push_back({op, error, nth, persistent, kNoShort});
}

void MemoryFs::short_write(std::size_t bytes, int nth) {
  std::lock_guard<std::mutex> lock(mutex_);
  faults_.push_back({Op::kWrite, EIO, nth, false, bytes});
}

void MemoryFs::clear_faults() {
  std::lock_guard<std::mutex> lock(mutex_);
  faults_.clear();
}

int MemoryFs::calls(Op op) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = calls_.find(op);
  return it == calls_.end() ? 0 : it->second;
}

int MemoryFs::total_calls() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return total_calls_;
}

void MemoryFs::set_failed_sync(FailedSync behaviour) {
  std::lock_guard<std::mutex> lock(mutex_);
  failed_sync_ = behaviour;
}

void MemoryFs::set_seed(std::uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  rng_ = seed;
}

void MemoryFs::crash_at(int n) {
  std::lock_guard<std::mutex> lock(mutex_);
  crash_at_ = n;
  crash_hit_ = false;
}

bool MemoryFs::crash_point_hit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return crash_hit_;
}

void MemoryFs::set_logging(bool on) {
  std::lock_guard<std::mutex> lock(mutex_);
  logging_ = on;
}

std::vector<MemoryFs::LogEntry> MemoryFs::log() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return log_;
}

void MemoryFs::clear_log() {
  std::lock_guard<std::mutex> lock(mutex_);
  log_.clear();
}

std::uint64_t MemoryFs::random() {
  // splitmix64: small, fast, and the same on every platform.
  std::uint64_t z = (rng_ += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

std::error_code MemoryFs::inject(Op op, std::size_t* short_bytes) {
  ++calls_[op];
  ++total_calls_;
  if (short_bytes != nullptr) *short_bytes = kNoShort;
  if (crash_hit_ || (crash_at_ > 0 && total_calls_ >= crash_at_)) {
    crash_hit_ = true;  // this call and every later one never happen
    return errno_code(EIO);
  }
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (it->op != op) continue;
    if (it->countdown > 1) {
      --it->countdown;
      continue;
    }
    const int error = it->error;
    if (short_bytes != nullptr) *short_bytes = it->short_bytes;
    if (!it->persistent) faults_.erase(it);
    return errno_code(error);
  }
  return {};
}

void MemoryFs::record(Op op, int fd, std::int64_t offset, std::size_t size, std::error_code ec,
                      const void* data) {
  if (!logging_) return;
  LogEntry entry{total_calls_, op, fd, offset, size, ec.value(), {}};
  if (data != nullptr) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    entry.data.assign(bytes, bytes + size);
  }
  log_.push_back(std::move(entry));
}

void MemoryFs::process_crash() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [path, dir] : directories_) {
    for (auto& [name, inode] : dir.current) inode->lock_owner = -1;
  }
  handles_.clear();
  crash_at_ = 0;
  crash_hit_ = false;
}

std::uint64_t MemoryFs::durable_version() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return durable_version_;
}

void MemoryFs::crash() { crash(CrashMode::kDropAll, 0); }

void MemoryFs::crash(CrashMode mode, std::uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++durable_version_;
  rng_ = seed * 0x2545f4914f6cdd1du + 1;
  // Every inode reachable from a current or durable entry, each once.
  std::vector<std::shared_ptr<Inode>> inodes;
  for (auto& [path, dir] : directories_) {
    for (auto* entries : {&dir.current, &dir.durable}) {
      for (auto& [name, inode] : *entries) {
        if (std::find(inodes.begin(), inodes.end(), inode) == inodes.end()) {
          inodes.push_back(inode);
        }
      }
    }
    for (const DirOp& op : dir.pending) {
      if (std::find(inodes.begin(), inodes.end(), op.inode) == inodes.end()) {
        inodes.push_back(op.inode);
      }
    }
  }
  std::sort(inodes.begin(), inodes.end(),
            [](const auto& a, const auto& b) { return a->number < b->number; });
  for (auto& inode : inodes) {
    const std::vector<Write>& pending = inode->pending;
    const std::size_t n = pending.size();
    auto apply_all = [&](std::size_t count) {
      for (std::size_t i = 0; i < count; ++i) {
        apply_range(inode->durable, pending[i].offset, pending[i].data, 0, pending[i].data.size());
      }
    };
    if (n > 0) {
      switch (mode) {
        case CrashMode::kDropAll:
          break;
        case CrashMode::kPrefix:
          apply_all(static_cast<std::size_t>(random() % (n + 1)));
          break;
        case CrashMode::kSubset: {
          std::vector<std::size_t> order(n);
          std::iota(order.begin(), order.end(), std::size_t{0});
          for (std::size_t i = n; i > 1; --i) {
            std::swap(order[i - 1], order[static_cast<std::size_t>(random() % i)]);
          }
          for (const std::size_t i : order) {
            if (random() % 2 == 0) {
              apply_range(inode->durable, pending[i].offset, pending[i].data, 0,
                          pending[i].data.size());
            }
          }
          break;
        }
        case CrashMode::kTorn: {
          const auto victim = static_cast<std::size_t>(random() % n);
          apply_all(victim);
          const Write& w = pending[victim];
          const std::vector<std::size_t> cuts = sector_cuts(w.offset, w.data.size());
          const std::size_t cut = cuts[static_cast<std::size_t>(random() % cuts.size())];
          // The sectors on one side of the cut reached the disk, those on the other did not
          // (a device may write the sectors of one request in any order).
          if (random() % 2 == 0) {
            apply_range(inode->durable, w.offset, w.data, 0, cut);
          } else {
            apply_range(inode->durable, w.offset, w.data, cut, w.data.size());
          }
          break;
        }
        case CrashMode::kGarbage: {
          const auto victim = static_cast<std::size_t>(random() % n);
          apply_all(victim);
          const Write& w = pending[victim];
          std::vector<unsigned char> garbage(w.data.size());
          for (auto& byte : garbage) byte = static_cast<unsigned char>(random());
          apply_range(inode->durable, w.offset, garbage, 0, garbage.size());
          break;
        }
      }
    }
    inode->pending.clear();
    inode->current = inode->durable;
    inode->lock_owner = -1;
  }
  for (auto& [path, dir] : directories_) {
    for (const DirOp& op : dir.pending) {
      if (random() % 2 != 0) continue;  // this operation never reached the disk
      switch (op.kind) {
        case DirOp::kCreate:
          dir.durable[op.name] = op.inode;
          break;
        case DirOp::kRename:
          if (const auto it = dir.durable.find(op.name);
              it != dir.durable.end() && it->second == op.inode) {
            dir.durable.erase(it);
          }
          dir.durable[op.to] = op.inode;
          break;
        case DirOp::kUnlink:
          if (const auto it = dir.durable.find(op.name);
              it != dir.durable.end() && it->second == op.inode) {
            dir.durable.erase(it);
          }
          break;
      }
    }
    dir.pending.clear();
    dir.current = dir.durable;
  }
  handles_.clear();
  crash_at_ = 0;
  crash_hit_ = false;
}

std::shared_ptr<MemoryFs::Inode> MemoryFs::find(const std::string& path) const {
  std::string dir;
  std::string name;
  split(path, dir, name);
  const auto d = directories_.find(dir);
  if (d == directories_.end()) return nullptr;
  const auto f = d->second.current.find(name);
  return f == d->second.current.end() ? nullptr : f->second;
}

bool MemoryFs::exists(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return find(path) != nullptr;
}

std::vector<unsigned char> MemoryFs::durable(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto inode = find(path);
  return inode ? inode->durable : std::vector<unsigned char>();
}

std::vector<unsigned char> MemoryFs::current(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto inode = find(path);
  return inode ? inode->current : std::vector<unsigned char>();
}

void MemoryFs::set_both(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string dir;
  std::string name;
  split(path, dir, name);
  auto& slot = directories_[dir].current[name];
  if (!slot) {
    slot = std::make_shared<Inode>();
    slot->number = next_inode_++;
  }
  ++durable_version_;
  slot->current = slot->durable = bytes;
  slot->pending.clear();
  directories_[dir].durable[name] = slot;
}

void MemoryFs::remove(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string dir;
  std::string name;
  split(path, dir, name);
  ++durable_version_;
  directories_[dir].current.erase(name);
  directories_[dir].durable.erase(name);
}

std::vector<std::string> MemoryFs::names(const std::string& dir) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> result;
  const auto d = directories_.find(dir);
  if (d != directories_.end()) {
    for (const auto& entry : d->second.current) result.push_back(entry.first);
  }
  return result;
}

MemoryFs::Handle* MemoryFs::handle(int fd) {
  const auto it = handles_.find(fd);
  return it == handles_.end() ? nullptr : &it->second;
}

std::uint64_t MemoryFs::links(const Inode& inode) const {
  std::uint64_t count = 0;
  for (const auto& [path, dir] : directories_) {
    for (const auto& entry : dir.current) count += entry.second.get() == &inode ? 1u : 0u;
  }
  return count;
}

std::error_code MemoryFs::open_directory(const std::string& path, int& fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(Op::kOpenDirectory)) return ec;
  directories_[path];  // every directory exists
  fd = next_fd_++;
  handles_[fd] = Handle{path, nullptr};
  return {};
}

std::error_code MemoryFs::open_existing(int dir, const std::string& name, int& fd) {
  return open_named(Op::kOpen, dir, name, fd);
}

std::error_code MemoryFs::open_for_reading(int dir, const std::string& name, int& fd) {
  // No permissions here: a read-only descriptor differs only in the call counted.
  return open_named(Op::kOpenForReading, dir, name, fd);
}

std::error_code MemoryFs::open_named(Op op, int dir, const std::string& name, int& fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(op)) return ec;
  Handle* d = handle(dir);
  if (d == nullptr) return errno_code(EBADF);
  const auto& entries = directories_[d->directory].current;
  const auto it = entries.find(name);
  if (it == entries.end()) return errno_code(ENOENT);
  fd = next_fd_++;
  handles_[fd] = Handle{d->directory, it->second};
  return {};
}

std::error_code MemoryFs::create_exclusive(int dir, const std::string& name, int& fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(Op::kCreate)) return ec;
  Handle* d = handle(dir);
  if (d == nullptr) return errno_code(EBADF);
  Directory& directory = directories_[d->directory];
  if (directory.current.count(name) != 0) return errno_code(EEXIST);
  auto inode = std::make_shared<Inode>();
  inode->number = next_inode_++;
  directory.current[name] = inode;
  directory.pending.push_back({DirOp::kCreate, name, "", inode});
  fd = next_fd_++;
  handles_[fd] = Handle{d->directory, inode};
  return {};
}

std::error_code MemoryFs::read_at(int fd, void* data, std::size_t size, std::int64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(Op::kRead)) return ec;
  Handle* h = handle(fd);
  if (h == nullptr || !h->inode) return errno_code(EBADF);
  const auto& bytes = h->inode->current;
  if (static_cast<std::size_t>(offset) + size > bytes.size()) return errno_code(EIO);
  std::memcpy(data, bytes.data() + offset, size);
  return {};
}

std::error_code MemoryFs::read_durable(int fd, void* data, std::size_t size, std::int64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(Op::kReadDurable)) return ec;
  if (!direct_reads_) return errno_code(EINVAL);
  Handle* h = handle(fd);
  if (h == nullptr || !h->inode) return errno_code(EBADF);
  const auto& bytes = h->inode->durable;
  if (static_cast<std::size_t>(offset) + size > bytes.size()) return errno_code(EIO);
  std::memcpy(data, bytes.data() + offset, size);
  return {};
}

void MemoryFs::set_direct_reads(bool on) {
  std::lock_guard<std::mutex> lock(mutex_);
  direct_reads_ = on;
}

std::error_code MemoryFs::write_at(int fd, const void* data, std::size_t size,
                                   std::int64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t short_bytes = kNoShort;
  std::error_code ec = inject(Op::kWrite, &short_bytes);
  if (ec && short_bytes == kNoShort) {
    record(Op::kWrite, fd, offset, size, ec, data);
    return ec;
  }
  Handle* h = handle(fd);
  if (h == nullptr || !h->inode) return errno_code(EBADF);
  const std::size_t landed = std::min(size, short_bytes);
  record(Op::kWrite, fd, offset, landed, ec, data);
  if (landed == 0) return ec;
  auto& bytes = h->inode->current;
  const std::size_t end = static_cast<std::size_t>(offset) + landed;
  if (bytes.size() < end) bytes.resize(end);
  std::memcpy(bytes.data() + offset, data, landed);
  const auto* begin = static_cast<const unsigned char*>(data);
  h->inode->pending.push_back({offset, std::vector<unsigned char>(begin, begin + landed)});
  return ec;
}

std::error_code MemoryFs::sync_file(Inode& inode, Op op) {
  std::error_code ec = inject(op);
  if (ec && crash_hit_) return ec;  // never happened
  ++durable_version_;
  if (!ec) {
    for (const Write& w : inode.pending) {
      apply_range(inode.durable, w.offset, w.data, 0, w.data.size());
    }
    inode.pending.clear();
    return ec;
  }
  // A failed sync: some sectors may have reached the disk anyway; the pages are marked clean
  // either way, so a later successful sync will not write them (fsyncgate). The page cache then
  // holds the new bytes, or the bytes from before the pending writes (whatever reached the disk).
  const std::vector<unsigned char> old_bytes = inode.durable;
  for (const Write& w : inode.pending) {
    const std::vector<std::size_t> cuts = sector_cuts(w.offset, w.data.size());
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      const bool reached =
          failed_sync_.applied == FailedSync::Applied::kAll ||
          (failed_sync_.applied == FailedSync::Applied::kRandomSectors && random() % 2 == 0);
      if (reached) apply_range(inode.durable, w.offset, w.data, cuts[i], cuts[i + 1]);
    }
  }
  inode.pending.clear();
  if (!failed_sync_.keep_new) inode.current = old_bytes;
  return ec;
}

std::error_code MemoryFs::sync(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  Handle* h = handle(fd);
  if (h != nullptr && h->inode) {
    const std::error_code ec = sync_file(*h->inode, Op::kSync);
    record(Op::kSync, fd, 0, 0, ec);
    return ec;
  }
  if (auto ec = inject(Op::kSync)) return ec;
  if (h == nullptr) return errno_code(EBADF);
  Directory& d = directories_[h->directory];
  ++durable_version_;
  d.durable = d.current;
  d.pending.clear();
  return {};
}

std::error_code MemoryFs::sync_data(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  Handle* h = handle(fd);
  if (h == nullptr || !h->inode) {
    if (auto ec = inject(Op::kSyncData)) return ec;
    return errno_code(EBADF);
  }
  const std::error_code ec = sync_file(*h->inode, Op::kSyncData);
  record(Op::kSyncData, fd, 0, 0, ec);
  return ec;
}

std::error_code MemoryFs::rename_noreplace(int dir, const std::string& from,
                                           const std::string& to) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(Op::kRename)) return ec;
  Handle* d = handle(dir);
  if (d == nullptr) return errno_code(EBADF);
  Directory& directory = directories_[d->directory];
  auto& entries = directory.current;
  const auto it = entries.find(from);
  if (it == entries.end()) return errno_code(ENOENT);
  if (entries.count(to) != 0) return errno_code(EEXIST);
  directory.pending.push_back({DirOp::kRename, from, to, it->second});
  entries[to] = it->second;
  entries.erase(it);
  return {};
}

std::error_code MemoryFs::unlink(int dir, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(Op::kUnlink)) return ec;
  Handle* d = handle(dir);
  if (d == nullptr) return errno_code(EBADF);
  Directory& directory = directories_[d->directory];
  const auto it = directory.current.find(name);
  if (it == directory.current.end()) return errno_code(ENOENT);
  directory.pending.push_back({DirOp::kUnlink, name, "", it->second});
  directory.current.erase(it);
  return {};
}

std::error_code MemoryFs::stat(int fd, FileInfo& info) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(Op::kStat)) return ec;
  Handle* h = handle(fd);
  if (h == nullptr || !h->inode) return errno_code(EBADF);
  info = FileInfo{1, h->inode->number, links(*h->inode),
                  static_cast<std::int64_t>(h->inode->current.size()), true};
  return {};
}

std::error_code MemoryFs::stat_at(int dir, const std::string& name, FileInfo& info) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(Op::kStat)) return ec;
  Handle* d = handle(dir);
  if (d == nullptr) return errno_code(EBADF);
  const auto& entries = directories_[d->directory].current;
  const auto it = entries.find(name);
  if (it == entries.end()) return errno_code(ENOENT);
  info = FileInfo{1, it->second->number, links(*it->second),
                  static_cast<std::int64_t>(it->second->current.size()), true};
  return {};
}

std::error_code MemoryFs::lock(int fd) {
  std::lock_guard<std::mutex> guard(mutex_);
  if (auto ec = inject(Op::kLock)) return ec;
  Handle* h = handle(fd);
  if (h == nullptr || !h->inode) return errno_code(EBADF);
  if (h->inode->lock_owner >= 0 && h->inode->lock_owner != fd) return errno_code(EAGAIN);
  h->inode->lock_owner = fd;
  return {};
}

void MemoryFs::close(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  Handle* h = handle(fd);
  if (h == nullptr) return;
  if (h->inode && h->inode->lock_owner == fd) h->inode->lock_owner = -1;
  handles_.erase(fd);
}

}  // namespace cosid::testing
