// SPDX-License-Identifier: Apache-2.0
// The resolution of the settings (resolver.h): the sources gathered once into raw texts, then
// applied in order: the layout, the distributor, the other rows, the cosid.segment block, the
// slot.
#include "config/resolver.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "base/fail.h"
#include "base/parse_util.h"
#include "config/config_file.h"
#include "config/interpolate.h"
#include "cosid/segment/range_rules.h"

namespace cosid {
namespace detail {
namespace {

using segment::KeyDefinition;
using segment::SegmentOptions;

// The refusals of build() (at the file's end).
bool fail_store_key(Key key, const RawValue& value, Status& status);
bool fail_ambiguous(Key key, const RawValue& value, const RawValue& type, Status& status);
bool fail_no_directory(const RawValue& type, bool instance, Status& status);

// Whether `key` lies in the block `block` of an instance ("options.retry.maxSleep" in "options").
bool in_block(std::string_view key, std::string_view block) {
  return key.size() > block.size() && key.substr(0, block.size()) == block &&
         key[block.size()] == '.';
}

// The entry of `entries` whose `field` is `name`, added with only its name on a name's first key:
// a store instance, or a provider entry of the cosid.segment block.
template <typename Entry>
Entry& entry_named(std::vector<Entry>& entries, std::string Entry::*field, std::string_view name) {
  for (Entry& entry : entries) {
    if (entry.*field == name) return entry;
  }
  Entry& added = entries.emplace_back();
  added.*field = std::string(name);
  return added;
}

// Adds the key `path` (cosid.stores.NAME.KEY) to its instance of `instances`, made on its first
// key: its type, or a setting, which replaces the same key of an earlier (lower) source.
bool add_instance_key(const std::string& path, std::string value, const std::string& origin,
                      std::vector<RawInstance>& instances, Status& status) {
  std::string_view name;
  std::string_view key;
  (void)split_store_key(path, name, key);
  const auto refuse = [&](const std::string& why) {
    return fail_value(errc::invalid_value, path, {true, value, origin}, why, status);
  };
  if (!is_store_instance_name(name)) {
    return refuse(quote(name) +
                  " is not a store instance's name: use lower-case letters, digits, '-' and '_' "
                  "(1 to " +
                  std::to_string(kMaxStoreNameBytes) + " bytes)");
  }
  if (!is_store_setting_key(key)) {
    return refuse(
        "not a key of a store instance: give cosid.stores.NAME.KEY, KEY made of names of "
        "letters, digits, '-' and '_' joined by '.'");
  }
  RawInstance* instance = &entry_named(instances, &RawInstance::name, name);
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
// Puts the key `path` of the cosid.segment block into `out` if it is one (false when not):
// a key of the table, or a provider entry's, whose entry is made on its first key.
bool add_segment_key(const std::string& path, std::string value, std::string origin,
                     Resolution& out) {
  std::string_view provider;
  const SegmentKey key = find_segment_key(path, provider);
  if (key == kSegmentKeyCount) return false;
  RawValue given{true, std::move(value), std::move(origin)};
  if (key != kProviderOffset && key != kProviderStep) {
    out.segment_raw[key] = std::move(given);
    return true;
  }
  RawProvider& entry = entry_named(out.providers, &RawProvider::key, provider);
  (key == kProviderOffset ? entry.offset : entry.step) = std::move(given);
  return true;
}

// Puts the key `path` into the raw texts of `out`: a row's, a key of the cosid.segment block, or a
// store instance's. Any other is refused as unknown: only a flag can give one, as the config file
// reader passes only these.
bool add_key(const std::string& path, std::string value, std::string origin, Resolution& out,
             Status& status) {
  const Key key = find_key(path);
  std::string_view name;
  std::string_view below;
  if (key != kKeyCount) {
    out.raw[key] = {true, std::move(value), std::move(origin)};
    return true;
  }
  if (add_segment_key(path, value, origin, out)) return true;
  if (split_store_key(path, name, below)) {
    return add_instance_key(path, std::move(value), origin, out.instances, status);
  }
  return fail(status, errc::config_unknown_key,
              "unknown key " + quote(path) +
                  " given as a flag: the keys are those `cosid help --man` lists, such as "
                  "cosid.machine.static.slot, and cosid.stores.NAME.KEY of a store instance");
}

// Whether `key` (a full dotted key of the config file) holds a path: a row of either table whose
// value is ValueKind::kPath.
bool is_path_key(std::string_view key) {
  const ConfigKey* row = find_any_row(key);
  return row != nullptr && row->kind == ValueKind::kPath;
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
  origin += ", where " + quote(value) + " is relative to the config file's directory";
  value = prefix + value;
}

// Layers the config file, then the COSID_* variables, then the flags into the raw texts of `out`
// (the cosid.segment block and the instances no variable reaches).
bool gather(const OptionSources& sources, const EnvLookup& env, Resolution& out, Status& status) {
  std::string path = sources.config_file;
  if (path.empty() && !sources.config_text) {
    if (const char* value = env("COSID_CONFIG")) {
      path = value;
      if (path.empty()) {
        // A malformed value of the variable, not a file that cannot be read.
        return fail(status, errc::invalid_value,
                    "COSID_CONFIG is set but empty: give the config file's path, or unset "
                    "it to run without a config file");
      }
    }
  }
  std::vector<ConfigEntry> entries;
  if (sources.config_text) {
    if (path.empty()) path = "config";
    entries = parse_config(*sources.config_text, path, env, status);
  } else if (!path.empty()) {
    entries = read_config_file(path, env, status);
  }
  if (!status.ok()) return false;
  // A text given instead of a file lies in the directory of the file it stands for, if it names
  // one (options.h, OptionSources::config_text); "config", the name of a text without one, has
  // none.
  const std::string prefix = directory_prefix(path);
  for (ConfigEntry& entry : entries) {
    std::string origin = "file " + path + ":" + std::to_string(entry.line);
    if (!entry.emptied_from.empty()) {
      origin += ", where " + entry.emptied_from + " gave an empty value (a variable set to \"\")";
    }
    if (is_path_key(entry.key)) resolve_config_path(prefix, entry.value, origin);
    if (!add_key(entry.key, std::move(entry.value), std::move(origin), out, status)) return false;
  }
  for (Key key = 0; key < kKeyCount; ++key) {
    const char* variable = kConfigKeyRows[key].variable;
    const char* value = variable != nullptr ? env(variable) : nullptr;
    if (value != nullptr) out.raw[key] = {true, value, std::string("env ") + variable};
  }
  for (const KeyValue& flag : sources.flags) {
    if (!add_key(flag.first, flag.second, flag_origin(flag.first, flag.second), out, status)) {
      return false;
    }
  }
  for (RawInstance& instance : out.instances) group_store_settings(instance.settings);
  return true;
}

// The slot, from the slot key or the host name, and where it came from. Unless
// `need_slot`, a slot not given is not looked for (the slot source is checked, the host name not
// read).
bool resolve_slot(const OptionSources& sources, const EnvLookup& env, bool need_slot,
                  Resolution& out, Status& status) {
  const RawSettings& raw = out.raw;
  Options& options = out.options;
  std::string& origin = out.slot_origin;
  const RawValue& source = raw[kSlotSource];
  if (source.given && !parse_slot_source(source.text, options.slot_source)) {
    return fail_value(errc::invalid_value, kSlotSource, source,
                      "not a slot source: use explicit or stateful-set", status);
  }
  const RawValue& slot = raw[kSlot];
  if (!need_slot && !slot.given) return true;
  if (options.slot_source == SlotSource::kExplicit) {
    if (!slot.given) return fail(status, errc::no_slot_configured, kNoSlot);
    origin = slot.origin;
    return parse_slot(slot.text, slot.origin, options.layout.slot_bits, options.slot, status);
  }
  if (slot.given) {
    return fail(status, errc::invalid_value,
                describe(kSlot, slot) + " and " + describe(kSlotSource, source) +
                    " both choose the slot: give only one of them");
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

// Applies the row `key` if it has a parser: its text, when given, goes into its field, and the
// field is checked, its default too (the layout may refuse it) unless it is an empty text, which
// means none.
bool apply_row(Key key, const RawValue& raw, Options& options, Status& status) {
  const KeyParser& parser = kConfigKeyRows[key].parser;
  if (parser.apply == nullptr) return true;
  if (!parser.apply(key, raw, options, status)) return false;
  if (parser.check == nullptr) return true;
  const std::string text = parser.text(options);
  if (!raw.given && text.empty()) return true;
  return parser.check(options, raw.given ? raw : RawValue{false, text, "default"}, status);
}

// The store instances into options.stores: each needs a type, and a distributor must select it
// (the lease distributor, or the segment distributor named `segment_type`, which takes it from
// the raw instances itself), as an instance that is not used would be ignored (its keys with it).
bool build_instances(Resolution& out, std::string_view segment_type, Status& status) {
  Options& options = out.options;
  for (const RawInstance& instance : out.instances) {
    const std::string path = std::string(kStoresBlock) + "." + instance.name;
    if (!instance.type.given) {
      const StoreSetting& first = instance.settings.front();  // what made the instance
      return fail(status, errc::invalid_value,
                  path + "." + first.key + " = " + quote(first.value) + " (" + first.origin +
                      ") is a key of the store instance " + path + ", which has no type: give " +
                      path + ".type, the store type it is made by");
    }
    if (!check_instance_type(instance.name, instance.type, status)) return false;
    if (instance.name != options.store_type && instance.name == segment_type) continue;
    if (instance.name != options.store_type) {
      const RawValue& type = out.raw[kStoreType];
      const RawValue shown = type.given ? type : RawValue{false, options.store_type, "default"};
      return fail(status, errc::invalid_value,
                  describe(path + ".type", instance.type) + " has no effect: the store instance " +
                      instance.name + " is not the distributor (" + describe(kStoreType, shown) +
                      "): select it with \"type: " + instance.name +
                      "\" under cosid.machine.distributor (or --store " + instance.name +
                      "), or drop its block");
    }
    options.stores.push_back({instance.name, instance.type.text, instance.settings});
  }
  return true;
}

// Turns the raw texts into `options`. The distributor comes first, so that a static key given
// with a store is refused as the ambiguity it is, and a store key given with static as having no
// effect: each would be ignored, and an ignored slot or state file is how two processes end up
// issuing the same ids. Then each row once, in row order: a key of the other distributor's scope
// is refused, any other applied and checked.
bool build(Resolution& out, std::string_view segment_type, Status& status) {
  const RawSettings& raw = out.raw;
  Options& options = out.options;
  const RawValue& type = raw[kStoreType];
  if (type.given) {
    options.store_type = type.text;
    if (!check_store_type(options.store_type, type, status)) return false;
  }
  if (!build_instances(out, segment_type, status)) return false;
  const bool store = options.uses_store();
  for (Key key = 0; key < kKeyCount; ++key) {
    const Scope scope = kConfigKeyRows[key].scope;
    if (scope == (store ? Scope::kStatic : Scope::kStore)) {
      if (!raw[key].given) continue;  // a default of the other distributor is not used
      return store ? fail_ambiguous(key, raw[key], type, status)
                   : fail_store_key(key, raw[key], status);
    }
    // The static rows lie before the type's, the store rows after it.
    if (key == kStoreType && store && !check_store_slot_bits(options.layout, status)) return false;
    if (!apply_row(key, raw[key], options, status)) return false;
  }
  if (store && !raw[kStoreDirectory].given && store_type_of(options) == "file") {
    return fail_no_directory(type, options.store_type != "file", status);
  }
  // With a store, the floor of a slot taken over from a crashed holder lies up to tolerance past
  // the store's clock, and a local clock behind the store's by up to ttl is still waited out.
  options.start_wait = options.uses_store() ? options.ttl + options.tolerance
                                            : options.ahead + std::chrono::seconds(1);
  return true;
}

// Fails with "KEY = "TEXT" (ORIGIN): WHY" for a key of the table.
bool refuse(SegmentKey key, const RawValue& value, const std::string& why, Status& status) {
  return fail_value(errc::invalid_value, kSegmentKeyRows[key].key, value, why, status);
}

// A whole number of the row `row` (its bounds) given as the key `key` (a provider entry's own).
bool read_whole(SegmentKey row, std::string_view key, const RawValue& raw, std::int64_t& value,
                Status& status) {
  if (!raw.given) return true;
  const ConfigKey& rule = kSegmentKeyRows[row];
  std::uint64_t parsed = 0;
  Status why;
  if (!parse_uint(raw.text, static_cast<std::uint64_t>(rule.max), parsed, why) ||
      static_cast<std::int64_t>(parsed) < rule.min) {
    const std::string clause =
        why.ok() ? "below the minimum, " + std::to_string(rule.min) : why.message();
    return fail_value(errc::invalid_value, key, raw,
                      clause + ": " + kSegmentKeyRows[row].key + " is " + segment_range_text(row),
                      status);
  }
  value = static_cast<std::int64_t>(parsed);
  return true;
}

// The segment distributor: its type, the instance it names, and the file store's directory.
bool build_segment_distributor(const Resolution& resolved, SegmentOptions& segment,
                               Status& status) {
  const RawValue& type = resolved.segment_raw[kSegmentType];
  if (type.given) {
    if (!is_store_type_name(type.text)) {
      return refuse(kSegmentType, type,
                    "not a range store type: use file, zookeeper, memory, a store instance of "
                    "cosid.stores, or the name of a registered range store " +
                        type_name_rule(),
                    status);
    }
    if (type.text == "static") {
      return refuse(kSegmentType, type,
                    "static is a configured slot of Snowflake ids, not a store: segment ids are "
                    "claimed from a range store; use file, zookeeper, memory or a store instance",
                    status);
    }
    segment.store_type = type.text;
    for (const RawInstance& instance : resolved.instances) {
      if (instance.name != type.text) continue;
      segment.stores = {{instance.name, instance.type.text, instance.settings}};
    }
  }
  const StoreConfig* instance = selected_store(segment.store_type, segment.stores);
  const std::string& kind = instance != nullptr ? instance->type : segment.store_type;
  const RawValue& directory = resolved.segment_raw[kSegmentDirectory];
  if (!directory.given) {
    if (kind != "file") return true;
    return fail(status, errc::invalid_value,
                describe(kSegmentKeyRows[kSegmentType].key, type) +
                    (instance != nullptr ? " (a store instance of type file)" : "") +
                    " needs a directory for the range files, shared by every process that issues "
                    "ids of the same keys: give --store file:DIR or " +
                    kSegmentKeyRows[kSegmentDirectory].key);
  }
  if (!type.given) {
    return refuse(kSegmentDirectory, directory,
                  std::string("has no effect without a range store: give ") +
                      kSegmentKeyRows[kSegmentType].key +
                      " file (or --store file:DIR), or drop the setting",
                  status);
  }
  if (kind == "memory") {
    return refuse(kSegmentDirectory, directory,
                  "the memory range store keeps no files: drop the directory, or use "
                  "--store file:DIR",
                  status);
  }
  segment.store_directory = directory.text;
  return check_path(kSegmentKeyRows[kSegmentDirectory].key,
                    static_cast<std::size_t>(kSegmentKeyRows[kSegmentDirectory].max),
                    directory.text, directory, "/var/lib/cosid/ranges", status);
}

// One claim takes up to safe-distance segments of a key's step at once: at most kMaxClaim ids.
bool check_claim_size(const Resolution& resolved, std::uint32_t safe_distance, std::int64_t step,
                      const std::string& step_key, const RawValue& step_value, Status& status) {
  if (static_cast<std::int64_t>(safe_distance) <= segment::kMaxClaim / step) return true;
  const RawValue& distance = resolved.segment_raw[kSafeDistance];
  return fail(status, errc::invalid_value,
              describe(kSegmentKeyRows[kSafeDistance].key, distance) + " and " +
                  describe(step_key, step_value) +
                  ": one claim of that many segments of that step would take more than 2^40 ids; "
                  "lower one of them");
}

// The cosid.segment block from its raw texts into out.segment, each checked; the instance the
// segment distributor names has had its type checked.
bool build_segment(Resolution& out, Status& status) {
  SegmentOptions result;
  if (!build_segment_distributor(out, result, status) ||
      !read_whole(kShareOffset, kSegmentKeyRows[kShareOffset].key, out.segment_raw[kShareOffset],
                  result.share.offset, status) ||
      !read_whole(kShareStep, kSegmentKeyRows[kShareStep].key, out.segment_raw[kShareStep],
                  result.share.step, status)) {
    return false;
  }
  std::int64_t distance = result.safe_distance;
  if (!read_whole(kSafeDistance, kSegmentKeyRows[kSafeDistance].key, out.segment_raw[kSafeDistance],
                  distance, status)) {
    return false;
  }
  result.safe_distance = static_cast<std::uint32_t>(distance);
  const auto shown = [&out](SegmentKey key) {
    const RawValue& value = out.segment_raw[key];
    return value.given ? value : RawValue{false, kSegmentKeyRows[key].default_text, "default"};
  };
  if (!check_claim_size(out, result.safe_distance, result.share.step,
                        kSegmentKeyRows[kShareStep].key, shown(kShareStep), status)) {
    return false;
  }
  for (const RawProvider& provider : out.providers) {
    const RawValue& first = provider.offset.given ? provider.offset : provider.step;
    const std::string first_key =
        provider_key(provider.key, provider.offset.given ? kProviderOffset : kProviderStep);
    Status bad_key;
    if (!segment::check_key(provider.key, bad_key)) {
      return fail_value(errc::invalid_value, first_key, first,
                        "the provider entry's name is not a segment key: " + bad_key.message(),
                        status);
    }
    KeyDefinition definition = result.share;
    const std::string step_key = provider_key(provider.key, kProviderStep);
    if (!read_whole(kProviderOffset, provider_key(provider.key, kProviderOffset), provider.offset,
                    definition.offset, status) ||
        !read_whole(kProviderStep, step_key, provider.step, definition.step, status) ||
        !check_claim_size(out, result.safe_distance, definition.step,
                          provider.step.given ? step_key : kSegmentKeyRows[kShareStep].key,
                          provider.step.given ? provider.step : shown(kShareStep), status)) {
      return false;
    }
    result.providers[provider.key] = definition;
  }
  out.segment = std::move(result);
  return true;
}

}  // namespace

bool resolve_sources(const OptionSources& sources, bool need_slot, Resolution& out,
                     Status& status) {
  status.clear();  // a Status reused from an earlier failure must not fail this call
  out = Resolution();
  const EnvLookup env = env_or_getenv(sources.env);
  if (!gather(sources, env, out, status) || !resolve_layout(out.raw, out.options.layout, status)) {
    return false;
  }
  const RawValue& segment_type = out.segment_raw[kSegmentType];
  if (!build(out, segment_type.given ? segment_type.text : std::string_view(), status) ||
      !build_segment(out, status)) {
    return false;
  }
  // With a store the slot is leased when the runtime starts; build() refused a configured one.
  if (out.options.uses_store()) {
    out.slot_origin = "leased from the " + out.options.store_type + " store at start";
  } else if (!resolve_slot(sources, env, need_slot, out, status)) {
    return false;
  }
  status.clear();
  return true;
}

void group_store_settings(std::vector<StoreSetting>& settings) {
  // The index of the first setting in the block (or at the key) `prefix`.
  const auto first_in = [&settings](std::string_view prefix) {
    for (std::size_t i = 0; i < settings.size(); ++i) {
      const std::string_view key = settings[i].key;
      if (key.substr(0, prefix.size()) == prefix &&
          (key.size() == prefix.size() || key[prefix.size()] == '.')) {
        return i;
      }
    }
    return settings.size();
  };
  // Each setting's rank is the first index of each of its blocks, outermost first, and of itself:
  // ordered by rank, the keys of a block follow each other, blocks and keys in order of first
  // appearance.
  std::vector<std::pair<std::vector<std::size_t>, std::size_t>> ranked;
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const std::string_view key = settings[i].key;
    std::vector<std::size_t> rank;
    for (std::size_t dot = key.find('.');; dot = key.find('.', dot + 1)) {
      rank.push_back(first_in(key.substr(0, dot)));
      if (dot == std::string_view::npos) break;
    }
    ranked.emplace_back(std::move(rank), i);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<StoreSetting> grouped;
  grouped.reserve(settings.size());
  for (const auto& entry : ranked) grouped.push_back(std::move(settings[entry.second]));
  settings = std::move(grouped);
}

namespace {

// The keys of the instances `stores` as they were given (their store's factory parses them), the
// type's origin that of the raw instance it was made from.
void describe_instances(const std::vector<StoreConfig>& stores,
                        const std::vector<RawInstance>& instances, std::vector<Setting>& settings) {
  for (const StoreConfig& config : stores) {
    const std::string path = std::string(kStoresBlock) + "." + config.name + ".";
    for (const RawInstance& instance : instances) {
      if (instance.name == config.name) {
        settings.push_back({path + "type", config.type, instance.type.origin});
      }
    }
    for (const StoreSetting& setting : config.settings) {
      settings.push_back({path + setting.key, setting.value, setting.origin});
    }
  }
}

}  // namespace

void describe_settings(const Resolution& resolved, const std::string& slot_origin,
                       std::vector<Setting>& settings) {
  const Options& options = resolved.options;
  const RawSettings& raw = resolved.raw;
  const auto origin_of = [&raw](Key key) {
    return raw[key].given ? raw[key].origin : std::string("default");
  };
  // A layout field not given itself comes from the preset when one was given.
  const auto layout_origin = [&raw](Key key) {
    if (raw[key].given) return raw[key].origin;
    if (raw[kPreset].given) return "preset " + raw[kPreset].text + " (" + raw[kPreset].origin + ")";
    return std::string("default");
  };
  settings.clear();
  settings.reserve(kKeyCount);
  for (Key key = 0; key < kKeyCount; ++key) {
    std::string value = value_of(options, key);
    std::string origin = is_layout_key(key) && key != kPreset ? layout_origin(key) : origin_of(key);
    if (kConfigKeyRows[key].scope == Scope::kStore && !options.uses_store()) {
      value.clear();  // a store key under static would be refused
      origin = "unused: the distributor is static";
    } else if (key == kOwnerKey && !raw[key].given) {
      origin = "default: HOST:PID at start";
    } else if (key == kSlot) {
      origin = slot_origin;
    } else if (key == kPreset && raw[kPreset].given) {
      value = raw[kPreset].text;
    }
    settings.push_back({kConfigKeyRows[key].key, std::move(value), std::move(origin)});
  }
  describe_instances(options.stores, resolved.instances, settings);
}

void describe_segment(const Resolution& resolved, std::vector<Setting>& settings) {
  const SegmentOptions& options = resolved.segment;
  const auto origin_of = [](const RawValue& value, const char* otherwise) {
    return value.given ? value.origin : std::string(otherwise);
  };
  settings.clear();
  const auto add = [&settings](std::string key, std::string value, std::string origin) {
    settings.push_back({std::move(key), std::move(value), std::move(origin)});
  };
  add(kSegmentKeyRows[kSegmentType].key, options.store_type,
      origin_of(resolved.segment_raw[kSegmentType], "default: none, segment ids need one"));
  add(kSegmentKeyRows[kSegmentDirectory].key, options.store_directory,
      origin_of(resolved.segment_raw[kSegmentDirectory], "default"));
  add(kSegmentKeyRows[kShareOffset].key, std::to_string(options.share.offset),
      origin_of(resolved.segment_raw[kShareOffset], "default"));
  add(kSegmentKeyRows[kShareStep].key, std::to_string(options.share.step),
      origin_of(resolved.segment_raw[kShareStep], "default"));
  add(kSegmentKeyRows[kSafeDistance].key, std::to_string(options.safe_distance),
      origin_of(resolved.segment_raw[kSafeDistance], "default"));
  for (const auto& entry : options.providers) {
    for (const RawProvider& provider : resolved.providers) {
      if (provider.key != entry.first) continue;
      add(provider_key(entry.first, kProviderOffset), std::to_string(entry.second.offset),
          origin_of(provider.offset, "share: cosid.segment.share.offset"));
      add(provider_key(entry.first, kProviderStep), std::to_string(entry.second.step),
          origin_of(provider.step, "share: cosid.segment.share.step"));
    }
  }
  describe_instances(options.stores, resolved.instances, settings);
}

namespace {

bool fail_store_key(Key key, const RawValue& value, Status& status) {
  return fail(status, errc::invalid_value,
              describe(key, value) +
                  " only applies to a lease store, but the distributor type is "
                  "static: choose a store (--store file:DIR, or type under "
                  "cosid.machine.distributor), or drop the setting");
}

bool fail_ambiguous(Key key, const RawValue& value, const RawValue& type, Status& status) {
  return fail(status, errc::invalid_value,
              describe(key, value) + " and " + describe(kStoreType, type) +
                  " are ambiguous: a static slot and a slot leased from a store "
                  "exclude each other; give only one of them");
}

// `instance`: the type names a store instance of type file.
bool fail_no_directory(const RawValue& type, bool instance, Status& status) {
  return fail(status, errc::invalid_value,
              describe(kStoreType, type) + (instance ? " (a store instance of type file)" : "") +
                  " needs a directory for the lease files, shared by every process of "
                  "the namespace: give --store file:DIR or "
                  "cosid.machine.distributor.file.directory");
}

}  // namespace

}  // namespace detail
}  // namespace cosid
