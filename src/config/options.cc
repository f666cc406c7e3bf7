// SPDX-License-Identifier: Apache-2.0
// Resolution of Options: gather one raw text per key by precedence (flag > COSID_* variable >
// config file > default), then turn the texts into typed values and check them.
#include "cosid/options.h"

#include "base/fail.h"
#include "base/parse_util.h"
#include "config/config_file.h"
#include "config/interpolate.h"
#include "config/options_check.h"
#include "config/options_internal.h"

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

}  // namespace detail

namespace {

using detail::Key;
using detail::RawInstance;
using detail::RawInstances;
using detail::RawSettings;
using detail::RawValue;

// Whether `key` lies in the block `block` of an instance ("options.retry.maxSleep" in "options").
bool in_block(std::string_view key, std::string_view block) {
  return key.size() > block.size() && key.substr(0, block.size()) == block &&
         key[block.size()] == '.';
}

// Adds the key `path` (cosid.stores.NAME.KEY) to its instance of `instances`, made on its first
// key: its type, or a setting, which replaces the same key of an earlier (lower) source.
bool add_instance_key(const std::string& path, std::string value, const std::string& origin,
                      RawInstances& instances, Status& status) {
  std::string_view name;
  std::string_view key;
  (void)detail::split_store_key(path, name, key);
  const auto refuse = [&](const std::string& why) {
    return detail::fail(status, errc::invalid_value,
                        path + " = " + detail::quote(value) + " (" + origin + "): " + why);
  };
  if (!detail::is_store_instance_name(name)) {
    return refuse(detail::quote(name) +
                  " is not a store instance's name: use lower-case letters, digits, '-' and '_' "
                  "(1 to " +
                  std::to_string(detail::kMaxStoreNameBytes) + " bytes)");
  }
  if (!detail::is_store_setting_key(key)) {
    return refuse(
        "not a key of a store instance: give cosid.stores.NAME.KEY, KEY made of names of "
        "letters, digits, '-' and '_' joined by '.'");
  }
  RawInstance* instance = nullptr;
  for (RawInstance& candidate : instances) {
    if (candidate.name == name) instance = &candidate;
  }
  if (instance == nullptr) {
    instance = &instances.emplace_back(RawInstance{std::string(name), {}, {}});
  }
  if (key == "type") {
    instance->type = {true, std::move(value), origin};
    return true;
  }
  if (in_block(key, "type")) {
    return refuse("type is the instance's store type, a value: it has no keys below it");
  }
  for (StoreSetting& setting : instance->settings) {
    if (setting.key == key) {
      setting.value = std::move(value);
      setting.origin = origin;
      return true;
    }
    if (in_block(setting.key, key) || in_block(key, setting.key)) {
      return refuse("and cosid.stores." + instance->name + "." + setting.key + " (" +
                    setting.origin + ") make one key both a value and a block: give one of them");
    }
  }
  instance->settings.push_back({std::string(key), std::move(value), origin});
  return true;
}

const char kNoSlot[] =
    "no slot is configured, and cosid never picks one: give it with --slot N, COSID_SLOT=N, or "
    "\"slot: N\" under cosid.machine.static in the config file (such as slot: ${POD_ORDINAL}); or "
    "take the StatefulSet ordinal from the host name with --slot-from-hostname or "
    "\"slot-source: stateful-set\"";

// Puts the key `path` of the cosid.segment block into `segment` if it is one (false when not):
// a key of the table, or a provider entry's, whose entry is made on its first key.
bool add_segment_key(const std::string& path, std::string value, std::string origin,
                     detail::RawSegment& segment) {
  std::string_view provider;
  const detail::SegmentKey key = detail::find_segment_key(path, provider);
  if (key == detail::kSegmentKeyCount) return false;
  RawValue given{true, std::move(value), std::move(origin)};
  if (key != detail::kProviderOffset && key != detail::kProviderStep) {
    segment.values[key] = std::move(given);
    return true;
  }
  detail::RawProvider* entry = nullptr;
  for (detail::RawProvider& candidate : segment.providers) {
    if (candidate.key == provider) entry = &candidate;
  }
  if (entry == nullptr) {
    entry = &segment.providers.emplace_back(detail::RawProvider{std::string(provider), {}, {}});
  }
  (key == detail::kProviderOffset ? entry->offset : entry->step) = std::move(given);
  return true;
}

// Whether `key` (a full dotted key of the config file) holds a path: a row of either table whose
// value is ValueKind::kPath.
bool is_path_key(std::string_view key) {
  const Key row = detail::find_key(key);
  if (row != detail::kKeyCount) return detail::kConfigKeyRows[row].kind == detail::ValueKind::kPath;
  std::string_view provider;
  const detail::SegmentKey segment_row = detail::find_segment_key(key, provider);
  return segment_row != detail::kSegmentKeyCount &&
         detail::kSegmentKeyRows[segment_row].kind == detail::ValueKind::kPath;
}

// The directory of the config file `file` as a prefix for the relative paths it gives: "DIR/",
// "/" for a file in the root, or "" for a file named without a directory (the working directory
// is its directory, and a relative path stays as it is).
std::string directory_prefix(std::string_view file) {
  const std::size_t slash = file.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(file.substr(0, slash + 1));
}

// Resolves a relative path `value` that the config file gave against the file's directory
// (`prefix`, directory_prefix()): the file's author wrote it next to the file, wherever the
// process runs, while a flag or variable is typed where the command runs and stays relative to
// the working directory. The text is joined, not made absolute: no getcwd(), which can fail, and
// a relative config file gives a path relative to the same working directory. An empty value stays
// empty (refused by its check), and `origin` says what the file wrote.
void resolve_config_path(const std::string& prefix, std::string& value, std::string& origin) {
  if (prefix.empty() || value.empty() || value.front() == '/') return;
  origin += ", where " + detail::quote(value) + " is relative to the config file's directory";
  value = prefix + value;
}

// Layers the config file, then the COSID_* variables, then the flags into `raw`, `instances` and
// `segment` (which no variable reaches).
bool gather(const OptionSources& sources, const EnvLookup& env, RawSettings& raw,
            RawInstances& instances, detail::RawSegment& segment, Status& status) {
  std::string path = sources.config_file;
  if (path.empty() && !sources.config_text) {
    if (const char* value = env("COSID_CONFIG")) {
      path = value;
      if (path.empty()) {
        // A malformed value of the variable, not a file that cannot be read.
        return detail::fail(status, errc::invalid_value,
                            "COSID_CONFIG is set but empty: give the config file's path, or unset "
                            "it to run without a config file");
      }
    }
  }
  std::vector<detail::ConfigEntry> entries;
  if (sources.config_text) {
    if (path.empty()) path = "config";
    entries = detail::parse_config(*sources.config_text, path, env, status);
  } else if (!path.empty()) {
    entries = detail::read_config_file(path, env, status);
  }
  if (!status.ok()) return false;
  // A text given instead of a file lies in the directory of the file it stands for, if it names
  // one (options.h, OptionSources::config_text); "config", the name of a text without one, has
  // none.
  const std::string prefix = directory_prefix(path);
  for (detail::ConfigEntry& entry : entries) {
    std::string origin = "file " + path + ":" + std::to_string(entry.line);
    if (!entry.emptied_from.empty()) {
      origin += ", where " + entry.emptied_from + " gave an empty value (a variable set to \"\")";
    }
    if (is_path_key(entry.key)) resolve_config_path(prefix, entry.value, origin);
    const Key key = detail::find_key(entry.key);
    if (key != detail::kKeyCount) {
      raw[key] = {true, std::move(entry.value), std::move(origin)};
    } else if (add_segment_key(entry.key, entry.value, origin, segment)) {
      continue;
    } else if (!add_instance_key(entry.key, std::move(entry.value), origin, instances, status)) {
      return false;  // the reader passes only the tables' keys and those of cosid.stores
    }
  }
  for (Key key = 0; key < detail::kKeyCount; ++key) {
    const char* variable = detail::kConfigKeyRows[key].variable;
    if (variable == nullptr) continue;
    if (const char* value = env(variable)) raw[key] = {true, value, std::string("env ") + variable};
  }
  for (const KeyValue& flag : sources.flags) {
    const Key key = detail::find_key(flag.first);
    std::string origin = detail::flag_origin(flag.first, flag.second);
    std::string_view name;
    std::string_view below;
    if (key != detail::kKeyCount) {
      raw[key] = {true, flag.second, std::move(origin)};
    } else if (add_segment_key(flag.first, flag.second, origin, segment)) {
      continue;
    } else if (!detail::split_store_key(flag.first, name, below)) {
      return detail::fail(
          status, errc::config_unknown_key,
          "unknown key " + detail::quote(flag.first) +
              " given as a flag: the keys are those `cosid help --man` lists, such as "
              "cosid.machine.static.slot, and cosid.stores.NAME.KEY of a store instance");
    } else if (!add_instance_key(flag.first, flag.second, origin, instances, status)) {
      return false;
    }
  }
  for (RawInstance& instance : instances) detail::group_store_settings(instance.settings);
  return true;
}

// The slot, from the slot key or the host name. `origin` receives where it came from. Unless
// `need_slot`, a slot not given is not looked for (the slot source is checked, the host name not
// read).
bool resolve_slot(const OptionSources& sources, const EnvLookup& env, const RawSettings& raw,
                  bool need_slot, Options& options, std::string& origin, Status& status) {
  const RawValue& source = raw[detail::kSlotSource];
  if (source.given && !parse_slot_source(source.text, options.slot_source)) {
    return detail::fail_value(errc::invalid_value, detail::kSlotSource, source,
                              "not a slot source: use explicit or stateful-set", status);
  }
  const RawValue& slot = raw[detail::kSlot];
  if (!need_slot && !slot.given) return true;
  if (options.slot_source == SlotSource::kExplicit) {
    if (!slot.given) return detail::fail(status, errc::no_slot_configured, kNoSlot);
    origin = slot.origin;
    return parse_slot(slot.text, slot.origin, options.layout.slot_bits, options.slot, status);
  }
  if (slot.given) {
    return detail::fail(status, errc::invalid_value,
                        std::string(detail::key_name(detail::kSlot)) + " = " +
                            detail::quote(slot.text) + " (" + slot.origin + ") and " +
                            detail::key_name(detail::kSlotSource) + " = " +
                            detail::quote(source.text) + " (" + source.origin +
                            ") both choose the slot: give only one of them");
  }
  std::string hostname = sources.hostname;
  std::string hostname_origin = "OptionSources::hostname";
  if (hostname.empty()) {
    const char* value = env("HOSTNAME");
    if (value != nullptr && *value != '\0') {
      hostname = value;
      hostname_origin = "env HOSTNAME";
    } else if (!local_hostname(hostname, status)) {
      return false;
    } else {
      hostname_origin = "gethostname()";
    }
  }
  origin = "host name " + hostname + " (" + hostname_origin + ")";
  return slot_from_hostname(hostname, hostname_origin, options.layout.slot_bits, options.slot,
                            status);
}

// "KEY = "TEXT" (ORIGIN)" of a raw value, for messages about two keys.
std::string describe(Key key, const RawValue& value) {
  return std::string(detail::key_name(key)) + " = " + detail::quote(value.text) + " (" +
         value.origin + ")";
}

// The first key of `scope` that `raw` gives, or kKeyCount.
Key given_of_scope(const RawSettings& raw, detail::Scope scope) {
  for (Key key = 0; key < detail::kKeyCount; ++key) {
    if (detail::kConfigKeyRows[key].scope == scope && raw[key].given) return key;
  }
  return detail::kKeyCount;
}

// Applies the rows that have a parser, those of a store's scope or the others, in row order: each
// key's text, when given, goes into its field, and the field is checked, its default too (the
// layout may refuse it) unless it is an empty text, which means none.
bool apply_rows(const RawSettings& raw, bool store_rows, Options& options, Status& status) {
  for (Key key = 0; key < detail::kKeyCount; ++key) {
    const detail::ConfigKey& row = detail::kConfigKeyRows[key];
    if ((row.scope == detail::Scope::kStore) != store_rows || row.parser.apply == nullptr) continue;
    if (!row.parser.apply(key, raw[key], options, status)) return false;
    if (row.parser.check == nullptr) continue;
    const std::string text = row.parser.text(options);
    if (!raw[key].given && text.empty()) continue;
    const RawValue shown = raw[key].given ? raw[key] : RawValue{false, text, "default"};
    if (!row.parser.check(options, shown, status)) return false;
  }
  return true;
}

// The store instances into options.stores: each needs a type, and a distributor must select it
// (the lease distributor, or the segment distributor named `segment_type`, which takes it from
// `instances` itself), as an instance that is not used would be ignored (its keys with it).
bool build_instances(const RawSettings& raw, const RawInstances& instances,
                     std::string_view segment_type, Options& options, Status& status) {
  for (const RawInstance& instance : instances) {
    const std::string path = std::string(detail::kStoresBlock) + "." + instance.name;
    if (!instance.type.given) {
      const StoreSetting& first = instance.settings.front();  // what made the instance
      return detail::fail(status, errc::invalid_value,
                          path + "." + first.key + " = " + detail::quote(first.value) + " (" +
                              first.origin + ") is a key of the store instance " + path +
                              ", which has no type: give " + path +
                              ".type, the store type it is made by");
    }
    if (!detail::check_instance_type(instance.name, instance.type, status)) return false;
    if (instance.name != options.store_type && instance.name == segment_type) continue;
    if (instance.name != options.store_type) {
      const RawValue& type = raw[detail::kStoreType];
      const RawValue shown = type.given ? type : RawValue{false, options.store_type, "default"};
      return detail::fail(
          status, errc::invalid_value,
          path + ".type = " + detail::quote(instance.type.text) + " (" + instance.type.origin +
              ") has no effect: the store instance " + instance.name + " is not the distributor (" +
              describe(detail::kStoreType, shown) + "): select it with \"type: " + instance.name +
              "\" under cosid.machine.distributor (or --store " + instance.name +
              "), or drop its block");
    }
    options.stores.push_back({instance.name, instance.type.text, instance.settings});
  }
  return true;
}

// The distributor keys: the type, and for a store its terms. Static keys given with a store, and
// store keys given with static, are refused: each would be ignored, and an ignored slot or state
// file is how two processes end up issuing the same ids.
bool build_distributor(const RawSettings& raw, const RawInstances& instances,
                       std::string_view segment_type, Options& options, Status& status) {
  const RawValue& type = raw[detail::kStoreType];
  if (type.given) {
    options.store_type = type.text;
    if (!detail::check_store_type(options.store_type, type, status)) return false;
  }
  if (!build_instances(raw, instances, segment_type, options, status)) return false;
  if (!options.uses_store()) {
    const Key key = given_of_scope(raw, detail::Scope::kStore);
    if (key != detail::kKeyCount) {
      return detail::fail(status, errc::invalid_value,
                          describe(key, raw[key]) +
                              " only applies to a lease store, but the distributor type is "
                              "static: choose a store (--store file:DIR, or type under "
                              "cosid.machine.distributor), or drop the setting");
    }
    return true;
  }
  const Key static_key = given_of_scope(raw, detail::Scope::kStatic);
  if (static_key != detail::kKeyCount) {
    return detail::fail(status, errc::invalid_value,
                        describe(static_key, raw[static_key]) + " and " +
                            describe(detail::kStoreType, type) +
                            " are ambiguous: a static slot and a slot leased from a store "
                            "exclude each other; give only one of them");
  }
  if (!detail::check_store_slot_bits(options.layout, status) ||
      !apply_rows(raw, /*store_rows=*/true, options, status)) {
    return false;
  }
  if (!raw[detail::kStoreDirectory].given && detail::store_type_of(options) == "file") {
    return detail::fail(
        status, errc::invalid_value,
        describe(detail::kStoreType, type) +
            (options.store_type != "file" ? " (a store instance of type file)" : "") +
            " needs a directory for the lease files, shared by every process of "
            "the namespace: give --store file:DIR or "
            "cosid.machine.distributor.file.directory");
  }
  return true;
}

// Turns the raw texts into `options`, key by key, checking each.
bool build(const RawSettings& raw, const RawInstances& instances, std::string_view segment_type,
           Options& options, Status& status) {
  // First, so that a static key given with a store is reported as the ambiguity it is.
  if (!build_distributor(raw, instances, segment_type, options, status)) return false;
  if (!apply_rows(raw, /*store_rows=*/false, options, status)) return false;
  // With a store, the floor of a slot taken over from a crashed holder lies up to tolerance past
  // the store's clock, and a local clock behind the store's by up to ttl is still waited out.
  options.start_wait = options.uses_store() ? options.ttl + options.tolerance
                                            : options.ahead + std::chrono::seconds(1);
  return true;
}

bool resolve(const OptionSources& sources, Options& out, std::vector<Setting>* settings,
             Status& status) {
  RawSettings raw;
  RawInstances instances;
  detail::RawSegment raw_segment;
  Options options;
  segment::SegmentOptions unused;  // resolve_segment_options() reads it
  std::string slot_origin;
  if (!detail::resolve_sources(sources, /*need_slot=*/true, options, unused, raw, instances,
                               raw_segment, slot_origin, status)) {
    return false;
  }
  if (settings != nullptr) {
    detail::describe_settings(options, raw, instances, slot_origin, *settings);
  }
  out = std::move(options);
  status.clear();
  return true;
}

// validate_options() for the distributor fields.
bool validate_store_options(const Options& options, Status& status) {
  const auto shown = [](std::string text) { return RawValue{true, std::move(text), "in code"}; };
  if (!detail::check_store_type(options.store_type, shown(options.store_type), status)) {
    return false;
  }
  if (!options.uses_store()) return true;
  if (!options.state_file.empty() || options.require_state_file) {
    return detail::fail(status, errc::invalid_value,
                        "Options::store_type is " + detail::quote(options.store_type) +
                            " but a state file is set as well: a leased slot keeps its window in "
                            "the store; clear Options::state_file and require_state_file");
  }
  if (options.start != StartMode::kWait) {
    return detail::fail(status, errc::invalid_value,
                        "Options::store_type is " + detail::quote(options.store_type) +
                            " but Options::start is borrow: a leased slot's start waits for its "
                            "floor (the store's ceiling); set start to StartMode::kWait");
  }
  if (!detail::check_store_slot_bits(options.layout, status) ||
      !detail::check_ttl(options, shown(detail::format_duration(options.ttl)), status) ||
      !detail::check_tolerance(options, shown(std::to_string(options.tolerance.count()) + "ms"),
                               status) ||
      (!options.owner_key.empty() &&
       !detail::check_owner_key(options, shown(options.owner_key), status)) ||
      (options.preferred_slot && !check_slot(*options.preferred_slot, "Options::preferred_slot",
                                             options.layout.slot_bits, status)) ||
      (!options.store_directory.empty() &&
       !detail::check_store_directory(options.store_directory, shown(options.store_directory),
                                      status))) {
    return false;
  }
  if (detail::store_type_of(options) == "file" && options.store_directory.empty()) {
    return detail::fail(status, errc::invalid_value,
                        "Options::store_type is " + detail::quote(options.store_type) +
                            ", a file store, but Options::store_directory is empty: give the "
                            "directory the lease files are kept in");
  }
  for (const StoreConfig& config : options.stores) {
    const RawValue type = shown(config.type);
    if (!detail::is_store_instance_name(config.name)) {
      return detail::fail(status, errc::invalid_value,
                          "Options::stores holds an instance named " + detail::quote(config.name) +
                              ": use lower-case letters, digits, '-' and '_' (1 to " +
                              std::to_string(detail::kMaxStoreNameBytes) + " bytes)");
    }
    if (!detail::check_instance_type(config.name, type, status)) return false;
    for (const StoreSetting& setting : config.settings) {
      if (detail::is_store_setting_key(setting.key) && setting.key != "type") continue;
      return detail::fail(status, errc::invalid_value,
                          "Options::stores instance " + config.name + " holds the key " +
                              detail::quote(setting.key) +
                              ": give names of letters, digits, '-' and '_' joined by '.', and "
                              "the type in StoreConfig::type");
    }
  }
  return true;
}

}  // namespace

