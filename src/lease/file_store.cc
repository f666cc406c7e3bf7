// SPDX-License-Identifier: Apache-2.0
// FileLeaseStore (lease/file_store.h).
//
// On-disk format. The directory holds, per namespace N, with N's bytes outside [A-Za-z0-9_.-]
// written as %XX (upper-case hex):
//
//   ns.N.lock   empty; its OFD write lock serialises every change of N. Never renamed or removed
//               by cosid, so every process locks the same inode; a call that finds, once it
//               holds the lock, that the path names another inode (someone removed or replaced
//               the file) drops that lock and locks the file at the path instead.
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
// CRC32C (src/base/crc32c.h) of every byte before "end". Numbers are written in their shortest form
// and read back only in it; anything else is store_corrupt.
//
// Every file call but the directory's mkdir goes through the FileSystem seam (cosid/fs.h;
// FileLeaseStoreOptions::file_system), so a test can fail any of them with any errno and see what
// a power loss would keep. What matters between processes (OFD locks, rename atomicity) is tested
// for real, with real files and forked processes (the conformance kit,
// tests/lease/file_store_test.cc).
//
// Durability: a call returns success only for a record it has itself seen durable, that is,
// after its own write of the temporary file, its fsync, the rename and the fsync of the
// directory all succeeded. Every successful acquire, renew, release and fence writes, the
// idempotent retry of an acquire or a fence included: the record it finds may be one a failed
// call left behind, renamed into place but never made durable (the directory fsync failed), and
// answering from it would hand out a window a power loss can take back, below the next holder's
// floor (the whole argument: src/window/DURABILITY.md, "File store").
#include "cosid/lease/file_store.h"

#include <algorithm>
#include <vector>

#include "base/fail.h"
#include "base/parse_util.h"
#include "cosid/lease/store_rules.h"
#include "store/locked_record.h"

