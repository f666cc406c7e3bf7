// SPDX-License-Identifier: Apache-2.0
#include "cosid/state_file.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "support/memory_fs.h"
#include "support/temp_dir.h"
#include "support/test_util.h"
#include "window/state_record.h"

namespace cosid {
namespace {

using testing::MemoryFs;
using Op = MemoryFs::Op;

using testing::kNow;
constexpr char kPath[] = "state/cosid.state";

StateFileOwner owner(std::uint32_t slot = 3, const std::string& ns = "orders") {
  return StateFileOwner{slot, layouts::kDefault, ns};
}

// The ceiling of the current record in a file image, as a restart would read it.
std::int64_t ceiling_in(const std::vector<unsigned char>& image) {
  const detail::StateImage decoded = detail::decode_image(image.data());
  EXPECT_GE(decoded.current, 0);
  return decoded.records[decoded.current < 0 ? 0 : decoded.current].ceiling_ms;
}

class StateFileTest : public ::testing::Test {
 protected:
  std::unique_ptr<StateFile> open(const StateFileOwner& who = owner(),
                                  StateFileOpenOptions options = {}) {
    status_.clear();
    return StateFile::open(fs_, clock_, kPath, who, options, status_);
  }

  MemoryFs fs_;
  ManualClock clock_{kNow};
  Status status_;
};

TEST_F(StateFileTest, MissingFileIsCreatedWithFloorNotBefore) {
  StateFileOpenOptions options;
  options.not_before_ms = kNow - 5000;
  auto file = open(owner(), options);
  ASSERT_TRUE(file) << status_.message();
  EXPECT_TRUE(file->created());
  EXPECT_EQ(file->floor_ms(), kNow - 5000);
  // Durable before open returns: the name and both blocks.
  fs_.crash();
  EXPECT_TRUE(fs_.exists(kPath));
  EXPECT_EQ(fs_.durable(kPath).size(), detail::kStateFileSize);
  EXPECT_EQ(ceiling_in(fs_.durable(kPath)), kNow - 5000);
  // No temporary file is left behind.
  EXPECT_EQ(fs_.names("state"), std::vector<std::string>{"cosid.state"});
}

// Creation interrupted at any step, then a power loss: the next open finds either no file (and
// creates it) or the complete one, never a second name or a partial file under the final name.
TEST_F(StateFileTest, CreationInterruptedAtAnyStepRecovers) {
  for (const Op op : {Op::kCreate, Op::kWrite, Op::kSync, Op::kRename}) {
    for (int nth = 1; nth <= 2; ++nth) {
      MemoryFs fs;
      fs.fail(op, EIO, nth);
      Status status;
      { auto first = StateFile::open(fs, clock_, kPath, owner(), {}, status); }
      fs.crash();
      fs.clear_faults();
      auto file = StateFile::open(fs, clock_, kPath, owner(), {}, status_);
      ASSERT_TRUE(file) << "op " << static_cast<int>(op) << " #" << nth << ": "
                        << status_.message();
      EXPECT_EQ(fs.names("state"), std::vector<std::string>{"cosid.state"})
          << "op " << static_cast<int>(op) << " #" << nth;
    }
  }
}

// Found by fuzz/lifecycle_fuzzer (corpus regression-directory-sync-lost): the directory sync of a
// creation failed, a retry opened the file (its name only in the page cache), issued ids, and a
// power loss took the file away: the next start fell back to not-before and repeated the ids.
// Now every open syncs the directory too.
TEST_F(StateFileTest, OpenMakesTheDirectoryEntryDurable) {
  fs_.fail(Op::kSync, EIO, 2);  // 1: the temporary file, 2: the directory after the rename
  EXPECT_FALSE(open());
  auto file = open();  // the file is there now, in the page cache only
  ASSERT_TRUE(file) << status_.message();
  ASSERT_TRUE(file->advance(kNow + 5000, status_)) << status_.message();
  file.reset();
  fs_.crash();
  file = open();
  ASSERT_TRUE(file) << status_.message();
  EXPECT_FALSE(file->created());
  EXPECT_EQ(file->floor_ms(), kNow + 5000);
}

TEST_F(StateFileTest, RequireStateFileRefusesToCreate) {
  StateFileOpenOptions options;
  options.create_if_missing = false;
  EXPECT_FALSE(open(owner(), options));
  EXPECT_STATUS(status_, errc::state_file_missing);
  EXPECT_NE(status_.message().find("cosid state init"), std::string::npos) << status_.message();
  EXPECT_FALSE(fs_.exists(kPath));
}

TEST_F(StateFileTest, RestartFloorIsTheLastDurableCeiling) {
  {
    auto file = open();
    ASSERT_TRUE(file) << status_.message();
    ASSERT_TRUE(file->advance(kNow + 10000, status_)) << status_.message();
    EXPECT_EQ(file->durable_ceiling_ms(), kNow + 10000);
  }
  fs_.crash();
  auto file = open();
  ASSERT_TRUE(file) << status_.message();
  EXPECT_FALSE(file->created());
  EXPECT_EQ(file->floor_ms(), kNow + 10000);
  EXPECT_FALSE(file->opened_after_clean_shutdown());
}

TEST_F(StateFileTest, NotBeforeRaisesTheFloorOfAnExistingFile) {
  { ASSERT_TRUE(open()); }
  StateFileOpenOptions options;
  options.not_before_ms = kNow + 777;
  auto file = open(owner(), options);
  ASSERT_TRUE(file) << status_.message();
  EXPECT_EQ(file->floor_ms(), kNow + 777);
}

TEST_F(StateFileTest, AdvancesWriteBothBlocksAndNeverLowerTheCeiling) {
  auto file = open();
  ASSERT_TRUE(file);
  const int writes_before = fs_.calls(Op::kWrite);
  const int syncs_before = fs_.calls(Op::kSyncData);
  ASSERT_TRUE(file->advance(kNow + 100, status_)) << status_.message();
  // Two copies, each synced before the next is written.
  EXPECT_EQ(fs_.calls(Op::kWrite), writes_before + 2);
  EXPECT_EQ(fs_.calls(Op::kSyncData), syncs_before + 2);
  ASSERT_TRUE(file->advance(kNow + 50, status_))
      << status_.message();  // a smaller request still writes the largest
  EXPECT_EQ(file->durable_ceiling_ms(), kNow + 100);
  StateRecord a;
  StateRecord b;
  const auto image = fs_.durable(kPath);
  ASSERT_EQ(detail::decode_block(image.data(), a), detail::BlockStatus::kValid);
  ASSERT_EQ(detail::decode_block(image.data() + detail::kStateBlockSize, b),
            detail::BlockStatus::kValid);
  EXPECT_EQ(a.generation, 5u);  // 1 at creation; B 2, A 3, then B 4, A 5
  EXPECT_EQ(b.generation, 4u);
  EXPECT_EQ(a.ceiling_ms, kNow + 100);
  EXPECT_EQ(b.ceiling_ms, kNow + 100);
  EXPECT_EQ(a.format_version, 2);
  EXPECT_EQ(b.format_version, 2);
}

// Write-ahead: a ceiling whose sync failed is never reported durable, and a crash then recovers
// the previous ceiling; the retry rewrites the record (never a sync alone), starting with the
// block whose write failed.
TEST_F(StateFileTest, FailedSyncKeepsTheOldCeilingAndRetriesTheWholeRecord) {
  auto file = open();
  ASSERT_TRUE(file);
  ASSERT_TRUE(file->advance(kNow + 100, status_)) << status_.message();  // B then A
  const int writes_before = fs_.calls(Op::kWrite);
  fs_.fail(Op::kSyncData, EIO);
  EXPECT_FALSE(file->advance(kNow + 200, status_));  // B: its sync fails
  EXPECT_EQ(status_.code(), std::errc::io_error);
  EXPECT_EQ(file->durable_ceiling_ms(), kNow + 100);
  EXPECT_NE(status_.message().find("durable ceiling"), std::string::npos) << status_.message();
  // The retry writes again before it syncs, B first.
  ASSERT_TRUE(file->advance(kNow + 200, status_)) << status_.message();
  EXPECT_EQ(fs_.calls(Op::kWrite), writes_before + 3);
  EXPECT_EQ(file->durable_ceiling_ms(), kNow + 200);
  StateRecord a;
  StateRecord b;
  const auto image = fs_.durable(kPath);
  ASSERT_EQ(detail::decode_block(image.data(), a), detail::BlockStatus::kValid);
  ASSERT_EQ(detail::decode_block(image.data() + detail::kStateBlockSize, b),
            detail::BlockStatus::kValid);
  EXPECT_EQ(b.ceiling_ms, kNow + 200);
  EXPECT_EQ(a.ceiling_ms, kNow + 200);
  EXPECT_EQ(b.generation, 5u);  // generation 4 was spent on the failed attempt
  EXPECT_EQ(a.generation, 6u);
}

// The second copy's sync fails: the new ceiling is durable in one block only, so it is not
// reported durable and no id may use it; a restart's floor still covers the old one.
TEST_F(StateFileTest, ACeilingInOneBlockOnlyIsNotReportedDurable) {
  auto file = open();
  ASSERT_TRUE(file);
  ASSERT_TRUE(file->advance(kNow + 100, status_)) << status_.message();
  fs_.fail(Op::kSyncData, EIO, /*nth=*/2);  // the second copy of the next advance
  EXPECT_FALSE(file->advance(kNow + 200, status_));
  EXPECT_EQ(status_.code(), std::errc::io_error);
  EXPECT_EQ(file->durable_ceiling_ms(), kNow + 100);
  file.reset();
  fs_.crash();
  auto reopened = open();
  ASSERT_TRUE(reopened) << status_.message();
  EXPECT_GE(reopened->floor_ms(), kNow + 100);
}

TEST_F(StateFileTest, FailedSyncThenCrashRecoversThePreviousCeiling) {
  auto file = open();
  ASSERT_TRUE(file);
  ASSERT_TRUE(file->advance(kNow + 100, status_)) << status_.message();
  fs_.fail(Op::kSyncData, EIO);
  EXPECT_FALSE(file->advance(kNow + 200, status_));
  file.reset();
  fs_.crash();
  auto reopened = open();
  ASSERT_TRUE(reopened) << status_.message();
  EXPECT_EQ(reopened->floor_ms(), kNow + 100);
}

TEST_F(StateFileTest, NoSpaceOnWriteAndPersistentErrors) {
  auto file = open();
  ASSERT_TRUE(file);
  fs_.fail(Op::kWrite, ENOSPC);
  EXPECT_FALSE(file->advance(kNow + 100, status_));
  EXPECT_EQ(status_.code(), std::errc::no_space_on_device);
  fs_.fail(Op::kSyncData, EIO, 1, /*persistent=*/true);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(file->advance(kNow + 100, status_));
    EXPECT_EQ(status_.code(), std::errc::io_error);
  }
  EXPECT_EQ(file->durable_ceiling_ms(), 0);  // the creation floor: not-before 0
  fs_.clear_faults();
  EXPECT_TRUE(file->advance(kNow + 100, status_)) << status_.message();
  EXPECT_EQ(file->durable_ceiling_ms(), kNow + 100);
}

// A restart without a reboot after a failed sync can read a record that is only in the page
// cache. The confirm write at open makes it durable before anything relies on it.
// A restart without a reboot after a failed sync: the page cache holds a record that never
// reached the disk. Read past the cache, the open never relies on it, and writes nothing before
// its first advance, which goes to the other block.
TEST_F(StateFileTest, ARecordOnlyInThePageCacheIsNeverReliedOn) {
  {
    auto file = open();
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->advance(kNow + 100, status_)) << status_.message();  // block B, durable
    fs_.fail(Op::kSyncData, EIO);
    EXPECT_FALSE(file->advance(kNow + 200, status_));  // block A, only in "current"
  }
  const int writes = fs_.calls(Op::kWrite);
  auto file = open();  // no crash, no reboot
  ASSERT_TRUE(file) << status_.message();
  EXPECT_EQ(file->floor_ms(), kNow + 100);  // every id issued lies at or below it
  EXPECT_EQ(fs_.calls(Op::kWrite), writes);
  ASSERT_TRUE(file->advance(kNow + 300, status_)) << status_.message();
  fs_.crash();
  EXPECT_EQ(ceiling_in(fs_.durable(kPath)), kNow + 300);
}

