// SPDX-License-Identifier: Apache-2.0
#include "window/state_record.h"

#include <cstring>

#include "base/crc32c.h"

namespace cosid {
namespace detail {
namespace {

constexpr char kMagic[8] = {'C', 'O', 'S', 'I', 'D', 'S', 'T', 'F'};
constexpr std::size_t kCrcOffset = 60;
constexpr std::uint16_t kCleanShutdownFlag = 1;

// Fixed-width little-endian coding, independent of the host's byte order.
void put_le(unsigned char* out, std::uint64_t value, int bytes) noexcept {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<unsigned char>(value >> (8 * i));
}

std::uint64_t get_le(const unsigned char* in, int bytes) noexcept {
  std::uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | in[i];
  return value;
}

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325u;
constexpr std::uint64_t kFnvPrime = 0x100000001b3u;

std::uint64_t fnv1a(std::uint64_t hash, const unsigned char* data, std::size_t size) noexcept {
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * kFnvPrime;
  return hash;
}

}  // namespace

void encode_block(const StateRecord& record, unsigned char* block) noexcept {
  std::memset(block, 0, kStateBlockSize);
  std::memcpy(block, kMagic, sizeof kMagic);
  put_le(block + 8, record.format_version, 2);
  put_le(block + 10, record.clean_shutdown ? kCleanShutdownFlag : 0, 2);
  put_le(block + 12, kStateRecordSize, 4);
  put_le(block + 16, record.generation, 8);
  put_le(block + 24, static_cast<std::uint64_t>(record.ceiling_ms), 8);
  put_le(block + 32, record.slot, 4);
  put_le(block + 36, record.layout_fingerprint, 8);
  put_le(block + 44, record.namespace_hash, 8);
  put_le(block + 52, static_cast<std::uint64_t>(record.written_at_ms), 8);
  put_le(block + kCrcOffset, mask_crc(crc32c(block, kCrcOffset)), 4);
}

BlockStatus decode_block(const unsigned char* block, StateRecord& record) noexcept {
  if (std::memcmp(block, kMagic, sizeof kMagic) != 0) return BlockStatus::kBadMagic;
  const std::uint64_t version = get_le(block + 8, 2);
  if (version != kStateFormatVersion && version != kLegacyStateFormatVersion) {
    return BlockStatus::kBadVersion;
  }
  if (get_le(block + 12, 4) != kStateRecordSize) return BlockStatus::kBadLength;
  if (get_le(block + kCrcOffset, 4) != mask_crc(crc32c(block, kCrcOffset))) {
    return BlockStatus::kBadChecksum;
  }
  const std::uint64_t flags = get_le(block + 10, 2);
  if ((flags & ~std::uint64_t{kCleanShutdownFlag}) != 0) return BlockStatus::kBadVersion;
  // Bytes past the record must be zero: anything else is a damaged sector, and a damaged block is
  // never trusted, whatever its checksum says.
  for (std::size_t i = kStateRecordSize; i < kStateBlockSize; ++i) {
    if (block[i] != 0) return BlockStatus::kBadPadding;
  }
  record.format_version = static_cast<std::uint16_t>(version);
  record.clean_shutdown = (flags & kCleanShutdownFlag) != 0;
  record.generation = get_le(block + 16, 8);
  record.ceiling_ms = static_cast<std::int64_t>(get_le(block + 24, 8));
  record.slot = static_cast<std::uint32_t>(get_le(block + 32, 4));
  record.layout_fingerprint = get_le(block + 36, 8);
  record.namespace_hash = get_le(block + 44, 8);
  record.written_at_ms = static_cast<std::int64_t>(get_le(block + 52, 8));
  return BlockStatus::kValid;
}

int current_block(const BlockStatus status[2], const StateRecord records[2]) noexcept {
  const bool valid_a = status[0] == BlockStatus::kValid;
  const bool valid_b = status[1] == BlockStatus::kValid;
  if (!valid_a && !valid_b) return -1;
  if (!valid_a) return 1;
  if (!valid_b) return 0;
  return records[1].generation > records[0].generation ? 1 : 0;
}

StateImage decode_image(const unsigned char* image) noexcept {
  StateImage out;
  for (int b = 0; b < 2; ++b) {
    out.status[b] =
        decode_block(image + static_cast<std::size_t>(b) * kStateBlockSize, out.records[b]);
  }
  out.current = current_block(out.status, out.records);
  return out;
}

const char* to_string(BlockStatus status) noexcept {
  switch (status) {
    case BlockStatus::kValid:
      return "valid";
    case BlockStatus::kBadMagic:
      return "not a cosid state record (bad magic)";
    case BlockStatus::kBadVersion:
      return "unknown format version or flags";
    case BlockStatus::kBadLength:
      return "bad record length";
    case BlockStatus::kBadChecksum:
      return "checksum mismatch (torn or damaged write)";
    case BlockStatus::kBadPadding:
      return "damaged bytes after the record";
  }
  return "unknown";
}

std::uint64_t layout_fingerprint(const Layout& layout) noexcept {
  unsigned char bytes[12];
  put_le(bytes, static_cast<std::uint64_t>(layout.epoch), 8);
  bytes[8] = static_cast<unsigned char>(layout.unit);
  bytes[9] = static_cast<unsigned char>(layout.timestamp_bits);
  bytes[10] = static_cast<unsigned char>(layout.slot_bits);
  bytes[11] = static_cast<unsigned char>(layout.sequence_bits);
  return fnv1a(kFnvOffset, bytes, sizeof bytes);
}

std::uint64_t namespace_hash(std::string_view name) noexcept {
  return fnv1a(kFnvOffset, reinterpret_cast<const unsigned char*>(name.data()), name.size());
}

}  // namespace detail
}  // namespace cosid
