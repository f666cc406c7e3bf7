// SPDX-License-Identifier: Apache-2.0
// The file stores' shared record machinery (locked_record.h).
#include "store/locked_record.h"

#include <errno.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "base/cancel.h"
#include "base/crc32c.h"
#include "base/fail.h"
#include "base/time_format.h"

namespace cosid {
namespace detail {
namespace {

// Lock polling: first sleep and the largest one.
constexpr std::int64_t kFirstLockSleepNs = 1000000;
constexpr std::int64_t kMaxLockSleepNs = 32000000;
// How often one call locks the lock file anew after finding it removed or replaced under its lock
// before it gives up: once is what a stray `rm` costs; more means something keeps doing it.
constexpr int kMaxLockFileChanges = 3;

}  // namespace

bool is_errno(const std::error_code& ec, int error) {
  return ec.category() == std::generic_category() && ec.value() == error;
}

namespace {

// `text` as one shell word: as it is when it holds nothing a shell would split or expand.
std::string shell_word(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("/._-:+,=@%", c) != nullptr;
  });
  if (plain) return text;
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

bool empty_directory(const FileStoreKind& kind, Status& status) {
  return fail(status, errc::invalid_argument,
              std::string("the ") + kind.name +
                  "'s directory is empty: give a directory on a local disk, such as " +
                  kind.example);
}

// The refusal of a store whose directory is missing (store_not_initialized).
bool directory_missing(const FileStoreKind& kind, const std::string& directory, Status& status) {
  return fail(status, errc::store_not_initialized,
              std::string("the ") + kind.name + "'s directory " + directory +
                  " does not exist, and cosid never creates a store on first use: a new store "
                  "starts every " +
                  kind.records +
                  " from zero, so if this store existed, it was moved or the path is mistyped, "
                  "and ids would repeat. Check the path; if the store is meant to be new, create "
                  "it once with: cosid store init --store file:" +
                  shell_word(directory));
}

// The sentences of the refusals below, at the end of this file.
std::string negative_lock_timeout_message(const FileStoreKind& kind,
                                          std::chrono::milliseconds lock_timeout);
std::string cannot_open_directory_message(const FileStoreKind& kind, const std::string& directory,
                                          const std::error_code& io);
std::string lock_file_keeps_changing_message(const RecordDirectory& dir, const std::string& name,
                                             int changes);
std::string lock_timed_out_message(const RecordDirectory& dir, const std::string& name);
std::string waiting_for_lock_text(const RecordDirectory& dir, const std::string& name);

// The parent of `directory` (without trailing slashes) and its last component.
void split_directory(std::string directory, std::string& parent, std::string& name) {
  while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
  const std::size_t slash = directory.rfind('/');
  if (slash == std::string::npos) {
    parent = ".";
    name = directory;
  } else {
    parent = slash == 0 ? "/" : directory.substr(0, slash);
    name = directory.substr(slash + 1);
  }
}

bool cannot_create(const FileStoreKind& kind, const std::string& directory, const std::string& why,
                   Status& status) {
  return fail(
      status, errc::store_unavailable,
      std::string("cannot create the ") + kind.name + "'s directory " + directory + ": " + why);
}

}  // namespace

bool open_record_directory(const std::string& directory, std::chrono::milliseconds lock_timeout,
                           FileSystem& fs, const FileStoreKind& kind, int& fd, Status& status) {
  if (directory.empty()) return empty_directory(kind, status);
  if (lock_timeout.count() < 0) {
    return fail(status, errc::invalid_argument, negative_lock_timeout_message(kind, lock_timeout));
  }
  const std::error_code io = fs.open_directory(directory, fd);
  if (is_errno(io, ENOENT)) return directory_missing(kind, directory, status);
  if (io) {
    return fail(status, errc::store_unavailable,
                cannot_open_directory_message(kind, directory, io));
  }
  return true;
}

bool init_record_directory(const std::string& directory, FileSystem& fs, bool& created,
                           Status& status) {
  // One directory may hold both kinds of record: its init names neither.
  constexpr FileStoreKind kind{"file store", "/var/lib/cosid/ids", "slot and key"};
  created = false;
  if (directory.empty()) return empty_directory(kind, status);
  std::string parent;
  std::string name;
  split_directory(directory, parent, name);
  int parent_fd = -1;
  std::error_code io = fs.open_directory(parent, parent_fd);
  if (io) {
    return cannot_create(kind, directory,
                         "its parent " + parent + " cannot be opened (" + io.message() +
                             "). cosid creates only the last component, so that a mistyped "
                             "parent is never made: create the parent, or correct the path",
                         status);
  }
  // "/", "." and ".." name a directory that exists: nothing to make.
  const bool itself = name.empty() || name == "." || name == "..";
  io = itself ? std::make_error_code(std::errc::file_exists) : fs.make_directory(parent_fd, name);
  const bool existed = is_errno(io, EEXIST);
  // Synced even when it existed: an earlier init whose sync failed left an entry that a crash
  // could still take away.
  if (!io || existed) io = fs.sync(parent_fd);
  fs.close(parent_fd);
  if (io) {
    return cannot_create(kind, directory,
                         io.message() +
                             "; whether it exists durably is unknown: check the disk and the "
                             "parent's permissions, then run the init again (it is safe to "
                             "repeat)",
                         status);
  }
  if (existed) {  // an existing store is left as it is, if it is a directory
    int fd = -1;
    io = fs.open_directory(directory, fd);
    if (io) {
      return cannot_create(kind, directory,
                           "something of that name exists and is not a directory this process "
                           "can open (" +
                               io.message() + "): move it aside, or choose another path",
                           status);
    }
    fs.close(fd);
    return true;
  }
  created = true;
  return true;
}

bool io_failure(const RecordDirectory& dir, const std::string& what, const std::error_code& error,
                Status& status) {
  return fail(status, errc::store_unavailable,
              std::string(dir.store_name) + " " + dir.path + ": cannot " + what + ": " +
                  error.message() +
                  "; whether the change was made is unknown, and retrying it is safe (a retry "
                  "answers only once it made its record durable). Check that the directory is "
                  "on a local, writable, non-full disk");
}

RecordLock::~RecordLock() {
  if (fd_ >= 0) dir_.fs.close(fd_);  // releases the OFD lock
}

bool RecordLock::lock(const std::string& name, Status& status, const std::atomic<bool>* cancel) {
  const std::int64_t deadline = dir_.wait_clock.monotonic_ns() + to_nanos(dir_.lock_timeout);
  for (int changes = 0;; ++changes) {
    if (changes > kMaxLockFileChanges) {
      return fail(status, errc::store_unavailable,
                  lock_file_keeps_changing_message(dir_, name, changes));
    }
    if (!lock_once(name, deadline, cancel, status)) return false;
    FileInfo locked;
    FileInfo at_path;
    std::error_code io = dir_.fs.stat(fd_, locked);
    if (io) return io_failure(dir_, "stat the locked " + name, io, status);
    io = dir_.fs.stat_at(dir_.fd, name, at_path);
    if (io && !is_errno(io, ENOENT)) return io_failure(dir_, "stat " + name, io, status);
    if (!io && locked.links > 0 && locked.device == at_path.device &&
        locked.inode == at_path.inode) {
      return true;
    }
    // Removed or replaced: this lock excludes nobody. Lock what the path names now.
    dir_.fs.close(fd_);
    fd_ = -1;
  }
}

// Opens the lock file (creating it) and locks it, waiting until `deadline` (monotonic ns).
bool RecordLock::lock_once(const std::string& name, std::int64_t deadline,
                           const std::atomic<bool>* cancel, Status& status) {
  std::error_code io = dir_.fs.open_shared(dir_.fd, name, /*truncate=*/false, fd_);
  if (io) {
    fd_ = -1;
    return io_failure(dir_, "open " + name, io, status);
  }
  std::int64_t sleep_ns = kFirstLockSleepNs;
  for (;;) {
    io = dir_.fs.lock(fd_);
    if (!io) return true;
    if (!is_errno(io, EAGAIN) && !is_errno(io, EACCES)) {
      return io_failure(dir_, "lock " + name, io, status);
    }
    if (dir_.wait_clock.monotonic_ns() >= deadline) {
      return fail(status, errc::store_unavailable, lock_timed_out_message(dir_, name));
    }
    if (!sleep_unless_cancelled(dir_.wait_clock, std::chrono::nanoseconds(sleep_ns), cancel)) {
      return start_cancelled(status, waiting_for_lock_text(dir_, name),
                             "nothing was changed in the store");
    }
    sleep_ns = std::min(sleep_ns * 2, kMaxLockSleepNs);
  }
}

bool replace_durably(const RecordDirectory& dir, const std::string& tmp, const std::string& name,
                     const std::string& data, Status& status) {
  int fd = -1;
  std::error_code io = dir.fs.open_shared(dir.fd, tmp, /*truncate=*/true, fd);
  if (io) return io_failure(dir, "create " + tmp, io, status);
  // fsync before the rename: the new name must never point at data that is not on disk yet.
  io = dir.fs.write_at(fd, data.data(), data.size(), 0);
  if (!io) io = dir.fs.sync(fd);
  dir.fs.close(fd);
  if (io) return io_failure(dir, "write and sync " + tmp, io, status);
  io = dir.fs.rename_replace(dir.fd, tmp, name);
  if (io) return io_failure(dir, "rename " + tmp + " over " + name, io, status);
  // fsync the directory: until the rename is durable, a crash could bring the old record back
  // after a caller was told of a change the store would then have forgotten. When it fails, the
  // new record may be in place for every reader yet not on the disk: the stores answer a retry
  // only after a write of its own (each store's header says which calls write).
  io = dir.fs.sync(dir.fd);
  if (io) return io_failure(dir, "sync the directory after renaming " + name, io, status);
  return true;
}

bool read_record(const RecordDirectory& dir, const std::string& name, bool& exists,
                 std::string& data, Status& status) {
  exists = false;
  data.clear();
  int fd = -1;
  std::error_code io = dir.fs.open_for_reading(dir.fd, name, fd);
  if (is_errno(io, ENOENT)) return true;
  if (io) return io_failure(dir, "open " + name, io, status);
  // The size is stable: the record is only ever replaced whole, by a rename under the lock.
  FileInfo info;
  io = dir.fs.stat(fd, info);
  if (!io && info.size > 0) {
    data.resize(static_cast<std::size_t>(info.size));
    io = dir.fs.read_at(fd, &data[0], data.size(), 0);
  }
  dir.fs.close(fd);
  if (io) return io_failure(dir, "read " + name, io, status);
  exists = true;
  return true;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = text.find(separator, start);
    if (at == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
}

bool split_at_end_line(std::string_view text, std::string_view& body,
                       std::vector<std::string_view>& fields, std::string& why) {
  const std::size_t end_at = text.rfind("end ");
  if (text.empty() || text.back() != '\n' || end_at == std::string_view::npos ||
      (end_at != 0 && text[end_at - 1] != '\n')) {
    why = "it has no end line (a torn or truncated write)";
    return false;
  }
  body = text.substr(0, end_at);
  fields = split(text.substr(end_at, text.size() - end_at - 1), ' ');
  if (fields.size() < 2 || fields.back() != crc_text(body)) {
    why = "its checksum or end line does not match its content";
    return false;
  }
  fields.erase(fields.begin());  // "end"
  fields.pop_back();             // the CRC, checked
  return true;
}

std::string crc_text(std::string_view body) {
  char crc[9];
  std::snprintf(crc, sizeof crc, "%08x", mask_crc(crc32c(body.data(), body.size())));
  return crc;
}

// ---------------------------------------------------------------------------------------------
// The sentences.

namespace {

std::string negative_lock_timeout_message(const FileStoreKind& kind,
                                          std::chrono::milliseconds lock_timeout) {
  return std::string("the ") + kind.name + "'s lock timeout is " +
         std::to_string(lock_timeout.count()) + " ms: give 0 or more";
}

std::string cannot_open_directory_message(const FileStoreKind& kind, const std::string& directory,
                                          const std::error_code& io) {
  return std::string("cannot open the ") + kind.name + "'s directory " + directory + ": " +
         io.message() + "; give a directory this process may read and write";
}

std::string lock_file_keeps_changing_message(const RecordDirectory& dir, const std::string& name,
                                             int changes) {
  return std::string(dir.store_name) + " " + dir.path + ": " + name + " was removed or replaced " +
         std::to_string(changes) +
         " times while this call locked it: something removes files in the store's directory; "
         "stop it (the lock file must stay while any process uses the store), then retry";
}

std::string lock_timed_out_message(const RecordDirectory& dir, const std::string& name) {
  return std::string(dir.store_name) + " " + dir.path + ": " + name +
         " stayed locked by another process or thread for the whole lock timeout of " +
         std::to_string(dir.lock_timeout.count()) +
         " ms; retry, or find the process that holds it (fuser " + dir.path + "/" + name + ")";
}

std::string waiting_for_lock_text(const RecordDirectory& dir, const std::string& name) {
  return "while waiting for " + name + " of " + std::string(dir.store_name) + " " + dir.path +
         ", which another process or thread holds";
}

}  // namespace

}  // namespace detail
}  // namespace cosid
