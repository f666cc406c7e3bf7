#include "cli/layout_flags.h"

#include <cstdint>
#include <limits>
#include <system_error>

namespace cosid {
namespace cli {
namespace {

constexpr std::uint64_t kMaxFieldBits = 63;
constexpr std::int64_t kMsPerSecond = 1000;

bool parse_unit(const std::string& text, TimeUnit& unit, std::string& error) {
  if (text == "ms") {
    unit = TimeUnit::kMillisecond;
  } else if (text == "s") {
    unit = TimeUnit::kSecond;
  } else {
    error = "--unit: " + quote(text) + " is not a unit: use ms or s";
    return false;
  }
  return true;
}

// Applies --NAME (a field width in bits) to `bits` if it was given.
bool apply_bits(const ParsedArgs& args, const char* name, int& bits, std::string& error) {
  if (!args.has(name)) return true;
  std::uint64_t value = 0;
  if (!parse_option_number(name, args.value_or(name, ""), kMaxFieldBits, value, error)) {
    return false;
  }
  bits = static_cast<int>(value);
  return true;
}

// Applies --epoch (Unix ms) to the layout, whose unit is already final.
bool apply_epoch(const ParsedArgs& args, Layout& layout, std::string& error) {
  std::uint64_t epoch_ms = 0;
  if (!parse_option_number("epoch", args.value_or("epoch", ""),
                           static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()),
                           epoch_ms, error)) {
    return false;
  }
  const auto per_tick = static_cast<std::uint64_t>(unit_ms(layout.unit));
  if (epoch_ms % per_tick != 0) {
    error = "--epoch " + std::to_string(epoch_ms) +
            " is not a whole second, but the layout counts seconds: give Unix milliseconds that "
            "are a multiple of 1000, such as " +
            std::to_string(epoch_ms - epoch_ms % per_tick) + ", or use --unit ms";
    return false;
  }
  layout.epoch = static_cast<std::int64_t>(epoch_ms / per_tick);
  return true;
}

// Converts the preset's epoch to `unit` (used when --unit is given without --epoch).
bool convert_epoch(Layout& layout, TimeUnit unit, std::string& error) {
  if (layout.unit == unit) return true;
  if (unit == TimeUnit::kMillisecond) {
    layout.epoch *= kMsPerSecond;
  } else if (layout.epoch % kMsPerSecond == 0) {
    layout.epoch /= kMsPerSecond;
  } else {
    error = "--unit s: the layout's epoch " + std::to_string(layout.epoch) +
            " ms is not a whole second: give --epoch too";
    return false;
  }
  layout.unit = unit;
  return true;
}

}  // namespace

OptionGroup layout_flags_group() {
  return {"Layout flags",
          {
              {"layout", '\0', "NAME",
               "preset: default (the default), seconds, js-safe or js-safe-seconds"},
              {"epoch", '\0', "MS",
               "instant of timestamp 0 in Unix ms; a whole second if the unit is s"},
              {"unit", '\0', "UNIT", "unit of the timestamp: ms or s"},
              {"timestamp-bits", '\0', "N",
               "bits of the timestamp; the three fields take 63 bits at most"},
              {"slot-bits", '\0', "N", "bits of the slot: 2^N slots"},
              {"sequence-bits", '\0', "N", "bits of the sequence: 2^N ids per tick and slot"},
          }};
}

bool layout_from_flags(const ParsedArgs& args, Layout& layout, std::string& error) {
  std::error_code ec;
  std::string message;
  layout = layout_preset(args.value_or("layout", "default"), ec, &message);
  if (ec) {
    error = "--layout: " + (message.empty() ? ec.message() : message);
    return false;
  }
  if (args.has("unit")) {
    TimeUnit unit = layout.unit;
    if (!parse_unit(args.value_or("unit", ""), unit, error)) return false;
    if (args.has("epoch")) {
      layout.unit = unit;
    } else if (!convert_epoch(layout, unit, error)) {
      return false;
    }
  }
  if (args.has("epoch") && !apply_epoch(args, layout, error)) return false;
  if (!apply_bits(args, "timestamp-bits", layout.timestamp_bits, error) ||
      !apply_bits(args, "slot-bits", layout.slot_bits, error) ||
      !apply_bits(args, "sequence-bits", layout.sequence_bits, error)) {
    return false;
  }
  if (!layout.validate(ec, &message)) {
    error = message.empty() ? ec.message() : message;
    return false;
  }
  return true;
}

}  // namespace cli
}  // namespace cosid
