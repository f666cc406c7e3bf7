// SPDX-License-Identifier: Apache-2.0
// FileRangeStore beyond the conformance kit: the record on disk, the FileSystem seam failing each
// write, fsync and rename in turn (never a success, never an overlap after it, even across a
// power loss), torn, garbled, deleted and older records, lock waits, and a store object used in a
// forked child.
#include "cosid/segment/file_range_store.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cosid/lease/store.h"
#include "segment/file_range_record.h"
#include "support/store_init_checks.h"
#include "support/temp_dir.h"
#include "support/test_util.h"
#include "support/watched_fs.h"

namespace cosid::segment {
namespace {

using cosid::testing::read_file;
using cosid::testing::WatchedFs;
using std::chrono::milliseconds;

constexpr char kKey[] = "orders";
constexpr char kRecord[] = "range.orders.rec";

void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

RangeRequest request(std::int64_t count, const std::string& key = kKey) {
  RangeRequest r;
  r.key = key;
  r.count = count;
  return r;
}

// One file call of a change failing, and what its message names.
struct Fault {
  const char* name;
  int WatchedFs::*counter;
  const char* in_message;
};
const Fault kFaults[] = {
    {"open", &WatchedFs::fail_shared_opens, "cannot open range.orders.lock"},
    {"write", &WatchedFs::fail_writes, "cannot write and sync range.orders.tmp"},
    {"file fsync", &WatchedFs::fail_file_syncs, "cannot write and sync range.orders.tmp"},
    {"rename", &WatchedFs::fail_renames, "cannot rename range.orders.tmp over"},
    {"directory fsync", &WatchedFs::fail_directory_syncs, "cannot sync the directory"},
};

class FileRangeStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.empty());
    store_ = open_store();
    ASSERT_NE(store_, nullptr);
  }

  std::unique_ptr<FileRangeStore> open_store(FileSystem* file_system = nullptr,
                                             milliseconds lock_timeout = milliseconds(10000)) {
    FileRangeStoreOptions options;
    options.lock_timeout = lock_timeout;
    options.file_system = file_system;
    Status status;
    auto store = FileRangeStore::open(dir_, options, status);
    EXPECT_NE(store, nullptr) << status.message();
    return store;
  }

  static Range claim(RangeStore& store, std::int64_t count) {
    Range range;
    Status status;
    EXPECT_TRUE(store.claim(request(count), range, status)) << status.message();
    return range;
  }

  static RangeState state_of(RangeStore& store) {
    RangeState state;
    Status status;
    EXPECT_TRUE(store.read(kKey, state, status)) << status.message();
    return state;
  }

  std::string record_path() const { return dir_ + "/" + kRecord; }

  const TempDir temp_{"file_range_store_test"};
  const std::string dir_ = temp_.path();
  std::unique_ptr<FileRangeStore> store_;
};

TEST_F(FileRangeStoreTest, TheRecordIsTheDocumentedText) {
  const Range range = claim(*store_, 10);
  const std::string text = read_file(record_path());
  internal::RangeRecord record;
  std::string why;
  ASSERT_TRUE(internal::parse_range_record(text, record, why)) << why;
  const std::string body = "cosid-range-store 1\nkey orders\nidentity " +
                           record.identity.to_string() + "\nvalue 11\nversion " +
                           std::to_string(range.version) + "\n";
  EXPECT_EQ(text.substr(0, body.size()), body);
  EXPECT_EQ(text.size(), body.size() + 13);  // "end ", 8 hex digits and '\n'
  EXPECT_EQ(text.substr(body.size(), 4), "end ");
  EXPECT_EQ(range.version, 1u);
  EXPECT_EQ(internal::format_range_record(record), text);

  RangeState sealed;
  Status status;
  ASSERT_TRUE(store_->seal(kKey, sealed, status)) << status.message();
  internal::RangeRecord after;
  ASSERT_TRUE(internal::parse_range_record(read_file(record_path()), after, why)) << why;
  EXPECT_TRUE(after.state.sealed);
  EXPECT_EQ(after.state.next, 11);
  EXPECT_EQ(after.state.version, 2u);
  EXPECT_EQ(after.identity, record.identity);  // the identity is the key's for its whole life
  EXPECT_NE(read_file(record_path()).find("\nvalue 11:sealed\n"), std::string::npos);
}