// Where reads cannot bypass the page cache (tmpfs), the record read at open is rewritten and
// synced before anything relies on it.
TEST_F(StateFileTest, ConfirmWriteMakesTheRecordReadAtOpenDurable) {
  fs_.set_direct_reads(false);
  {
    auto file = open();
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->advance(kNow + 100, status_)) << status_.message();
    fs_.fail(Op::kSyncData, EIO);
    EXPECT_FALSE(file->advance(kNow + 200, status_));  // only in "current"
  }
  auto file = open();  // no crash: reads the page cache
  ASSERT_TRUE(file) << status_.message();
  EXPECT_EQ(file->floor_ms(), kNow + 200);
  fs_.crash();
  EXPECT_EQ(ceiling_in(fs_.durable(kPath)), kNow + 200);
}

TEST_F(StateFileTest, ConfirmWriteFailureRefusesToStart) {
  fs_.set_direct_reads(false);
  { ASSERT_TRUE(open()); }
  fs_.fail(Op::kSyncData, EIO);
  EXPECT_FALSE(open());
  EXPECT_EQ(status_.code(), std::errc::io_error);
  EXPECT_NE(status_.message().find("nothing was issued"), std::string::npos) << status_.message();
}

TEST_F(StateFileTest, TornBlockFallsBackToTheOtherOneWithoutLoweringTheFloor) {
  {
    auto file = open();
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->advance(kNow + 100, status_)) << status_.message();
    ASSERT_TRUE(file->advance(kNow + 200, status_)) << status_.message();
  }
  for (const std::size_t torn_block : {std::size_t{0}, std::size_t{1}}) {
    auto image = fs_.durable(kPath);
    // Tear the record: its second half is from an older write.
    std::fill(image.begin() + static_cast<long>(torn_block * detail::kStateBlockSize + 32),
              image.begin() + static_cast<long>(torn_block * detail::kStateBlockSize + 64), 0);
    MemoryFs copy;
    copy.set_both(kPath, image);
    Status status;
    auto file = StateFile::open(copy, clock_, kPath, owner(), {}, status);
    ASSERT_TRUE(file) << status.message();
    EXPECT_EQ(file->floor_ms(), kNow + 200);
    EXPECT_NE(file->damaged_block().find(torn_block == 0 ? "block A" : "block B"),
              std::string::npos)
        << file->damaged_block();
  }
}

