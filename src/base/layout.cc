// SPDX-License-Identifier: Apache-2.0
#include "cosid/layout.h"

#include <cstdio>
#include <limits>

#include "base/fail.h"
#include "base/layout_text.h"
#include "base/time_format.h"

namespace cosid {
namespace {

constexpr int kMaxIdBits = 63;

struct Preset {
  const char* name;
  Layout layout;
};

constexpr Preset kPresets[] = {
    {"default", layouts::kDefault},
    {"seconds", layouts::kSeconds},
    {"js-safe", layouts::kJsSafe},
    {"js-safe-seconds", layouts::kJsSafeSeconds},
};

using detail::fail;

}  // namespace

namespace detail {

std::string describe_layout(const Layout& layout) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%d/%d/%d bits in %s with epoch %lld", layout.timestamp_bits,
                layout.slot_bits, layout.sequence_bits, to_string(layout.unit),
                static_cast<long long>(layout.epoch));
  return buf;
}

std::string hex64(std::uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(value));
  return buf;
}

}  // namespace detail

using detail::describe_layout;

bool Layout::validate(Status& status) const noexcept {
  const char* empty_field = timestamp_bits < 1  ? "timestamp"
                            : slot_bits < 1     ? "slot"
                            : sequence_bits < 1 ? "sequence"
                                                : nullptr;
  if (empty_field != nullptr) {
    return fail(status, errc::layout_field_empty,
                "layout " + describe_layout(*this) + ": the " + empty_field +
                    " field needs at least 1 bit; give every field 1 bit or more");
  }
  // Each field is at least 1 bit here, so a sum above 63 also catches each field above 61: the
  // shifts in max_timestamp() and friends stay defined. 64-bit arithmetic: `long` is 32 bits on
  // armhf, where three huge fields would wrap the sum (Layout.AtMost63Bits).
  const std::int64_t total = std::int64_t{timestamp_bits} + slot_bits + sequence_bits;
  if (total > kMaxIdBits) {
    return fail(status, errc::layout_too_wide,
                "layout " + describe_layout(*this) + " uses " + std::to_string(total) +
                    " bits; an id has 63 (the sign bit stays 0): take " +
                    std::to_string(total - kMaxIdBits) + " bits from a field");
  }
  // Slots and sequences are 32-bit values in IdParts and the generator.
  if (slot_bits > 32 || sequence_bits > 32) {
    return fail(status, errc::layout_too_wide,
                "layout " + describe_layout(*this) + ": the " +
                    (slot_bits > 32 ? "slot" : "sequence") +
                    " field has more than 32 bits; use at most 32 and give the rest to another "
                    "field");
  }
  // The epoch and the last tick must both be representable as int64 Unix milliseconds, and the
  // epoch must not lie before 1970 (Unix time is the clock's whole range).
  const std::int64_t per_tick = unit_ms(unit);
  const std::int64_t max_ms = std::numeric_limits<std::int64_t>::max();
  if (epoch < 0 || epoch > max_ms / per_tick || max_timestamp() + 1 > max_ms / per_tick - epoch) {
    return fail(status, errc::layout_epoch_invalid,
                "layout " + describe_layout(*this) +
                    ": the epoch must be at or after 1970-01-01 (0) and the layout's last "
                    "timestamp must fit in 64-bit milliseconds; use an epoch in " +
                    to_string(unit) + " since 1970, such as " +
                    std::to_string(unit == TimeUnit::kSecond ? layouts::kSeconds.epoch
                                                             : layouts::kDefault.epoch));
  }
  status.clear();
  return true;
}

bool Layout::validate_at(std::int64_t now_unix_ms, Status& status) const noexcept {
  if (!validate(status)) return false;
  if (epoch_ms() > now_unix_ms) {
    return fail(status, errc::layout_epoch_in_future,
                "layout " + describe_layout(*this) + " starts at " +
                    detail::format_instant(epoch_ms()) + ", after the clock's now " +
                    detail::format_instant(now_unix_ms) +
                    ": choose an epoch in the past (check the unit: ms or s)");
  }
  return true;
}

Layout layout_preset(std::string_view name, Status& status) noexcept {
  for (const Preset& preset : kPresets) {
    if (name == preset.name) {
      status.clear();
      return preset.layout;
    }
  }
  fail(status, errc::unknown_layout,
       "unknown layout \"" + std::string(name.substr(0, 40)) + "\": use one of " +
           layout_preset_names());
  return layouts::kDefault;
}

const char* layout_preset_names() noexcept { return "default, seconds, js-safe, js-safe-seconds"; }

const char* to_string(TimeUnit unit) noexcept { return unit == TimeUnit::kSecond ? "s" : "ms"; }

}  // namespace cosid