TEST_F(FileRangeStoreTest, RecordsOutliveTheStoreObject) {
  const Range first = claim(*store_, 10);
  store_ = open_store();
  const RangeState state = state_of(*store_);
  EXPECT_TRUE(state.exists);
  EXPECT_EQ(state.next, first.end);
  EXPECT_EQ(state.version, first.version);
  EXPECT_EQ(claim(*store_, 5).first, first.end);
}

// Every success writes its record durably; a refused give_back and a read write nothing.
TEST_F(FileRangeStoreTest, EverySuccessfulChangeWritesAndSyncs) {
  WatchedFs fs(dir_, kRecord);
  auto store = open_store(&fs);
  ASSERT_NE(store, nullptr);
  const Range range = claim(*store, 10);
  EXPECT_EQ(fs.directory_syncs_ok, 1);
  bool returned = false;
  Status status;
  ASSERT_TRUE(store->give_back(kKey, Range{5, range.end, range.version + 1}, returned, status));
  EXPECT_FALSE(returned);
  EXPECT_EQ(fs.directory_syncs_ok, 1);
  ASSERT_TRUE(store->give_back(kKey, Range{5, range.end, range.version}, returned, status));
  EXPECT_TRUE(returned);
  EXPECT_EQ(fs.directory_syncs_ok, 2);
  (void)state_of(*store);
  EXPECT_EQ(fs.directory_syncs_ok, 2);
  RangeState sealed;
  ASSERT_TRUE(store->seal(kKey, sealed, status));
  EXPECT_EQ(fs.directory_syncs_ok, 3);
  ASSERT_TRUE(store->seal(kKey, sealed, status));  // sealed already: written again all the same
  EXPECT_EQ(fs.directory_syncs_ok, 4);
  Range refused;
  EXPECT_FALSE(store->claim(request(1), refused, status));
  EXPECT_STATUS(status, errc::range_sealed);
  EXPECT_EQ(fs.directory_syncs_ok, 4);
}

// Each file call of a claim fails in turn: the claim reports store_unavailable, never a range.
// The next claim succeeds and never overlaps a range the failed one may have written (after a
// failed directory fsync its record is in place for every reader), and a power loss after it
// keeps a record whose next value is past the range it returned.
TEST_F(FileRangeStoreTest, EachFailingCallOfAClaimIsUnavailableAndNeverOverlapsAfterwards) {
  for (const Fault& fault : kFaults) {
    SCOPED_TRACE(fault.name);
    ::unlink(record_path().c_str());  // a new key each round, seen by no store object yet
    WatchedFs fs(dir_, kRecord);
    auto store = open_store(&fs);
    ASSERT_NE(store, nullptr);
    const Range before = claim(*store, 10);
    for (const int error : {EIO, ENOSPC}) {
      fs.fault = error;
      fs.*fault.counter = 1;
      Range range{-7, -7, 7};
      Status status;
      EXPECT_FALSE(store->claim(request(10), range, status));
      EXPECT_STATUS(status, errc::store_unavailable);
      EXPECT_NE(status.message().find(fault.in_message), std::string::npos) << status.message();
      EXPECT_NE(status.message().find("file range store " + dir_), std::string::npos)
          << status.message();
      EXPECT_NE(status.message().find(std::strerror(error)), std::string::npos) << status.message();
      EXPECT_EQ(range.first, -7) << "a failed claim filled in a range";
    }
    // The failed claims may have written [11, 21) and [21, 31) (only a failed directory fsync
    // leaves its rename in place): the retry starts past whatever the record now says.
    const RangeState shown = state_of(*store);
    const bool renamed = fault.counter == &WatchedFs::fail_directory_syncs;
    EXPECT_EQ(shown.next, renamed ? before.end + 20 : before.end);
    const Range retried = claim(*store, 10);
    EXPECT_EQ(retried.first, shown.next);
    EXPECT_GE(retried.first, before.end);

    fs.power_loss();
    auto after_power_loss = open_store();
    ASSERT_NE(after_power_loss, nullptr);
    EXPECT_EQ(state_of(*after_power_loss).next, retried.end);
    EXPECT_EQ(claim(*after_power_loss, 1).first, retried.end);
  }
}

