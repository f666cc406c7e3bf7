// SPDX-License-Identifier: Apache-2.0
#include "cosid/codec.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <string>

#include "base/fail.h"
#include "base/time_format.h"

namespace cosid {
namespace {

constexpr std::uint64_t kMaxId =
    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
constexpr std::size_t kFriendlyTimeChars = 17;
constexpr std::size_t kMaxQuotedChars = 40;
// Indexed by IdFormat.
constexpr const char* kFormatNames[] = {"decimal", "radix62", "radix36", "friendly"};
// 10,000 years are exactly 25 Gregorian cycles of 400 years (146,097 days each), so moving an
// instant by a multiple of them changes its year and nothing else.
constexpr std::int64_t kMsPer10000Years = 25 * std::int64_t{146097} * 86400000;
constexpr std::int64_t kYear10000Ms = 253402300800000;  // 10000-01-01T00:00:00Z

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// Writes `c` as a message shows it: printable ASCII as is, other bytes (and the quote and
// backslash) as \xNN, so a message never carries control bytes or broken UTF-8 from its input.
// `out` holds at least 5 characters; returns how many it used.
std::size_t escape(char c, char* out) noexcept {
  const auto byte = static_cast<unsigned char>(c);
  const bool plain = byte >= 0x20 && byte < 0x7f && c != '"' && c != '\\';
  if (plain) out[0] = c;
  return plain ? 1 : static_cast<std::size_t>(std::snprintf(out, 5, "\\x%02x", byte));
}

// Pieces of a message beyond text and numbers.
struct Char {  // a character of the input, quoted and escaped
  char c;
};
struct Instant {  // RFC 3339, or Unix ms for years the format cannot show
  std::int64_t unix_ms;
};

void append(std::string& m, std::string_view text) { m.append(text); }
void append(std::string& m, std::uint64_t value) { m.append(std::to_string(value)); }
void append(std::string& m, Char c) {
  char escaped[5];
  m.append("'").append(escaped, escape(c.c, escaped)).append("'");
}
void append(std::string& m, Instant t) {
  char buf[detail::kMaxTimeChars];
  if (t.unix_ms >= 0 && t.unix_ms < kYear10000Ms) {
    m.append(buf, detail::format_rfc3339_ms(t.unix_ms, buf));
  } else {
    m.append("Unix ms ").append(std::to_string(t.unix_ms));
  }
}

// Reports a failed decode: sets `status` to the code and the message
// `<codec> id "<input>" <parts...>`. Returns the 0 that a failed decoder returns.
struct Refusal {
  std::string_view codec;
  std::string_view text;
  Status& status;

  template <typename... Parts>
  std::uint64_t operator()(errc code, const Parts&... parts) const {
    std::string m;
    m.assign(codec).append(" id \"");
    char escaped[5];
    for (std::size_t i = 0; i < text.size() && i < kMaxQuotedChars; ++i) {
      m.append(escaped, escape(text[i], escaped));
    }
    m.append(text.size() > kMaxQuotedChars ? "...\" " : "\" ");
    (append(m, parts), ...);
    detail::fail(status, code, std::move(m));
    return 0;
  }
};

constexpr std::uint8_t kNotADigit = 0xff;

// A positional codec. radix62 and radix36 are fixed-width and zero-padded, so string order is
// numeric order; decimal shares the decoder with a maximum width instead.
struct RadixCodec {
  std::string_view name;
  std::string_view digits;  // the alphabet in ascending order
  std::size_t width;
  bool fixed_width;
  std::string_view expected;  // ends every message about a bad id
  // Derived by make_codec(), so that decoding looks each character up once instead of searching
  // the alphabet, and checks for overflow without a division per character.
  std::array<std::uint8_t, 256> value;  // each byte's digit, kNotADigit outside the alphabet
  std::uint64_t max_before_last;        // kMaxId / base: the largest id that may take a digit
  std::uint64_t max_last_digit;         // kMaxId % base: the largest digit it may take then
};

constexpr RadixCodec make_codec(std::string_view name, std::string_view digits, std::size_t width,
                                bool fixed_width, std::string_view expected) {
  RadixCodec codec{name,
                   digits,
                   width,
                   fixed_width,
                   expected,
                   {},
                   kMaxId / digits.size(),
                   kMaxId % digits.size()};
  for (std::uint8_t& v : codec.value) v = kNotADigit;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    codec.value[static_cast<unsigned char>(digits[i])] = static_cast<std::uint8_t>(i);
  }
  return codec;
}

constexpr RadixCodec kDecimal =
    make_codec("decimal", "0123456789", kMaxDecimalChars, false,
               "; a decimal id has 1 to 19 digits 0-9, no sign or spaces");
constexpr RadixCodec kRadix62 = make_codec(
    "radix62", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", kRadix62Chars,
    true, "; a radix62 id has exactly 11 characters (0-9A-Za-z, zero-padded)");
constexpr RadixCodec kRadix36 =
    make_codec("radix36", "0123456789abcdefghijklmnopqrstuvwxyz", kRadix36Chars, true,
               "; a radix36 id has exactly 13 characters (0-9a-z, lower case only, zero-padded)");

std::size_t encode_radix(const RadixCodec& codec, std::uint64_t id, char* out) noexcept {
  const std::uint64_t base = codec.digits.size();
  for (std::size_t i = codec.width; i-- > 0;) {
    out[i] = codec.digits[static_cast<std::size_t>(id % base)];
    id /= base;
  }
  return codec.width;
}

std::uint64_t decode_radix(const RadixCodec& codec, std::string_view text, Status& status) {
  const Refusal refuse{codec.name, text, status};
  if (text.empty()) return refuse(errc::id_empty, "is empty", codec.expected);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (codec.value[static_cast<unsigned char>(text[i])] == kNotADigit) {
      return refuse(errc::id_bad_character, "has ", Char{text[i]}, " at position ", i + 1,
                    codec.expected);
    }
  }
  if (codec.fixed_width ? text.size() != codec.width : text.size() > codec.width) {
    return refuse(errc::id_bad_length, "has ", text.size(), " characters", codec.expected);
  }
  const std::uint64_t base = codec.digits.size();
  std::uint64_t id = 0;
  for (const char c : text) {
    const std::uint64_t digit = codec.value[static_cast<unsigned char>(c)];
    // base^width can exceed 2^64, so check before multiplying: id * base + digit <= kMaxId.
    if (id > codec.max_before_last ||
        (id == codec.max_before_last && digit > codec.max_last_digit)) {
      char largest[kMaxEncodedChars];
      const std::size_t n = encode_radix(codec, kMaxId, largest);
      return refuse(errc::id_overflow, "is above the largest id, 2^63 - 1 = \"",
                    std::string_view(largest, n), "\"");
    }
    id = id * base + digit;
  }
  status.clear();
  return id;
}

}  // namespace

