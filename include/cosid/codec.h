// SPDX-License-Identifier: Apache-2.0
// Codecs: ids as text.
//
//   decimal    "123456789012345678": 1 to 19 digits, no sign, no spaces.
//   radix62    11 characters of 0-9A-Za-z, zero-padded: string order equals numeric order.
//   radix36    13 characters of 0-9a-z (lower case only), zero-padded: order-preserving too.
//   friendly   "yyyyMMddHHmmssSSS-slot-sequence", the timestamp in UTC per the id's layout,
//              slot and sequence in decimal: "20261130022258123-3-17".
//
// Every encoder writes into a caller's buffer of at least kMaxEncodedChars and allocates nothing;
// the to_string() conveniences return a std::string. Every decoder is noexcept and reports an
// empty string (id_empty), a character outside the alphabet (id_bad_character), a wrong length
// (id_bad_length), a value above 2^63 - 1 (id_overflow) and, for friendly ids, a field the layout
// cannot hold (id_field_out_of_range), each with its own code.
//
// Thread safety: all functions are pure; call them from any thread.
#ifndef COSID_CODEC_H_
#define COSID_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/export.h"
#include "cosid/layout.h"

namespace cosid {

enum class IdFormat : std::uint8_t {
  kDecimal,
  kRadix62,
  kRadix36,
  kFriendly,
};

// A buffer this large holds any encoded id (the friendly form is the longest).
inline constexpr std::size_t kMaxEncodedChars = 48;
inline constexpr std::size_t kRadix62Chars = 11;
inline constexpr std::size_t kRadix36Chars = 13;
inline constexpr std::size_t kMaxDecimalChars = 19;

// Encoders. Each writes the text (no terminating NUL) to `out`, which must hold kMaxEncodedChars
// characters, and returns how many it wrote. REQUIRES: id <= 2^63 - 1.
COSID_EXPORT std::size_t encode_decimal(std::uint64_t id, char* out) noexcept;
COSID_EXPORT std::size_t encode_radix62(std::uint64_t id, char* out) noexcept;
COSID_EXPORT std::size_t encode_radix36(std::uint64_t id, char* out) noexcept;
// The friendly form needs the layout to find the time, slot and sequence. A second-unit layout
// writes 000 as the milliseconds.
COSID_EXPORT std::size_t encode_friendly(std::uint64_t id, const Layout& layout,
                                         char* out) noexcept;
// Dispatches on `format`; `layout` is used by kFriendly only.
COSID_EXPORT std::size_t encode(std::uint64_t id, IdFormat format, const Layout& layout,
                                char* out) noexcept;

// Decoders. On success return the id and leave `status` ok; on failure return 0 and set `status`
// to the code and a sentence that quotes the input and says what is wrong with it.
[[nodiscard]] COSID_EXPORT std::uint64_t decode_decimal(std::string_view text,
                                                        Status& status) noexcept;
[[nodiscard]] COSID_EXPORT std::uint64_t decode_radix62(std::string_view text,
                                                        Status& status) noexcept;
[[nodiscard]] COSID_EXPORT std::uint64_t decode_radix36(std::string_view text,
                                                        Status& status) noexcept;
// Also checks that each field fits `layout`; for a second-unit layout the milliseconds must be 000.
[[nodiscard]] COSID_EXPORT std::uint64_t decode_friendly(std::string_view text,
                                                         const Layout& layout,
                                                         Status& status) noexcept;
[[nodiscard]] COSID_EXPORT std::uint64_t decode(std::string_view text, IdFormat format,
                                                const Layout& layout, Status& status) noexcept;

// Guesses the format of `text`: a '-' means friendly; only digits means decimal; otherwise 13
// characters mean radix36 and anything else radix62 (whose decoder then reports what is wrong).
// An 11-digit radix62 id is read as decimal: name the format when that matters.
COSID_EXPORT IdFormat detect_format(std::string_view text) noexcept;

// "decimal", "radix62", "radix36" or "friendly".
COSID_EXPORT const char* to_string(IdFormat format) noexcept;
// The inverse of to_string(IdFormat). Returns false for any other name.
[[nodiscard]] COSID_EXPORT bool parse_format(std::string_view name, IdFormat& format) noexcept;

// Convenience: the encoded id as a std::string (allocates).
COSID_EXPORT std::string to_string(std::uint64_t id, IdFormat format = IdFormat::kDecimal,
                                   const Layout& layout = layouts::kDefault);

#if COSID_HAS_EXCEPTIONS
// Throwing decoder: throws cosid::Error with the message of the Status& overload.
inline std::uint64_t decode(std::string_view text, IdFormat format,
                            const Layout& layout = layouts::kDefault) {
  Status status;
  const std::uint64_t id = decode(text, format, layout, status);
  detail::throw_if_failed(status);
  return id;
}
#endif

}  // namespace cosid

#endif  // COSID_CODEC_H_