// Each file call of a give_back, then of a seal, fails in turn: store_unavailable. The values
// given back are then either given back or skipped, never below the part of the range that was
// used; the seal, retried, answers only after a write of its own, which a power loss keeps.
TEST_F(FileRangeStoreTest, EachFailingCallOfAGiveBackOrSealIsUnavailableAndNothingOverlaps) {
  for (const Fault& fault : kFaults) {
    SCOPED_TRACE(fault.name);
    ::unlink(record_path().c_str());
    WatchedFs fs(dir_, kRecord);
    auto store = open_store(&fs);
    ASSERT_NE(store, nullptr);
    const Range range = claim(*store, 10);  // 1 to 4 used
    fs.*fault.counter = 1;
    bool returned = false;
    Status status;
    EXPECT_FALSE(store->give_back(kKey, Range{5, range.end, range.version}, returned, status));
    EXPECT_STATUS(status, errc::store_unavailable);
    EXPECT_NE(status.message().find(fault.in_message), std::string::npos) << status.message();
    // Not retried (its outcome is unknown): the next claim starts at 5 or at 11, never below.
    const Range next = claim(*store, 3);
    EXPECT_EQ(next.first, fault.counter == &WatchedFs::fail_directory_syncs ? 5 : 11);

    fs.*fault.counter = 1;
    RangeState sealed;
    EXPECT_FALSE(store->seal(kKey, sealed, status));
    EXPECT_STATUS(status, errc::store_unavailable);
    EXPECT_NE(status.message().find(fault.in_message), std::string::npos) << status.message();
    // Only a failed directory fsync leaves the sealed record in place, for every reader but not
    // on the disk.
    EXPECT_EQ(state_of(*store).sealed, fault.counter == &WatchedFs::fail_directory_syncs);
    const int syncs = fs.directory_syncs_ok;
    ASSERT_TRUE(store->seal(kKey, sealed, status)) << status.message();
    EXPECT_EQ(fs.directory_syncs_ok, syncs + 1);
    fs.power_loss();
    auto after_power_loss = open_store();
    ASSERT_NE(after_power_loss, nullptr);
    EXPECT_TRUE(state_of(*after_power_loss).sealed);
    Range refused;
    EXPECT_FALSE(after_power_loss->claim(request(1), refused, status));
    EXPECT_STATUS(status, errc::range_sealed);
  }
}

TEST_F(FileRangeStoreTest, ATornOrGarbledRecordIsCorruptNamingThePathAndIsKept) {
  claim(*store_, 10);
  const std::string text = read_file(record_path());
  std::vector<std::string> damaged = {text.substr(0, text.size() - 1),
                                      text.substr(0, text.size() / 2), std::string(), text + "x\n"};
  std::string flipped = text;
  flipped[flipped.find("value 11") + 6] = '9';  // a valid-looking next value: the CRC catches it
  damaged.push_back(flipped);
  for (const std::string& bad : damaged) {
    write_file(record_path(), bad);
    for (const bool fresh : {false, true}) {
      auto other = fresh ? open_store() : nullptr;
      RangeStore& store = fresh ? *other : *store_;
      Range range;
      Status status;
      EXPECT_FALSE(store.claim(request(1), range, status));
      EXPECT_STATUS(status, errc::store_corrupt);
      EXPECT_NE(status.message().find(record_path()), std::string::npos) << status.message();
      EXPECT_NE(status.message().find("Do not restore it from a backup"), std::string::npos)
          << status.message();
      EXPECT_NE(status.message().find("mv " + record_path() + " " + record_path() + ".corrupt"),
                std::string::npos)
          << status.message();
      RangeState state;
      EXPECT_FALSE(store.read(kKey, state, status));
      EXPECT_STATUS(status, errc::store_corrupt);
      EXPECT_EQ(read_file(record_path()), bad);  // never reset
    }
  }
}

