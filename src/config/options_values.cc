// SPDX-License-Identifier: Apache-2.0
// The typed values of the options: the layout from its keys, and the range checks shared by
// resolve_options() and validate_options().
#include "config/options_values.h"

#include <limits>

#include "base/fail.h"
#include "base/parse_util.h"

namespace cosid {
namespace detail {

const StoreConfig* selected_store(std::string_view store_type,
                                  const std::vector<StoreConfig>& stores) noexcept {
  const StoreConfig* selected = nullptr;
  for (const StoreConfig& config : stores) {
    if (config.name == store_type) selected = &config;
  }
  return selected;
}

const StoreConfig* selected_store(const Options& options) noexcept {
  return selected_store(options.store_type, options.stores);
}

const std::string& store_type_of(const Options& options) noexcept {
  const StoreConfig* selected = selected_store(options);
  return selected != nullptr ? selected->type : options.store_type;
}

std::string describe(std::string_view key, const RawValue& value) {
  return std::string(key) + " = " + quote(value.text) + " (" + value.origin + ")";
}

std::string describe(Key key, const RawValue& value) { return describe(key_name(key), value); }

bool fail_value(errc code, std::string_view key, const RawValue& value, const std::string& why,
                Status& status) {
  return fail(status, code, describe(key, value) + ": " + why);
}

bool fail_value(errc code, Key key, const RawValue& value, const std::string& why, Status& status) {
  return fail_value(code, key_name(key), value, why, status);
}

namespace {

constexpr std::int64_t kMsPerSecond = 1000;
// A window of a second-unit layout must hold whole ticks: at least two, so that one can be
// issued while the next ceiling is written.
constexpr std::chrono::milliseconds kMinAheadSeconds{2000};
// For a second-unit layout: ceilings about 2/3 ttl ahead must still hold whole ticks.
constexpr std::chrono::milliseconds kMinTtlSeconds{3000};

// The bounds of a key's row: its minimum and maximum (bytes, a count, or ms for a duration).
std::size_t max_bytes(Key key) { return static_cast<std::size_t>(kConfigKeyRows[key].max); }

// A duration of the row `key`: within the row's range (`advice` follows it in the message) and,
// for a layout that counts seconds, at least `seconds_min` (`seconds_why` says why).
bool check_duration(Key key, std::chrono::milliseconds value, const Options& options,
                    const RawValue& shown, const char* advice,
                    std::chrono::milliseconds seconds_min, const char* seconds_why,
                    Status& status) {
  const std::string_view name = key_name(key);
  if (value.count() < kConfigKeyRows[key].min || value.count() > kConfigKeyRows[key].max) {
    return fail_value(errc::invalid_value, key, shown,
                      "out of range: " + std::string(name.substr(name.rfind('.') + 1)) + " is " +
                          range_text(key) + advice,
                      status);
  }
  if (options.layout.unit == TimeUnit::kSecond && value < seconds_min) {
    return fail_value(errc::invalid_value, key, shown,
                      std::string("too short for a layout that counts seconds: ") + seconds_why,
                      status);
  }
  return true;
}

constexpr int kMaxStoreSlotBits = 31;

bool apply_bits(const RawSettings& raw, Key key, int& bits, Status& status) {
  if (!raw[key].given) return true;
  std::uint64_t value = 0;
  Status why;
  if (!parse_uint(raw[key].text, static_cast<std::uint64_t>(kConfigKeyRows[key].max), value, why)) {
    return fail_value(
        errc::invalid_value, key, raw[key],
        why.message() + " (an id has " + std::to_string(kConfigKeyRows[key].max) + " bits)",
        status);
  }
  bits = static_cast<int>(value);
  return true;
}

// The origins of the layout keys that were given, for a message about the layout as a whole.
std::string layout_origins(const RawSettings& raw) {
  std::string list;
  for (Key key = 0; key < kKeyCount; ++key) {
    if (!is_layout_key(key) || !raw[key].given) continue;
    list += list.empty() ? " (set by " : ", ";
    list += raw[key].origin;
  }
  return list.empty() ? list : list + ")";
}

}  // namespace

bool resolve_layout(const RawSettings& raw, Layout& layout, Status& status) {
  Layout result = layouts::kDefault;
  if (raw[kPreset].given) {
    Status unknown;  // replaced by a message that names the key and its origin
    result = layout_preset(raw[kPreset].text, unknown);
    if (!unknown.ok()) {
      return fail_value(errc::unknown_layout, kPreset, raw[kPreset],
                        std::string("not a layout: use one of ") + layout_preset_names(), status);
    }
  }
  if (raw[kUnit].given) {
    const std::string& text = raw[kUnit].text;
    if (text != "ms" && text != "s") {
      return fail_value(errc::invalid_value, kUnit, raw[kUnit], "not a unit: use ms or s", status);
    }
    const TimeUnit unit = text == "s" ? TimeUnit::kSecond : TimeUnit::kMillisecond;
    if (unit != result.unit && !raw[kEpoch].given) {
      // Keep the preset's instant: its epoch in the new unit. Every preset starts on a second.
      if (unit == TimeUnit::kMillisecond) {
        result.epoch *= kMsPerSecond;
      } else if (result.epoch % kMsPerSecond == 0) {
        result.epoch /= kMsPerSecond;
      } else {
        return fail_value(errc::invalid_value, kUnit, raw[kUnit],
                          "the layout's epoch " + std::to_string(result.epoch) +
                              " ms is not a whole second: give cosid.layout.epoch too",
                          status);
      }
    }
    result.unit = unit;
  }
  if (raw[kEpoch].given) {
    std::uint64_t epoch_ms = 0;
    Status why;
    if (!parse_uint(raw[kEpoch].text,
                    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()), epoch_ms,
                    why)) {
      return fail_value(errc::invalid_value, kEpoch, raw[kEpoch],
                        why.message() + "; the epoch is given in Unix milliseconds", status);
    }
    const auto per_tick = static_cast<std::uint64_t>(unit_ms(result.unit));
    if (epoch_ms % per_tick != 0) {
      // A value below 1e11 (before 1973 in ms, but an instant up to year 5138 in seconds) was
      // most likely given in seconds: the hint is that value in ms, where rounding it down would
      // name an instant near 1970. A larger one is ms with a fraction of a second: rounded down.
      constexpr std::uint64_t kLooksLikeSeconds = 100'000'000'000;
      const std::uint64_t example =
          epoch_ms < kLooksLikeSeconds ? epoch_ms * per_tick : epoch_ms - epoch_ms % per_tick;
      return fail_value(errc::invalid_value, kEpoch, raw[kEpoch],
                        "not a whole second, but the layout counts seconds: give Unix "
                        "milliseconds that are a multiple of 1000, such as " +
                            std::to_string(example) + ", or unit ms",
                        status);
    }
    result.epoch = static_cast<std::int64_t>(epoch_ms / per_tick);
  }
  if (!apply_bits(raw, kTimestampBits, result.timestamp_bits, status) ||
      !apply_bits(raw, kSlotBits, result.slot_bits, status) ||
      !apply_bits(raw, kSequenceBits, result.sequence_bits, status)) {
    return false;
  }
  if (!result.validate(status)) {
    return fail(status, status.code(), status.message() + layout_origins(raw));
  }
  layout = result;
  return true;
}

bool read_value(Key, const RawValue& raw, const Options&, std::string& value, Status&) {
  value = raw.text;
  return true;
}

bool read_value(Key key, const RawValue& raw, const Options&, std::chrono::milliseconds& value,
                Status& status) {
  return parse_duration(raw.text, value, status) ||
         fail_value(errc::invalid_value, key, raw, status.message(), status);
}

bool read_value(Key key, const RawValue& raw, const Options&, std::int64_t& value, Status& status) {
  return parse_instant(raw.text, value, status) ||
         fail_value(errc::invalid_value, key, raw, status.message(), status);
}

bool read_value(Key key, const RawValue& raw, const Options&, bool& value, Status& status) {
  return parse_bool(raw.text, value, status) ||
         fail_value(errc::invalid_value, key, raw, status.message(), status);
}

bool read_value(Key key, const RawValue& raw, const Options& options,
                std::optional<std::uint32_t>& value, Status& status) {
  std::uint32_t slot = 0;
  if (!parse_slot(raw.text, raw.origin, options.layout.slot_bits, slot, status)) {
    return fail(status, status.code(), std::string(key_name(key)) + ": " + status.message());
  }
  value = slot;
  return true;
}

bool read_value(Key key, const RawValue& raw, const Options&, StartMode& value, Status& status) {
  if (raw.text == "wait" || raw.text == "borrow") {
    value = raw.text == "wait" ? StartMode::kWait : StartMode::kBorrow;
    return true;
  }
  return fail_value(errc::invalid_value, key, raw,
                    "not a start mode: use wait (wait for the clock to pass the state file's "
                    "ceiling after a crash) or borrow (issue at once, ids ahead of the clock by "
                    "at most ahead)",
                    status);
}

std::string value_text(const std::string& value) { return value; }
std::string value_text(std::chrono::milliseconds value) { return format_duration(value); }
std::string value_text(std::int64_t unix_ms) {
  return unix_ms == 0 ? std::string("0") : format_instant(unix_ms);
}
std::string value_text(bool value) { return value ? "true" : "false"; }
std::string value_text(StartMode value) { return value == StartMode::kBorrow ? "borrow" : "wait"; }
std::string value_text(const std::optional<std::uint32_t>& value) {
  return value ? std::to_string(*value) : std::string();
}

bool check_namespace(const Options& options, const RawValue& shown, Status& status) {
  const std::string_view name = options.namespace_name;
  if (name.empty()) {
    return fail_value(errc::invalid_value, kNamespace, shown, "empty: give a name such as orders",
                      status);
  }
  if (name.size() > max_bytes(kNamespace)) {
    return fail_value(
        errc::invalid_value, kNamespace, shown,
        "longer than " + std::to_string(max_bytes(kNamespace)) + " bytes: give a shorter name",
        status);
  }
  for (const char c : name) {
    if (c <= ' ' || c > '~') {
      return fail_value(errc::invalid_value, kNamespace, shown,
                        "a namespace is printable ASCII without spaces, such as orders", status);
    }
  }
  return true;
}

bool check_path(std::string_view key, std::size_t max, std::string_view path, const RawValue& shown,
                const char* example, Status& status) {
  if (path.empty()) {
    return fail_value(errc::invalid_value, key, shown,
                      std::string("empty: give a path, such as ") + example, status);
  }
  if (path.size() > max) {
    return fail_value(errc::invalid_value, key, shown,
                      "longer than a path may be (" + std::to_string(max) + ")", status);
  }
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      return fail_value(errc::invalid_value, key, shown,
                        "a control byte in the path: check how the value was written", status);
    }
  }
  return true;
}