namespace detail {

bool resolve_sources(const OptionSources& sources, bool need_slot, Options& options,
                     segment::SegmentOptions& segment, RawSettings& raw, RawInstances& instances,
                     RawSegment& raw_segment, std::string& slot_origin, Status& status) {
  status.clear();  // a Status reused from an earlier failure must not fail this call
  const EnvLookup env = env_or_getenv(sources.env);
  if (!gather(sources, env, raw, instances, raw_segment, status) ||
      !resolve_layout(raw, options.layout, status)) {
    return false;
  }
  const RawValue& segment_type = raw_segment.values[kSegmentType];
  if (!build(raw, instances, segment_type.given ? segment_type.text : std::string_view(), options,
             status) ||
      !build_segment(raw_segment, instances, segment, status)) {
    return false;
  }
  // With a store the slot is leased when the runtime starts; build() refused a configured one.
  if (options.uses_store()) {
    slot_origin = "leased from the " + options.store_type + " store at start";
    return true;
  }
  return resolve_slot(sources, env, raw, need_slot, options, slot_origin, status);
}

}  // namespace detail

Options resolve_options(const OptionSources& sources, Status& status) noexcept {
  Options options;
  if (!resolve(sources, options, nullptr, status)) return Options();
  return options;
}

Options resolve_options(const OptionSources& sources, std::vector<Setting>& settings,
                        Status& status) noexcept {
  Options options;
  if (!resolve(sources, options, &settings, status)) return Options();
  return options;
}

bool validate_options(const Options& options, Status& status) noexcept {
  if (!detail::validate_static_options(options, status) ||
      !validate_store_options(options, status)) {
    return false;
  }
  status.clear();
  return true;
}

}  // namespace cosid