// The audit's case: renewals fail, so ids go on up to the durable ceiling; the process dies; a
// bit of the newest block flips on disk; the next start runs with the clock 3 s back. Under
// format 1 it used the older block, whose ceiling was lower, and ids repeated. Every single-byte
// change of either block must now leave the floor at or past the last published ceiling, and be
// reported.
TEST_F(StateFileTest, NoDamageToOneBlockLowersTheFloor) {
  std::int64_t published = 0;
  {
    auto file = open();
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->advance(kNow + 100, status_)) << status_.message();
    ASSERT_TRUE(file->advance(kNow + 10000, status_)) << status_.message();
    published = file->durable_ceiling_ms();
    fs_.fail(Op::kWrite, EIO, 1, /*persistent=*/true);  // every renewal from now on fails
    EXPECT_FALSE(file->advance(kNow + 20000, status_));
    EXPECT_EQ(status_.code(), std::errc::io_error);
    EXPECT_EQ(file->durable_ceiling_ms(), published);
  }
  fs_.clear_faults();
  fs_.crash();
  const std::vector<unsigned char> image = fs_.durable(kPath);
  clock_.set_ms(kNow - 3000);
  int damaged = 0;
  for (std::size_t offset = 0; offset < detail::kStateFileSize; ++offset) {
    for (const std::uint8_t flip : {std::uint8_t{0x01}, std::uint8_t{0x80}, std::uint8_t{0xff}}) {
      std::vector<unsigned char> bad = image;
      bad[offset] = static_cast<unsigned char>(bad[offset] ^ flip);
      MemoryFs copy;
      copy.set_both(kPath, bad);
      Status status;
      auto file = StateFile::open(copy, clock_, kPath, owner(), {}, status);
      ASSERT_TRUE(file) << "offset " << offset << ": " << status.message();
      ASSERT_GE(file->floor_ms(), published) << "offset " << offset;
      ASSERT_FALSE(file->damaged_block().empty()) << "offset " << offset;
      ++damaged;
    }
  }
  EXPECT_EQ(damaged, 3 * static_cast<int>(detail::kStateFileSize));
}

