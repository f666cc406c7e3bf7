// FileLeaseStore (lease/file_store.h).
//
// On-disk format. The directory holds, per namespace N, with N's bytes outside [A-Za-z0-9_.-]
// written as %XX (upper-case hex):
//
//   ns.N.lock   empty; its OFD write lock serialises every change of N. Never renamed or removed,
//               so every process locks the same inode.
//   ns.N.lease  the namespace's record, replaced whole by every change; absent until N is first
//               used.
//   ns.N.tmp    the next record while it is written; a leftover from a crash is overwritten.
//
// ns.N.lease is ASCII text, one line per item, fields separated by one space, each line ending in
// '\n':
//
//   cosid-lease-store 1
//   terms SLOT_LIMIT TOLERANCE_MS
//   slot SLOT HELD FENCE EXPIRES_AT FLOOR CEILING NEXT_FLOOR INCARNATION =KEY =LAST_OWNER_KEY
//   ...                                     (one line per slot ever acquired, in slot order)
//   end COUNT CRC
//
// HELD is 0 or 1; times are signed Unix ms of the store clock; INCARNATION is the UUID text, or
// "-" when the slot is not held; KEY (empty when not held) and LAST_OWNER_KEY follow a '=' and are
// escaped like N. COUNT is the number of slot lines; CRC is 8 lower-case hex digits of the masked
// CRC32C (src/crc32c.h) of every byte before "end". Numbers are written in their shortest form and
// read back only in it; anything else is store_corrupt.
//
// The store calls POSIX directly rather than through the FileSystem seam (cosid/fs.h): the seam has
// no rename over an existing file, no truncating create and no way to wait for a lock, and what
// matters here (OFD locks between processes, rename atomicity) is only tested for real, with real
// files and forked processes (the conformance kit and tests/file_store_test.cc).
#include "cosid/lease/file_store.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cosid/lease/store_rules.h"
#include "crc32c.h"
#include "fail.h"
#include "parse_util.h"
#include "time_format.h"

