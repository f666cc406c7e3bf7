// SPDX-License-Identifier: Apache-2.0
// Layout: how a 64-bit id is cut into (timestamp, slot, sequence), and the epoch and unit of its
// timestamp.
//
//   bit 63     always 0, so every id is a positive int64
//   next T     timestamp: ticks (ms or s) since the layout's epoch
//   next S     slot: which holder issued the id
//   lowest Q   sequence: position within the tick
//
// Layout is a plain value. Its member functions are pure and never fail once validate() has
// accepted the layout; compose() and parse() take no lock and allocate nothing. Any number of
// threads may use one Layout at once.
#ifndef COSID_LAYOUT_H_
#define COSID_LAYOUT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/export.h"

namespace cosid {

// The unit of the timestamp field.
enum class TimeUnit : std::uint8_t {
  kMillisecond,
  kSecond,
};

// Milliseconds in one tick of `unit`.
constexpr std::int64_t unit_ms(TimeUnit unit) noexcept {
  return unit == TimeUnit::kSecond ? 1000 : 1;
}

// The three fields of an id.
struct COSID_EXPORT IdParts {
  std::int64_t timestamp = 0;  // ticks since the layout's epoch
  std::uint32_t slot = 0;
  std::uint32_t sequence = 0;

  friend bool operator==(const IdParts& a, const IdParts& b) noexcept {
    return a.timestamp == b.timestamp && a.slot == b.slot && a.sequence == b.sequence;
  }
  friend bool operator!=(const IdParts& a, const IdParts& b) noexcept { return !(a == b); }
};

struct COSID_EXPORT Layout {
  // The instant of timestamp 0, in `unit`s since 1970-01-01T00:00:00Z.
  std::int64_t epoch = 1577203200000;
  TimeUnit unit = TimeUnit::kMillisecond;
  int timestamp_bits = 41;
  int slot_bits = 10;
  int sequence_bits = 12;

  // Checks the layout: every field at least 1 bit, slot and sequence at most 32 bits each, at most
  // 63 bits in all, the epoch not before
  // 1970 and the last timestamp representable in int64 milliseconds. On failure sets `status`
  // (layout_field_empty, layout_too_wide or layout_epoch_invalid, with a sentence naming the
  // values and the fix). Returns true iff the layout is valid.
  [[nodiscard]] bool validate(Status& status) const noexcept;

  // As validate(), and also refuses an epoch later than `now_unix_ms` (layout_epoch_in_future).
  [[nodiscard]] bool validate_at(std::int64_t now_unix_ms, Status& status) const noexcept;

  // The largest value of each field.
  constexpr std::int64_t max_timestamp() const noexcept {
    return static_cast<std::int64_t>((std::uint64_t{1} << timestamp_bits) - 1);
  }
  constexpr std::uint32_t max_slot() const noexcept {
    return static_cast<std::uint32_t>((std::uint64_t{1} << slot_bits) - 1);
  }
  constexpr std::uint32_t max_sequence() const noexcept {
    return static_cast<std::uint32_t>((std::uint64_t{1} << sequence_bits) - 1);
  }
  // The largest id this layout can produce.
  constexpr std::uint64_t max_id() const noexcept {
    return (std::uint64_t{1} << (timestamp_bits + slot_bits + sequence_bits)) - 1;
  }

  // Puts the three fields together.
  // REQUIRES: 0 <= timestamp <= max_timestamp(), slot <= max_slot(), sequence <= max_sequence().
  constexpr std::uint64_t compose(std::int64_t timestamp, std::uint32_t slot,
                                  std::uint32_t sequence) const noexcept {
    return (static_cast<std::uint64_t>(timestamp) << (slot_bits + sequence_bits)) |
           (std::uint64_t{slot} << sequence_bits) | std::uint64_t{sequence};
  }
  constexpr std::uint64_t compose(const IdParts& parts) const noexcept {
    return compose(parts.timestamp, parts.slot, parts.sequence);
  }