// Any fault at any call of a run of advances, then a power loss, then damage to either block:
// the restart's floor is never below the last ceiling the run reported durable.
TEST_F(StateFileTest, EveryValidBlockCoversEveryPublishedCeiling) {
  for (int fault_at = 1; fault_at <= 12; ++fault_at) {
    for (const Op op : {Op::kWrite, Op::kSyncData}) {
      MemoryFs fs;
      std::int64_t published = 0;
      {
        Status status;
        auto file = StateFile::open(fs, clock_, kPath, owner(), {}, status);
        ASSERT_TRUE(file);
        fs.fail(op, EIO, fault_at);
        for (int i = 1; i <= 8; ++i) {
          if (file->advance(kNow + 1000 * i, status)) published = file->durable_ceiling_ms();
        }
      }
      fs.crash();
      const std::vector<unsigned char> image = fs.durable(kPath);
      for (const std::size_t block : {std::size_t{0}, std::size_t{1}}) {
        std::vector<unsigned char> bad = image;
        bad[block * detail::kStateBlockSize + 20] ^= std::uint8_t{0x10};  // in the generation
        MemoryFs copy;
        copy.set_both(kPath, bad);
        Status status;
        auto file = StateFile::open(copy, clock_, kPath, owner(), {}, status);
        ASSERT_TRUE(file) << status.message();
        EXPECT_GE(file->floor_ms(), published)
            << "fault at call " << fault_at << ", damaged block " << block;
      }
    }
  }
}