namespace cosid {
namespace lease {
namespace {

constexpr char kMagicLine[] = "cosid-lease-store 1";
// A namespace longer than this, escaped, would not fit a file name (255 bytes) with its prefix
// and suffix.
constexpr std::size_t kMaxEscapedNamespace = 240;
// Lock polling: first sleep and the largest one.
constexpr std::int64_t kFirstLockSleepNs = 1000000;
constexpr std::int64_t kMaxLockSleepNs = 32000000;

using detail::fail;

std::string errno_text(int error) { return std::string(std::strerror(error)); }

bool keeps_as_is(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

std::string escape(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    if (keeps_as_is(c)) {
      out.push_back(c);
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0x0f]);
    }
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The inverse of escape(), accepting only what escape() writes.
bool unescape(std::string_view text, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      if (!keeps_as_is(text[i])) return false;
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return false;
    const int high = hex_digit(text[i + 1]);
    const int low = hex_digit(text[i + 2]);
    if (high < 0 || low < 0) return false;
    const char c = static_cast<char>(high << 4 | low);
    if (keeps_as_is(c)) return false;  // escape() would have written it as is
    out.push_back(c);
    i += 2;
  }
  return true;
}

template <typename Int>
bool parse_int(std::string_view text, Int& value) {
  if (text.empty()) return false;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  // Only the shortest form: no leading zeros, no "-0", no '+'.
  return result.ec == std::errc() && result.ptr == text.data() + text.size() &&
         std::to_string(value) == text;
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

// The namespace's record as it is on disk.
struct NamespaceFile {
  bool exists = false;
  NamespaceTerms terms;
  std::vector<SlotRecord> slots;  // in slot order

  SlotRecord* find(std::uint32_t slot) {
    for (SlotRecord& record : slots) {
      if (record.slot == slot) return &record;
    }
    return nullptr;
  }

  void put(const SlotRecord& record) {
    SlotRecord* known = find(record.slot);
    if (known != nullptr) {
      *known = record;
      return;
    }
    slots.push_back(record);
    std::sort(slots.begin(), slots.end(),
              [](const SlotRecord& a, const SlotRecord& b) { return a.slot < b.slot; });
  }
};

std::string format_record(const NamespaceFile& file) {
  std::string text = std::string(kMagicLine) + "\n";
  text += "terms " + std::to_string(file.terms.slot_limit) + " " +
          std::to_string(file.terms.tolerance.count()) + "\n";
  for (const SlotRecord& r : file.slots) {
    text += "slot " + std::to_string(r.slot) + " " + (r.held ? "1" : "0") + " " +
            std::to_string(r.fence) + " " + std::to_string(r.expires_at) + " " +
            std::to_string(r.floor) + " " + std::to_string(r.ceiling) + " " +
            std::to_string(r.next_floor) + " " + (r.held ? r.owner.incarnation.to_string() : "-") +
            " =" + escape(r.held ? r.owner.key : std::string()) + " =" + escape(r.last_owner_key) +
            "\n";
  }
  char crc[9];
  std::snprintf(crc, sizeof crc, "%08x",
                detail::mask_crc(detail::crc32c(text.data(), text.size())));
  text += "end " + std::to_string(file.slots.size()) + " " + crc + "\n";
  return text;
}

bool parse_slot_line(const std::vector<std::string_view>& f, SlotRecord& r, std::string& why) {
  if (f.size() != 11) {
    why = "a slot line has " + std::to_string(f.size()) + " fields, not 11";
    return false;
  }
  std::string key;
  if (!parse_int(f[1], r.slot) || (f[2] != "0" && f[2] != "1") || !parse_int(f[3], r.fence) ||
      !parse_int(f[4], r.expires_at) || !parse_int(f[5], r.floor) || !parse_int(f[6], r.ceiling) ||
      !parse_int(f[7], r.next_floor) || f[9].empty() || f[9][0] != '=' ||
      !unescape(f[9].substr(1), key) || f[10].empty() || f[10][0] != '=' ||
      !unescape(f[10].substr(1), r.last_owner_key)) {
    why = "a slot line does not parse";
    return false;
  }
  r.held = f[2] == "1";
  if (r.held) {
    if (!Incarnation::parse(std::string(f[8]), r.owner.incarnation) ||
        r.owner.incarnation.is_nil() || key.empty()) {
      why = "slot " + std::to_string(r.slot) + " is held with no valid owner";
      return false;
    }
    r.owner.key = key;
  } else if (f[8] != "-" || !key.empty()) {
    why = "slot " + std::to_string(r.slot) + " is free but names an owner";
    return false;
  }
  if (r.floor > r.ceiling || r.floor > r.next_floor) {
    why = "slot " + std::to_string(r.slot) + " has a floor above its ceiling or next floor";
    return false;
  }
  return true;
}

// Reads `text` into `file`; false with `why` for anything format_record() would not have written.
bool parse_record(std::string_view text, NamespaceFile& file, std::string& why) {
  const std::size_t end_at = text.rfind("end ");
  if (text.empty() || text.back() != '\n' || end_at == std::string_view::npos ||
      (end_at != 0 && text[end_at - 1] != '\n')) {
    why = "it has no end line (a torn or truncated write)";
    return false;
  }
  const std::string_view body = text.substr(0, end_at);
  const auto end_fields = split(text.substr(end_at, text.size() - end_at - 1), ' ');
  std::size_t count = 0;
  char crc[9];
  std::snprintf(crc, sizeof crc, "%08x",
                detail::mask_crc(detail::crc32c(body.data(), body.size())));
  if (end_fields.size() != 3 || !parse_int(end_fields[1], count) || end_fields[2] != crc) {
    why = "its checksum or end line does not match its content";
    return false;
  }
  const auto lines = split(body.substr(0, body.size() - 1), '\n');
  if (body.empty() || lines.size() < 2 || lines[0] != kMagicLine) {
    why = "it does not start with \"" + std::string(kMagicLine) + "\"";
    return false;
  }
  const auto terms = split(lines[1], ' ');
  std::int64_t tolerance = 0;
  std::error_code terms_ec;
  if (terms.size() != 3 || terms[0] != "terms" || !parse_int(terms[1], file.terms.slot_limit) ||
      !parse_int(terms[2], tolerance) ||
      !check_terms("-", NamespaceTerms{file.terms.slot_limit, std::chrono::milliseconds(tolerance)},
                   terms_ec, nullptr)) {
    why = "its terms line is not valid";
    return false;
  }
  file.terms.tolerance = std::chrono::milliseconds(tolerance);
  if (lines.size() - 2 != count) {
    why = "it has " + std::to_string(lines.size() - 2) + " slot lines, its end line says " +
          std::to_string(count);
    return false;
  }
  file.slots.clear();
  for (std::size_t i = 2; i < lines.size(); ++i) {
    const auto fields = split(lines[i], ' ');
    SlotRecord record;
    if (fields.empty() || fields[0] != "slot" || !parse_slot_line(fields, record, why)) {
      if (why.empty()) why = "line " + std::to_string(i + 1) + " is not a slot line";
      return false;
    }
    if (record.slot >= file.terms.slot_limit ||
        (!file.slots.empty() && record.slot <= file.slots.back().slot)) {
      why = "slot " + std::to_string(record.slot) + " is out of order or beyond the limit";
      return false;
    }
    file.slots.push_back(record);
  }
  file.exists = true;
  return true;
}

int retry_open(int dir, const std::string& name, int flags) {
  for (;;) {
    const int fd = ::openat(dir, name.c_str(), flags | O_CLOEXEC | O_NOFOLLOW, 0660);
    if (fd >= 0 || errno != EINTR) return fd;
  }
}

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t wrote = ::write(fd, data.data() + done, data.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      if (wrote == 0) errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(wrote);
  }
  return true;
}

bool read_all(int fd, std::string& data) {
  data.clear();
  char buffer[8192];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) return true;
    data.append(buffer, static_cast<std::size_t>(got));
  }
}

}  // namespace

