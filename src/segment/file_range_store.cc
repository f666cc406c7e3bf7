// SPDX-License-Identifier: Apache-2.0
// FileRangeStore (segment/file_range_store.h).
//
// On-disk format. The directory holds, per key K (keys are file-name safe as they are, see
// check_key):
//
//   range.K.lock  empty; its OFD write lock serialises every call on K. Never renamed or removed
//                 by cosid (locked_record.h: a call that finds another inode at the path once it
//                 holds the lock locks that one instead).
//   range.K.rec   the key's record, replaced whole by every change; absent until K's first claim.
//   range.K.tmp   the next record while it is written; a leftover from a crash is overwritten.
//
// range.K.rec is ASCII text, one item a line, each line ending in '\n':
//
//   cosid-range-store 1
//   key K
//   identity UUID       drawn at random when the record is created (Incarnation)
//   value NEXT[:sealed] format_range_value() (range_rules.h)
//   version VERSION     1 at creation, one more with every change
//   end CRC             8 lower-case hex digits of the masked CRC32C of every byte before "end"
//
// Numbers are written in their shortest form and read back only in it; anything else, a key that
// is not K, or a version of 0, is store_corrupt.
//
// Durability (src/segment/RANGES.md, "File store"): every successful claim, every give_back that
// returned true and every seal writes the record and answers only after its own write of the
// temporary file, its fsync, the rename and the directory fsync succeeded. A seal of a sealed key
// writes too: the record it finds may be one an earlier seal renamed into place without the
// directory fsync succeeding. A claim refused (sealed, exhausted) and a give_back that returned
// false change nothing and write nothing: they hand out no value.
//
// What read() may return: it answers from the record under the lock and does not write, so it
// may show a record that a failed call renamed into place without its directory fsync, a next
// value (or a seal) that a power loss would take back. That is all it can overstate, and it is
// informational: no value is handed out on the strength of a read. Claims are what matter, and a
// claim decides on the record under the lock and answers only once its own record is durable,
// which also makes durable every change it builds on. So after a power loss the next value is at
// least the end of every range a claim returned (but for values a give_back that returned true
// handed back, which nobody used), whatever any read showed. A migration relies on seal()'s
// success, never on a read that shows the key sealed.
//
// What a store object remembers: per key, the identity and the highest version it has seen (read
// or written under the lock). A record with another identity (deleted and created again), a lower
// version (restored from a backup) or none at all where it saw one is store_corrupt, and stays so
// for this object: starting the key over would hand its values out again. Within the life of a
// process a record it saw cannot legitimately go back (only a power loss takes back an unsynced
// rename, and the process does not survive one), so remembering a version read from a record
// that was not durable yet never refuses a good record.
#include "cosid/segment/file_range_store.h"

#include <unistd.h>

#include <atomic>
#include <map>
#include <mutex>

#include "base/fail.h"
#include "base/parse_util.h"
#include "cosid/clock.h"
#include "cosid/segment/range_rules.h"
#include "segment/file_range_record.h"
#include "store/locked_record.h"

