// SPDX-License-Identifier: Apache-2.0
// Internal: CRC32C (Castagnoli), the checksum of state-file records.
//
// Software, byte at a time: a record is 60 bytes and is checked a few times per minute, so speed
// does not matter and portability does.
#ifndef COSID_SRC_BASE_CRC32C_H_
#define COSID_SRC_BASE_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace cosid {
namespace detail {

// CRC32C of `size` bytes (RFC 3720 check value: crc32c("123456789") == 0xE3069283).
std::uint32_t crc32c(const void* data, std::size_t size) noexcept;

// A stored CRC is masked so that a record that embeds CRCs of other data (or its own CRC run
// over again) does not produce a valid-looking checksum by accident (leveldb's rotation plus an
// odd constant).
constexpr std::uint32_t mask_crc(std::uint32_t crc) noexcept {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_BASE_CRC32C_H_