namespace cosid {
namespace lease {
namespace {

constexpr detail::FileStoreKind kFileLeaseStore{"file lease store", "/var/lib/cosid/leases",
                                                "slot"};
constexpr char kMagicLine[] = "cosid-lease-store 1";
// A namespace longer than this, escaped, would not fit a file name (255 bytes) with its prefix
// and suffix.
constexpr std::size_t kMaxEscapedNamespace = 240;

using detail::fail;

// The sentences of this file's refusals, at its end, so that each call reads without stepping over
// text.
std::string namespace_too_long_message(const std::string& name_space, std::size_t file_name_size);
std::string corrupt_record_message(const std::string& shown_path, const std::string& name_space,
                                   const std::string& why);

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

using detail::parse_int;
using detail::split;

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
  text += "end " + std::to_string(file.slots.size()) + " " + detail::crc_text(text) + "\n";
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
  std::string_view body;
  std::vector<std::string_view> end_fields;
  if (!detail::split_at_end_line(text, body, end_fields, why)) return false;
  std::size_t count = 0;
  if (end_fields.size() != 1 || !parse_int(end_fields[0], count)) {
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
  Status terms_status;
  if (terms.size() != 3 || terms[0] != "terms" || !parse_int(terms[1], file.terms.slot_limit) ||
      !parse_int(terms[2], tolerance) ||
      !check_terms("-", NamespaceTerms{file.terms.slot_limit, std::chrono::milliseconds(tolerance)},
                   terms_status)) {
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

}  // namespace

// One change of one namespace: holds its lock from construction to destruction, reads its record,
// and writes it back if asked. Used for every call, reads included, so each call sees a record no
// other process is half-way through changing and decides on a store clock read under the lock.
class FileLeaseStore::Transaction {
 public:
  Transaction(FileLeaseStore& store, const std::string& name_space)
      : store_(store),
        name_space_(name_space),
        dir_{store.fs_,           store.directory_fd_, store.directory_, kFileLeaseStore.name,
             store.lock_timeout_, store.system_clock_},
        lock_(dir_),
        base_("ns." + escape(name_space)),
        shown_path_(store.directory_ + "/" + base_ + ".lease") {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // Locks, reads the record, and checks or records the terms. On success `file` holds the
  // namespace and `now` the store clock read under the lock.
  bool begin(const NamespaceTerms& terms, NamespaceFile& file, std::int64_t& now, Status& status) {
    if (base_.size() > kMaxEscapedNamespace) {
      return fail(status, errc::invalid_argument,
                  namespace_too_long_message(name_space_, base_.size()));
    }
    if (!lock_.lock(base_ + ".lock", status) || !read(file, status)) return false;
    if (!file.exists) {
      // A new namespace: its terms are recorded with this call's commit().
      file.terms = terms;
      file.exists = true;
      unrecorded_ = true;
    } else if (!check_recorded_terms(name_space_, file.terms, terms, status)) {
      return false;
    }
    now = store_.clock_.now_ms();
    return true;
  }

  // Writes `file` back if `changed`, or if the namespace is new: one write per call at most.
  bool commit(const NamespaceFile& file, bool changed, Status& status) {
    return (!changed && !unrecorded_) || write(file, status);
  }

 private:
  // Durable when it returns true: the data was synced before the rename made it the record, and
  // the directory was synced after it (file header, "Durability"). When the directory fsync
  // fails, the new record may be in place for every reader yet not on the disk: the caller's
  // retry rewrites and syncs it again before it answers (commit() writes on every success).
  bool write(const NamespaceFile& file, Status& status) {
    return detail::replace_durably(dir_, base_ + ".tmp", base_ + ".lease", format_record(file),
                                   status);
  }

  bool read(NamespaceFile& file, Status& status) {
    bool exists = false;
    std::string data;
    if (!detail::read_record(dir_, base_ + ".lease", exists, data, status)) return false;
    if (!exists) return true;  // a namespace never used
    std::string why;
    if (!parse_record(data, file, why)) {
      return fail(status, errc::store_corrupt,
                  corrupt_record_message(shown_path_, name_space_, why));
    }
    return true;
  }

  FileLeaseStore& store_;
  const std::string& name_space_;
  const detail::RecordDirectory dir_;
  detail::RecordLock lock_;  // held from begin() to destruction
  const std::string base_;
  const std::string shown_path_;
  bool unrecorded_ = false;  // the namespace is new and not on disk yet
};

FileLeaseStore::FileLeaseStore(std::string directory, int directory_fd,
                               const FileLeaseStoreOptions& options)
    : directory_(std::move(directory)),
      directory_fd_(directory_fd),
      fs_(options.file_system != nullptr ? *options.file_system : posix_file_system()),
      clock_(options.clock != nullptr ? *options.clock : system_clock_),
      lock_timeout_(options.lock_timeout) {}

FileLeaseStore::~FileLeaseStore() { fs_.close(directory_fd_); }

std::unique_ptr<FileLeaseStore> FileLeaseStore::open(const std::string& directory,
                                                     const FileLeaseStoreOptions& options,
                                                     Status& status) {
  FileSystem& fs = options.file_system != nullptr ? *options.file_system : posix_file_system();
  int fd = -1;
  if (!detail::open_record_directory(directory, options.lock_timeout, fs, kFileLeaseStore, fd,
                                     status)) {
    return nullptr;
  }
  status.clear();
  return std::unique_ptr<FileLeaseStore>(new FileLeaseStore(directory, fd, options));
}

bool FileLeaseStore::init(const std::string& directory, const FileLeaseStoreOptions& options,
                          bool& created, Status& status) {
  FileSystem& fs = options.file_system != nullptr ? *options.file_system : posix_file_system();
  if (!detail::init_record_directory(directory, fs, created, status)) return false;
  status.clear();
  return true;
}

#if COSID_HAS_EXCEPTIONS
std::unique_ptr<FileLeaseStore> FileLeaseStore::open(const std::string& directory,
                                                     const FileLeaseStoreOptions& options) {
  Status status;
  auto store = open(directory, options, status);
  detail::throw_if_failed(status);
  return store;
}
#endif

bool FileLeaseStore::scan(const std::string& name_space, const NamespaceTerms& terms,
                          std::vector<SlotRecord>& records, std::int64_t& store_now,
                          Status& status) {
  if (!check_scan(name_space, terms, status)) return false;
  Transaction transaction(*this, name_space);
  NamespaceFile file;
  if (!transaction.begin(terms, file, store_now, status) ||
      !transaction.commit(file, false, status)) {
    return false;
  }
  records = std::move(file.slots);
  status.clear();
  return true;
}

bool FileLeaseStore::acquire(const AcquireRequest& request, AcquireOutcome& outcome,
                             SlotLease& lease, SlotRecord& record, Status& status) {
  if (!check_acquire(request, status)) return false;
  Transaction transaction(*this, request.name_space);
  NamespaceFile file;
  std::int64_t now = 0;
  if (!transaction.begin(request.terms, file, now, status)) return false;
  SlotRecord current;
  current.slot = request.slot;
  if (const SlotRecord* known = file.find(request.slot)) current = *known;
  SlotLease acquired;
  const AcquireOutcome decided = apply_acquire(current, request, now, acquired);
  // A retry by the holder changes nothing in the record, and is written all the same: the record
  // it found may be one its first attempt renamed into place without the directory fsync
  // succeeding, which a power loss would take back (file header, "Durability").
  const bool granted = decided == AcquireOutcome::kAcquired;
  if (granted) file.put(current);
  if (!transaction.commit(file, granted, status)) return false;
  outcome = decided;
  lease = acquired;
  record = current;
  status.clear();
  return true;
}

bool FileLeaseStore::renew(const SlotLease& held, const NamespaceTerms& terms,
                           std::chrono::milliseconds ttl, SlotLease& renewed, Status& status) {
  if (!check_held(held, terms, ttl, status)) return false;
  Transaction transaction(*this, held.name_space);
  NamespaceFile file;
  std::int64_t now = 0;
  if (!transaction.begin(terms, file, now, status)) return false;
  SlotRecord current;
  current.slot = held.slot;
  if (const SlotRecord* known = file.find(held.slot)) current = *known;
  SlotLease result;
  if (!apply_renew(current, held, terms, ttl, now, result, status)) return false;
  file.put(current);
  if (!transaction.commit(file, true, status)) return false;
  renewed = result;
  status.clear();
  return true;
}

bool FileLeaseStore::release(const SlotLease& held, const NamespaceTerms& terms,
                             std::int64_t last_issued, Status& status) {
  if (!check_held(held, terms, std::chrono::milliseconds(1), status)) return false;
  Transaction transaction(*this, held.name_space);
  NamespaceFile file;
  std::int64_t now = 0;
  if (!transaction.begin(terms, file, now, status)) return false;
  SlotRecord current;
  current.slot = held.slot;
  if (const SlotRecord* known = file.find(held.slot)) current = *known;
  if (!apply_release(current, held, last_issued, status)) return false;
  file.put(current);
  if (!transaction.commit(file, true, status)) return false;
  status.clear();
  return true;
}

bool FileLeaseStore::fence(const std::string& name_space, const NamespaceTerms& terms,
                           std::uint32_t slot, std::int64_t not_before, FenceResult& result,
                           Status& status) {
  if (!check_fence(name_space, terms, slot, not_before, status)) return false;
  Transaction transaction(*this, name_space);
  NamespaceFile file;
  std::int64_t now = 0;
  if (!transaction.begin(terms, file, now, status)) return false;
  SlotRecord current;
  current.slot = slot;
  const SlotRecord* known = file.find(slot);
  if (known != nullptr) current = *known;
  const FenceResult fenced = apply_fence(current, known != nullptr, not_before);
  file.put(current);
  // Written even when nothing changed, like an acquire's retry: the record found may be a failed
  // fence's, renamed into place without a durable directory (file header, "Durability").
  if (!transaction.commit(file, true, status)) return false;
  result = fenced;
  status.clear();
  return true;
}

// The sentences.
namespace {

std::string namespace_too_long_message(const std::string& name_space, std::size_t file_name_size) {
  return "namespace " + detail::quote(name_space) +
         " is too long for a file lease store: its file name would be " +
         std::to_string(file_name_size) + " bytes; use a namespace of at most about 80 bytes";
}

// No backup: an older copy holds lower floors than the ids issued since, so restoring one would let
// them repeat. Starting over above a not-before past the last id cannot.
std::string corrupt_record_message(const std::string& shown_path, const std::string& name_space,
                                   const std::string& why) {
  return "file lease store record " + shown_path + " of namespace " + detail::quote(name_space) +
         " is corrupt: " + why +
         ". cosid will not guess the floors it held. Do not restore it from a backup: an older "
         "record holds lower floors, and ids issued since would repeat. Stop every process of the "
         "namespace, move the file aside (mv " +
         shown_path + " " + shown_path +
         ".corrupt) and start them again with a not-before past the last id the namespace issued "
         "(cosid not-before --from-id ID): every slot then starts over from that floor";
}

}  // namespace

}  // namespace lease
}  // namespace cosid
