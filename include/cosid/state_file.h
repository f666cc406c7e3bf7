// SPDX-License-Identifier: Apache-2.0
// StateFile: the small durable file that keeps a static slot's window across restarts.
//
// The file holds the ceiling: a Unix millisecond no id of this slot was, or will be, issued after
// without first writing a higher ceiling here. On open the floor of the new window is
// max(ceiling in the file, not-before), so a restart never issues a timestamp a previous run may
// have used, whatever the clock says. The record is kept twice (two 4 KiB blocks, CRC32C,
// generation counter, fingerprint of slot, layout and namespace); an advance is reported durable
// only once both blocks hold it, each synced, so damage to either block (a torn write, a flipped
// bit) leaves a valid block that covers every id issued. The file is created through a temporary
// file and a link, and locked with an open-file-description lock while open. The format is
// specified in src/window/state_record.h; why each step is enough, in src/window/DURABILITY.md.
//
// Thread safety: a StateFile is used by one thread at a time (the runtime's ceiling writer); the
// free functions may be called from any thread. Two StateFiles, in one process or two, can never
// hold the same file open: the second open fails with errc::state_file_locked.
#ifndef COSID_STATE_FILE_H_
#define COSID_STATE_FILE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>

#include "cosid/clock.h"
#include "cosid/error.h"
#include "cosid/export.h"
#include "cosid/fs.h"
#include "cosid/layout.h"

namespace cosid {

// Whom a state file belongs to. A file written for another owner is refused.
struct COSID_EXPORT StateFileOwner {
  std::uint32_t slot = 0;
  Layout layout = layouts::kDefault;
  std::string namespace_name;
};

// One record as stored (see src/window/state_record.h for the bytes).
struct COSID_EXPORT StateRecord {
  std::uint64_t generation = 0;
  std::int64_t ceiling_ms = 0;
  std::uint32_t slot = 0;
  std::uint64_t layout_fingerprint = 0;
  std::uint64_t namespace_hash = 0;
  std::int64_t written_at_ms = 0;
  bool clean_shutdown = false;
  // 2: written under the rule that a ceiling is used only once both blocks hold it, so any valid
  // block covers every id issued. 1: an older writer's; only its newest block was known to.
  std::uint16_t format_version = 2;
};

// What a state file holds, read without locking it (for `cosid state show`).
struct COSID_EXPORT StateFileView {
  StateRecord records[2];
  bool valid[2] = {false, false};
  const char* problem[2] = {"", ""};  // why a block is not valid
  int current = -1;                   // the block with the current record; -1 if none is valid
  // Whether StateFile::open would trust the current record: false when it is the only valid
  // block and of format 1 (see StateFile::open), or when no block is valid.
  bool provable = false;
};

struct COSID_EXPORT StateFileOpenOptions {
  // Create the file, with floor = not_before_ms, when it does not exist. Else refuse with
  // errc::state_file_missing.
  bool create_if_missing = true;
  // The floor is at least this (Unix ms): the migration floor for a new file, and a way to move
  // an existing one forward.
  std::int64_t not_before_ms = 0;
  // While another process holds the lock, try again (on the clock's sleep_for) until this has
  // passed on its monotonic clock; 0: fail at once with errc::state_file_locked.
  std::chrono::milliseconds lock_wait{0};
  // Null, or a flag (lock-free: a signal handler may set it) that ends the wait for the lock
  // with errc::cancelled, the file neither read nor changed (RuntimeEnvironment::cancel).
  const std::atomic<bool>* cancel = nullptr;
};

class COSID_EXPORT StateFile {
 public:
  // Opens and locks the state file at `path`, creating it if missing and allowed, checks it
  // belongs to `owner`, and picks the current record from what is on the device (read past the
  // page cache, so a record that only reached the cache before a failed sync is never relied on;
  // then synced, so that what was read is on stable media). Where the file system cannot read past
  // the cache (tmpfs) it rewrites the chosen record in place with a sync instead. Nothing else is
  // written until the first advance. When one block is damaged, the other is used if it is of
  // format 2 (it then covers every id issued), and damaged_block() says which and why; a file
  // whose only valid block is of format 1 cannot prove that and is refused with
  // errc::state_file_corrupt (`cosid state repair`, repair_state_file(), is the way out).
  // Fails with errc::state_file_missing, state_file_corrupt, state_file_mismatch,
  // state_file_locked, state_file_replaced, or an errno from `fs` (generic category); then returns
  // null and sets `status`, whose message says which file, what is wrong and what to do.
  // REQUIRES: `fs` and `clock` outlive the StateFile.
  [[nodiscard]] static std::unique_ptr<StateFile> open(FileSystem& fs, Clock& clock,
                                                       const std::string& path,
                                                       const StateFileOwner& owner,
                                                       const StateFileOpenOptions& options,
                                                       Status& status);
  ~StateFile();  // closes the file, which releases the lock
  StateFile(const StateFile&) = delete;
  StateFile& operator=(const StateFile&) = delete;

  const std::string& path() const noexcept { return path_; }
  // The excluded lower bound of the window: max(ceiling read at open, not-before).
  std::int64_t floor_ms() const noexcept { return floor_ms_; }
  // The highest ceiling known durable in this term.
  std::int64_t durable_ceiling_ms() const noexcept { return durable_ceiling_ms_; }
  // True iff this open created the file.
  bool created() const noexcept { return created_; }
  // True iff the record found at open was written by a clean shutdown.
  bool opened_after_clean_shutdown() const noexcept { return opened_clean_; }
  // Empty, or a sentence naming the block found damaged at open and why ("block B: checksum
  // mismatch ..."), for a warning: the open went on with the other block, and the first advance
  // rewrites the damaged one.
  const std::string& damaged_block() const noexcept { return damaged_block_; }

