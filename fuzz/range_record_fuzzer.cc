// SPDX-License-Identifier: Apache-2.0
// Fuzzes the texts a range store reads back: the key's value ("NEXT" or "NEXT:sealed",
// range_rules.h) and the file range store's record (src/segment/file_range_record.h).
//  - parse_range_value() accepts one spelling per value: what it accepts is a next value of 1 or
//    more that format_range_value() writes back as the input itself;
//  - parse_range_record() accepts only what format_range_record() writes: the record it reads
//    formats back to the input, byte for byte, with a valid key, a non-nil identity and a
//    version of 1 or more.
// The first byte steers: when odd, the rest has its end line replaced by the right checksum, so
// that most inputs get past the CRC to the field checks (the library has no fuzzing switch).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cosid/segment/range_rules.h"
#include "fuzz_util.h"
#include "segment/file_range_record.h"
#include "store/locked_record.h"

namespace {

void check_value(std::string_view text) {
  cosid::segment::RangeState state;
  if (!cosid::segment::parse_range_value(text, state)) return;
  CHECK_MSG(state.exists && state.next >= 1, text);
  CHECK_MSG(cosid::segment::format_range_value(state) == text, text);
}

void check_record(std::string_view text) {
  cosid::segment::internal::RangeRecord record;
  std::string why;
  if (!cosid::segment::internal::parse_range_record(text, record, why)) {
    CHECK_MSG(!why.empty(), text);
    return;
  }
  cosid::Status status;
  CHECK_MSG(cosid::segment::check_key(record.key, status), text);
  CHECK_MSG(!record.identity.is_nil() && record.state.exists && record.state.version >= 1, text);
  CHECK_MSG(cosid::segment::internal::format_range_record(record) == text, text);
}

// `body` with the end line a record of that body would have.
std::string with_checksum(std::string_view body) {
  std::string text(body);
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += "end " + cosid::detail::crc_text(text) + "\n";
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  check_value(rest);
  if ((data[0] & 1) != 0) {
    check_record(with_checksum(rest));
  } else {
    check_record(rest);
  }
  return 0;
}