namespace cosid {
namespace segment {

namespace internal {

namespace {
constexpr char kMagicLine[] = "cosid-range-store 1";
}  // namespace

std::string record_file_name(const std::string& key) { return "range." + key + ".rec"; }
std::string lock_file_name(const std::string& key) { return "range." + key + ".lock"; }
std::string temp_file_name(const std::string& key) { return "range." + key + ".tmp"; }

std::string format_range_record(const RangeRecord& record) {
  std::string text = std::string(kMagicLine) + "\n";
  text += "key " + record.key + "\n";
  text += "identity " + record.identity.to_string() + "\n";
  text += "value " + format_range_value(record.state) + "\n";
  text += "version " + std::to_string(record.state.version) + "\n";
  text += "end " + cosid::detail::crc_text(text) + "\n";
  return text;
}

bool parse_range_record(std::string_view text, RangeRecord& record, std::string& why) {
  std::string_view body;
  std::vector<std::string_view> end_fields;
  if (!cosid::detail::split_at_end_line(text, body, end_fields, why)) return false;
  if (!end_fields.empty()) {
    why = "its checksum or end line does not match its content";
    return false;
  }
  const auto lines = cosid::detail::split(body.substr(0, body.empty() ? 0 : body.size() - 1), '\n');
  if (body.empty() || lines.size() != 5 || lines[0] != kMagicLine) {
    why = "it is not " + std::to_string(5) + " lines starting with \"" + kMagicLine + "\"";
    return false;
  }
  // Each line is "NAME VALUE", the names in this order.
  const char* const names[] = {"key ", "identity ", "value ", "version "};
  std::string_view values[4];
  for (std::size_t i = 0; i < 4; ++i) {
    const std::string_view name = names[i];
    if (lines[i + 1].substr(0, name.size()) != name) {
      why = "line " + std::to_string(i + 2) + " is not its " + std::string(name) + "line";
      return false;
    }
    values[i] = lines[i + 1].substr(name.size());
  }
  Status key_status;
  if (!check_key(std::string(values[0]), key_status)) {
    why = "its key line names no valid key";
    return false;
  }
  record.key = std::string(values[0]);
  if (!Incarnation::parse(std::string(values[1]), record.identity) || record.identity.is_nil()) {
    why = "its identity is not a UUID";
    return false;
  }
  RangeState state;
  if (!parse_range_value(values[2], state)) {
    why = "its value " + cosid::detail::quote(values[2]) + " is not NEXT or NEXT:sealed";
    return false;
  }
  if (!cosid::detail::parse_int(values[3], state.version) || state.version == 0) {
    why = "its version " + cosid::detail::quote(values[3]) + " is not a number of 1 or more";
    return false;
  }
  record.state = state;
  return true;
}

}  // namespace internal

namespace {

using cosid::detail::fail;
using internal::RangeRecord;

// The sentences of this file's refusals, at its end, so that each call reads without stepping over
// text: why a record is corrupt, then the refusal that says so and what to do.
std::string other_key_text(const std::string& record_key);
std::string missing_though_seen_text(std::uint64_t seen_version);
std::string other_identity_text(const Incarnation& identity, const Incarnation& seen_identity);
std::string older_version_text(std::uint64_t version, std::uint64_t seen_version);
std::string corrupt_record_message(const std::string& shown_path, const std::string& key,
                                   const std::string& why);

// What a store object saw of one key.
struct SeenRecord {
  Incarnation identity;
  std::uint64_t version = 0;
};

// The keys one process's store object saw, and the process they belong to. A child forked from
// the process that opened the store starts a table of its own (as a store it opened itself
// would): the copy it inherited has a mutex that another thread of the parent may have held at
// the fork, which nobody would ever unlock in the child.
struct SeenTable {
  explicit SeenTable(pid_t owner, SeenTable* before) : pid(owner), inherited(before) {}
  const pid_t pid;
  SeenTable* const inherited;  // the parent's copy: kept reachable, never used again here
  std::mutex mutex;            // held for a lookup or an update, never across a file call
  std::map<std::string, SeenRecord> keys;  // guarded by mutex
};

}  // namespace

namespace {
constexpr cosid::detail::FileStoreKind kFileRangeStore{"file range store", "/var/lib/cosid/ranges",
                                                       "key"};
}  // namespace

class FileRangeStore::Impl {
 public:
  class Call;

  Impl(std::string directory, int directory_fd, const FileRangeStoreOptions& options)
      : directory_(std::move(directory)),
        fs_(options.file_system != nullptr ? *options.file_system : posix_file_system()),
        dir_{fs_, directory_fd, directory_, kFileRangeStore.name, options.lock_timeout, clock_},
        listener_(options.listener),
        seen_(new SeenTable(::getpid(), nullptr)) {}

  ~Impl() {
    fs_.close(dir_.fd);
    // Only this process's table: the ones below it are a forked child's copies of its ancestors'
    // memory, whose mutexes may have been held at the fork; destroying one would be undefined.
    SeenTable* table = seen_.load();
    if (table->pid == ::getpid()) delete table;
  }

  const std::string& directory() const { return directory_; }
  const cosid::detail::RecordDirectory& dir() const { return dir_; }

  // A claim made `key`'s record (durable now), its first value `first`.
  void report_started(const std::string& key, std::int64_t first) {
    report_key_started(listener_, std::string(kFileRangeStore.name) + " " + directory_, key, first);
  }