// A file of cosid 0.1 (format 1) kept the newest ceiling in one block only: with one block
// damaged it cannot prove its ceiling, and the open refuses; with both valid it opens as before.
TEST_F(StateFileTest, LegacyFileWithADamagedBlockIsRefusedUntilRepaired) {
  StateRecord record;
  record.slot = owner().slot;
  record.layout_fingerprint = detail::layout_fingerprint(owner().layout);
  record.namespace_hash = detail::namespace_hash(owner().namespace_name);
  record.format_version = detail::kLegacyStateFormatVersion;
  std::vector<unsigned char> image(detail::kStateFileSize, 0);
  record.generation = 3;
  record.ceiling_ms = kNow + 200;
  detail::encode_block(record, image.data());
  record.generation = 2;
  record.ceiling_ms = kNow + 100;
  detail::encode_block(record, image.data() + detail::kStateBlockSize);

  fs_.set_both(kPath, image);
  {
    auto file = open();
    ASSERT_TRUE(file) << status_.message();
    EXPECT_EQ(file->floor_ms(), kNow + 200);
    EXPECT_TRUE(file->damaged_block().empty());
  }
  for (const std::size_t damaged : {std::size_t{0}, std::size_t{1}}) {
    std::vector<unsigned char> bad = image;
    bad[damaged * detail::kStateBlockSize + 30] ^= 0x04;
    fs_.set_both(kPath, bad);
    EXPECT_FALSE(open());
    EXPECT_STATUS(status_, errc::state_file_corrupt);
    EXPECT_NE(status_.message().find("format 1"), std::string::npos) << status_.message();
    EXPECT_NE(status_.message().find("cosid state repair " + std::string(kPath)), std::string::npos)
        << status_.message();
    StateFileView view;
    ASSERT_TRUE(read_state_file(fs_, kPath, view, status_)) << status_.message();
    EXPECT_FALSE(view.provable);
    EXPECT_EQ(view.current, damaged == 0 ? 1 : 0);
  }
}

TEST_F(StateFileTest, RepairGivesTheFloorAndNeverLowersAValidCeiling) {
  {
    auto file = open();
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->advance(kNow + 5000, status_)) << status_.message();
  }
  auto image = fs_.durable(kPath);
  image[7] ^= 0x01;                             // block A: bad magic
  image[detail::kStateBlockSize + 61] ^= 0x01;  // block B: bad checksum
  fs_.set_both(kPath, image);
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::state_file_corrupt);
  EXPECT_NE(status_.message().find("no valid record"), std::string::npos) << status_.message();

  std::int64_t floor = 0;
  ASSERT_TRUE(repair_state_file(fs_, clock_, kPath, owner(), kNow + 9000, &floor, status_))
      << status_.message();
  EXPECT_EQ(floor, kNow + 9000);
  fs_.crash();  // what the repair reported is durable
  {
    auto file = open();
    ASSERT_TRUE(file) << status_.message();
    EXPECT_EQ(file->floor_ms(), kNow + 9000);
    EXPECT_TRUE(file->damaged_block().empty());
    // A repair while the file is in use is refused.
    EXPECT_FALSE(repair_state_file(fs_, clock_, kPath, owner(), kNow, &floor, status_));
    EXPECT_STATUS(status_, errc::state_file_locked);
  }
  // A not-before below what a valid block proves never lowers it.
  ASSERT_TRUE(repair_state_file(fs_, clock_, kPath, owner(), kNow, &floor, status_))
      << status_.message();
  EXPECT_EQ(floor, kNow + 9000);
  // Another slot's file is not repaired into this slot's.
  EXPECT_FALSE(repair_state_file(fs_, clock_, kPath, owner(4), kNow, &floor, status_));
  EXPECT_STATUS(status_, errc::state_file_mismatch);
  EXPECT_FALSE(repair_state_file(fs_, clock_, "state/none", owner(), kNow, &floor, status_));
  EXPECT_STATUS(status_, errc::state_file_missing);
  EXPECT_NE(status_.message().find("cosid state init"), std::string::npos) << status_.message();
}

