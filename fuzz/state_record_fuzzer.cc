// SPDX-License-Identifier: Apache-2.0
// Fuzzes the state file (F1): its record codec (src/window/state_record.h) and StateFile::open on
// an arbitrary file image.
//  - decode_block never crashes; a block that decodes valid re-encodes to the same 4,096 bytes;
//  - StateFile::open (on a MemoryFs holding the image, with a ManualClock) never crashes and
//    gives exactly the answer of a reference decoder written from the format's specification:
//    refuse with state_file_corrupt (wrong size, no valid block, two different blocks of one
//    generation, a single valid block of format 1, which cannot prove its ceiling) or
//    state_file_mismatch (slot, layout or namespace of another owner), else accept
//    with floor == max(ceiling of the valid record with the highest generation, not-before);
//  - after an accepted open, a ceiling advanced past the floor (and then a clean shutdown) is what
//    the next open finds: a later open never sees an older ceiling (found: a record of generation
//    2^64 - 1 made the next write wrap to generation 0, which then lost to the old record).
//
// Input: byte 0 chooses (bits 0-2) whether block A's CRC is recomputed before the checks, and
// (bits 3-5) block B's: in 7 of 8 cases each, so that most inputs get past the checksum and some
// exercise its rejection. Bit 6 selects the compact form: the rest holds the two 64-byte records,
// which are placed at offsets 0 and 4,096 of a zero-filled 8,192-byte image; otherwise the rest is
// the image itself (0 to 16 KiB). Byte 1 chooses not-before. The owner is fixed: slot 7, the
// default layout, namespace "cosid".
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "base/crc32c.h"
#include "cosid/clock.h"
#include "cosid/error.h"
#include "cosid/layout.h"
#include "cosid/state_file.h"
#include "fuzz_util.h"
#include "support/memory_fs.h"
#include "window/state_record.h"

