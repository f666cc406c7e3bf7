// SPDX-License-Identifier: Apache-2.0
// Internal: the byte format of the state file. This comment is the format's specification.
//
// The file is 8,192 bytes: block A at offset 0 and block B at offset 4,096. Each block holds one
// 64-byte record followed by zeros. All integers are little-endian.
//
//   offset  size  field
//        0     8  magic "COSIDSTF"
//        8     2  format version: 2 (1 in files written by cosid 0.1, still read; see below)
//       10     2  flags: bit 0 = written by a clean shutdown; other bits 0
//       12     4  record length, 64
//       16     8  generation: +1 on every write; the valid record with the highest one is current
//       24     8  ceiling, signed Unix milliseconds: no id was issued with a later timestamp
//       32     4  slot
//       36     8  layout fingerprint (epoch, unit, field bits)
//       44     8  namespace hash (FNV-1a 64 of the namespace)
//       52     8  written at, signed Unix milliseconds (diagnostic only)
//       60     4  masked CRC32C of bytes 0..59
//
// A block is valid only if magic, version, length, CRC and zero padding all check out.
//
// Format 2 adds no field; it names a rule of the writer. A ceiling is published (ids may use it)
// only once it is durable in *both* blocks: each advance writes the block that does not hold the
// newest record, syncs, then writes the other block, syncs. So at every moment every valid
// format-2 block holds a ceiling at or past every timestamp issued, and a restart may rely on any
// valid block of format 2, whichever one a torn write or a flipped bit destroyed (the argument:
// src/window/DURABILITY.md, "State file"). Format 1 writers wrote one block per advance: there only
// the newest block was known to cover what was issued, and a damaged newest block is
// indistinguishable from a torn older one, so a file whose only valid block is of format 1 is
// refused (StateFile::open) until `cosid state repair` gives it a floor.
#ifndef COSID_SRC_WINDOW_STATE_RECORD_H_
#define COSID_SRC_WINDOW_STATE_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/layout_text.h"
#include "cosid/layout.h"
#include "cosid/state_file.h"

namespace cosid {
namespace detail {

inline constexpr std::size_t kStateBlockSize = 4096;
inline constexpr std::size_t kStateFileSize = 2 * kStateBlockSize;
inline constexpr std::size_t kStateRecordSize = 64;
inline constexpr std::uint16_t kStateFormatVersion = 2;        // what this version writes
inline constexpr std::uint16_t kLegacyStateFormatVersion = 1;  // read, never written

// Why a block was not accepted.
enum class BlockStatus { kValid, kBadMagic, kBadVersion, kBadLength, kBadChecksum, kBadPadding };

// Writes `record` and its zero padding into the kStateBlockSize bytes at `block`, as format
// `record.format_version` (tests and tools write format 1 to model old files).
void encode_block(const StateRecord& record, unsigned char* block) noexcept;

// Checks the kStateBlockSize bytes at `block` and, when it is valid, decodes its record into
// `record`.
BlockStatus decode_block(const unsigned char* block, StateRecord& record) noexcept;

const char* to_string(BlockStatus status) noexcept;

// Of the two blocks, the one a restart relies on: the valid one, or of two valid ones the one of
// the higher generation (A when both are equal); -1 when neither is valid. The one statement of
// this rule: the state file, its tools, the tests and the fuzzers all ask here.
int current_block(const BlockStatus status[2], const StateRecord records[2]) noexcept;

// Both blocks of a kStateFileSize image, decoded, and which one is current.
struct StateImage {
  StateRecord records[2];
  BlockStatus status[2] = {BlockStatus::kBadMagic, BlockStatus::kBadMagic};
  int current = -1;  // current_block(status, records)

  bool valid(int block) const noexcept { return status[block] == BlockStatus::kValid; }
};

// Decodes both blocks of the kStateFileSize bytes at `image`.
StateImage decode_image(const unsigned char* image) noexcept;

std::uint64_t layout_fingerprint(const Layout& layout) noexcept;
// "0x00000000000000ff": a fingerprint or a hash as a message and `cosid state show` print it.
std::string hex64(std::uint64_t value);
std::uint64_t namespace_hash(std::string_view name) noexcept;

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_WINDOW_STATE_RECORD_H_
