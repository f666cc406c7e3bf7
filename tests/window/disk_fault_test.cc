// SPDX-License-Identifier: Apache-2.0
// Disk-fault scenarios of tests/SCENARIOS.md on CrashFs: D-01 ENOSPC, D-02 EIO, D-03 short
// writes, on pwrite and on fdatasync, once, persistent and every second call; D-05 every torn
// variant of each block; D-06 every single-bit flip and random multi-byte corruptions. The C-09
// auditor checks every id against the ceiling decoded from the durable bytes.
//
// EINTR (D-03) is not tested here: posix_fs.cc retries it in one loop around every call (by
// inspection), and provoking a real EINTR needs signals against a blocking call, which is flaky.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cosid/runtime.h"
#include "cosid/state_file.h"
#include "support/crash_fs.h"
#include "support/runtime_setup.h"
#include "support/test_util.h"
#include "window/state_record.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using testing::Auditor;
using testing::CrashFs;
using testing::decode_image;
using testing::ImageState;
using Op = CrashFs::Op;

using testing::kNow;
constexpr auto& kPath = testing::kStatePath;

std::error_code sys(int value) { return {value, std::generic_category()}; }

std::int64_t time_of(std::uint64_t id) {
  return layouts::kDefault.tick_end_ms(layouts::kDefault.parse(id).timestamp);
}

// ---------------------------------------------------------------------------------------------
// D-01, D-02, D-03: write and sync failures while running.

enum class Pattern { kOnce, kPersistent, kEverySecond };

struct FaultCase {
  Op op;
  int error;
  Pattern pattern;
};

std::string name_of(const FaultCase& c) {
  std::string s = c.op == Op::kWrite ? "pwrite_" : "fdatasync_";
  s += c.error == ENOSPC ? "ENOSPC_" : c.error == EDQUOT ? "EDQUOT_" : "EIO_";
  s += c.pattern == Pattern::kOnce         ? "once"
       : c.pattern == Pattern::kPersistent ? "persistent"
                                           : "every_second";
  return s;
}

class DiskFaultBase : public testing::RuntimeFixture<CrashFs> {
 protected:
  DiskFaultBase() : auditor_(fs_, kPath, layouts::kDefault) {}

  // Issues up to `count` ids, 1 ms apart, auditing each; stops at the first error (in status_).
  int issue(Runtime& runtime, int count) {
    Generator* generator = runtime.generator("default", status_);
    if (generator == nullptr) return 0;
    for (int i = 0; i < count; ++i) {
      clock_.advance(milliseconds(1));
      const std::uint64_t id = generator->next(status_);
      if (!status_.ok()) return i;
      EXPECT_TRUE(auditor_.check(id, label_)) << auditor_.violations().back();
      if (!ids_.empty()) {
        EXPECT_GT(id, ids_.back());
      }
      ids_.push_back(id);
    }
    return count;
  }

  // The published ceiling never lies above the durable one.
  void expect_published_is_durable(Runtime& runtime) {
    const ImageState durable = decode_image(fs_.durable(kPath));
    ASSERT_TRUE(durable.valid);
    EXPECT_LE(runtime.ceiling_ms(), durable.record.ceiling_ms);
  }

  // The call pattern of every record write since logging began: a full block written before
  // every sync (never a sync alone), the same block retried until a success, then the other one,
  // and generations strictly increasing (never reused, also after failures).
  void expect_write_discipline() {
    const auto log = fs_.log();
    const CrashFs::LogEntry* last_write = nullptr;
    std::uint64_t last_generation = 0;
    std::int64_t target = -1;
    bool attempt_failed = false;
    int writes = 0;
    int syncs = 0;
    for (const auto& entry : log) {
      if (entry.op == Op::kWrite) {
        ++writes;
        EXPECT_EQ(entry.data.size(), detail::kStateBlockSize) << "a write of a partial block";
        StateRecord record;
        if (entry.data.size() == detail::kStateBlockSize) {
          ASSERT_EQ(detail::decode_block(entry.data.data(), record), detail::BlockStatus::kValid);
          EXPECT_GT(record.generation, last_generation) << "generation reused";
          last_generation = record.generation;
        }
        if (target >= 0) {
          if (attempt_failed) {
            EXPECT_EQ(entry.offset, target) << "a retry moved to the other block";
          } else {
            EXPECT_NE(entry.offset, target) << "overwrote the block of the last durable record";
          }
        }
        target = entry.offset;
        attempt_failed = entry.error != 0;
        last_write = &entry;
      } else if (entry.op == Op::kSyncData) {
        ++syncs;
        ASSERT_NE(last_write, nullptr) << "a sync with no write before it";
        EXPECT_EQ(last_write->error, 0) << "a sync after a failed write";
        attempt_failed = entry.error != 0;
        last_write = nullptr;  // the next sync needs a new write: never a sync-only retry
      }
    }
    EXPECT_GE(writes, syncs);
    EXPECT_GT(writes, 0);
  }