TEST_F(FileRangeStoreTest, ARecordOfAnotherKeyIsCorrupt) {
  Range range;
  Status status;
  ASSERT_TRUE(store_->claim(request(10, "billing"), range, status)) << status.message();
  write_file(record_path(), read_file(dir_ + "/range.billing.rec"));
  EXPECT_FALSE(store_->claim(request(1), range, status));
  EXPECT_STATUS(status, errc::store_corrupt);
  EXPECT_NE(status.message().find("record of key \"billing\""), std::string::npos)
      << status.message();
}

// Deleted behind the store, or an older copy put back: the store object that saw the record
// refuses it; a new store object has nothing to compare with (which is why the message says to
// stop every process of the key).
TEST_F(FileRangeStoreTest, ADeletedOrOlderRecordIsCorruptForTheStoreThatSawIt) {
  claim(*store_, 10);
  const std::string older = read_file(record_path());
  claim(*store_, 10);
  write_file(record_path(), older);
  Range range;
  Status status;
  EXPECT_FALSE(store_->claim(request(1), range, status));
  EXPECT_STATUS(status, errc::store_corrupt);
  EXPECT_NE(status.message().find("its version is 1, below the 2"), std::string::npos)
      << status.message();
  EXPECT_EQ(read_file(record_path()), older);

  ASSERT_EQ(::unlink(record_path().c_str()), 0);
  EXPECT_FALSE(store_->claim(request(1), range, status));
  EXPECT_STATUS(status, errc::store_corrupt);
  EXPECT_NE(status.message().find("missing"), std::string::npos) << status.message();
  bool returned = true;
  EXPECT_FALSE(store_->give_back(kKey, Range{1, 2, 1}, returned, status));
  EXPECT_STATUS(status, errc::store_corrupt);
  EXPECT_EQ(::access(record_path().c_str(), F_OK), -1) << "a refusal created a record";
}

TEST_F(FileRangeStoreTest, ALockHeldElsewhereRunsOutAsUnavailable) {
  claim(*store_, 1);  // creates the lock file
  const std::string lock_path = dir_ + "/range.orders.lock";
  const int fd = cosid::testing::lock_as_another_process(lock_path);
  ASSERT_GE(fd, 0);
  for (const milliseconds timeout : {milliseconds(0), milliseconds(20)}) {
    auto store = open_store(nullptr, timeout);
    ASSERT_NE(store, nullptr);
    Range range;
    Status status;
    EXPECT_FALSE(store->claim(request(1), range, status));
    EXPECT_STATUS(status, errc::store_unavailable);
    EXPECT_NE(status.message().find("range.orders.lock stayed locked"), std::string::npos)
        << status.message();
    EXPECT_NE(status.message().find("fuser " + lock_path), std::string::npos) << status.message();
  }
  ::close(fd);  // released: the store works again
  EXPECT_EQ(claim(*store_, 1).first, 2);
}

TEST_F(FileRangeStoreTest, ALeftoverTemporaryFileIsOverwritten) {
  write_file(dir_ + "/range.orders.tmp", "half a record from a crash");
  EXPECT_EQ(claim(*store_, 3).first, 1);
  EXPECT_EQ(claim(*store_, 3).first, 4);
}

