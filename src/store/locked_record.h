// SPDX-License-Identifier: Apache-2.0
// Internal: what the file stores (lease/file_store.h, segment/file_range_store.h) share to keep
// their records in a directory on local disk. A record is one small text file, changed only by a
// call that holds the OFD lock of a lock file of its own, and only by writing a new file and
// renaming it over the old one; every success has seen its own write durable:
//
//   RecordLock         locks NAME.lock (created if missing, never removed by cosid), and checks
//                      once it holds it that the path still names the inode it locked
//   replace_durably()  write the temporary file, fsync it, rename it over the record, fsync the
//                      directory
//   read_record()      the record's bytes, or that it does not exist
//
// and the strict text helpers their parsers use. Every file call goes through the FileSystem seam.
//
// Thread safety: RecordDirectory is a view on a store's members, which outlive it; a RecordLock
// belongs to one call on one thread. The functions are safe from any thread.
#ifndef COSID_SRC_STORE_LOCKED_RECORD_H_
#define COSID_SRC_STORE_LOCKED_RECORD_H_

#include <atomic>
#include <charconv>
#include <chrono>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cosid/clock.h"
#include "cosid/error.h"
#include "cosid/fs.h"

namespace cosid {
namespace detail {

// The directory of a store's records, as each call sees it.
struct RecordDirectory {
  FileSystem& fs;
  int fd;                                  // the directory, open for the store's life
  const std::string& path;                 // for messages
  const char* store_name;                  // "file lease store": how messages name the store
  std::chrono::milliseconds lock_timeout;  // how long a call waits for another's lock
  Clock& wait_clock;                       // real time for lock waits, whatever the store clock
};

bool is_errno(const std::error_code& ec, int error);

// How messages name a file store, and what a new one starts over.
struct FileStoreKind {
  const char* name;     // "file lease store"
  const char* example;  // a directory to suggest: "/var/lib/cosid/leases"
  const char* records;  // what a new store starts from zero: "slot", "key"
};

// Opens the existing `directory` of a store of `kind`. Never creates it: a store that was meant
// to exist and does not (a mistyped path, a moved directory) would start every record over, so a
// missing directory is store_not_initialized, whose message names the path and gives the
// `cosid store init` that creates it. Fails with invalid_argument for an empty path or a negative
// lock timeout, and with store_unavailable when the directory cannot be opened.
bool open_record_directory(const std::string& directory, std::chrono::milliseconds lock_timeout,
                           FileSystem& fs, const FileStoreKind& kind, int& fd, Status& status);

// Creates `directory` for a file store (of either kind): its last component only (mode 0770), the
// parent synced so that the new entry survives a crash (synced again when it existed, in case an
// earlier init's sync failed). The parent must exist: a mistyped parent is refused, not made.
// `created` says whether it was made (false: it was a directory already, and nothing changed).
// Fails with invalid_argument (an empty path) or store_unavailable.
bool init_record_directory(const std::string& directory, FileSystem& fs, bool& created,
                           Status& status);

// store_unavailable for a failed file call: the store and its directory, `what` could not be
// done and why, that the outcome is unknown and a retry safe, and where to look.
bool io_failure(const RecordDirectory& dir, const std::string& what, const std::error_code& error,
                Status& status);

// The exclusive lock of one record, held from a successful lock() until destruction.
class RecordLock {
 public:
  explicit RecordLock(const RecordDirectory& dir) : dir_(dir) {}
  ~RecordLock();
  RecordLock(const RecordLock&) = delete;
  RecordLock& operator=(const RecordLock&) = delete;

  // Locks `name` (a lock file in the directory), waiting at most dir.lock_timeout, and checks
  // that the locked file is still the one at its path: a lock file removed (or replaced) between
  // this call's open and its lock would let this call lock an orphaned inode while another
  // process locks the new file at the path, and both would change the record at once. Fails with
  // store_unavailable; with errc::cancelled once `cancel` (may be null) is set during the wait.
  bool lock(const std::string& name, Status& status, const std::atomic<bool>* cancel = nullptr);

 private:
  bool lock_once(const std::string& name, std::int64_t deadline, const std::atomic<bool>* cancel,
                 Status& status);

  const RecordDirectory& dir_;
  int fd_ = -1;
};

// Makes `data` the content of `name`, through the temporary file `tmp`: written, synced, renamed
// over `name`, and the directory synced. Durable when it returns true. Fails with
// store_unavailable; then `name` may hold either record, durable or not.
bool replace_durably(const RecordDirectory& dir, const std::string& tmp, const std::string& name,
                     const std::string& data, Status& status);

// Reads all of `name` into `data`; `exists` false (and success) when there is no such file.
// REQUIRES: the caller holds the record's lock (the file is only ever replaced whole under it, so
// its size is stable).
bool read_record(const RecordDirectory& dir, const std::string& name, bool& exists,
                 std::string& data, Status& status);

// A whole number in its shortest form only: no leading zeros, no "-0", no '+', nothing after it.
template <typename Int>
bool parse_int(std::string_view text, Int& value) {
  if (text.empty()) return false;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  return result.ec == std::errc() && result.ptr == text.data() + text.size() &&
         std::to_string(value) == text;
}

std::vector<std::string_view> split(std::string_view text, char separator);

// A record's text ends in the line "end [FIELD ...] CRC\n", CRC as crc_text() of every byte before
// "end". Splits `text` there: `body` gets what precedes the end line, `fields` the end line's words
// after "end" but the CRC. False with `why` when there is no end line (a torn or truncated write)
// or the CRC does not match the body.
bool split_at_end_line(std::string_view text, std::string_view& body,
                       std::vector<std::string_view>& fields, std::string& why);

// The 8 lower-case hex digits of the masked CRC32C (crc32c.h) of `body`, as records carry it.
std::string crc_text(std::string_view body);

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_STORE_LOCKED_RECORD_H_