// A direct read of a range that a killed writer left dirty writes it back without a device cache
// flush; the open syncs what it read before relying on it.
TEST_F(StateFileTest, WhatADirectReadSawIsSyncedBeforeTheOpenReturns) {
  { ASSERT_TRUE(open()); }
  const int reads = fs_.calls(Op::kReadDurable);
  const int syncs = fs_.calls(Op::kSyncData);
  const int writes = fs_.calls(Op::kWrite);
  ASSERT_TRUE(open()) << status_.message();
  EXPECT_EQ(fs_.calls(Op::kReadDurable), reads + 1);
  EXPECT_EQ(fs_.calls(Op::kSyncData), syncs + 1);
  EXPECT_EQ(fs_.calls(Op::kWrite), writes);  // a sync, never a rewrite
  // And a start whose sync fails relies on nothing it read.
  fs_.fail(Op::kSyncData, EIO);
  EXPECT_FALSE(open());
  EXPECT_EQ(status_.code(), std::errc::io_error);
}

TEST_F(StateFileTest, NoValidRecordIsCorrupt) {
  fs_.set_both(kPath, std::vector<unsigned char>(detail::kStateFileSize, 0xff));
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::state_file_corrupt);
  EXPECT_NE(status_.message().find("no valid record"), std::string::npos) << status_.message();
}

TEST_F(StateFileTest, WrongSizeIsCorrupt) {
  fs_.set_both(kPath, std::vector<unsigned char>(100, 0));
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::state_file_corrupt);
  EXPECT_NE(status_.message().find("100 bytes"), std::string::npos) << status_.message();
}

TEST_F(StateFileTest, FileOfAnotherSlotLayoutOrNamespaceIsRefused) {
  { ASSERT_TRUE(open(owner(4))); }
  EXPECT_FALSE(open(owner(3)));
  EXPECT_STATUS(status_, errc::state_file_mismatch);
  EXPECT_NE(status_.message().find("written for slot 4, configured slot is 3"), std::string::npos)
      << status_.message();

  StateFileOwner other_layout = owner(4);
  other_layout.layout = layouts::kJsSafe;
  EXPECT_FALSE(open(other_layout));
  EXPECT_STATUS(status_, errc::state_file_mismatch);
  EXPECT_NE(status_.message().find("another layout"), std::string::npos) << status_.message();

  EXPECT_FALSE(open(owner(4, "billing")));
  EXPECT_STATUS(status_, errc::state_file_mismatch);
  EXPECT_NE(status_.message().find("another namespace"), std::string::npos) << status_.message();
}

// The same check, on a record read without opening the file (as `cosid state check` does).
TEST_F(StateFileTest, RecordBelongsToItsOwnerOnly) {
  { ASSERT_TRUE(open(owner(4))); }
  StateFileView view;
  ASSERT_TRUE(read_state_file(fs_, kPath, view, status_)) << status_.message();
  ASSERT_GE(view.current, 0);
  const StateRecord& record = view.records[view.current];
  EXPECT_TRUE(state_record_belongs_to(record, owner(4), kPath, status_)) << status_.message();
  EXPECT_FALSE(status_.code());

  EXPECT_FALSE(state_record_belongs_to(record, owner(3), kPath, status_));
  EXPECT_STATUS(status_, errc::state_file_mismatch);
  EXPECT_EQ(status_.message(),
            std::string("state file ") + kPath +
                " was written for slot 4, configured slot is 3: point each slot at its "
                "own file");
  StateFileOwner other_layout = owner(4);
  other_layout.layout = layouts::kSeconds;
  EXPECT_FALSE(state_record_belongs_to(record, other_layout, kPath, status_));
  EXPECT_STATUS(status_, errc::state_file_mismatch);
  EXPECT_NE(status_.message().find("another layout"), std::string::npos) << status_.message();
  EXPECT_FALSE(state_record_belongs_to(record, owner(4, "billing"), kPath, status_));
  EXPECT_STATUS(status_, errc::state_file_mismatch);
}