// One change of one namespace: holds its lock from construction to destruction, reads its record,
// and writes it back if asked. Used for every call, reads included, so each call sees a record no
// other process is half-way through changing and decides on a store clock read under the lock.
class FileLeaseStore::Transaction {
 public:
  Transaction(FileLeaseStore& store, const std::string& name_space)
      : store_(store),
        name_space_(name_space),
        base_("ns." + escape(name_space)),
        shown_path_(store.directory_ + "/" + base_ + ".lease") {}
  ~Transaction() {
    if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the OFD lock
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // Locks, reads the record, and checks or records the terms. On success `file` holds the
  // namespace and `now` the store clock read under the lock.
  bool begin(const NamespaceTerms& terms, NamespaceFile& file, std::int64_t& now,
             std::error_code& ec, std::string* message) {
    if (base_.size() > kMaxEscapedNamespace) {
      return fail(errc::invalid_argument, ec, message,
                  "namespace " + detail::quote(name_space_) +
                      " is too long for a file lease store: its file name would be " +
                      std::to_string(base_.size()) + " bytes; use a namespace of at most " +
                      "about 80 bytes");
    }
    if (!lock(ec, message) || !read(file, ec, message)) return false;
    if (!file.exists) {
      // A new namespace: its terms are recorded with this call's commit().
      file.terms = terms;
      file.exists = true;
      unrecorded_ = true;
    } else if (!check_recorded_terms(name_space_, file.terms, terms, ec, message)) {
      return false;
    }
    now = store_.clock_.now_ms();
    return true;
  }

  // Writes `file` back if `changed`, or if the namespace is new: one write per call at most.
  bool commit(const NamespaceFile& file, bool changed, std::error_code& ec, std::string* message) {
    return (!changed && !unrecorded_) || write(file, ec, message);
  }

 private:
  bool write(const NamespaceFile& file, std::error_code& ec, std::string* message) {
    const std::string tmp = base_ + ".tmp";
    const std::string data = format_record(file);
    const int fd = retry_open(store_.directory_fd_, tmp, O_WRONLY | O_CREAT | O_TRUNC);
    if (fd < 0) return io_failure("create " + tmp, errno, ec, message);
    // fsync before the rename: the new name must never point at data that is not on disk yet.
    const bool written = write_all(fd, data) && ::fsync(fd) == 0;
    const int write_error = errno;
    ::close(fd);
    if (!written) return io_failure("write and sync " + tmp, write_error, ec, message);
    if (::renameat(store_.directory_fd_, tmp.c_str(), store_.directory_fd_,
                   (base_ + ".lease").c_str()) != 0) {
      return io_failure("rename " + tmp + " over " + base_ + ".lease", errno, ec, message);
    }
    // fsync the directory: until the rename is durable, a crash could bring the old record back
    // after a caller was told it holds a lease the store would then have forgotten.
    if (::fsync(store_.directory_fd_) != 0) {
      return io_failure("sync the directory after renaming " + base_ + ".lease", errno, ec,
                        message);
    }
    return true;
  }

  bool io_failure(const std::string& what, int error, std::error_code& ec, std::string* message) {
    return fail(errc::store_unavailable, ec, message,
                "file lease store " + store_.directory_ + ": cannot " + what + ": " +
                    errno_text(error) +
                    "; whether the change was made is unknown, and retrying it is safe. Check "
                    "that the directory is on a local, writable, non-full disk");
  }

  bool lock(std::error_code& ec, std::string* message) {
    const std::string name = base_ + ".lock";
    lock_fd_ = retry_open(store_.directory_fd_, name, O_RDWR | O_CREAT);
    if (lock_fd_ < 0) return io_failure("open " + name, errno, ec, message);
    const std::int64_t deadline =
        store_.system_clock_.monotonic_ns() + detail::to_nanos(store_.lock_timeout_);
    std::int64_t sleep_ns = kFirstLockSleepNs;
    for (;;) {
      struct flock request;
      std::memset(&request, 0, sizeof request);
      request.l_type = F_WRLCK;
      request.l_whence = SEEK_SET;  // l_start = l_len = 0: the whole file
      if (::fcntl(lock_fd_, F_OFD_SETLK, &request) == 0) return true;
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EACCES) return io_failure("lock " + name, errno, ec, message);
      if (store_.system_clock_.monotonic_ns() >= deadline) {
        return fail(errc::store_unavailable, ec, message,
                    "file lease store " + store_.directory_ + ": " + name +
                        " stayed locked by another process or thread for the whole lock "
                        "timeout of " +
                        std::to_string(store_.lock_timeout_.count()) +
                        " ms; retry, or find the process that holds it (fuser " +
                        store_.directory_ + "/" + name + ")");
      }
      store_.system_clock_.sleep_for(std::chrono::nanoseconds(sleep_ns));
      sleep_ns = std::min(sleep_ns * 2, kMaxLockSleepNs);
    }
  }