  // Takes an id apart. Bits above max_id() are ignored; see fits() to reject them.
  constexpr IdParts parse(std::uint64_t id) const noexcept {
    IdParts parts;
    parts.sequence = static_cast<std::uint32_t>(id & max_sequence());
    parts.slot = static_cast<std::uint32_t>((id >> sequence_bits) & max_slot());
    parts.timestamp = static_cast<std::int64_t>((id >> (slot_bits + sequence_bits)) &
                                                static_cast<std::uint64_t>(max_timestamp()));
    return parts;
  }

  // True iff `id` uses no bit above the layout's fields.
  constexpr bool fits(std::uint64_t id) const noexcept { return id <= max_id(); }

  // The epoch in Unix milliseconds.
  constexpr std::int64_t epoch_ms() const noexcept { return epoch * unit_ms(unit); }

  // The first Unix millisecond of tick `timestamp`.
  constexpr std::int64_t tick_start_ms(std::int64_t timestamp) const noexcept {
    return (epoch + timestamp) * unit_ms(unit);
  }
  // The last Unix millisecond of tick `timestamp` (equal to tick_start_ms for millisecond units).
  constexpr std::int64_t tick_end_ms(std::int64_t timestamp) const noexcept {
    return tick_start_ms(timestamp) + unit_ms(unit) - 1;
  }
  // The tick that contains Unix millisecond `unix_ms`; negative before the epoch.
  constexpr std::int64_t tick_of(std::int64_t unix_ms) const noexcept {
    const std::int64_t since = unix_ms - epoch_ms();
    const std::int64_t u = unit_ms(unit);
    // Floor division, so that instants before the epoch land in negative ticks.
    return since >= 0 ? since / u : -((-since + u - 1) / u);
  }
  // The first Unix millisecond the layout cannot represent: the layout runs out there.
  constexpr std::int64_t end_ms() const noexcept { return tick_start_ms(max_timestamp() + 1); }

  friend bool operator==(const Layout& a, const Layout& b) noexcept {
    return a.epoch == b.epoch && a.unit == b.unit && a.timestamp_bits == b.timestamp_bits &&
           a.slot_bits == b.slot_bits && a.sequence_bits == b.sequence_bits;
  }
  friend bool operator!=(const Layout& a, const Layout& b) noexcept { return !(a == b); }
};

// The presets. Epoch 2019-12-24T16:00:00Z for all of them.
namespace layouts {
// 41/10/12 in ms: 1,024 slots, 4,096 ids per ms per slot, until 2089-08-30T07:47:35.552Z.
inline constexpr Layout kDefault{1577203200000, TimeUnit::kMillisecond, 41, 10, 12};
// 31/10/22 in s: 1,024 slots, 4,194,304 ids per second per slot, until 2088-01-11T19:14:08Z.
inline constexpr Layout kSeconds{1577203200, TimeUnit::kSecond, 31, 10, 22};
// 41/3/9 in ms, 53 bits: every id is a safe JavaScript integer; 8 slots, 512 ids per ms.
inline constexpr Layout kJsSafe{1577203200000, TimeUnit::kMillisecond, 41, 3, 9};
// 31/3/19 in s, 53 bits: every id is a safe JavaScript integer; 8 slots, 524,288 ids per s.
inline constexpr Layout kJsSafeSeconds{1577203200, TimeUnit::kSecond, 31, 3, 19};
}  // namespace layouts

// The preset called `name`: "default", "seconds", "js-safe" or "js-safe-seconds". On an unknown
// name sets `status` to unknown_layout (the message lists the names) and returns kDefault.
[[nodiscard]] COSID_EXPORT Layout layout_preset(std::string_view name, Status& status) noexcept;

// The names accepted by layout_preset, comma separated, for help texts and messages.
COSID_EXPORT const char* layout_preset_names() noexcept;

// "ms" or "s".
COSID_EXPORT const char* to_string(TimeUnit unit) noexcept;

#if COSID_HAS_EXCEPTIONS
// Throwing overloads: throw cosid::Error with the message of the Status& overload.
inline void validate(const Layout& layout) {
  Status status;
  (void)layout.validate(status);
  detail::throw_if_failed(status);
}
inline Layout layout_preset(std::string_view name) {
  Status status;
  const Layout layout = layout_preset(name, status);
  detail::throw_if_failed(status);
  return layout;
}
#endif

}  // namespace cosid

#endif  // COSID_LAYOUT_H_