// Found by fuzz/state_record_fuzzer (corpus regression-generation-wrap): a record of generation
// 2^64 - 1 made the next write wrap to generation 0, and the next open picked the old record
// again, with its lower ceiling. Now the write is refused and the file left as it was.
TEST_F(StateFileTest, GenerationNeverWraps) {
  StateRecord record;
  record.generation = std::numeric_limits<std::uint64_t>::max();
  record.ceiling_ms = kNow;
  record.slot = owner().slot;
  record.layout_fingerprint = detail::layout_fingerprint(owner().layout);
  record.namespace_hash = detail::namespace_hash(owner().namespace_name);
  std::vector<unsigned char> image(detail::kStateFileSize, 0);
  detail::encode_block(record, image.data());
  fs_.set_both(kPath, image);

  auto file = open();
  ASSERT_TRUE(file) << status_.message();
  EXPECT_EQ(file->floor_ms(), kNow);
  EXPECT_FALSE(file->advance(kNow + 1000, status_));
  EXPECT_EQ(status_.code(), std::errc::value_too_large);
  EXPECT_NE(status_.message().find("generation"), std::string::npos) << status_.message();
  EXPECT_EQ(file->durable_ceiling_ms(), kNow);
  EXPECT_FALSE(file->write_clean_shutdown(kNow, status_));
  EXPECT_EQ(status_.code(), std::errc::value_too_large);
  file.reset();
  EXPECT_EQ(fs_.durable(kPath), image);

  // Two generations short of the end: one more advance (two writes), then none.
  record.generation = std::numeric_limits<std::uint64_t>::max() - 2;
  detail::encode_block(record, image.data());
  fs_.set_both(kPath, image);
  file = open();
  ASSERT_TRUE(file) << status_.message();
  EXPECT_TRUE(file->advance(kNow + 1000, status_)) << status_.message();
  EXPECT_FALSE(file->advance(kNow + 2000, status_));
  EXPECT_EQ(status_.code(), std::errc::value_too_large);
  file.reset();
  file = open();
  ASSERT_TRUE(file) << status_.message();
  EXPECT_EQ(file->floor_ms(), kNow + 1000);
}

TEST_F(StateFileTest, SecondOpenIsRefusedWhileTheFirstHoldsTheLock) {
  auto first = open();
  ASSERT_TRUE(first);
  EXPECT_FALSE(open());
  EXPECT_STATUS(status_, errc::state_file_locked);
  first.reset();
  EXPECT_TRUE(open()) << status_.message();
}

TEST_F(StateFileTest, RemovedOrReplacedWhileRunningIsDetected) {
  auto file = open();
  ASSERT_TRUE(file);
  EXPECT_TRUE(file->check_identity(status_)) << status_.message();
  fs_.remove(kPath);
  EXPECT_FALSE(file->check_identity(status_));
  EXPECT_STATUS(status_, errc::state_file_replaced);
  EXPECT_NE(status_.message().find("removed"), std::string::npos) << status_.message();
  fs_.set_both(kPath, std::vector<unsigned char>(detail::kStateFileSize, 0));
  EXPECT_FALSE(file->check_identity(status_));
  EXPECT_STATUS(status_, errc::state_file_replaced);
  EXPECT_EQ(status_.message(),
            "state file state/cosid.state names another file now (it was replaced, as by a rename "
            "over it) while in use, so the ceilings written to it no longer protect a restart");
}

TEST_F(StateFileTest, AppendedToWhileRunningIsDetected) {
  auto file = open();
  ASSERT_TRUE(file);
  std::vector<unsigned char> bytes = fs_.current(kPath);
  bytes.push_back('x');
  fs_.set_both(kPath, bytes);  // the same file, one byte longer
  EXPECT_FALSE(file->check_identity(status_));
  EXPECT_STATUS(status_, errc::state_file_replaced);
  EXPECT_NE(status_.message().find(
                "state file state/cosid.state is 8193 bytes now, not 8192 (appended to "
                "or truncated) while in use"),
            std::string::npos)
      << status_.message();
}

// A stat that fails says nothing about the file: its own error, for the caller to retry, not
// state_file_replaced (which stops the runtime's ceilings for good).
TEST_F(StateFileTest, FailedStatOfTheIdentityCheckIsItsOwnError) {
  auto file = open();
  ASSERT_TRUE(file);
  fs_.fail(MemoryFs::Op::kStat, EIO);  // the path's
  EXPECT_FALSE(file->check_identity(status_));
  EXPECT_EQ(status_.code(), std::errc::io_error);
  EXPECT_EQ(status_.message(),
            "cannot check that state file state/cosid.state is still the file in use: stat of its "
            "path failed: Input/output error");
  fs_.fail(MemoryFs::Op::kStat, ENOMEM, 2);  // the open file's
  EXPECT_FALSE(file->check_identity(status_));
  EXPECT_EQ(status_.code(), std::errc::not_enough_memory);
  EXPECT_NE(status_.message().find("stat of the open file failed"), std::string::npos)
      << status_.message();
  EXPECT_TRUE(file->check_identity(status_)) << status_.message();  // nothing changed
}