namespace {

// A path in the value of `key`: not empty, not longer than Linux allows, no control bytes.
bool check_path(Key key, std::string_view path, const RawValue& shown, const char* example,
                Status& status) {
  return check_path(key_name(key), max_bytes(key), path, shown, example, status);
}

}  // namespace

bool check_state_file(const Options& options, const RawValue& shown, Status& status) {
  return check_path(kStateFile, options.state_file, shown,
                    "/var/lib/cosid/state, or leave the setting out to run without a state file",
                    status);
}

bool check_store_directory(std::string_view path, const RawValue& shown, Status& status) {
  return check_path(kStoreDirectory, path, shown, "/var/lib/cosid/leases", status);
}

bool check_store_directory_key(const Options& options, const RawValue& shown, Status& status) {
  if (store_type_of(options) == "memory") {
    return fail_value(errc::invalid_value, kStoreDirectory, shown,
                      "the memory store keeps no files: drop the directory, or use "
                      "--store file:DIR",
                      status);
  }
  return check_store_directory(options.store_directory, shown, status);
}

// The spelling of a store type's (or the distributor's) name.
bool is_store_type_name(std::string_view type) noexcept {
  bool well_formed = !type.empty() && type.size() <= max_bytes(kStoreType);
  for (const char c : type) {
    well_formed = well_formed && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                                  c == '_' || c == '.');
  }
  return well_formed;
}

