// SPDX-License-Identifier: Apache-2.0
// Fuzzes Layout (cosid/layout.h) with arbitrary field values:
//  - validate() and validate_at() never crash, agree (validate_at refuses whatever validate
//    refuses) and fail with a layout_* code and a bounded message;
//  - a valid layout has 1..32-bit slot and sequence fields, at most 63 bits in all, max_id() below
//    2^63, and end_ms() computable (UBSan catches an overflow);
//  - for in-range fields taken from the input, parse(compose(x)) == x, the id fits, and ticks map
//    back: tick_of(tick_start_ms(t)) == tick_of(tick_end_ms(t)) == t, and the millisecond before
//    a tick lies in the tick before;
//  - layout_preset() of the trailing text never crashes and yields a valid layout or
//    unknown_layout.
//
// Input: epoch (8 bytes LE), unit (1 byte, bit 0), timestamp/slot/sequence bits (1 signed byte
// each), a "now" for validate_at (8 bytes), then field values (8 + 4 + 4 bytes), then any text.
// Missing bytes read as zero.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "cosid/error.h"
#include "cosid/layout.h"
#include "fuzz_util.h"

namespace {

class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint64_t take(int bytes) {
    std::uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) {
      const std::uint64_t byte = pos_ < size_ ? data_[pos_] : 0;
      ++pos_;
      value |= byte << (8 * i);
    }
    return value;
  }
  std::string_view rest() const {
    return pos_ < size_
               ? std::string_view(reinterpret_cast<const char*>(data_ + pos_), size_ - pos_)
               : std::string_view();
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

bool is_layout_error(const std::error_code& ec) {
  return ec == cosid::errc::layout_field_empty || ec == cosid::errc::layout_too_wide ||
         ec == cosid::errc::layout_epoch_invalid || ec == cosid::errc::layout_epoch_in_future;
}

std::string describe(const cosid::Layout& l) {
  return "epoch=" + std::to_string(l.epoch) + " unit=" + cosid::to_string(l.unit) +
         " bits=" + std::to_string(l.timestamp_bits) + "/" + std::to_string(l.slot_bits) + "/" +
         std::to_string(l.sequence_bits);
}

void check_valid(const cosid::Layout& layout, Reader& in) {
  const std::string what = describe(layout);
  CHECK_MSG(layout.timestamp_bits >= 1 && layout.slot_bits >= 1 && layout.sequence_bits >= 1, what);
  CHECK_MSG(layout.slot_bits <= 32 && layout.sequence_bits <= 32, what);
  CHECK_MSG(layout.timestamp_bits + layout.slot_bits + layout.sequence_bits <= 63, what);
  CHECK_MSG(layout.max_id() <= (std::uint64_t{1} << 63) - 1, what);
  CHECK_MSG(layout.epoch_ms() >= 0, what);
  const std::int64_t end = layout.end_ms();  // UBSan: must not overflow
  CHECK_MSG(end > layout.epoch_ms(), what);

  cosid::IdParts parts;
  parts.timestamp =
      static_cast<std::int64_t>(in.take(8) & static_cast<std::uint64_t>(layout.max_timestamp()));
  parts.slot = static_cast<std::uint32_t>(in.take(4)) & layout.max_slot();
  parts.sequence = static_cast<std::uint32_t>(in.take(4)) & layout.max_sequence();
  const std::uint64_t id = layout.compose(parts);
  CHECK_MSG(layout.fits(id) && id <= layout.max_id(), what);
  CHECK_MSG(layout.parse(id) == parts, what);
  // The extremes compose and parse too.
  const cosid::IdParts top{layout.max_timestamp(), layout.max_slot(), layout.max_sequence()};
  CHECK_MSG(layout.compose(top) == layout.max_id(), what);
  CHECK_MSG(layout.parse(layout.max_id()) == top, what);

  for (const std::int64_t t : {std::int64_t{0}, parts.timestamp, layout.max_timestamp()}) {
    const std::int64_t start = layout.tick_start_ms(t);
    const std::int64_t last = layout.tick_end_ms(t);
    CHECK_MSG(start >= 0 && last >= start, what);
    CHECK_MSG(layout.tick_of(start) == t, what + " t=" + std::to_string(t));
    CHECK_MSG(layout.tick_of(last) == t, what + " t=" + std::to_string(t));
    CHECK_MSG(layout.tick_of(start - 1) == t - 1, what + " t=" + std::to_string(t));
    CHECK_MSG(last < end, what);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Reader in(data, size);
  cosid::Layout layout;
  layout.epoch = static_cast<std::int64_t>(in.take(8));
  layout.unit = (in.take(1) & 1) != 0 ? cosid::TimeUnit::kSecond : cosid::TimeUnit::kMillisecond;
  layout.timestamp_bits = static_cast<std::int8_t>(in.take(1));
  layout.slot_bits = static_cast<std::int8_t>(in.take(1));
  layout.sequence_bits = static_cast<std::int8_t>(in.take(1));
  const auto now = static_cast<std::int64_t>(in.take(8));

  cosid::Status status;
  const bool valid = layout.validate(status);
  cosid::Status again;
  CHECK_MSG(layout.validate(again) == valid && again.code() == status.code(), describe(layout));
  if (!valid) {
    CHECK_MSG(is_layout_error(status.code()), describe(layout) + " " + status.message());
    CHECK_MSG(!status.message().empty() && status.message().size() < 1024, status.message());
  } else {
    CHECK_MSG(status.ok(), describe(layout));
  }
  cosid::Status at;
  const bool valid_at = layout.validate_at(now, at);
  CHECK_MSG(!valid_at || valid, describe(layout));
  if (!valid_at) {
    CHECK_MSG(is_layout_error(at.code()), describe(layout) + " " + at.message());
    CHECK_MSG(!at.message().empty() && at.message().size() < 1024, at.message());
  }
  if (valid) check_valid(layout, in);

  cosid::Status found;
  const cosid::Layout preset = cosid::layout_preset(in.rest(), found);
  if (!found.ok()) {
    CHECK_MSG(found.code() == cosid::errc::unknown_layout, in.rest());
    CHECK_MSG(preset == cosid::layouts::kDefault, in.rest());
  } else {
    cosid::Status preset_valid;
    CHECK_MSG(preset.validate(preset_valid), in.rest());
  }
  return 0;
}
