// SPDX-License-Identifier: Apache-2.0
// Fuzzes the strict value parsers and their printers (src/base/parse_util.h):
//  - parse_duration, parse_instant, parse_uint and parse_bool never crash; a refusal says why
//    (bounded, non-empty) and the form without `why` agrees;
//  - an accepted duration is >= 0 and format_duration of it re-parses to the same value and is
//    a fixed point (printing the re-parsed value gives the same text);
//  - an accepted instant is >= 0 and format_instant of it re-parses to the same value, likewise;
//  - an accepted whole number is <= its max and prints back to the text (one spelling);
//  - the first 8 bytes, as a non-negative int64, round-trip through both printers.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "base/parse_util.h"
#include "fuzz_util.h"

namespace {

using cosid::detail::format_duration;
using cosid::detail::format_instant;
using cosid::detail::parse_duration;
using cosid::detail::parse_instant;
using std::chrono::milliseconds;

void check_why(bool ok, const std::string& why, std::string_view text) {
  if (!ok) CHECK_MSG(!why.empty() && why.size() < 1024, text);
}

void check_duration_round_trip(milliseconds value) {
  const std::string printed = format_duration(value);
  milliseconds again{-1};
  cosid::Status why;
  CHECK_MSG(parse_duration(printed, again, why), printed + ": " + why.message());
  CHECK_MSG(again == value, printed);
  CHECK_MSG(format_duration(again) == printed, printed);
}

void check_instant_round_trip(std::int64_t value) {
  const std::string printed = format_instant(value);
  std::int64_t again = -1;
  cosid::Status why;
  CHECK_MSG(parse_instant(printed, again, why), printed + ": " + why.message());
  CHECK_MSG(again == value, printed + " != " + std::to_string(value));
  CHECK_MSG(format_instant(again) == printed, printed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  {
    milliseconds value{0};
    cosid::Status why;
    const bool ok = parse_duration(text, value, why);
    milliseconds bare{0};
    cosid::Status bare_status;
    CHECK_MSG(parse_duration(text, bare, bare_status) == ok, text);
    check_why(ok, why.message(), text);
    if (ok) {
      CHECK_MSG(bare == value && value.count() >= 0, text);
      check_duration_round_trip(value);
    }
  }
  {
    std::int64_t value = 0;
    cosid::Status why;
    const bool ok = parse_instant(text, value, why);
    std::int64_t bare = 0;
    cosid::Status bare_status;
    CHECK_MSG(parse_instant(text, bare, bare_status) == ok, text);
    check_why(ok, why.message(), text);
    if (ok) {
      CHECK_MSG(bare == value && value >= 0, text);
      check_instant_round_trip(value);
    }
  }
  {
    // Whole numbers: one spelling each, so an accepted text prints back to itself.
    for (const std::uint64_t max : {std::uint64_t{1023}, std::uint64_t{0xffffffff},
                                    std::numeric_limits<std::uint64_t>::max()}) {
      std::uint64_t value = 0;
      cosid::Status why;
      const bool ok = cosid::detail::parse_uint(text, max, value, why);
      check_why(ok, why.message(), text);
      if (ok) CHECK_MSG(value <= max && std::to_string(value) == text, text);
    }
    bool flag = false;
    cosid::Status why;
    const bool ok = cosid::detail::parse_bool(text, flag, why);
    check_why(ok, why.message(), text);
    if (ok) CHECK_MSG(text == (flag ? "true" : "false"), text);
  }
  {
    // The quoting of messages never crashes and stays one bounded line.
    const std::string quoted = cosid::detail::quote(text);
    CHECK_MSG(quoted.size() < 400 && quoted.find('\n') == std::string::npos, text);
  }
  if (size >= sizeof(std::int64_t)) {
    std::uint64_t raw = 0;
    std::memcpy(&raw, data, sizeof raw);
    const auto value = static_cast<std::int64_t>(raw >> 1);  // any non-negative int64
    check_duration_round_trip(milliseconds(value));
    check_instant_round_trip(value);
  }
  return 0;
}