std::string type_name_rule() {
  return "(lower-case letters, digits, '-', '_', '.', at most " +
         std::to_string(max_bytes(kStoreType)) + ")";
}

bool check_store_type(std::string_view type, const RawValue& shown, Status& status) {
  if (!is_store_type_name(type)) {
    return fail_value(errc::invalid_value, kStoreType, shown,
                      "not a distributor type: use static, memory, file, a store instance of "
                      "cosid.stores, or the name of a registered store " +
                          type_name_rule(),
                      status);
  }
  return true;
}

bool check_instance_type(std::string_view name, const RawValue& type, Status& status) {
  if (is_store_type_name(type.text) && type.text != "static") return true;
  return fail_value(errc::invalid_value,
                    std::string(kStoresBlock) + "." + std::string(name) + ".type", type,
                    "not a store type: give the registered store type the instance is made by, "
                    "such as zookeeper or file " +
                        type_name_rule() + "; static is the configured slot, not a store",
                    status);
}

bool check_ttl(const Options& options, const RawValue& shown, Status& status) {
  return check_duration(kTtl, options.ttl, options, shown,
                        "; 30s suits most services (a crashed holder's slot stays taken for ttl + "
                        "tolerance)",
                        kMinTtlSeconds, "a lease must cover whole seconds; give 3s or more",
                        status);
}