  // This process's table (SeenTable).
  SeenTable& seen() {
    const pid_t pid = ::getpid();
    // Acquire pairs with the release of the exchange below: a thread that finds the child's
    // table sees it constructed.
    SeenTable* current = seen_.load(std::memory_order_acquire);
    while (current->pid != pid) {
      auto* fresh = new SeenTable(pid, current);
      if (seen_.compare_exchange_strong(current, fresh, std::memory_order_acq_rel)) return *fresh;
      delete fresh;  // another thread of this child installed one: `current` is it now
    }
    return *current;
  }

 private:
  const std::string directory_;
  FileSystem& fs_;
  // Lock waits run on real time.
  SystemClock clock_;
  const cosid::detail::RecordDirectory dir_;
  EventListener* const listener_;  // kRangeKeyStarted; may be null
  std::atomic<SeenTable*> seen_;
};

// One call on one key: holds its lock from begin() to destruction, reads and checks the record,
// and writes it back if asked.
class FileRangeStore::Impl::Call {
 public:
  Call(Impl& store, const std::string& key)
      : store_(store),
        key_(key),
        lock_(store.dir()),
        shown_path_(store.directory() + "/" + internal::record_file_name(key)) {}

  // Locks and reads the key's record into `record` (record.state.exists false when it has none),
  // and checks it against what this store saw. REQUIRES: check_key(key) passed.
  // `cancel` (may be null) ends the wait for the lock (RangeRequest::cancel).
  bool begin(RangeRecord& record, Status& status, const std::atomic<bool>* cancel = nullptr) {
    const cosid::detail::RecordDirectory& dir = store_.dir();
    bool exists = false;
    std::string data;
    if (!lock_.lock(internal::lock_file_name(key_), status, cancel) ||
        !cosid::detail::read_record(dir, internal::record_file_name(key_), exists, data, status)) {
      return false;
    }
    record = RangeRecord{};
    record.key = key_;
    std::string why;
    if (exists) {
      if (!internal::parse_range_record(data, record, why)) return corrupt(why, status);
      if (record.key != key_) {
        return corrupt(other_key_text(record.key), status);
      }
    }
    SeenTable& seen = store_.seen();
    std::lock_guard<std::mutex> guard(seen.mutex);
    const auto known = seen.keys.find(key_);
    if (known != seen.keys.end()) {
      const SeenRecord& saw = known->second;
      if (!exists) {
        return corrupt(missing_though_seen_text(saw.version), status);
      }
      if (record.identity != saw.identity) {
        return corrupt(other_identity_text(record.identity, saw.identity), status);
      }
      if (record.state.version < saw.version) {
        return corrupt(older_version_text(record.state.version, saw.version), status);
      }
    }
    if (exists) remember(seen, record);
    return true;
  }

  // Makes `record` the key's record, durably, and remembers it. REQUIRES: begin() succeeded.
  bool commit(const RangeRecord& record, Status& status) {
    if (!cosid::detail::replace_durably(store_.dir(), internal::temp_file_name(key_),
                                        internal::record_file_name(key_),
                                        internal::format_range_record(record), status)) {
      return false;
    }
    SeenTable& seen = store_.seen();
    std::lock_guard<std::mutex> guard(seen.mutex);
    remember(seen, record);
    return true;
  }

 private:
  // REQUIRES: seen.mutex held.
  void remember(SeenTable& seen, const RangeRecord& record) {
    SeenRecord& saw = seen.keys[key_];
    saw.identity = record.identity;
    saw.version = record.state.version;
  }

  bool corrupt(const std::string& why, Status& status) {
    return fail(status, errc::store_corrupt, corrupt_record_message(shown_path_, key_, why));
  }