  Auditor auditor_;
  std::vector<std::uint64_t> ids_;
  std::string label_;
};

class DiskFault : public DiskFaultBase, public ::testing::WithParamInterface<FaultCase> {
 protected:
  DiskFault() { label_ = name_of(GetParam()); }
};

TEST_P(DiskFault, CeilingNeverRaisedOnFailureIssuingStopsAtTheOldCeilingAndRecovers) {
  const FaultCase c = GetParam();
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  ASSERT_EQ(issue(*runtime, 10), 10);
  fs_.set_logging(true);  // from here on: the advances of the running runtime
  const std::int64_t published = runtime->ceiling_ms();
  const std::int64_t durable = decode_image(fs_.durable(kPath)).record.ceiling_ms;
  ASSERT_EQ(published, durable);
  clock_.advance(milliseconds(60));  // less than ahead/2 left: maintain() writes

  if (c.pattern == Pattern::kEverySecond) {
    for (int i = 0; i < 10; ++i) {
      if (i % 2 == 0) fs_.fail(c.op, c.error);
      const std::int64_t before = runtime->ceiling_ms();
      const bool maintained = runtime->maintain(status_);
      if (i % 2 == 0) {
        EXPECT_FALSE(maintained) << i;
        EXPECT_EQ(status_.code(), sys(c.error)) << i;
        EXPECT_EQ(runtime->ceiling_ms(), before) << "raised on a failure";
      } else {
        EXPECT_TRUE(maintained) << status_.message();
        EXPECT_GT(runtime->ceiling_ms(), before);
      }
      expect_published_is_durable(*runtime);
      ASSERT_EQ(issue(*runtime, 5), 5) << status_.code().message();
      clock_.advance(milliseconds(55));
    }
    expect_write_discipline();
    EXPECT_TRUE(runtime->close(status_)) << status_.message();
    return;
  }

  fs_.fail(c.op, c.error, 1, c.pattern == Pattern::kPersistent);
  // The failure is surfaced at once, and the published ceiling stays.
  EXPECT_FALSE(runtime->maintain(status_));
  EXPECT_EQ(status_.code(), sys(c.error)) << status_.message();
  EXPECT_NE(status_.message().find("durable ceiling"), std::string::npos) << status_.message();
  EXPECT_EQ(runtime->ceiling_ms(), published);
  EXPECT_EQ(decode_image(fs_.durable(kPath)).record.ceiling_ms, durable);
  expect_published_is_durable(*runtime);

  if (c.pattern == Pattern::kOnce) {
    // The generator reaches the ceiling and renews it inline: no error, nothing above it.
    ASSERT_EQ(issue(*runtime, 200), 200) << status_.code().message();
    EXPECT_GT(runtime->ceiling_ms(), published);
  } else {
    // Issuing goes on up to the old ceiling, then waits and fails.
    issue(*runtime, 1000);
    EXPECT_STATUS(status_, errc::ceiling_reached);
    EXPECT_EQ(runtime->ceiling_ms(), published);
    for (const std::uint64_t id : ids_) EXPECT_LE(time_of(id), published);
    // Still failing: still the old ceiling.
    clock_.advance(milliseconds(300));
    EXPECT_FALSE(runtime->maintain(status_));
    EXPECT_EQ(status_.code(), sys(c.error));
    EXPECT_EQ(runtime->ceiling_ms(), published);
    expect_published_is_durable(*runtime);
    // Space comes back (3 x ahead later): the next id renews the ceiling by itself.
    fs_.clear_faults();
    ASSERT_EQ(issue(*runtime, 5), 5) << status_.code().message();
    EXPECT_GT(runtime->ceiling_ms(), published);
  }
  expect_published_is_durable(*runtime);
  expect_write_discipline();
  EXPECT_TRUE(runtime->close(status_)) << status_.message();
  EXPECT_TRUE(auditor_.violations().empty());
}