  bool read(NamespaceFile& file, std::error_code& ec, std::string* message) {
    const std::string name = base_ + ".lease";
    const int fd = retry_open(store_.directory_fd_, name, O_RDONLY);
    if (fd < 0 && errno == ENOENT) return true;  // a namespace never used
    if (fd < 0) return io_failure("open " + name, errno, ec, message);
    std::string data;
    const bool read_ok = read_all(fd, data);
    const int read_error = errno;
    ::close(fd);
    if (!read_ok) return io_failure("read " + name, read_error, ec, message);
    std::string why;
    if (!parse_record(data, file, why)) {
      return fail(errc::store_corrupt, ec, message,
                  "file lease store record " + shown_path_ + " of namespace " +
                      detail::quote(name_space_) + " is corrupt: " + why +
                      ". cosid will not guess the floors it held. Restore it from a backup, or "
                      "remove it once every process of the namespace has been stopped for "
                      "longer than ttl + tolerance (slots then start over from floor 0, which "
                      "relies on the clocks)");
    }
    return true;
  }

  FileLeaseStore& store_;
  const std::string& name_space_;
  const std::string base_;
  const std::string shown_path_;
  int lock_fd_ = -1;
  bool unrecorded_ = false;  // the namespace is new and not on disk yet
};

FileLeaseStore::FileLeaseStore(std::string directory, int directory_fd,
                               const FileLeaseStoreOptions& options)
    : directory_(std::move(directory)),
      directory_fd_(directory_fd),
      clock_(options.clock != nullptr ? *options.clock : system_clock_),
      lock_timeout_(options.lock_timeout) {}

FileLeaseStore::~FileLeaseStore() { ::close(directory_fd_); }