std::size_t encode_decimal(std::uint64_t id, char* out) noexcept {
  char reversed[20];
  std::size_t n = 0;
  do {
    reversed[n++] = static_cast<char>('0' + id % 10);
    id /= 10;
  } while (id != 0);
  for (std::size_t i = 0; i < n; ++i) out[i] = reversed[n - 1 - i];
  return n;
}

std::size_t encode_radix62(std::uint64_t id, char* out) noexcept {
  return encode_radix(kRadix62, id, out);
}

std::size_t encode_radix36(std::uint64_t id, char* out) noexcept {
  return encode_radix(kRadix36, id, out);
}

std::size_t encode_friendly(std::uint64_t id, const Layout& layout, char* out) noexcept {
  const IdParts parts = layout.parse(id);
  std::int64_t unix_ms = layout.tick_start_ms(parts.timestamp);
  char* p = out;
  // A custom layout can reach past 9999-12-31, which 17 digits cannot show: write the year's
  // extra leading digits rather than a wrong year (the decoder then refuses the length).
  const std::int64_t high_year = detail::civil_from_unix_ms(unix_ms).year / 10000;
  if (high_year > 0) {
    p += encode_decimal(static_cast<std::uint64_t>(high_year), p);
    unix_ms -= high_year * kMsPer10000Years;
  }
  p += detail::format_compact_ms(unix_ms, p);
  *p++ = '-';
  p += encode_decimal(parts.slot, p);
  *p++ = '-';
  p += encode_decimal(parts.sequence, p);
  return static_cast<std::size_t>(p - out);
}

std::size_t encode(std::uint64_t id, IdFormat format, const Layout& layout, char* out) noexcept {
  if (format == IdFormat::kRadix62) return encode_radix62(id, out);
  if (format == IdFormat::kRadix36) return encode_radix36(id, out);
  if (format == IdFormat::kFriendly) return encode_friendly(id, layout, out);
  return encode_decimal(id, out);
}

std::uint64_t decode_decimal(std::string_view text, Status& status) noexcept {
  return decode_radix(kDecimal, text, status);
}

std::uint64_t decode_radix62(std::string_view text, Status& status) noexcept {
  return decode_radix(kRadix62, text, status);
}

std::uint64_t decode_radix36(std::string_view text, Status& status) noexcept {
  return decode_radix(kRadix36, text, status);
}