TEST_F(StateFileTest, CleanShutdownRecordsTheExactLastTimestamp) {
  {
    auto file = open();
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->advance(kNow + 10000, status_)) << status_.message();
    ASSERT_TRUE(file->write_clean_shutdown(kNow + 42, status_)) << status_.message();
  }
  auto file = open();
  ASSERT_TRUE(file);
  EXPECT_TRUE(file->opened_after_clean_shutdown());
  EXPECT_EQ(file->floor_ms(), kNow + 42);
}

TEST_F(StateFileTest, CreateStateFileNeverReplacesOne) {
  ASSERT_TRUE(create_state_file(fs_, clock_, kPath, owner(), kNow + 5, status_))
      << status_.message();
  EXPECT_FALSE(create_state_file(fs_, clock_, kPath, owner(), 0, status_));
  EXPECT_EQ(status_.code(), std::errc::file_exists);
  EXPECT_NE(status_.message().find("never replaced"), std::string::npos) << status_.message();
  auto file = open();
  ASSERT_TRUE(file);
  EXPECT_EQ(file->floor_ms(), kNow + 5);
}

TEST_F(StateFileTest, ReadStateFileShowsBothBlocks) {
  {
    auto file = open();
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->advance(kNow + 100, status_)) << status_.message();
  }
  StateFileView view;
  ASSERT_TRUE(read_state_file(fs_, kPath, view, status_)) << status_.message();
  EXPECT_TRUE(view.valid[0]);
  EXPECT_TRUE(view.valid[1]);
  EXPECT_TRUE(view.provable);
  EXPECT_EQ(view.current, 0);  // the advance wrote B, then A
  EXPECT_EQ(view.records[0].ceiling_ms, kNow + 100);
  EXPECT_EQ(view.records[1].ceiling_ms, kNow + 100);
  EXPECT_EQ(view.records[0].slot, 3u);
  // Looking needs no right to write: the file is opened for reading only.
  EXPECT_EQ(fs_.calls(Op::kOpenForReading), 1);
}

// --- The real file system -------------------------------------------------------------------

class PosixStateFileTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.empty()); }

  std::unique_ptr<StateFile> open(Status& status) {
    return StateFile::open(posix_file_system(), clock_, path_, owner(), {}, status);
  }

  SystemClock clock_;
  const TempDir temp_{"state_file_test"};
  const std::string dir_ = temp_.path();
  std::string path_ = temp_.file("state");
};

TEST_F(PosixStateFileTest, SecondRuntimeInTheSameProcessIsRefused) {
  Status result;
  auto first = open(result);
  ASSERT_TRUE(first) << result.message();
  EXPECT_FALSE(open(result));
  EXPECT_STATUS(result, errc::state_file_locked);
}

TEST_F(PosixStateFileTest, SecondProcessIsRefused) {
  Status result;
  auto first = open(result);
  ASSERT_TRUE(first) << result.message();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Status child_status;
    auto second = open(child_status);
    _exit(!second && child_status.code() == errc::state_file_locked ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(PosixStateFileTest, SymbolicLinkIsRefused) {
  Status result;
  { ASSERT_TRUE(open(result)) << result.message(); }
  ASSERT_EQ(::rename(path_.c_str(), (dir_ + "/real").c_str()), 0);
  ASSERT_EQ(::symlink((dir_ + "/real").c_str(), path_.c_str()), 0);
  EXPECT_FALSE(open(result));
  EXPECT_EQ(result.code(), std::errc::too_many_symbolic_link_levels);
  EXPECT_NE(result.message().find("symbolic link"), std::string::npos) << result.message();
}

TEST_F(PosixStateFileTest, MissingDirectoryIsAClearError) {
  path_ = dir_ + "/no/such/dir/state";
  Status result;
  EXPECT_FALSE(open(result));
  EXPECT_EQ(result.code(), std::errc::no_such_file_or_directory);
  EXPECT_NE(result.message().find("cannot open directory"), std::string::npos) << result.message();
}

}  // namespace
}  // namespace cosid
