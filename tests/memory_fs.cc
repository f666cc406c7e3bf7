#include "memory_fs.h"

#include <cerrno>
#include <cstring>

namespace cosid::testing {
namespace {

std::error_code errno_code(int value) { return {value, std::generic_category()}; }

void split(const std::string& path, std::string& dir, std::string& name) {
  const std::size_t slash = path.rfind('/');
  dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  name = slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

MemoryFs::MemoryFs() { directories_["."]; }

void MemoryFs::fail(Op op, int error, int nth, bool persistent) {
  std::lock_guard<std::mutex> lock(mutex_);
  faults_.push_back({op, error, nth, persistent});
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

std::error_code MemoryFs::inject(Op op) {
  ++calls_[op];
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (it->op != op) continue;
    if (it->countdown > 1) {
      --it->countdown;
      continue;
    }
    const int error = it->error;
    if (!it->persistent) faults_.erase(it);
    return errno_code(error);
  }
  return {};
}

void MemoryFs::crash() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [path, dir] : directories_) {
    dir.current = dir.durable;
    for (auto& [name, inode] : dir.current) {
      inode->current = inode->durable;
      inode->lock_owner = -1;
    }
  }
  handles_.clear();
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
  slot->current = slot->durable = bytes;
  directories_[dir].durable[name] = slot;
}

void MemoryFs::remove(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string dir;
  std::string name;
  split(path, dir, name);
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
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(Op::kOpen)) return ec;
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
  auto& entries = directories_[d->directory].current;
  if (entries.count(name) != 0) return errno_code(EEXIST);
  auto inode = std::make_shared<Inode>();
  inode->number = next_inode_++;
  entries[name] = inode;
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

std::error_code MemoryFs::write_at(int fd, const void* data, std::size_t size,
                                   std::int64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(Op::kWrite)) return ec;
  Handle* h = handle(fd);
  if (h == nullptr || !h->inode) return errno_code(EBADF);
  auto& bytes = h->inode->current;
  const std::size_t end = static_cast<std::size_t>(offset) + size;
  if (bytes.size() < end) bytes.resize(end);
  std::memcpy(bytes.data() + offset, data, size);
  return {};
}

std::error_code MemoryFs::sync(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(Op::kSync)) return ec;
  Handle* h = handle(fd);
  if (h == nullptr) return errno_code(EBADF);
  if (h->inode) {
    h->inode->durable = h->inode->current;
  } else {
    Directory& d = directories_[h->directory];
    d.durable = d.current;
  }
  return {};
}

std::error_code MemoryFs::sync_data(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  // A failed fdatasync leaves the disk as it was and the page cache with the new bytes, which
  // the kernel then marks clean: the worst case a restart without a reboot can see.
  if (auto ec = inject(Op::kSyncData)) return ec;
  Handle* h = handle(fd);
  if (h == nullptr || !h->inode) return errno_code(EBADF);
  h->inode->durable = h->inode->current;
  return {};
}

std::error_code MemoryFs::rename_noreplace(int dir, const std::string& from,
                                           const std::string& to) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(Op::kRename)) return ec;
  Handle* d = handle(dir);
  if (d == nullptr) return errno_code(EBADF);
  auto& entries = directories_[d->directory].current;
  const auto it = entries.find(from);
  if (it == entries.end()) return errno_code(ENOENT);
  if (entries.count(to) != 0) return errno_code(EEXIST);
  entries[to] = it->second;
  entries.erase(it);
  return {};
}

std::error_code MemoryFs::unlink(int dir, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto ec = inject(Op::kUnlink)) return ec;
  Handle* d = handle(dir);
  if (d == nullptr) return errno_code(EBADF);
  return directories_[d->directory].current.erase(name) == 1 ? std::error_code()
                                                             : errno_code(ENOENT);
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
