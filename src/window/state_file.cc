// SPDX-License-Identifier: Apache-2.0
#include "cosid/state_file.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <limits>

#include "base/cancel.h"
#include "base/fail.h"
#include "base/parse_util.h"
#include "base/time_format.h"
#include "window/state_record.h"

namespace cosid {
namespace {

using detail::kStateBlockSize;
using detail::kStateFileSize;

using detail::fail;

struct Choice;

// The sentences of this file's refusals and notices, at its end, so that each success path reads
// without stepping over text. Each names the values and what to do.
std::string io_failure_message(const char* verb, const std::string& path, std::error_code io);
std::string cannot_create_temporary_message(const std::string& path, const std::string& temp,
                                            std::error_code io);
std::string cannot_create_message(const std::string& path, std::error_code io);
std::string cannot_sync_new_directory_message(const std::string& path, std::error_code io);
std::string not_a_file_message(const std::string& path);
std::string cannot_open_directory_message(const std::string& dir, const std::string& path,
                                          std::error_code io);
std::string already_exists_message(const std::string& path);
std::string missing_message(const std::string& path, std::uint32_t slot);
std::string cannot_open_message(const std::string& path, std::error_code io);
std::string waiting_for_lock_text(const std::string& path);
std::string locked_message(const std::string& path, int holder,
                           std::chrono::milliseconds lock_wait);
std::string not_state_file_shaped(const FileInfo& info, const std::string& path);
std::string misshapen_at_open_message(const FileInfo& info, const std::string& path);
std::string replaced_at_open_message(const std::string& path, const FileInfo& info);
std::string damaged_block_notice(const std::string& path, const Choice& choice,
                                 const detail::BlockStatus blocks[2], const StateRecord& record);
std::string cannot_rewrite_message(const std::string& path, std::error_code io);
std::string below_floor_message(std::int64_t last_issued_ms, std::int64_t floor_ms,
                                const std::string& path);
std::string generations_used_up_message(const std::string& path);
std::string clean_shutdown_failed_message(const std::string& path, std::error_code io);
std::string write_failed_message(const std::string& path, std::error_code io,
                                 std::int64_t durable_ceiling_ms);
std::string cannot_check_identity_message(const std::string& path, const char* what,
                                          std::error_code io);
std::string replaced_in_use_message(const std::string& path, std::error_code named_io,
                                    bool names_another, const FileInfo& info);
std::string other_slot_message(const std::string& path, std::uint32_t record_slot,
                               std::uint32_t slot);
std::string other_layout_message(const std::string& path, std::uint64_t record_fingerprint,
                                 const Layout& layout, std::uint64_t fingerprint);
std::string other_namespace_message(const std::string& path, std::uint64_t record_hash,
                                    const std::string& namespace_name, std::uint64_t hash);
std::string nothing_to_repair_message(const std::string& path);
std::string repair_failed_message(const std::string& path, std::error_code io);
std::string repair_directory_sync_failed_message(const std::string& path, std::error_code io);
// Fails unless `choice` names a record a restart may rely on, saying why and what to do.
bool refuse_unusable(const Choice& choice, const StateRecord records[2],
                     const detail::BlockStatus blocks[2], const std::string& path, Status& status);

// Splits "dir/name" into its directory ("." when there is none) and its last component.
bool split_path(const std::string& path, std::string& dir, std::string& name) {
  const std::size_t slash = path.rfind('/');
  name = slash == std::string::npos ? path : path.substr(slash + 1);
  dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  return !name.empty() && name != "." && name != "..";
}

// Closes a descriptor on every exit path unless released.
class FdGuard {
 public:
  FdGuard(FileSystem& fs, int fd) : fs_(fs), fd_(fd) {}
  ~FdGuard() {
    if (fd_ >= 0) fs_.close(fd_);
  }
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  FileSystem& fs_;
  int fd_;
};

StateRecord record_for(const StateFileOwner& owner, std::uint64_t generation,
                       std::int64_t ceiling_ms, std::int64_t now_ms, bool clean) {
  StateRecord record;
  record.generation = generation;
  record.ceiling_ms = ceiling_ms;
  record.slot = owner.slot;
  record.layout_fingerprint = detail::layout_fingerprint(owner.layout);
  record.namespace_hash = detail::namespace_hash(owner.namespace_name);
  record.written_at_ms = now_ms;
  record.clean_shutdown = clean;
  return record;
}

// Creation (DURABILITY.md, "Create"): the file appears under its name only complete, synced,
// and without ever replacing an existing file. EEXIST when another creator won the race.
bool create_in(FileSystem& fs, Clock& clock, int dir_fd, const std::string& name,
               const std::string& path, const StateFileOwner& owner, std::int64_t floor_ms,
               Status& status) {
  // A name no other creator uses and no reader mistakes for the state file. A temporary left by a
  // creator that crashed (after a reboot the same pid and clock reading can recur) may hold the
  // name: then take the next one, since EEXIST from here would read as "another creator
  // published the state file" and the open that follows would fail.
  const std::string base =
      name + ".tmp." + std::to_string(getpid()) + "." +
      std::to_string(static_cast<std::uint64_t>(clock.monotonic_ns()) % 1000000007u);
  std::string temp = base;
  int raw_fd = -1;
  std::error_code created = fs.create_exclusive(dir_fd, temp, raw_fd);
  for (int attempt = 1; attempt < 16 && created == std::errc::file_exists; ++attempt) {
    temp = base + "." + std::to_string(attempt);
    created = fs.create_exclusive(dir_fd, temp, raw_fd);
  }
  if (std::error_code io = created) {
    return fail(status, io, cannot_create_temporary_message(path, temp, io));
  }
  FdGuard fd(fs, raw_fd);
  // Both blocks written in full now, so later overwrites need no allocation (no ENOSPC on ext4
  // or XFS). Block A is current; block B holds the same ceiling at generation 0.
  unsigned char image[kStateFileSize];
  const std::int64_t now = clock.now_ms();
  detail::encode_block(record_for(owner, 1, floor_ms, now, false), image);
  detail::encode_block(record_for(owner, 0, floor_ms, now, false), image + kStateBlockSize);
  std::error_code io = fs.write_at(raw_fd, image, sizeof image, 0);
  // fsync, not fdatasync: the size and block map must be durable before the name is.
  if (!io) io = fs.sync(raw_fd);
  // One atomic step to the final name, never over an existing file: a state file is never
  // replaced (its ceiling could roll back), and no crash can leave it with two names.
  if (!io) io = fs.rename_noreplace(dir_fd, temp, name);
  if (io) {
    (void)fs.unlink(dir_fd, temp);
    if (io == std::errc::file_exists) return fail(status, io, "state file " + path + " exists");
    return fail(status, io, cannot_create_message(path, io));
  }
  // The directory entry must be durable too, or a power loss could make the file vanish and the
  // next start fall back to not-before.
  if (std::error_code dir_io = fs.sync(dir_fd)) {
    return fail(status, dir_io, cannot_sync_new_directory_message(path, dir_io));
  }
  status.clear();
  return true;
}

bool open_directory(FileSystem& fs, const std::string& path, std::string& name, int& dir_fd,
                    Status& status) {
  std::string dir;
  if (!split_path(path, dir, name)) {
    return fail(status, make_error_code(errc::invalid_argument), not_a_file_message(path));
  }
  if (std::error_code io = fs.open_directory(dir, dir_fd)) {
    return fail(status, io, cannot_open_directory_message(dir, path, io));
  }
  return true;
}

bool is_state_file_shaped(const FileInfo& info) {
  return info.regular && info.size == static_cast<std::int64_t>(kStateFileSize);
}

char block_name(int block) { return block == 0 ? 'A' : 'B'; }

// Which record of a file image a restart relies on, and whether it may.
struct Choice {
  int current = -1;          // the valid block with the highest generation; -1 when none is valid
  int damaged = -1;          // the invalid block when the other one is valid; else -1
  bool provable = false;     // the current record covers every id issued (state_record.h)
  bool two_writers = false;  // both valid with one generation but different bytes
};

Choice choose_record(const unsigned char* image, const StateRecord records[2],
                     const detail::BlockStatus status[2]) {
  Choice choice;
  const bool valid_a = status[0] == detail::BlockStatus::kValid;
  const bool valid_b = status[1] == detail::BlockStatus::kValid;
  if (!valid_a && !valid_b) return choice;
  choice.current = detail::current_block(status, records);
  if (valid_a && valid_b) {
    // Every writer gives each write a new generation: two records of one generation that differ
    // come from two writers of one file, and neither can be trusted.
    choice.two_writers = records[0].generation == records[1].generation &&
                         std::memcmp(image, image + kStateBlockSize, kStateBlockSize) != 0;
    // Of two valid blocks the newer one holds the newest ceiling, in either format.
    choice.provable = !choice.two_writers;
    return choice;
  }
  choice.damaged = 1 - choice.current;
  // One valid block: under format 2 it covers every id issued, whatever destroyed the other. A
  // format-1 writer kept that promise for its newest block only, and a damaged newest block
  // looks just like a torn older one.
  choice.provable = records[choice.current].format_version >= detail::kStateFormatVersion;
  return choice;
}

}  // namespace

bool create_state_file(FileSystem& fs, Clock& clock, const std::string& path,
                       const StateFileOwner& owner, std::int64_t floor_ms, Status& status) {
  std::string name;
  int dir_fd = -1;
  if (!open_directory(fs, path, name, dir_fd, status)) return false;
  FdGuard dir(fs, dir_fd);
  if (!create_in(fs, clock, dir_fd, name, path, owner, floor_ms, status)) {
    if (status.code() == std::errc::file_exists) {
      return fail(status, status.code(), already_exists_message(path));
    }
    return false;
  }
  return true;
}

StateFile::StateFile(FileSystem& fs, Clock& clock, std::string path, const StateFileOwner& owner)
    : fs_(fs), clock_(clock), path_(std::move(path)), owner_(owner) {}

StateFile::~StateFile() {
  if (fd_ >= 0) fs_.close(fd_);
  if (dir_fd_ >= 0) fs_.close(dir_fd_);
}

bool StateFile::open_and_lock(const StateFileOpenOptions& options, Status& status) {
  std::string name;
  if (!open_directory(fs_, path_, name, dir_fd_, status)) return false;

  // Open without following a symbolic link; create first if missing and allowed.
  std::error_code io = fs_.open_existing(dir_fd_, name, fd_);
  if (io == std::errc::no_such_file_or_directory) {
    if (!options.create_if_missing) {
      return fail(status, make_error_code(errc::state_file_missing),
                  missing_message(path_, owner_.slot));
    }
    // EEXIST: another creator won the race, and the file it published is opened below.
    if (!create_in(fs_, clock_, dir_fd_, name, path_, owner_, options.not_before_ms, status) &&
        status.code() != std::errc::file_exists) {
      return false;
    }
    created_ = status.ok();
    status.clear();
    io = fs_.open_existing(dir_fd_, name, fd_);
  }
  if (io) return fail(status, io, cannot_open_message(path_, io));

  // The lock keeps a second process, or a second runtime in this process, away. While it is held
  // elsewhere, tried again every few milliseconds until lock_wait has passed (a shell loop of
  // short runs on one slot): a poll, since F_OFD_SETLKW has no timeout.
  const std::int64_t give_up_ns =
      clock_.monotonic_ns() +
      std::chrono::duration_cast<std::chrono::nanoseconds>(options.lock_wait).count();
  for (;;) {
    io = fs_.lock(fd_);
    const bool held =
        io == std::errc::resource_unavailable_try_again || io == std::errc::permission_denied;
    if (!held || clock_.monotonic_ns() >= give_up_ns) break;
    if (!detail::sleep_unless_cancelled(clock_, std::chrono::milliseconds(5), options.cancel)) {
      return detail::start_cancelled(status, waiting_for_lock_text(path_),
                                     "the file was neither read nor changed");
    }
  }
  if (io == std::errc::resource_unavailable_try_again || io == std::errc::permission_denied) {
    return fail(status, make_error_code(errc::state_file_locked),
                locked_message(path_, fs_.lock_holder(fd_), options.lock_wait));
  }
  if (io) return fail(status, io, io_failure_message("lock", path_, io));

  // A regular file of the right size, with one name, which is the name we opened.
  FileInfo info;
  FileInfo named;
  if ((io = fs_.stat(fd_, info)) || (io = fs_.stat_at(dir_fd_, name, named))) {
    return fail(status, io, io_failure_message("stat", path_, io));
  }
  if (!is_state_file_shaped(info)) {
    return fail(status, make_error_code(errc::state_file_corrupt),
                misshapen_at_open_message(info, path_));
  }
  if (info.links != 1 || named.device != info.device || named.inode != info.inode) {
    return fail(status, make_error_code(errc::state_file_replaced),
                replaced_at_open_message(path_, info));
  }
  device_ = info.device;
  inode_ = info.inode;
  return true;
}

std::unique_ptr<StateFile> StateFile::open(FileSystem& fs, Clock& clock, const std::string& path,
                                           const StateFileOwner& owner,
                                           const StateFileOpenOptions& options, Status& status) {
  std::unique_ptr<StateFile> file(new StateFile(fs, clock, path, owner));
  if (!file->open_and_lock(options, status)) return nullptr;

  // Read both blocks and pick the valid record with the highest generation.
  unsigned char image[kStateFileSize];
  // Where the file system allows, read what is on the device: a record that only reached the
  // page cache before a failed sync (a restart without a reboot) is then never relied on, and
  // nothing needs to be rewritten at open. Elsewhere read through the page cache and confirm
  // below.
  std::error_code io = fs.read_durable(file->fd_, image, sizeof image, 0);
  const bool direct = io != std::errc::invalid_argument;
  if (!direct) io = fs.read_at(file->fd_, image, sizeof image, 0);
  // A direct read of a range with dirty pages (a killed writer's record, written but never
  // synced) first writes those pages back, without a device cache flush: what it then reads may
  // sit in the drive's volatile cache only. This fdatasync puts it on stable media before the
  // record is relied on (ext4 and XFS send the cache flush from fdatasync even when no page is
  // dirty, unless a journal commit sends it for them). DURABILITY.md, "Open".
  if (direct && !io) io = fs.sync_data(file->fd_);
  if (io) {
    fail(status, io, io_failure_message("read", path, io));
    return nullptr;
  }
  StateRecord records[2];
  detail::BlockStatus blocks[2];
  for (std::size_t b = 0; b < 2; ++b) {
    blocks[b] = detail::decode_block(image + b * kStateBlockSize, records[b]);
  }
  const Choice choice = choose_record(image, records, blocks);
  if (!refuse_unusable(choice, records, blocks, path, status)) return nullptr;
  const auto current = static_cast<std::size_t>(choice.current);
  const StateRecord& record = records[current];

  if (!state_record_belongs_to(record, owner, path, status)) return nullptr;
  if (choice.damaged >= 0) {
    file->damaged_block_ = damaged_block_notice(path, choice, blocks, record);
  }

  // The confirm write, only when the blocks were read through the page cache: the chosen record
  // may exist only there (a restart after a failed sync, without a reboot). Rewriting it byte for
  // byte and syncing makes it durable before the other block is ever touched. (Not done after a
  // direct read: a power loss during the rewrite could damage a block that covers the ids
  // already issued.) The directory entry is synced in either case: when the directory sync of a
  // creation failed (in this open, or in an earlier run), the name may exist only in the page
  // cache, and a power loss would take the file and its ceilings with it.
  if (!direct) {
    io = fs.write_at(file->fd_, image + current * kStateBlockSize, kStateBlockSize,
                     static_cast<std::int64_t>(current * kStateBlockSize));
    if (!io) io = fs.sync_data(file->fd_);
  }
  if (!io) io = fs.sync(file->dir_fd_);
  if (io) {
    fail(status, io, cannot_rewrite_message(path, io));
    return nullptr;
  }

  file->opened_clean_ = record.clean_shutdown;
  file->durable_ceiling_ms_ = record.ceiling_ms;
  file->max_attempted_ms_ = record.ceiling_ms;
  file->floor_ms_ =
      record.ceiling_ms > options.not_before_ms ? record.ceiling_ms : options.not_before_ms;
  // Valid blocks only: a damaged block's generation means nothing. The current block has the
  // highest valid generation by construction.
  file->last_generation_ = record.generation;
  file->newest_block_ = choice.current;
  status.clear();
  return file;
}

bool StateFile::advance(std::int64_t ceiling_ms, Status& status) {
  if (ceiling_ms > max_attempted_ms_) max_attempted_ms_ = ceiling_ms;
  // Both blocks, one after the other, each synced before the next is touched: while the first
  // is written the second still holds every ceiling published so far, and while the second is
  // written the first holds the new one. Only then is the ceiling published, so every valid block
  // always covers every id issued (DURABILITY.md, "Advance"). A retry after a failure starts with
  // the block that failed, which write_block() targets because newest_block_ did not move.
  for (int copy = 0; copy < 2; ++copy) {
    if (!write_block(max_attempted_ms_, false, status)) return false;
  }
  if (max_attempted_ms_ > durable_ceiling_ms_) durable_ceiling_ms_ = max_attempted_ms_;
  status.clear();
  return true;
}

bool StateFile::write_clean_shutdown(std::int64_t last_issued_ms, Status& status) {
  // Every id of this term lies after the floor, so a lower value can only come from a caller that
  // lost track of what was issued; writing it would roll the ceiling back.
  if (last_issued_ms < floor_ms_) {
    return fail(status, errc::invalid_argument,
                below_floor_message(last_issued_ms, floor_ms_, path_));
  }
  // One block: the other keeps a ceiling at or past every id issued, so whichever of the two a
  // restart finds valid covers them (DURABILITY.md, "Clean close").
  if (!write_block(last_issued_ms, true, status)) return false;
  durable_ceiling_ms_ = last_issued_ms;
  status.clear();
  return true;
}

bool StateFile::write_block(std::int64_t ceiling_ms, bool clean, Status& status) {
  // The generation must never wrap: a record of generation 0 written next to one of 2^64 - 1
  // would lose to it on the next open, which would then read the older, lower ceiling. No real
  // file gets there (one write per second for 5 * 10^11 years); a damaged or forged one can.
  if (last_generation_ == std::numeric_limits<std::uint64_t>::max()) {
    return fail(status, std::make_error_code(std::errc::value_too_large),
                generations_used_up_message(path_));
  }
  // A generation is never reused, even after a failed write that may have reached the disk.
  const StateRecord record =
      record_for(owner_, ++last_generation_, ceiling_ms, clock_.now_ms(), clean);
  unsigned char block[kStateBlockSize];
  detail::encode_block(record, block);
  // Always the block that does not hold the newest durable record, also when retrying: the
  // newest one is never overwritten before another block holds at least as much.
  const int target = 1 - newest_block_;
  const auto offset = static_cast<std::int64_t>(kStateBlockSize) * target;
  std::error_code io = fs_.write_at(fd_, block, sizeof block, offset);
  // The record counts only once fdatasync has returned success.
  if (!io) io = fs_.sync_data(fd_);
  if (io) {
    return fail(status, io,
                clean ? clean_shutdown_failed_message(path_, io)
                      : write_failed_message(path_, io, durable_ceiling_ms_));
  }
  newest_block_ = target;
  return true;
}

bool StateFile::check_identity(Status& status) {
  std::string dir;
  std::string name;
  split_path(path_, dir, name);
  FileInfo named;
  FileInfo info;
  // Only a stat that answers can show a change: any other failure (EIO, ENOMEM) says nothing
  // about the file and is returned as it is, for the caller to retry.
  const std::error_code named_io = fs_.stat_at(dir_fd_, name, named);
  if (named_io && named_io != std::errc::no_such_file_or_directory) {
    return fail(status, named_io, cannot_check_identity_message(path_, "its path", named_io));
  }
  if (const std::error_code io = fs_.stat(fd_, info)) {
    return fail(status, io, cannot_check_identity_message(path_, "the open file", io));
  }
  const bool names_another = !named_io && (named.device != device_ || named.inode != inode_);
  if (!named_io && !names_another && info.links == 1 &&
      info.size == static_cast<std::int64_t>(kStateFileSize)) {
    status.clear();
    return true;
  }
  return fail(status, errc::state_file_replaced,
              replaced_in_use_message(path_, named_io, names_another, info));
}

bool state_record_belongs_to(const StateRecord& record, const StateFileOwner& owner,
                             const std::string& path, Status& status) {
  const std::error_code mismatch = make_error_code(errc::state_file_mismatch);
  if (record.slot != owner.slot) {
    return fail(status, mismatch, other_slot_message(path, record.slot, owner.slot));
  }
  const std::uint64_t fingerprint = detail::layout_fingerprint(owner.layout);
  if (record.layout_fingerprint != fingerprint) {
    return fail(status, mismatch,
                other_layout_message(path, record.layout_fingerprint, owner.layout, fingerprint));
  }
  const std::uint64_t hash = detail::namespace_hash(owner.namespace_name);
  if (record.namespace_hash != hash) {
    return fail(status, mismatch,
                other_namespace_message(path, record.namespace_hash, owner.namespace_name, hash));
  }
  status.clear();
  return true;
}

bool read_state_file(FileSystem& fs, const std::string& path, StateFileView& view, Status& status) {
  std::string name;
  int dir_fd = -1;
  if (!open_directory(fs, path, name, dir_fd, status)) return false;
  FdGuard dir(fs, dir_fd);
  int raw_fd = -1;
  if (std::error_code io = fs.open_for_reading(dir_fd, name, raw_fd)) {
    return fail(status, io, io_failure_message("open", path, io));
  }
  FdGuard fd(fs, raw_fd);
  FileInfo info;
  if (std::error_code io = fs.stat(raw_fd, info)) {
    return fail(status, io, io_failure_message("stat", path, io));
  }
  if (!is_state_file_shaped(info)) {
    return fail(status, make_error_code(errc::state_file_corrupt),
                not_state_file_shaped(info, path));
  }
  unsigned char image[kStateFileSize];
  if (std::error_code io = fs.read_at(raw_fd, image, sizeof image, 0)) {
    return fail(status, io, io_failure_message("read", path, io));
  }
  view = StateFileView{};
  detail::BlockStatus blocks[2];
  for (std::size_t b = 0; b < 2; ++b) {
    blocks[b] = detail::decode_block(image + b * kStateBlockSize, view.records[b]);
    view.valid[b] = blocks[b] == detail::BlockStatus::kValid;
    view.problem[b] = view.valid[b] ? "" : detail::to_string(blocks[b]);
  }
  const Choice choice = choose_record(image, view.records, blocks);
  view.current = choice.current;
  view.provable = choice.provable;
  status.clear();
  return true;
}

bool repair_state_file(FileSystem& fs, Clock& clock, const std::string& path,
                       const StateFileOwner& owner, std::int64_t not_before_ms,
                       std::int64_t* floor_ms, Status& status) {
  std::unique_ptr<StateFile> file(new StateFile(fs, clock, path, owner));
  StateFileOpenOptions no_create;
  no_create.create_if_missing = false;
  if (!file->open_and_lock(no_create, status)) {
    if (status.code() == errc::state_file_missing) {
      return fail(status, errc::state_file_missing, nothing_to_repair_message(path));
    }
    return false;
  }
  unsigned char image[kStateFileSize];
  if (std::error_code io = fs.read_at(file->fd_, image, sizeof image, 0)) {
    return fail(status, io, io_failure_message("read", path, io));
  }
  // The new floor: the operator's not-before, and never below a ceiling a valid block holds, so a
  // repair of a file that was fine (or whose valid block was the newest) loses nothing.
  std::int64_t ceiling = not_before_ms;
  const detail::StateImage decoded = detail::decode_image(image);
  for (int b = 0; b < 2; ++b) {
    if (!decoded.valid(b)) continue;
    if (!state_record_belongs_to(decoded.records[b], owner, path, status)) return false;
    ceiling = std::max(ceiling, decoded.records[b].ceiling_ms);
  }
  const int newest = decoded.current < 0 ? 0 : decoded.current;
  const std::uint64_t generation = decoded.current < 0 ? 0 : decoded.records[newest].generation;
  // advance() writes the block that is not the newest valid one first: a repair interrupted
  // before its second write leaves the first one holding the new floor.
  file->last_generation_ = generation;
  file->newest_block_ = newest;
  file->floor_ms_ = ceiling;
  if (!file->advance(ceiling, status)) {
    const std::error_code io = status.code();
    return fail(status, io, repair_failed_message(path, io));
  }
  if (std::error_code io = fs.sync(file->dir_fd_)) {
    return fail(status, io, repair_directory_sync_failed_message(path, io));
  }
  if (floor_ms != nullptr) *floor_ms = ceiling;
  status.clear();
  return true;
}

// ---------------------------------------------------------------------------------------------
// The sentences.

namespace {

std::string io_failure_message(const char* verb, const std::string& path, std::error_code io) {
  return std::string("cannot ") + verb + " state file " + path + ": " + io.message();
}

std::string cannot_create_temporary_message(const std::string& path, const std::string& temp,
                                            std::error_code io) {
  return "cannot create state file " + path + " (temporary " + temp + "): " + io.message() +
         ": make its directory writable by this user";
}

std::string cannot_create_message(const std::string& path, std::error_code io) {
  return "cannot create state file " + path + ": " + io.message() +
         ": check free space and permissions of its directory";
}

std::string cannot_sync_new_directory_message(const std::string& path, std::error_code io) {
  return "cannot sync the directory of new state file " + path + ": " + io.message();
}

std::string not_a_file_message(const std::string& path) {
  return "state file path \"" + path + "\" does not name a file";
}

std::string cannot_open_directory_message(const std::string& dir, const std::string& path,
                                          std::error_code io) {
  return "cannot open directory " + dir + " of state file " + path + ": " + io.message() +
         ": create it and make it writable by this user";
}

std::string already_exists_message(const std::string& path) {
  return "state file " + path +
         " already exists: it is never replaced, since that could roll its ceiling back; remove "
         "it first only if no process uses it and you know why";
}

std::string missing_message(const std::string& path, std::uint32_t slot) {
  return "state file " + path +
         " does not exist and require-state-file is set: restore it, or create it with `cosid "
         "state init " +
         path + " --slot " + std::to_string(slot) +
         " --not-before TIME` after the last id ever issued";
}

std::string cannot_open_message(const std::string& path, std::error_code io) {
  return "cannot open state file " + path + ": " + io.message() +
         (io == std::errc::too_many_symbolic_link_levels
              ? ": it is a symbolic link; point state-file at the real file"
          : io == std::errc::is_a_directory
              ? ": it is a directory; give the path of a file inside it, such as " + path +
                    "/cosid.state"
              : ": check its permissions");
}

std::string waiting_for_lock_text(const std::string& path) {
  return "while waiting for the lock of state file " + path +
         ", which another process or runtime holds";
}

std::string locked_message(const std::string& path, int holder,
                           std::chrono::milliseconds lock_wait) {
  const std::string by = holder > 0 ? "by process " + std::to_string(holder)
                                    : "by another process or runtime (its pid could not be "
                                      "found: look for it with `fuser " +
                                          path + "`)";
  const std::string waited =
      lock_wait.count() > 0 ? " (waited " + detail::format_duration(lock_wait) + " for it)" : "";
  return "state file " + path + " is in use " + by + waited +
         ": each running instance needs its own slot and its own state file; to run short "
         "processes on one slot one after another, set lock-wait (--lock-wait DUR)";
}

// Why a file that is not is_state_file_shaped() is refused.
std::string not_state_file_shaped(const FileInfo& info, const std::string& path) {
  return "state file " + path + " is " +
         (info.regular ? std::to_string(info.size) +
                             " bytes, not 8192: it is not a cosid state file, or it was truncated"
                       : "not a regular file (a FIFO, a directory, a device): give the path of "
                         "the state file itself");
}

std::string misshapen_at_open_message(const FileInfo& info, const std::string& path) {
  return not_state_file_shaped(info, path) +
         (info.regular ? "; move it aside and start with `cosid state init` and a not-before "
                         "after the last id issued (`cosid not-before --from-id ID`)"
                       : "");
}

std::string replaced_at_open_message(const std::string& path, const FileInfo& info) {
  return "state file " + path + " was replaced or has another name (" + std::to_string(info.links) +
         " links) while it was opened: give each instance its own file and do not link or copy "
         "it while in use";
}

std::string damaged_block_notice(const std::string& path, const Choice& choice,
                                 const detail::BlockStatus blocks[2], const StateRecord& record) {
  return "block " + std::string(1, block_name(choice.damaged)) + " of state file " + path +
         " is damaged (" + to_string(blocks[choice.damaged]) + "); the start goes on with block " +
         block_name(choice.current) + " (generation " + std::to_string(record.generation) +
         ", ceiling " + detail::format_instant(record.ceiling_ms) +
         "), which covers every id issued, and the next write rewrites the damaged one: if this "
         "recurs, check the disk";
}

std::string cannot_rewrite_message(const std::string& path, std::error_code io) {
  return "cannot rewrite state file " + path + ": " + io.message() +
         ": check the disk and free space; nothing was issued";
}

std::string below_floor_message(std::int64_t last_issued_ms, std::int64_t floor_ms,
                                const std::string& path) {
  return "refusing to record last timestamp " + detail::format_instant(last_issued_ms) +
         " below the floor " + detail::format_instant(floor_ms) + " of state file " + path;
}

std::string generations_used_up_message(const std::string& path) {
  return "state file " + path +
         " has used up its generation counter (it holds generation 2^64 - 1, so it was damaged or "
         "forged): nothing more can be written; move it aside and create a new one with `cosid "
         "state init` and a not-before after the last id issued";
}

std::string clean_shutdown_failed_message(const std::string& path, std::error_code io) {
  return "recording the clean shutdown in state file " + path + " failed: " + io.message() +
         "; harmless: the file keeps a ceiling at or past every id issued, so the next start "
         "waits until the clock passes it";
}

std::string write_failed_message(const std::string& path, std::error_code io,
                                 std::int64_t durable_ceiling_ms) {
  return "writing state file " + path + " failed: " + io.message() +
         "; ids continue up to the durable ceiling " + detail::format_instant(durable_ceiling_ms) +
         " and then stop: free space or fix the disk (the write is retried)";
}

std::string cannot_check_identity_message(const std::string& path, const char* what,
                                          std::error_code io) {
  return "cannot check that state file " + path + " is still the file in use: stat of " + what +
         " failed: " + io.message();
}

std::string replaced_in_use_message(const std::string& path, std::error_code named_io,
                                    bool names_another, const FileInfo& info) {
  std::string change;
  if (named_io) {
    change = " was removed or renamed (" + named_io.message() + ")";
  } else if (names_another) {
    change = " names another file now (it was replaced, as by a rename over it)";
  } else if (info.links != 1) {
    change = " has " + std::to_string(info.links) + " names now (it was linked, as by `ln`)";
  } else {
    change = " is " + std::to_string(info.size) + " bytes now, not 8192 (appended to or truncated)";
  }
  return "state file " + path + change +
         " while in use, so the ceilings written to it no longer protect a restart";
}

std::string other_slot_message(const std::string& path, std::uint32_t record_slot,
                               std::uint32_t slot) {
  return "state file " + path + " was written for slot " + std::to_string(record_slot) +
         ", configured slot is " + std::to_string(slot) + ": point each slot at its own file";
}

std::string other_layout_message(const std::string& path, std::uint64_t record_fingerprint,
                                 const Layout& layout, std::uint64_t fingerprint) {
  return "state file " + path + " was written for another layout (fingerprint " +
         detail::hex64(record_fingerprint) + ") than the configured " +
         detail::describe_layout(layout) + " (fingerprint " + detail::hex64(fingerprint) +
         "): use the layout it was written with (`cosid state show " + path +
         "` with this configuration compares them), or a new file whose not-before lies after "
         "every id issued with the old layout";
}

std::string other_namespace_message(const std::string& path, std::uint64_t record_hash,
                                    const std::string& namespace_name, std::uint64_t hash) {
  return "state file " + path + " was written for another namespace than \"" + namespace_name +
         "\" (its namespace hash is " + detail::hex64(record_hash) + ", \"" + namespace_name +
         "\" hashes to " + detail::hex64(hash) +
         "): configure the namespace it was written for, or give each namespace its own file";
}

std::string nothing_to_repair_message(const std::string& path) {
  return "there is no state file " + path + " to repair: create one with `cosid state init " +
         path + " --slot N --not-before TIME`";
}

std::string repair_failed_message(const std::string& path, std::error_code io) {
  return "repairing state file " + path + " failed: " + io.message() +
         ": fix the disk and run the repair again";
}

std::string repair_directory_sync_failed_message(const std::string& path, std::error_code io) {
  return "cannot sync the directory of state file " + path + ": " + io.message() +
         ": fix the disk and run the repair again";
}

bool refuse_unusable(const Choice& choice, const StateRecord records[2],
                     const detail::BlockStatus blocks[2], const std::string& path, Status& status) {
  const std::string repair = "`cosid state repair " + path +
                             " --slot N --not-before TIME` with a TIME after the last id this "
                             "slot issued (`cosid not-before --from-id ID` gives it)";
  if (choice.current < 0) {
    return fail(status, make_error_code(errc::state_file_corrupt),
                "state file " + path + " has no valid record (block A: " + to_string(blocks[0]) +
                    "; block B: " + to_string(blocks[1]) + "): run " + repair);
  }
  if (choice.two_writers) {
    return fail(status, make_error_code(errc::state_file_corrupt),
                "state file " + path + " has two different records of generation " +
                    std::to_string(records[0].generation) +
                    ": it was written by two writers; make sure one process alone uses it, then "
                    "run " +
                    repair);
  }
  if (!choice.provable) {
    const int valid = choice.current;
    return fail(status, make_error_code(errc::state_file_corrupt),
                "state file " + path + ": block " + std::string(1, block_name(1 - valid)) +
                    " is damaged (" + to_string(blocks[1 - valid]) + ") and block " +
                    block_name(valid) + " (ceiling " +
                    detail::format_instant(records[valid].ceiling_ms) +
                    ") was written by cosid 0.1 (format 1), which does not prove that it covers "
                    "every id issued: the damaged block may have held a later ceiling. Nothing "
                    "was issued; run " +
                    repair);
  }
  return true;
}

}  // namespace

}  // namespace cosid