std::vector<FaultCase> fault_cases() {
  std::vector<FaultCase> cases;
  for (const Op op : {Op::kWrite, Op::kSyncData}) {
    for (const int error : {ENOSPC, EDQUOT, EIO}) {
      for (const Pattern p : {Pattern::kOnce, Pattern::kPersistent, Pattern::kEverySecond}) {
        cases.push_back({op, error, p});
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(D01D02, DiskFault, ::testing::ValuesIn(fault_cases()),
                         [](const auto& param_info) { return name_of(param_info.param); });

// A failed fdatasync some of whose sectors reached the disk, with the page cache keeping the new
// or the old bytes: the published ceiling never moves, and every retry rewrites the whole record.
TEST_F(DiskFaultBase, FailedSyncWithPartOnDiskNeverPublishes) {
  for (const bool keep_new : {true, false}) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      CrashFs::FailedSync failed;
      failed.applied = CrashFs::FailedSync::Applied::kRandomSectors;
      failed.keep_new = keep_new;
      fs_.set_failed_sync(failed);
      fs_.set_seed(seed);
      label_ = std::string("cache=") + (keep_new ? "new" : "old") + " seed=" + std::to_string(seed);
      fs_.remove(kPath);
      ids_.clear();
      auto runtime = open();
      ASSERT_TRUE(runtime) << status_.message();
      fs_.clear_log();
      fs_.set_logging(true);
      const std::int64_t published = runtime->ceiling_ms();
      clock_.advance(milliseconds(60));
      fs_.fail(Op::kSyncData, EIO);
      EXPECT_FALSE(runtime->maintain(status_));
      EXPECT_EQ(status_.code(), sys(EIO));
      EXPECT_EQ(runtime->ceiling_ms(), published) << "seed " << seed;
      ASSERT_EQ(issue(*runtime, 20), 20) << "seed " << seed << ": " << status_.code().message();
      EXPECT_TRUE(runtime->maintain(status_)) << status_.message();
      expect_write_discipline();
      expect_published_is_durable(*runtime);
      EXPECT_TRUE(runtime->close(status_)) << status_.message();
      fs_.set_logging(false);
    }
  }
  EXPECT_TRUE(auditor_.violations().empty());
}

// D-03: a short write is an error; the retry writes the whole block again.
TEST_F(DiskFaultBase, ShortWriteIsAnErrorAndTheRetryRewritesTheWholeBlock) {
  auto runtime = open();
  ASSERT_TRUE(runtime) << status_.message();
  const std::int64_t published = runtime->ceiling_ms();
  clock_.advance(milliseconds(60));
  fs_.short_write(100);
  fs_.set_logging(true);
  EXPECT_FALSE(runtime->maintain(status_));
  EXPECT_EQ(status_.code(), sys(EIO));
  EXPECT_EQ(runtime->ceiling_ms(), published);
  // The open's sync and the first advance's two: no sync after the short write.
  EXPECT_EQ(fs_.calls(Op::kSyncData), 3);
  EXPECT_TRUE(runtime->maintain(status_)) << status_.message();
  EXPECT_GT(runtime->ceiling_ms(), published);
  const auto log = fs_.log();
  ASSERT_EQ(log.size(), 5u);
  EXPECT_EQ(log[0].size, 100u);
  EXPECT_EQ(log[1].op, Op::kWrite);  // the whole block again, where the short write went
  EXPECT_EQ(log[1].size, detail::kStateBlockSize);
  EXPECT_EQ(log[1].offset, log[0].offset);
  EXPECT_EQ(log[2].op, Op::kSyncData);
  EXPECT_EQ(log[3].op, Op::kWrite);  // then the other block
  EXPECT_NE(log[3].offset, log[0].offset);
  EXPECT_EQ(log[4].op, Op::kSyncData);
  expect_published_is_durable(*runtime);
  EXPECT_TRUE(runtime->close(status_)) << status_.message();
}

// ---------------------------------------------------------------------------------------------
// D-05, D-06: damaged files at start.

StateFileOwner owner() { return StateFileOwner{3, layouts::kDefault, "orders"}; }

class DamagedFile : public ::testing::Test {
 protected:
  // Builds a valid file whose two blocks hold distinct records, and keeps for each block the
  // content it had before its last write (the "older content" a torn write leaves behind).
  DamagedFile() {
    Status status;
    auto file = StateFile::open(fs_, clock_, kPath, owner(), {}, status);
    EXPECT_TRUE(file) << status.message();
    std::vector<std::vector<unsigned char>> images{fs_.durable(kPath)};
    for (int i = 1; i <= 4; ++i) {
      clock_.advance(milliseconds(10));
      EXPECT_TRUE(file->advance(kNow + 100 * i, status)) << status.message();
      images.push_back(fs_.durable(kPath));
    }
    file.reset();
    valid_ = images.back();
    for (std::size_t b = 0; b < 2; ++b) {
      const std::size_t at = b * detail::kStateBlockSize;
      for (auto it = images.rbegin(); it != images.rend(); ++it) {
        if (!std::equal(valid_.begin() + static_cast<std::ptrdiff_t>(at),
                        valid_.begin() + static_cast<std::ptrdiff_t>(at + detail::kStateBlockSize),
                        it->begin() + static_cast<std::ptrdiff_t>(at))) {
          older_[b].assign(it->begin() + static_cast<std::ptrdiff_t>(at),
                           it->begin() + static_cast<std::ptrdiff_t>(at + detail::kStateBlockSize));
          break;
        }
      }
      EXPECT_EQ(older_[b].size(), detail::kStateBlockSize);
    }
    const ImageState state = decode_image(valid_);
    EXPECT_TRUE(state.block_valid[0] && state.block_valid[1]);
  }

  // What a start must do with `image`: pick the valid block with the highest generation, among
  // blocks byte-identical to a known-good content (`good` lists them per block), or refuse.
  void expect_start(const std::vector<unsigned char>& image,
                    const std::vector<std::vector<unsigned char>> good[2],
                    const std::string& what) {
    const detail::StateImage decoded = detail::decode_image(image.data());
    for (int b = 0; b < 2; ++b) {
      const unsigned char* block =
          image.data() + static_cast<std::size_t>(b) * detail::kStateBlockSize;
      bool known = false;
      for (const auto& g : good[b]) {
        known = known || std::memcmp(g.data(), block, detail::kStateBlockSize) == 0;
      }
      // Never a block with a bad CRC or damaged bytes accepted.
      ASSERT_EQ(decoded.valid(b), known) << what << ": block " << b;
    }
    const int expected = decoded.current;
    const StateRecord* records = decoded.records;
    fs_.set_both(kPath, image);
    StateFileOpenOptions options;
    options.create_if_missing = false;
    Status status;
    auto file = StateFile::open(fs_, clock_, kPath, owner(), options, status);
    if (expected < 0) {
      ASSERT_FALSE(file) << what;
      ASSERT_STATUS(status, errc::state_file_corrupt) << what;
      return;
    }
    ASSERT_TRUE(file) << what << ": " << status.message();
    ASSERT_EQ(file->floor_ms(), records[expected].ceiling_ms) << what;
  }

  CrashFs fs_;
  ManualClock clock_{kNow};
  std::vector<unsigned char> valid_;
  std::vector<unsigned char> older_[2];
};

TEST_F(DamagedFile, D05EveryTornVariantOfEachBlockIsRejectedAndTheOtherUsed) {
  std::vector<std::size_t> cuts;
  for (std::size_t c = 0; c <= detail::kStateBlockSize; c += 512) cuts.push_back(c);
  for (std::size_t c = 1; c < detail::kStateRecordSize; ++c) cuts.push_back(c);
  int variants = 0;
  for (std::size_t b = 0; b < 2; ++b) {
    ASSERT_EQ(older_[b].size(), detail::kStateBlockSize) << "block " << b << " was never rewritten";
    const std::size_t at = b * detail::kStateBlockSize;
    std::vector<std::vector<unsigned char>> good[2];
    good[1 - b].emplace_back(
        valid_.begin() + static_cast<std::ptrdiff_t>((1 - b) * detail::kStateBlockSize),
        valid_.begin() + static_cast<std::ptrdiff_t>((2 - b) * detail::kStateBlockSize));
    good[b].emplace_back(
        valid_.begin() + static_cast<std::ptrdiff_t>(at),
        valid_.begin() + static_cast<std::ptrdiff_t>(at + detail::kStateBlockSize));
    good[b].push_back(older_[b]);
    const std::vector<unsigned char> zeros(detail::kStateBlockSize, 0);
    const std::vector<unsigned char>* olds[] = {&older_[b], &zeros};
    for (const auto* old : olds) {
      for (const std::size_t cut : cuts) {
        // New bytes before the cut, older content past it; and the other way round.
        for (const bool new_first : {true, false}) {
          std::vector<unsigned char> image = valid_;
          for (std::size_t i = 0; i < detail::kStateBlockSize; ++i) {
            if ((i < cut) != new_first) image[at + i] = (*old)[i];
          }
          expect_start(image, good,
                       "block " + std::to_string(b) + " cut at " + std::to_string(cut) +
                           (new_first ? " new first" : " old first") +
                           (old == &zeros ? " over zeros" : " over the older record"));
          ++variants;
        }
      }
    }
  }
  EXPECT_GT(variants, 300);
}

TEST_F(DamagedFile, D06EverySingleBitFlipRejectsItsBlock) {
  std::vector<unsigned char> one_valid = valid_;  // block B zeroed: a flip in A leaves none valid
  std::fill(one_valid.begin() + static_cast<std::ptrdiff_t>(detail::kStateBlockSize),
            one_valid.end(), 0);
  for (const auto* base : {&valid_, &one_valid}) {
    std::vector<std::vector<unsigned char>> good[2];
    for (std::size_t b = 0; b < 2; ++b) {
      const auto begin = base->begin() + static_cast<std::ptrdiff_t>(b * detail::kStateBlockSize);
      good[b].emplace_back(begin, begin + static_cast<std::ptrdiff_t>(detail::kStateBlockSize));
    }
    if (base == &one_valid) good[1].clear();  // a zero block is never valid
    for (std::size_t bit = 0; bit < detail::kStateFileSize * 8; ++bit) {
      std::vector<unsigned char> image = *base;
      image[bit / 8] = static_cast<unsigned char>(image[bit / 8] ^ (1u << (bit % 8)));
      expect_start(
          image, good,
          std::string(base == &valid_ ? "both valid" : "B zero") + ", bit " + std::to_string(bit));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST_F(DamagedFile, D06RandomMultiByteCorruptionsNeverAccepted) {
  const char* value = std::getenv("COSID_CORRUPTIONS");
  const long runs = value != nullptr ? std::atol(value) : 100000;
  std::uint64_t state = 20240601;  // fixed seed
  auto next = [&state] {
    state += 0x9e3779b97f4a7c15u;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  };
  std::vector<std::vector<unsigned char>> good[2];
  for (std::size_t b = 0; b < 2; ++b) {
    const auto begin = valid_.begin() + static_cast<std::ptrdiff_t>(b * detail::kStateBlockSize);
    good[b].emplace_back(begin, begin + static_cast<std::ptrdiff_t>(detail::kStateBlockSize));
  }
  for (long run = 0; run < runs; ++run) {
    std::vector<unsigned char> image = valid_;
    const std::uint64_t bursts = 1 + next() % 4;
    for (std::uint64_t i = 0; i < bursts; ++i) {
      // Mostly inside the records, where the checks are, sometimes anywhere.
      const std::size_t block = static_cast<std::size_t>(next() % 2) * detail::kStateBlockSize;
      const std::size_t at =
          next() % 4 == 0 ? static_cast<std::size_t>(next() % detail::kStateFileSize)
                          : block + static_cast<std::size_t>(next() % detail::kStateRecordSize);
      const std::size_t length = 1 + static_cast<std::size_t>(next() % 16);
      for (std::size_t j = at; j < at + length && j < image.size(); ++j) {
        image[j] = static_cast<unsigned char>(next());
      }
    }
    expect_start(image, good, "corruption run " + std::to_string(run) + " (seed 20240601)");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace cosid
