// Resolution of Options: gather one raw text per key by precedence (flag > COSID_* variable >
// config file > default), then turn the texts into typed values and check them.
#include "cosid/options.h"

#include "config_file.h"
#include "fail.h"
#include "interpolate.h"
#include "options_internal.h"
#include "parse_util.h"

namespace cosid {
namespace detail {

std::size_t key_index(std::string_view key) noexcept {
  for (std::size_t i = 0; i < kKeyCount; ++i) {
    if (key == kConfigKeys[i]) return i;
  }
  return kKeyCount;
}

std::string flag_origin(std::string_view key, std::string_view value) {
  const ConfigFlag* plain = nullptr;
  for (const ConfigFlag& flag : kConfigFlags) {
    if (key != flag.key) continue;
    if (flag.implied_value == nullptr) {
      plain = &flag;
    } else if (value == flag.implied_value) {
      return std::string("flag --") + flag.flag;
    }
  }
  return plain != nullptr ? std::string("flag --") + plain->flag : "flag " + std::string(key);
}

bool fail_value(errc code, Key key, const RawValue& value, const std::string& why,
                std::error_code& ec, std::string* message) {
  return fail(code, ec, message,
              std::string(kConfigKeys[key]) + " = " + quote(value.text) + " (" + value.origin +
                  "): " + why);
}

}  // namespace detail

namespace {

using detail::Key;
using detail::RawSettings;
using detail::RawValue;

const char kNoSlot[] =
    "no slot is configured, and cosid never picks one: give it with --slot N, COSID_SLOT=N, or "
    "\"slot: N\" under cosid.machine.static in the config file (such as slot: ${POD_ORDINAL}); or "
    "take the StatefulSet ordinal from the host name with --slot-from-hostname or "
    "\"slot-source: stateful-set\"";

// Layers the config file, then the COSID_* variables, then the flags into `raw`.
bool gather(const OptionSources& sources, const EnvLookup& env, RawSettings& raw,
            std::error_code& ec, std::string* message) {
  std::string path = sources.config_file;
  if (path.empty() && !sources.config_text) {
    if (const char* value = env("COSID_CONFIG")) {
      path = value;
      if (path.empty()) {
        return detail::fail(errc::config_unreadable, ec, message,
                            "COSID_CONFIG is set but empty: give the config file's path, or unset "
                            "it to run without a config file");
      }
    }
  }
  std::vector<detail::ConfigEntry> entries;
  if (sources.config_text) {
    if (path.empty()) path = "config";
    if (!detail::parse_config(*sources.config_text, path, env, entries, ec, message)) {
      return false;
    }
  } else if (!path.empty() && !detail::read_config_file(path, env, entries, ec, message)) {
    return false;
  }
  for (detail::ConfigEntry& entry : entries) {
    raw[detail::key_index(entry.key)] = {true, std::move(entry.value),
                                         "file " + path + ":" + std::to_string(entry.line)};
  }
  for (const ConfigVariable& variable : kConfigVariables) {
    if (const char* value = env(variable.name)) {
      raw[detail::key_index(variable.key)] = {true, value, std::string("env ") + variable.name};
    }
  }
  for (const KeyValue& flag : sources.flags) {
    const std::size_t key = detail::key_index(flag.first);
    if (key == detail::kKeyCount) {
      return detail::fail(errc::config_unknown_key, ec, message,
                          "unknown key " + detail::quote(flag.first) +
                              " given as a flag: the keys are those of kConfigKeys, such as "
                              "cosid.machine.static.slot");
    }
    raw[key] = {true, flag.second, detail::flag_origin(flag.first, flag.second)};
  }
  return true;
}

// The slot, from the slot key or the host name. `origin` receives where it came from.
bool resolve_slot(const OptionSources& sources, const EnvLookup& env, const RawSettings& raw,
                  Options& options, std::string& origin, std::error_code& ec,
                  std::string* message) {
  const RawValue& source = raw[detail::kSlotSource];
  if (source.given && !parse_slot_source(source.text, options.slot_source)) {
    return detail::fail_value(errc::invalid_value, detail::kSlotSource, source,
                              "not a slot source: use explicit or stateful-set", ec, message);
  }
  const RawValue& slot = raw[detail::kSlot];
  if (options.slot_source == SlotSource::kExplicit) {
    if (!slot.given) return detail::fail(errc::no_slot_configured, ec, message, kNoSlot);
    origin = slot.origin;
    Status parsed;  // seam: parse_slot() reports in a Status
    (void)parse_slot(slot.text, slot.origin, options.layout.slot_bits, options.slot, parsed);
    return detail::to_legacy(parsed, ec, message);
  }
  if (slot.given) {
    return detail::fail(errc::invalid_value, ec, message,
                        std::string(kConfigKeys[detail::kSlot]) + " = " + detail::quote(slot.text) +
                            " (" + slot.origin + ") and " + kConfigKeys[detail::kSlotSource] +
                            " = " + detail::quote(source.text) + " (" + source.origin +
                            ") both choose the slot: give only one of them");
  }
  std::string hostname = sources.hostname;
  std::string hostname_origin = "OptionSources::hostname";
  if (hostname.empty()) {
    const char* value = env("HOSTNAME");
    if (value != nullptr && *value != '\0') {
      hostname = value;
      hostname_origin = "env HOSTNAME";
    } else if (Status found; !local_hostname(hostname, found)) {  // seam: reports in a Status
      return detail::to_legacy(found, ec, message);
    } else {
      hostname_origin = "gethostname()";
    }
  }
  origin = "host name " + hostname + " (" + hostname_origin + ")";
  Status taken;  // seam: slot_from_hostname() reports in a Status
  (void)slot_from_hostname(hostname, hostname_origin, options.layout.slot_bits, options.slot,
                           taken);
  return detail::to_legacy(taken, ec, message);
}

// "KEY = "TEXT" (ORIGIN)" of a raw value, for messages about two keys.
std::string describe(Key key, const RawValue& value) {
  return std::string(kConfigKeys[key]) + " = " + detail::quote(value.text) + " (" + value.origin +
         ")";
}

// The keys of one distributor that the other refuses.
constexpr Key kStaticOnlyKeys[] = {detail::kSlot, detail::kSlotSource, detail::kStateFile,
                                   detail::kAhead, detail::kRequireStateFile};
constexpr Key kStoreOnlyKeys[] = {detail::kTtl, detail::kTolerance, detail::kOwnerKey,
                                  detail::kPreferredSlot, detail::kStoreDirectory};

// The distributor keys: the type, and for a store its terms. Static keys given with a store, and
// store keys given with static, are refused: each would be ignored, and an ignored slot or state
// file is how two processes end up issuing the same ids.
bool build_distributor(const RawSettings& raw, Options& options, std::error_code& ec,
                       std::string* message) {
  const RawValue& type = raw[detail::kStoreType];
  if (type.given) {
    options.store_type = type.text;
    if (!detail::check_store_type(options.store_type, type, ec, message)) return false;
  }
  if (!options.uses_store()) {
    for (const Key key : kStoreOnlyKeys) {
      if (!raw[key].given) continue;
      return detail::fail(errc::invalid_value, ec, message,
                          describe(key, raw[key]) +
                              " only applies to a lease store, but the distributor type is "
                              "static: choose a store (--store file:DIR, or type under "
                              "cosid.machine.distributor), or drop the setting");
    }
    return true;
  }
  for (const Key key : kStaticOnlyKeys) {
    if (!raw[key].given) continue;
    return detail::fail(errc::invalid_value, ec, message,
                        describe(key, raw[key]) + " and " + describe(detail::kStoreType, type) +
                            " are ambiguous: a static slot and a slot leased from a store "
                            "exclude each other; give only one of them");
  }
  if (!detail::check_store_slot_bits(options.layout, ec, message)) return false;
  std::string why;
  const auto duration = [&](Key key, std::chrono::milliseconds& value) {
    if (!raw[key].given || detail::parse_duration(raw[key].text, value, &why)) return true;
    return detail::fail_value(errc::invalid_value, key, raw[key], why, ec, message);
  };
  const auto shown = [&raw](Key key, std::chrono::milliseconds value) {
    return raw[key].given ? raw[key] : RawValue{false, detail::format_duration(value), "default"};
  };
  if (!duration(detail::kTtl, options.ttl) ||
      !detail::check_ttl(options.ttl, options.layout, shown(detail::kTtl, options.ttl), ec,
                         message) ||
      !duration(detail::kTolerance, options.tolerance) ||
      !detail::check_tolerance(options.tolerance, shown(detail::kTolerance, options.tolerance), ec,
                               message)) {
    return false;
  }
  const RawValue& owner_key = raw[detail::kOwnerKey];
  if (owner_key.given) {
    options.owner_key = owner_key.text;
    if (!detail::check_owner_key(options.owner_key, owner_key, ec, message)) return false;
  }
  const RawValue& preferred = raw[detail::kPreferredSlot];
  if (preferred.given) {
    std::uint32_t slot = 0;
    Status parsed;  // seam: parse_slot() reports in a Status
    if (!parse_slot(preferred.text, preferred.origin, options.layout.slot_bits, slot, parsed)) {
      detail::to_legacy(parsed, ec, message);
      if (message != nullptr)
        *message = std::string(kConfigKeys[detail::kPreferredSlot]) + ": " + *message;
      return false;
    }
    options.preferred_slot = slot;
  }
  const RawValue& directory = raw[detail::kStoreDirectory];
  if (directory.given) {
    if (options.store_type == "memory") {
      return detail::fail_value(errc::invalid_value, detail::kStoreDirectory, directory,
                                "the memory store keeps no files: drop the directory, or use "
                                "--store file:DIR",
                                ec, message);
    }
    options.store_directory = directory.text;
    if (!detail::check_store_directory(options.store_directory, directory, ec, message)) {
      return false;
    }
  } else if (options.store_type == "file") {
    return detail::fail(errc::invalid_value, ec, message,
                        describe(detail::kStoreType, type) +
                            " needs a directory for the lease files, shared by every process of "
                            "the namespace: give --store file:DIR or "
                            "cosid.machine.distributor.file.directory");
  }
  return true;
}

// Turns the raw texts into `options`, key by key, checking each.
bool build(const RawSettings& raw, Options& options, std::error_code& ec, std::string* message) {
  // First, so that a static key given with a store is reported as the ambiguity it is.
  if (!build_distributor(raw, options, ec, message)) return false;
  std::string why;
  if (raw[detail::kNamespace].given) {
    options.namespace_name = raw[detail::kNamespace].text;
    if (!detail::check_namespace(options.namespace_name, raw[detail::kNamespace], ec, message)) {
      return false;
    }
  }
  if (raw[detail::kStateFile].given) {
    options.state_file = raw[detail::kStateFile].text;
    if (!detail::check_state_file(options.state_file, raw[detail::kStateFile], ec, message)) {
      return false;
    }
  }
  if (raw[detail::kAhead].given &&
      !detail::parse_duration(raw[detail::kAhead].text, options.ahead, &why)) {
    return detail::fail_value(errc::invalid_value, detail::kAhead, raw[detail::kAhead], why, ec,
                              message);
  }
  const RawValue default_ahead{false, detail::format_duration(options.ahead), "default"};
  const RawValue& ahead = raw[detail::kAhead].given ? raw[detail::kAhead] : default_ahead;
  if (!detail::check_ahead(options.ahead, options.layout, ahead, ec, message)) return false;
  const RawValue& not_before = raw[detail::kNotBefore];
  if (not_before.given && (!detail::parse_instant(not_before.text, options.not_before_ms, &why))) {
    return detail::fail_value(errc::invalid_value, detail::kNotBefore, not_before, why, ec,
                              message);
  }
  if (!detail::check_not_before(options.not_before_ms, options.layout, not_before, ec, message)) {
    return false;
  }
  const RawValue& require = raw[detail::kRequireStateFile];
  if (require.given && !detail::parse_bool(require.text, options.require_state_file, &why)) {
    return detail::fail_value(errc::invalid_value, detail::kRequireStateFile, require, why, ec,
                              message);
  }
  if (options.require_state_file && options.state_file.empty()) {
    return detail::fail_value(errc::invalid_value, detail::kRequireStateFile, require,
                              "a state file is required, but cosid.machine.static.state-file is "
                              "not set: set it, or drop require-state-file",
                              ec, message);
  }
  // With a store, the floor of a slot taken over from a crashed holder lies up to tolerance past
  // the store's clock, and a local clock behind the store's by up to ttl is still waited out.
  options.start_wait = options.uses_store() ? options.ttl + options.tolerance
                                            : options.ahead + std::chrono::seconds(1);
  return true;
}

bool resolve(const OptionSources& sources, Options& out, std::vector<Setting>* settings,
             std::error_code& ec, std::string* message) {
  const EnvLookup env = detail::env_or_getenv(sources.env);
  RawSettings raw;
  Options options;
  std::string slot_origin;
  if (!gather(sources, env, raw, ec, message) ||
      !detail::resolve_layout(raw, options.layout, ec, message) ||
      !build(raw, options, ec, message)) {
    return false;
  }
  // With a store the slot is leased when the runtime starts; build() refused a configured one.
  if (options.uses_store()) {
    slot_origin = "leased from the " + options.store_type + " store at start";
  } else if (!resolve_slot(sources, env, raw, options, slot_origin, ec, message)) {
    return false;
  }
  if (settings != nullptr) detail::describe_settings(options, raw, slot_origin, *settings);
  out = std::move(options);
  ec.clear();
  return true;
}

// validate_options() for the distributor fields.
bool validate_store_options(const Options& options, std::error_code& ec, std::string* message) {
  const auto shown = [](std::string text) { return RawValue{true, std::move(text), "in code"}; };
  if (!detail::check_store_type(options.store_type, shown(options.store_type), ec, message)) {
    return false;
  }
  if (!options.uses_store()) return true;
  if (!options.state_file.empty() || options.require_state_file) {
    return detail::fail(errc::invalid_value, ec, message,
                        "Options::store_type is " + detail::quote(options.store_type) +
                            " but a state file is set as well: a leased slot keeps its window in "
                            "the store; clear Options::state_file and require_state_file");
  }
  Status preferred_status;  // seam: check_slot() reports in a Status
  if (options.preferred_slot) {
    (void)check_slot(*options.preferred_slot, "Options::preferred_slot", options.layout.slot_bits,
                     preferred_status);
  }
  if (!detail::check_store_slot_bits(options.layout, ec, message) ||
      !detail::check_ttl(options.ttl, options.layout, shown(detail::format_duration(options.ttl)),
                         ec, message) ||
      !detail::check_tolerance(options.tolerance,
                               shown(std::to_string(options.tolerance.count()) + "ms"), ec,
                               message) ||
      (!options.owner_key.empty() &&
       !detail::check_owner_key(options.owner_key, shown(options.owner_key), ec, message)) ||
      (options.preferred_slot && !detail::to_legacy(preferred_status, ec, message)) ||
      (!options.store_directory.empty() &&
       !detail::check_store_directory(options.store_directory, shown(options.store_directory), ec,
                                      message))) {
    return false;
  }
  if (options.store_type == "file" && options.store_directory.empty()) {
    return detail::fail(errc::invalid_value, ec, message,
                        "Options::store_type is file but Options::store_directory is empty: give "
                        "the directory the lease files are kept in");
  }
  return true;
}

}  // namespace

const ConfigFlag* find_config_flag(std::string_view flag) noexcept {
  for (const ConfigFlag& entry : kConfigFlags) {
    if (flag == entry.flag) return &entry;
  }
  return nullptr;
}

const char* key_for_flag(std::string_view flag) noexcept {
  const ConfigFlag* entry = find_config_flag(flag);
  return entry != nullptr ? entry->key : nullptr;
}

std::vector<KeyValue> split_store_flag(std::string_view value) {
  const std::size_t colon = value.find(':');
  std::vector<KeyValue> settings;
  settings.emplace_back(kConfigKeys[detail::kStoreType], std::string(value.substr(0, colon)));
  if (colon != std::string_view::npos) {
    settings.emplace_back(kConfigKeys[detail::kStoreDirectory],
                          std::string(value.substr(colon + 1)));
  }
  return settings;
}

bool resolve_options(const OptionSources& sources, Options& out, std::error_code& ec,
                     std::string* message) noexcept {
  return resolve(sources, out, nullptr, ec, message);
}

bool resolve_options(const OptionSources& sources, Options& out, std::vector<Setting>& settings,
                     std::error_code& ec, std::string* message) noexcept {
  return resolve(sources, out, &settings, ec, message);
}

bool validate_options(const Options& options, std::error_code& ec, std::string* message) noexcept {
  const auto shown = [](std::string text) { return RawValue{true, std::move(text), "in code"}; };
  // seam: validate() and check_slot() report in a Status
  Status layout_status;
  (void)options.layout.validate(layout_status);
  Status slot_status;
  (void)check_slot(options.slot, "in code", options.layout.slot_bits, slot_status);
  if (!detail::to_legacy(layout_status, ec, message) ||
      !detail::check_namespace(options.namespace_name, shown(options.namespace_name), ec,
                               message) ||
      !detail::to_legacy(slot_status, ec, message) ||
      (!options.state_file.empty() &&
       !detail::check_state_file(options.state_file, shown(options.state_file), ec, message)) ||
      !detail::check_ahead(options.ahead, options.layout,
                           shown(detail::format_duration(options.ahead)), ec, message) ||
      (options.not_before_ms < 0 &&
       !detail::fail_value(errc::invalid_value, detail::kNotBefore,
                           shown(std::to_string(options.not_before_ms)),
                           "negative: give Unix milliseconds, or 0 for none", ec, message)) ||
      !detail::check_not_before(options.not_before_ms, options.layout,
                                shown(detail::format_instant(options.not_before_ms)), ec,
                                message)) {
    return false;
  }
  if (options.require_state_file && options.state_file.empty()) {
    return detail::fail(errc::invalid_value, ec, message,
                        "Options::require_state_file is true but Options::state_file is empty: "
                        "set a state file, or do not require one");
  }
  if (options.start_wait.count() < 0) {
    return detail::fail(errc::invalid_value, ec, message,
                        "Options::start_wait is negative (" +
                            std::to_string(options.start_wait.count()) + " ms): give 0 or more");
  }
  if (!validate_store_options(options, ec, message)) return false;
  ec.clear();
  return true;
}

}  // namespace cosid