bool check_tolerance(const Options& options, const RawValue& shown, Status& status) {
  return check_duration(kTolerance, options.tolerance, options, shown,
                        "; 1s suits most services, and every runtime of a namespace must give the "
                        "same",
                        std::chrono::milliseconds(0), "", status);
}

bool check_owner_key(const Options& options, const RawValue& shown, Status& status) {
  const std::string_view key = options.owner_key;
  if (key.empty() || key.size() > max_bytes(kOwnerKey)) {
    return fail_value(errc::invalid_value, kOwnerKey, shown,
                      "an owner key is " + range_text(kOwnerKey) +
                          ": give one such as orders-7, or leave it "
                          "out for HOST:PID",
                      status);
  }
  for (const char c : key) {
    if (c <= ' ' || c > '~') {
      return fail_value(errc::invalid_value, kOwnerKey, shown,
                        "an owner key is printable ASCII without spaces, such as orders-7", status);
    }
  }
  return true;
}

bool check_store_slot_bits(const Layout& layout, Status& status) {
  if (layout.slot_bits > kMaxStoreSlotBits) {
    return fail(status, errc::invalid_value,
                "the layout has " + std::to_string(layout.slot_bits) +
                    " slot bits, but a lease store leases at most 2^31 slots: give "
                    "cosid.layout.slot-bits 31 or less");
  }
  return true;
}

bool check_ahead(const Options& options, const RawValue& shown, Status& status) {
  return check_duration(kAhead, options.ahead, options, shown,
                        "; 10s suits most services (a crash makes the restart wait up to ahead)",
                        kMinAheadSeconds, "a window must hold whole seconds; give 2s or more",
                        status);
}

bool check_lock_wait(const Options& options, const RawValue& shown, Status& status) {
  return check_duration(kLockWait, options.lock_wait, options, shown,
                        "; a few seconds suit a shell loop, 0 fails at once",
                        std::chrono::milliseconds(0), "", status);
}