std::uint64_t decode_friendly(std::string_view text, const Layout& layout,
                              Status& status) noexcept {
  const Refusal refuse{"friendly", text, status};
  static constexpr std::string_view kShape =
      "; a friendly id is yyyyMMddHHmmssSSS-slot-sequence (UTC time, decimal slot and sequence)";
  if (text.empty()) return refuse(errc::id_empty, "is empty", kShape);
  std::size_t dashes = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '-') {
      ++dashes;
    } else if (!is_digit(text[i])) {
      return refuse(errc::id_bad_character, "has ", Char{text[i]}, " at position ", i + 1, kShape);
    }
  }
  if (dashes != 2) return refuse(errc::id_bad_length, "has ", dashes, " '-'", kShape);
  const std::size_t dash1 = text.find('-');
  const std::size_t dash2 = text.find('-', dash1 + 1);
  const std::string_view time = text.substr(0, dash1);
  if (time.size() != kFriendlyTimeChars) {
    return refuse(errc::id_bad_length, "has a time of ", time.size(), " digits, not 17", kShape);
  }
  // Slot, then sequence: decimal without leading zeros (one spelling per id), within the layout.
  struct Field {
    std::string_view name;
    std::string_view digits;
    std::uint64_t max;
    std::uint64_t value;
  };
  Field fields[] = {{"slot", text.substr(dash1 + 1, dash2 - dash1 - 1), layout.max_slot(), 0},
                    {"sequence", text.substr(dash2 + 1), layout.max_sequence(), 0}};
  for (Field& f : fields) {
    const std::string_view shown = f.digits.substr(0, 20);
    const std::string_view more = f.digits.size() > shown.size() ? "..." : "";
    if (f.digits.empty()) return refuse(errc::id_bad_length, "has an empty ", f.name, kShape);
    if (f.digits.size() > 1 && f.digits[0] == '0') {
      return refuse(errc::id_bad_length, "has ", f.name, " ", shown, more,
                    " with a leading zero; write it without");
    }
    // Eleven digits already exceed any 32-bit field, and cannot overflow the sum.
    for (const char c : f.digits.substr(0, 11)) {
      f.value = f.value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (f.value > f.max) {
      return refuse(errc::id_field_out_of_range, "has ", f.name, " ", shown, more,
                    "; this layout's ", f.name, " runs 0 to ", f.max);
    }
  }

  const auto number = [time](std::size_t pos, std::size_t count) {
    int value = 0;
    for (const char c : time.substr(pos, count)) value = value * 10 + (c - '0');
    return value;
  };
  const detail::CivilTime civil{number(0, 4),  number(4, 2),  number(6, 2), number(8, 2),
                                number(10, 2), number(12, 2), number(14, 3)};
  const auto field = [time](std::size_t pos, std::size_t count) { return time.substr(pos, count); };
  if (civil.month < 1 || civil.month > 12) {
    return refuse(errc::id_field_out_of_range, "has month ", field(4, 2), "; months run 01 to 12");
  }
  const int month_days = detail::days_in_month(civil.year, civil.month);
  if (civil.day < 1 || civil.day > month_days) {
    return refuse(errc::id_field_out_of_range, "has day ", field(6, 2), "; ", field(0, 4), "-",
                  field(4, 2), " has days 01 to ", static_cast<std::uint64_t>(month_days));
  }
  if (civil.hour > 23 || civil.minute > 59 || civil.second > 59) {
    return refuse(errc::id_field_out_of_range, "has time of day ", field(8, 2), ":", field(10, 2),
                  ":", field(12, 2), "; hours run 00 to 23, minutes and seconds 00 to 59");
  }
  if (layout.unit == TimeUnit::kSecond && civil.millisecond != 0) {
    return refuse(errc::id_field_out_of_range, "has milliseconds ", field(14, 3),
                  "; this layout counts whole seconds, so they must be 000");
  }
  const std::int64_t unix_ms = detail::unix_ms_from_civil(civil);
  if (unix_ms < layout.epoch_ms()) {
    return refuse(errc::id_field_out_of_range, "is before this layout's epoch, ",
                  Instant{layout.epoch_ms()});
  }
  const std::int64_t tick = layout.tick_of(unix_ms);
  if (tick > layout.max_timestamp()) {
    return refuse(errc::id_field_out_of_range, "is at or after this layout's end, ",
                  Instant{layout.end_ms()});
  }
  status.clear();
  return layout.compose(tick, static_cast<std::uint32_t>(fields[0].value),
                        static_cast<std::uint32_t>(fields[1].value));
}

std::uint64_t decode(std::string_view text, IdFormat format, const Layout& layout,
                     Status& status) noexcept {
  if (format == IdFormat::kRadix62) return decode_radix62(text, status);
  if (format == IdFormat::kRadix36) return decode_radix36(text, status);
  if (format == IdFormat::kFriendly) return decode_friendly(text, layout, status);
  return decode_decimal(text, status);
}

IdFormat detect_format(std::string_view text) noexcept {
  if (text.find('-') != std::string_view::npos) return IdFormat::kFriendly;
  bool digits_only = true;
  for (const char c : text) digits_only = digits_only && is_digit(c);
  if (digits_only) return IdFormat::kDecimal;
  return text.size() == kRadix36Chars ? IdFormat::kRadix36 : IdFormat::kRadix62;
}

const char* to_string(IdFormat format) noexcept {
  const auto index = static_cast<std::size_t>(format);
  return index < std::size(kFormatNames) ? kFormatNames[index] : "unknown";
}

bool parse_format(std::string_view name, IdFormat& format) noexcept {
  for (std::size_t i = 0; i < std::size(kFormatNames); ++i) {
    if (name == kFormatNames[i]) {
      format = static_cast<IdFormat>(i);
      return true;
    }
  }
  return false;
}

std::string to_string(std::uint64_t id, IdFormat format, const Layout& layout) {
  char buf[kMaxEncodedChars];
  return std::string(buf, encode(id, format, layout, buf));
}

}  // namespace cosid