std::unique_ptr<FileLeaseStore> FileLeaseStore::open(const std::string& directory,
                                                     const FileLeaseStoreOptions& options,
                                                     std::error_code& ec, std::string* message) {
  if (directory.empty()) {
    fail(errc::invalid_argument, ec, message,
         "the file lease store's directory is empty: give a directory on a local disk, such as "
         "/var/lib/cosid/leases");
    return nullptr;
  }
  if (options.lock_timeout.count() < 0) {
    fail(errc::invalid_argument, ec, message,
         "the file lease store's lock timeout is " + std::to_string(options.lock_timeout.count()) +
             " ms: give 0 or more");
    return nullptr;
  }
  if (::mkdir(directory.c_str(), 0770) != 0 && errno != EEXIST) {
    fail(errc::store_unavailable, ec, message,
         "cannot create the file lease store's directory " + directory + ": " + errno_text(errno) +
             "; create it, or give a directory whose parent exists");
    return nullptr;
  }
  int fd = -1;
  do {
    fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    fail(errc::store_unavailable, ec, message,
         "cannot open the file lease store's directory " + directory + ": " + errno_text(errno) +
             "; give a directory this process may read and write");
    return nullptr;
  }
  ec.clear();
  return std::unique_ptr<FileLeaseStore>(new FileLeaseStore(directory, fd, options));
}

#if COSID_HAS_EXCEPTIONS
std::unique_ptr<FileLeaseStore> FileLeaseStore::open(const std::string& directory,
                                                     const FileLeaseStoreOptions& options) {
  std::error_code ec;
  std::string message;
  auto store = open(directory, options, ec, &message);
  if (store == nullptr) detail::throw_error(ec, message);
  return store;
}
#endif

bool FileLeaseStore::scan(const std::string& name_space, const NamespaceTerms& terms,
                          std::vector<SlotRecord>& records, std::int64_t& store_now,
                          std::error_code& ec, std::string* message) {
  if (!check_scan(name_space, terms, ec, message)) return false;
  Transaction transaction(*this, name_space);
  NamespaceFile file;
  if (!transaction.begin(terms, file, store_now, ec, message) ||
      !transaction.commit(file, false, ec, message)) {
    return false;
  }
  records = std::move(file.slots);
  ec.clear();
  return true;
}

bool FileLeaseStore::acquire(const AcquireRequest& request, AcquireOutcome& outcome,
                             SlotLease& lease, SlotRecord& record, std::error_code& ec,
                             std::string* message) {
  if (!check_acquire(request, ec, message)) return false;
  Transaction transaction(*this, request.name_space);
  NamespaceFile file;
  std::int64_t now = 0;
  if (!transaction.begin(request.terms, file, now, ec, message)) return false;
  SlotRecord current;
  current.slot = request.slot;
  if (const SlotRecord* known = file.find(request.slot)) current = *known;
  const std::uint64_t fence_before = current.fence;
  SlotLease acquired;
  const AcquireOutcome decided = apply_acquire(current, request, now, acquired);
  // A retry by the holder changes nothing and needs no write.
  const bool changed = decided == AcquireOutcome::kAcquired && current.fence != fence_before;
  if (changed) file.put(current);
  if (!transaction.commit(file, changed, ec, message)) return false;
  outcome = decided;
  lease = acquired;
  record = current;
  ec.clear();
  return true;
}

bool FileLeaseStore::renew(const SlotLease& held, const NamespaceTerms& terms,
                           std::chrono::milliseconds ttl, SlotLease& renewed, std::error_code& ec,
                           std::string* message) {
  if (!check_held(held, terms, ttl, ec, message)) return false;
  Transaction transaction(*this, held.name_space);
  NamespaceFile file;
  std::int64_t now = 0;
  if (!transaction.begin(terms, file, now, ec, message)) return false;
  SlotRecord current;
  current.slot = held.slot;
  if (const SlotRecord* known = file.find(held.slot)) current = *known;
  SlotLease result;
  if (!apply_renew(current, held, terms, ttl, now, result, ec, message)) return false;
  file.put(current);
  if (!transaction.commit(file, true, ec, message)) return false;
  renewed = result;
  ec.clear();
  return true;
}

bool FileLeaseStore::release(const SlotLease& held, const NamespaceTerms& terms,
                             std::int64_t last_issued, std::error_code& ec, std::string* message) {
  if (!check_held(held, terms, std::chrono::milliseconds(1), ec, message)) return false;
  Transaction transaction(*this, held.name_space);
  NamespaceFile file;
  std::int64_t now = 0;
  if (!transaction.begin(terms, file, now, ec, message)) return false;
  SlotRecord current;
  current.slot = held.slot;
  if (const SlotRecord* known = file.find(held.slot)) current = *known;
  if (!apply_release(current, held, last_issued, ec, message)) return false;
  file.put(current);
  if (!transaction.commit(file, true, ec, message)) return false;
  ec.clear();
  return true;
}

}  // namespace lease
}  // namespace cosid