  Impl& store_;
  const std::string& key_;
  cosid::detail::RecordLock lock_;  // held from begin() to destruction
  const std::string shown_path_;
};

FileRangeStore::FileRangeStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FileRangeStore::~FileRangeStore() = default;

const std::string& FileRangeStore::directory() const noexcept { return impl_->directory(); }

std::unique_ptr<FileRangeStore> FileRangeStore::open(const std::string& directory,
                                                     const FileRangeStoreOptions& options,
                                                     Status& status) {
  FileSystem& fs = options.file_system != nullptr ? *options.file_system : posix_file_system();
  int fd = -1;
  if (!cosid::detail::open_record_directory(directory, options.lock_timeout, fs, kFileRangeStore,
                                            fd, status)) {
    return nullptr;
  }
  status.clear();
  return std::unique_ptr<FileRangeStore>(
      new FileRangeStore(std::make_unique<Impl>(directory, fd, options)));
}

bool FileRangeStore::init(const std::string& directory, const FileRangeStoreOptions& options,
                          bool& created, Status& status) {
  FileSystem& fs = options.file_system != nullptr ? *options.file_system : posix_file_system();
  if (!cosid::detail::init_record_directory(directory, fs, created, status)) {
    return false;
  }
  status.clear();
  return true;
}

#if COSID_HAS_EXCEPTIONS
std::unique_ptr<FileRangeStore> FileRangeStore::open(const std::string& directory,
                                                     const FileRangeStoreOptions& options) {
  Status status;
  auto store = open(directory, options, status);
  cosid::detail::throw_if_failed(status);
  return store;
}
#endif

bool FileRangeStore::claim(const RangeRequest& request, Range& range, Status& status) {
  if (!check_claim(request, status)) return false;
  Impl::Call call(*impl_, request.key);
  RangeRecord record;
  if (!call.begin(record, status, request.cancel)) return false;
  const bool created = !record.state.exists;
  Range claimed;
  if (!apply_claim(record.state, request, claimed, status)) return false;
  if (created && !Incarnation::random(record.identity, status)) return false;
  if (!call.commit(record, status)) return false;
  if (created) impl_->report_started(request.key, claimed.first);
  range = claimed;
  status.clear();
  return true;
}

bool FileRangeStore::give_back(const std::string& key, const Range& unused, bool& returned,
                               Status& status) {
  if (!check_give_back(key, unused, status)) return false;
  Impl::Call call(*impl_, key);
  RangeRecord record;
  if (!call.begin(record, status)) return false;
  bool taken = false;
  apply_give_back(record.state, unused, taken);
  // Refused: nothing changes and nothing is written, no value is handed out.
  if (taken && !call.commit(record, status)) return false;
  returned = taken;
  status.clear();
  return true;
}

bool FileRangeStore::seal(const std::string& key, RangeState& state, Status& status) {
  if (!check_key(key, status)) return false;
  Impl::Call call(*impl_, key);
  RangeRecord record;
  if (!call.begin(record, status) || !apply_seal(record.state, key, status)) return false;
  // Written even when it was sealed already (file header, "Durability").
  if (!call.commit(record, status)) return false;
  state = record.state;
  status.clear();
  return true;
}

bool FileRangeStore::read(const std::string& key, RangeState& state, Status& status) {
  if (!check_key(key, status)) return false;
  Impl::Call call(*impl_, key);
  RangeRecord record;
  if (!call.begin(record, status)) return false;
  // Not written (file header, "What read() may return").
  state = record.state.exists ? record.state : RangeState{};
  status.clear();
  return true;
}

// The sentences.
namespace {

std::string other_key_text(const std::string& record_key) {
  return "it is the record of key " + cosid::detail::quote(record_key);
}

std::string missing_though_seen_text(std::uint64_t seen_version) {
  return "it is missing, though this store saw it at version " + std::to_string(seen_version) +
         " (deleted behind the store)";
}

std::string other_identity_text(const Incarnation& identity, const Incarnation& seen_identity) {
  return "its identity is " + identity.to_string() + ", not the " + seen_identity.to_string() +
         " this store saw (deleted and created again behind the store)";
}

std::string older_version_text(std::uint64_t version, std::uint64_t seen_version) {
  return "its version is " + std::to_string(version) + ", below the " +
         std::to_string(seen_version) + " this store saw (an older copy put back)";
}

// No backup, no reset: an older copy or a new record holds a lower next value than the values
// handed out since, so either would let them repeat.
std::string corrupt_record_message(const std::string& shown_path, const std::string& key,
                                   const std::string& why) {
  return "file range store record " + shown_path + " of segment key " + cosid::detail::quote(key) +
         " is corrupt: " + why +
         ". cosid will not guess the next value it held. Do not restore it from a backup: an older "
         "record holds a lower next value, and values handed out since would repeat. Stop every "
         "process of the key, move the file aside (mv " +
         shown_path + " " + shown_path +
         ".corrupt) and start them again on a new key, or on this one with an offset above the "
         "last value it handed out (its new record starts at offset + 1)";
}

}  // namespace

}  // namespace segment
}  // namespace cosid