  // Makes a ceiling of at least `ceiling_ms` durable in both blocks: writes the next generation
  // into the block that does not hold the newest record and syncs it, then the same ceiling into
  // the other block and syncs that. Only then is it durable_ceiling_ms(). The ceiling written is
  // the largest ever attempted in this term, so every block, whatever was written to it, holds at
  // least every ceiling reported durable before. On failure the durable ceiling stays as it was,
  // and the next call starts again with the whole record into the block that failed (never a sync
  // alone: after a failed sync the kernel may report the next one clean without the data being on
  // disk). Fails with std::errc::value_too_large, writing nothing, once the generation counter is
  // used up (only a damaged or forged file gets there). Returns true on success; else false with
  // `status` set.
  [[nodiscard]] bool advance(std::int64_t ceiling_ms, Status& status);

  // Clean shutdown: records exactly `last_issued_ms` (which may be below the durable ceiling)
  // with the clean-shutdown flag, so the next start need not wait out the ceiling. One block is
  // enough: the other keeps a ceiling at or past `last_issued_ms`.
  // REQUIRES: no id will be issued under this file any more, and every id issued was at or before
  // `last_issued_ms`. A value below floor_ms() is refused with errc::invalid_argument.
  [[nodiscard]] bool write_clean_shutdown(std::int64_t last_issued_ms, Status& status);

  // Checks that `path` still names the locked file, which has one name and 8192 bytes. Fails with
  // errc::state_file_replaced when it was removed, renamed, replaced, linked, appended to or
  // truncated; with the errno of a stat that failed otherwise (EIO: nothing is known about the
  // file, and the check can be retried). The message says which.
  [[nodiscard]] bool check_identity(Status& status);

 private:
  friend bool repair_state_file(FileSystem&, Clock&, const std::string&, const StateFileOwner&,
                                std::int64_t, std::int64_t*, Status&);

  StateFile(FileSystem& fs, Clock& clock, std::string path, const StateFileOwner& owner);
  // Opens `path` (creating it when missing and `options` allow), locks it, checks it is a regular
  // file of 8,192 bytes with one name, and fills fd_, dir_fd_, device_, inode_ and created_.
  bool open_and_lock(const StateFileOpenOptions& options, Status& status);
  // Writes one record into the block that does not hold the newest one and syncs it.
  bool write_block(std::int64_t ceiling_ms, bool clean, Status& status);

  FileSystem& fs_;
  Clock& clock_;
  const std::string path_;
  StateFileOwner owner_;
  int dir_fd_ = -1;
  int fd_ = -1;
  std::uint64_t device_ = 0;
  std::uint64_t inode_ = 0;
  std::int64_t floor_ms_ = 0;
  std::int64_t durable_ceiling_ms_ = 0;
  std::int64_t max_attempted_ms_ = 0;
  std::uint64_t last_generation_ = 0;  // the highest generation written or attempted
  int newest_block_ = 0;               // the block with the newest record known durable
  bool created_ = false;
  bool opened_clean_ = false;
  std::string damaged_block_;
};

// Creates a new state file at `path` for `owner` with the given floor, and fails with EEXIST
// (generic category) if one exists: never replaces a file, whose ceiling could be rolled back.
// For migrations (`cosid state init`).
[[nodiscard]] COSID_EXPORT bool create_state_file(FileSystem& fs, Clock& clock,
                                                  const std::string& path,
                                                  const StateFileOwner& owner,
                                                  std::int64_t floor_ms, Status& status);

// Gives the state file at `path` the floor max(`not_before_ms`, every valid block's ceiling),
// rewriting both blocks as format 2 for `owner`, for a file StateFile::open refuses as damaged or
// unprovable (`cosid state repair`). It never lowers a ceiling a valid block holds. It locks the
// file like StateFile::open and fails with errc::state_file_locked while a process uses it, with
// state_file_mismatch when a valid block belongs to another owner, with state_file_missing when
// there is no file, with state_file_corrupt when it is not a regular file of 8,192 bytes (then
// move it aside and use create_state_file()), or with an errno from `fs`. On success `floor_ms`,
// if not null, receives the floor the next open will use.
// REQUIRES: `not_before_ms` lies at or after the last timestamp this slot ever issued: the
// operator's knowledge (`cosid not-before --from-id ID`), which nothing in a damaged file gives.
[[nodiscard]] COSID_EXPORT bool repair_state_file(FileSystem& fs, Clock& clock,
                                                  const std::string& path,
                                                  const StateFileOwner& owner,
                                                  std::int64_t not_before_ms,
                                                  std::int64_t* floor_ms, Status& status);

// Checks that `record` was written for `owner`: the same slot, layout and namespace. Otherwise
// fails with errc::state_file_mismatch, and the message of `status` says what differs in the
// file at `path` and what to do. StateFile::open applies this check to the current record; it is
// public for tools that read a file without opening it (`cosid state check`).
[[nodiscard]] COSID_EXPORT bool state_record_belongs_to(const StateRecord& record,
                                                        const StateFileOwner& owner,
                                                        const std::string& path, Status& status);

// Reads both records of the state file at `path` without locking or changing it.
[[nodiscard]] COSID_EXPORT bool read_state_file(FileSystem& fs, const std::string& path,
                                                StateFileView& view, Status& status);

}  // namespace cosid

#endif  // COSID_STATE_FILE_H_