bool check_require_state_file(const Options& options, const RawValue& shown, Status& status) {
  if (!options.require_state_file || !options.state_file.empty()) return true;
  return fail_value(errc::invalid_value, kRequireStateFile, shown,
                    std::string("a state file is required, but ") + key_name(kStateFile) +
                        " is not set: set it, or drop require-state-file",
                    status);
}

bool check_not_before(const Options& options, const RawValue& shown, Status& status) {
  const std::int64_t not_before_ms = options.not_before_ms;
  const Layout& layout = options.layout;
  if (not_before_ms == 0) return true;
  if (not_before_ms < layout.epoch_ms()) {
    return fail_value(errc::invalid_value, kNotBefore, shown,
                      "before the layout's epoch " + format_instant(layout.epoch_ms()) +
                          ", so it protects nothing; Unix milliseconds have 13 digits today (was "
                          "it given in seconds?); give 0 for none",
                      status);
  }
  if (not_before_ms >= layout.end_ms()) {
    return fail_value(errc::invalid_value, kNotBefore, shown,
                      "at or after the layout's end " + format_instant(layout.end_ms()) +
                          ": no id could ever be issued",
                      status);
  }
  return true;
}

std::string value_of(const Options& options, Key key) {
  const Layout& layout = options.layout;
  if (kConfigKeyRows[key].parser.text != nullptr) return kConfigKeyRows[key].parser.text(options);
  if (key == kSlot) return options.uses_store() ? std::string() : std::to_string(options.slot);
  if (key == kSlotSource) return to_string(options.slot_source);
  if (key == kStoreType) return options.store_type;
  if (key == kPreset) return "default";  // and every field spelled out
  if (key == kEpoch) return std::to_string(layout.epoch_ms());
  if (key == kUnit) return to_string(layout.unit);
  return std::to_string(key == kTimestampBits ? layout.timestamp_bits
                        : key == kSlotBits    ? layout.slot_bits
                                              : layout.sequence_bits);
}

bool validate_static_options(const Options& options, Status& status) noexcept {
  const auto shown = [](std::string text) { return RawValue{true, std::move(text), "in code"}; };
  if (!options.layout.validate(status) ||
      !check_namespace(options, shown(options.namespace_name), status) ||
      !check_slot(options.slot, "in code", options.layout.slot_bits, status) ||
      (!options.state_file.empty() &&
       !check_state_file(options, shown(options.state_file), status)) ||
      !check_ahead(options, shown(format_duration(options.ahead)), status) ||
      !check_lock_wait(options, shown(format_duration(options.lock_wait)), status) ||
      (options.not_before_ms < 0 &&
       !fail_value(errc::invalid_value, kNotBefore, shown(std::to_string(options.not_before_ms)),
                   "negative: give Unix milliseconds, or 0 for none", status)) ||
      !check_not_before(options, shown(format_instant(options.not_before_ms)), status)) {
    return false;
  }
  if (!check_require_state_file(options, shown("true"), status)) return false;
  if (options.start_wait.count() < 0) {
    return fail(status, errc::invalid_value,
                "Options::start_wait is negative (" + std::to_string(options.start_wait.count()) +
                    " ms): give 0 or more");
  }
  status.clear();
  return true;
}

}  // namespace detail

Layout layout_from_settings(const std::vector<KeyValue>& flags, Status& status) noexcept {
  detail::RawSettings raw;
  for (const KeyValue& flag : flags) {
    const detail::Key key = detail::find_key(flag.first);
    if (key == detail::kKeyCount || !detail::is_layout_key(key)) continue;
    raw[key] = {true, flag.second, detail::flag_origin(flag.first, flag.second)};
  }
  Layout layout;
  if (!detail::resolve_layout(raw, layout, status)) return Layout();
  status.clear();
  return layout;
}

}  // namespace cosid
