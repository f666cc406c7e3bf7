// SPDX-License-Identifier: Apache-2.0
// Fuzzes the id codecs (cosid/codec.h) with arbitrary text and arbitrary ids:
//  - decoding never crashes, and fails with an id_* code, a 0 result and a bounded message that
//    the message-less overload agrees with;
//  - what decodes is at most 2^63 - 1 and re-encodes to the input itself (radix62, radix36,
//    friendly: one spelling per id) or to a text that decodes to the same id (decimal, which
//    accepts leading zeros);
//  - the first 8 bytes, as an id, round-trip through every codec.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>

#include "cosid/codec.h"
#include "cosid/layout.h"
#include "fuzz_util.h"

namespace {

using cosid::IdFormat;
using cosid::Layout;

constexpr std::uint64_t kMaxId = (std::uint64_t{1} << 63) - 1;

struct Case {
  IdFormat format;
  const Layout* layout;
};
// Friendly ids depend on the layout: the default one, and a second-unit one for the 000 rule.
constexpr Case kCases[] = {{IdFormat::kDecimal, &cosid::layouts::kDefault},
                           {IdFormat::kRadix62, &cosid::layouts::kDefault},
                           {IdFormat::kRadix36, &cosid::layouts::kDefault},
                           {IdFormat::kFriendly, &cosid::layouts::kDefault},
                           {IdFormat::kFriendly, &cosid::layouts::kSeconds}};

std::string encode(std::uint64_t id, const Case& c) {
  char buf[cosid::kMaxEncodedChars];
  const std::size_t n = cosid::encode(id, c.format, *c.layout, buf);
  CHECK(n > 0 && n <= cosid::kMaxEncodedChars);
  return std::string(buf, n);
}

bool is_id_error(const std::error_code& ec) {
  return ec == cosid::errc::id_empty || ec == cosid::errc::id_bad_character ||
         ec == cosid::errc::id_bad_length || ec == cosid::errc::id_overflow ||
         ec == cosid::errc::id_field_out_of_range;
}

void check_text(std::string_view text, const Case& c) {
  cosid::Status status;
  const std::uint64_t id = cosid::decode(text, c.format, *c.layout, status);
  cosid::Status again_status;
  const std::uint64_t again_id = cosid::decode(text, c.format, *c.layout, again_status);
  CHECK_MSG(status.code() == again_status.code() && id == again_id, text);
  if (status.code()) {
    CHECK_MSG(is_id_error(status.code()), text);
    CHECK_MSG(id == 0, text);
    CHECK_MSG(!status.message().empty() && status.message().size() < 512, status.message());
    return;
  }
  CHECK_MSG(id <= kMaxId, text);
  const std::string again = encode(id, c);
  if (c.format == IdFormat::kDecimal) {
    CHECK_MSG(cosid::decode(again, c.format, *c.layout, status) == id && status.ok(), text);
  } else {
    CHECK_MSG(again == text, again);
  }
}

void check_id(std::uint64_t id, const Case& c) {
  const std::string text = encode(id, c);
  cosid::Status status;
  const std::uint64_t decoded = cosid::decode(text, c.format, *c.layout, status);
  CHECK_MSG(!status.code() && decoded == id, text);
  CHECK_MSG(c.format != IdFormat::kFriendly || cosid::detect_format(text) == IdFormat::kFriendly,
            text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const Case& c : kCases) check_text(text, c);
  // What detect_format picks must be one of the four, and decoding with it must not crash.
  check_text(text, {cosid::detect_format(text), &cosid::layouts::kDefault});

  if (size >= sizeof(std::uint64_t)) {
    std::uint64_t id = 0;
    std::memcpy(&id, data, sizeof id);
    for (const Case& c : kCases) check_id(id & c.layout->max_id(), c);
  }
  return 0;
}