// The parent's store object, used in a forked child: the child's claims and the parent's never
// overlap, and the child starts its own table of what it saw.
TEST_F(FileRangeStoreTest, AForkedChildCanUseTheStoreObject) {
  const Range before = claim(*store_, 10);
  int results[2];
  ASSERT_EQ(::pipe(results), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(results[0]);
    std::int64_t answer[2] = {-1, -1};
    Range range;
    Status status;
    int code = 2;
    if (store_->claim(request(10), range, status)) {
      answer[0] = range.first;
      answer[1] = range.end;
      code = 0;
    }
    if (::write(results[1], answer, sizeof answer) != sizeof answer) code = 3;
    ::_exit(code);
  }
  ::close(results[1]);
  std::int64_t answer[2] = {0, 0};
  ASSERT_EQ(::read(results[0], answer, sizeof answer), static_cast<ssize_t>(sizeof answer));
  ::close(results[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(answer[0], before.end);
  EXPECT_EQ(answer[1], before.end + 10);
  // The parent sees the child's change as a newer version of the record it saw: no refusal.
  const Range after = claim(*store_, 10);
  EXPECT_EQ(after.first, before.end + 10);
}

TEST_F(FileRangeStoreTest, OpenRefusesBadArguments) {
  FileRangeStoreOptions options;
  Status status;
  EXPECT_EQ(FileRangeStore::open("", options, status), nullptr);
  EXPECT_STATUS(status, errc::invalid_argument);
  options.lock_timeout = milliseconds(-1);
  EXPECT_EQ(FileRangeStore::open(dir_, options, status), nullptr);
  EXPECT_STATUS(status, errc::invalid_argument);
}

// A store's directory is never made by opening it: a mistyped one would start every key at
// offset + 1 again.
TEST_F(FileRangeStoreTest, AMissingDirectoryIsRefusedAndNotCreated) {
  Status status;
  const std::string missing = dir_ + "/ranges";
  EXPECT_EQ(FileRangeStore::open(missing, FileRangeStoreOptions(), status), nullptr);
  testing_support::expect_missing_store_refused(status, missing, "key");
}

TEST_F(FileRangeStoreTest, InitCreatesTheDirectoryOnceAndTheStoreThenClaims) {
  const std::string path = dir_ + "/ranges";
  bool created = false;
  Status status;
  ASSERT_TRUE(FileRangeStore::init(path, FileRangeStoreOptions(), created, status))
      << status.message();
  EXPECT_TRUE(created);
  testing_support::expect_store_directory(path);
  auto store = FileRangeStore::open(path, FileRangeStoreOptions(), status);
  ASSERT_NE(store, nullptr) << status.message();
  EXPECT_EQ(store->directory(), path);
  EXPECT_EQ(claim(*store, 10).first, 1);
  ASSERT_TRUE(FileRangeStore::init(path, FileRangeStoreOptions(), created, status))
      << status.message();
  EXPECT_FALSE(created);
  EXPECT_EQ(claim(*store, 10).first, 11);  // the record survived the second init
}

// The new directory's entry is made durable: a failed sync of the parent is an error, and the
// init repeated syncs it again even though the directory exists by then.
TEST_F(FileRangeStoreTest, InitReportsAFailedParentSyncAndARepeatSyncsAgain) {
  WatchedFs fs(dir_, kRecord);
  FileRangeStoreOptions options;
  options.file_system = &fs;
  fs.fail_directory_syncs = 1;
  bool created = true;
  Status status;
  EXPECT_FALSE(FileRangeStore::init(dir_ + "/ranges", options, created, status));
  EXPECT_STATUS(status, errc::store_unavailable);
  EXPECT_NE(status.message().find("run the init again"), std::string::npos) << status.message();
  EXPECT_FALSE(created);
  const int synced = fs.directory_syncs_ok;
  ASSERT_TRUE(FileRangeStore::init(dir_ + "/ranges", options, created, status)) << status.message();
  EXPECT_FALSE(created);
  EXPECT_EQ(fs.directory_syncs_ok, synced + 1);
}

// A key's first claim says so once (the key and the store named, with its first value); later
// claims of it, and claims without a listener, say nothing.
TEST_F(FileRangeStoreTest, AKeysFirstClaimIsReportedOnce) {
  cosid::testing::RecordingListener listener;
  FileRangeStoreOptions options;
  options.listener = &listener;
  Status status;
  auto store = FileRangeStore::open(dir_, options, status);
  ASSERT_NE(store, nullptr) << status.message();
  RangeRequest first = request(5);
  first.offset = 1000;
  Range range;
  ASSERT_TRUE(store->claim(first, range, status)) << status.message();
  ASSERT_EQ(range.first, 1001);
  ASSERT_TRUE(store->claim(first, range, status)) << status.message();
  (void)claim(*store_, 5);  // the fixture's store has no listener
  const std::vector<Event> events = listener.of(EventKind::kRangeKeyStarted);
  ASSERT_EQ(events.size(), 1u);
  const std::string& message = events[0].message;
  EXPECT_NE(message.find("segment key \"orders\" had no record in the file range store " + dir_ +
                         ", so it starts at 1001"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("If the key is not new"), std::string::npos) << message;
}

}  // namespace
}  // namespace cosid::segment