namespace {

using cosid::StateRecord;
using cosid::detail::BlockStatus;
using cosid::detail::kStateBlockSize;
using cosid::detail::kStateFileSize;
using cosid::detail::kStateRecordSize;

constexpr std::size_t kMaxImage = 16 * 1024;
constexpr std::int64_t kNow = 1700000000000;
const char kPath[] = "state/slot-7";

// Rewrites the CRC field of the record at `block` (which has at least 64 bytes).
void fix_crc(unsigned char* block) {
  const std::uint32_t crc = cosid::detail::mask_crc(cosid::detail::crc32c(block, 60));
  for (int i = 0; i < 4; ++i) block[60 + i] = static_cast<unsigned char>(crc >> (8 * i));
}

std::string describe(const StateRecord& r) {
  return "gen=" + std::to_string(r.generation) + " ceiling=" + std::to_string(r.ceiling_ms) +
         " slot=" + std::to_string(r.slot) + " clean=" + std::to_string(r.clean_shutdown);
}

cosid::StateFileOwner owner() {
  cosid::StateFileOwner o;
  o.slot = 7;
  o.layout = cosid::layouts::kDefault;
  o.namespace_name = "cosid";
  return o;
}

// What open must do with `image`, from the specification alone.
struct Expected {
  std::error_code ec;
  StateRecord record;  // the current record when ec is clear
};

Expected reference_open(const std::vector<unsigned char>& image) {
  Expected out;
  if (image.size() != kStateFileSize) {
    out.ec = cosid::make_error_code(cosid::errc::state_file_corrupt);
    return out;
  }
  const cosid::detail::StateImage decoded = cosid::detail::decode_image(image.data());
  const StateRecord* records = decoded.records;
  const bool valid[2] = {decoded.valid(0), decoded.valid(1)};
  if (!valid[0] && !valid[1]) {
    out.ec = cosid::make_error_code(cosid::errc::state_file_corrupt);
    return out;
  }
  if (valid[0] != valid[1] &&
      records[valid[0] ? 0 : 1].format_version == cosid::detail::kLegacyStateFormatVersion) {
    out.ec = cosid::make_error_code(cosid::errc::state_file_corrupt);
    return out;
  }
  if (valid[0] && valid[1] && records[0].generation == records[1].generation &&
      std::memcmp(image.data(), image.data() + kStateBlockSize, kStateBlockSize) != 0) {
    out.ec = cosid::make_error_code(cosid::errc::state_file_corrupt);
    return out;
  }
  out.record = records[decoded.current];
  const cosid::StateFileOwner o = owner();
  if (out.record.slot != o.slot ||
      out.record.layout_fingerprint != cosid::detail::layout_fingerprint(o.layout) ||
      out.record.namespace_hash != cosid::detail::namespace_hash(o.namespace_name)) {
    out.ec = cosid::make_error_code(cosid::errc::state_file_mismatch);
  }
  return out;
}

void check_codec(const std::vector<unsigned char>& image) {
  for (std::size_t b = 0; (b + 1) * kStateBlockSize <= image.size() && b < 4; ++b) {
    // An exact-size copy, so that ASan sees any read past the block.
    const std::unique_ptr<unsigned char[]> block(new unsigned char[kStateBlockSize]);
    std::memcpy(block.get(), image.data() + b * kStateBlockSize, kStateBlockSize);
    StateRecord record;
    const BlockStatus status = cosid::detail::decode_block(block.get(), record);
    CHECK(std::strlen(cosid::detail::to_string(status)) > 0);
    if (status != BlockStatus::kValid) continue;
    std::vector<unsigned char> again(kStateBlockSize);
    cosid::detail::encode_block(record, again.data());
    CHECK_MSG(std::memcmp(again.data(), block.get(), kStateBlockSize) == 0, describe(record));
    StateRecord twice;
    CHECK(cosid::detail::decode_block(again.data(), twice) == BlockStatus::kValid);
    CHECK_MSG(twice.generation == record.generation && twice.ceiling_ms == record.ceiling_ms &&
                  twice.clean_shutdown == record.clean_shutdown,
              describe(record));
  }
}

std::int64_t not_before_for(std::uint8_t choice, const Expected& expected) {
  const std::int64_t ceiling = expected.ec ? 0 : expected.record.ceiling_ms;
  switch (choice % 6) {
    case 0:
      return 0;
    case 1:
      return kNow;
    case 2:
      return ceiling > std::numeric_limits<std::int64_t>::min() ? ceiling - 1 : ceiling;
    case 3:
      return ceiling < std::numeric_limits<std::int64_t>::max() ? ceiling + 1 : ceiling;
    case 4:
      return cosid::layouts::kDefault.epoch_ms();
    default:
      return std::numeric_limits<std::int64_t>::max() / 2;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2 || size > kMaxImage + 2) return 0;
  const std::uint8_t control = data[0];
  const std::uint8_t not_before_choice = data[1];
  const bool fix[2] = {(control & 0x07) != 0, (control & 0x38) != 0};
  const bool compact = (control & 0x40) != 0;

  std::vector<unsigned char> image;
  if (compact) {
    image.assign(kStateFileSize, 0);
    const std::size_t rest = size - 2;
    std::memcpy(image.data(), data + 2, rest < kStateRecordSize ? rest : kStateRecordSize);
    if (rest > kStateRecordSize) {
      const std::size_t more = rest - kStateRecordSize;
      std::memcpy(image.data() + kStateBlockSize, data + 2 + kStateRecordSize,
                  more < kStateRecordSize ? more : kStateRecordSize);
    }
  } else {
    image.assign(data + 2, data + size);
  }
  for (std::size_t b = 0; b < 2; ++b) {
    if (fix[b] && image.size() >= b * kStateBlockSize + kStateRecordSize) {
      fix_crc(image.data() + b * kStateBlockSize);
    }
  }

  check_codec(image);

  const Expected expected = reference_open(image);
  cosid::StateFileOpenOptions options;
  options.create_if_missing = false;
  options.not_before_ms = not_before_for(not_before_choice, expected);

  cosid::testing::MemoryFs fs;
  cosid::ManualClock clock(kNow);
  fs.set_both(kPath, image);
  cosid::Status status;
  std::unique_ptr<cosid::StateFile> file =
      cosid::StateFile::open(fs, clock, kPath, owner(), options, status);
  CHECK_MSG(!file == !status.ok(), status.message());
  CHECK_MSG(status.code() == expected.ec,
            "open: " + status.code().message() + " (" + status.message() + "), expected " +
                expected.ec.message() + "; " + describe(expected.record));
  if (!file) {
    CHECK_MSG(!status.message().empty() && status.message().size() < 4096, status.message());
    // A refused file is left as it was.
    CHECK(fs.durable(kPath) == image);
    return 0;
  }
  const std::int64_t want_floor = expected.record.ceiling_ms > options.not_before_ms
                                      ? expected.record.ceiling_ms
                                      : options.not_before_ms;
  CHECK_MSG(file->floor_ms() == want_floor,
            std::to_string(file->floor_ms()) + " != " + std::to_string(want_floor));
  CHECK_MSG(file->durable_ceiling_ms() == expected.record.ceiling_ms, describe(expected.record));
  CHECK(file->opened_after_clean_shutdown() == expected.record.clean_shutdown);

  // The durable state must go forward from here: advance past the floor, then record a clean
  // shutdown at the floor; each later open sees the newest record.
  const std::int64_t floor = file->floor_ms();
  if (floor > std::numeric_limits<std::int64_t>::max() - 1000) return 0;
  const std::int64_t advanced = floor + 1000;
  // The generation never wraps: a file at generation 2^64 - 1 takes no more writes, and one at
  // 2^64 - 2 takes the first of an advance's two writes only, so the advance fails.
  constexpr std::uint64_t kLast = std::numeric_limits<std::uint64_t>::max();
  if (expected.record.generation >= kLast - 1) {
    CHECK(!file->advance(advanced, status) && status.code() == std::errc::value_too_large);
    CHECK(file->durable_ceiling_ms() == expected.record.ceiling_ms);
    file.reset();
    if (expected.record.generation == kLast) CHECK(fs.durable(kPath) == image);
    return 0;
  }
  CHECK_MSG(file->advance(advanced, status), status.message());
  CHECK(file->durable_ceiling_ms() == advanced);
  file.reset();
  cosid::StateFileOpenOptions reopen_options;
  reopen_options.create_if_missing = false;
  file = cosid::StateFile::open(fs, clock, kPath, owner(), reopen_options, status);
  CHECK_MSG(file != nullptr, "reopen after advance: " + status.message());
  // The reopen has no not-before, i.e. 0: a negative ceiling gives floor 0.
  const std::int64_t reopened_floor = advanced > 0 ? advanced : 0;
  CHECK_MSG(file->floor_ms() == reopened_floor,
            "advanced to " + std::to_string(advanced) + ", reopened with floor " +
                std::to_string(file->floor_ms()) + " (" + describe(expected.record) + ")");
  if (expected.record.generation + 2 == kLast) {  // the advance took the last generation
    CHECK(!file->write_clean_shutdown(reopened_floor, status) &&
          status.code() == std::errc::value_too_large);
    return 0;
  }
  CHECK_MSG(file->write_clean_shutdown(reopened_floor, status), status.message());
  file.reset();
  file = cosid::StateFile::open(fs, clock, kPath, owner(), reopen_options, status);
  CHECK_MSG(file != nullptr, "reopen after clean shutdown: " + status.message());
  CHECK_MSG(file->floor_ms() == reopened_floor && file->opened_after_clean_shutdown(),
            "clean shutdown at " + std::to_string(reopened_floor) + ", reopened with floor " +
                std::to_string(file->floor_ms()) + " (" + describe(expected.record) + ")");
  return 0;
}
