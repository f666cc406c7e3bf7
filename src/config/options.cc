// SPDX-License-Identifier: Apache-2.0
// The functions of cosid/options.h and cosid/segment/options.h: the resolution (resolver.h) told
// as Options, segment::SegmentOptions and their settings, the checks of Options built in code,
// and Options back to a config file.
#include "cosid/options.h"

#include <utility>

#include "base/fail.h"
#include "base/parse_util.h"
#include "config/options_values.h"
#include "config/resolver.h"
#include "cosid/segment/options.h"

namespace cosid {
namespace {

using detail::Key;
using detail::RawValue;

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

// `text` as a double-quoted scalar of the config file: escaped, and '$' doubled so that
// interpolation gives it back unchanged.
std::string yaml_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '$':
        out += "$$";
        break;
      default:
        out += c;
    }
  }
  return out + "\"";
}

// Writes keys as the config file's nested blocks: a key's blocks are opened unless the key
// before it left them open.
class BlockWriter {
 public:
  explicit BlockWriter(std::string& text) : text_(text) {}

  // Writes `key` ("cosid.machine.static.slot") with `value`, closing the blocks it is not under
  // and opening the ones it is under.
  void write(std::string_view key, const std::string& value) {
    std::vector<std::string_view> path;
    std::string_view rest = key;
    for (std::size_t dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
      path.push_back(rest.substr(0, dot));
      rest.remove_prefix(dot + 1);
    }
    std::size_t same = 0;
    while (same < blocks_.size() && same < path.size() && blocks_[same] == path[same]) ++same;
    blocks_.resize(same);
    for (; same < path.size(); ++same) {
      text_ += std::string(2 * same, ' ') + std::string(path[same]) + ":\n";
      blocks_.emplace_back(path[same]);
    }
    text_ += std::string(2 * path.size(), ' ') + std::string(rest) + ": " + value + "\n";
  }

 private:
  std::string& text_;
  std::vector<std::string> blocks_;  // the mappings open above the next key, outermost first
};

}  // namespace

Options resolve_options(const OptionSources& sources, Status& status) noexcept {
  detail::Resolution resolved;
  if (!detail::resolve_sources(sources, /*need_slot=*/true, resolved, status)) return Options();
  return std::move(resolved.options);
}

Options resolve_options(const OptionSources& sources, std::vector<Setting>& settings,
                        Status& status) noexcept {
  detail::Resolution resolved;
  if (!detail::resolve_sources(sources, /*need_slot=*/true, resolved, status)) return Options();
  detail::describe_settings(resolved, resolved.slot_origin, settings);
  return std::move(resolved.options);
}

bool validate_options(const Options& options, Status& status) noexcept {
  if (!detail::validate_static_options(options, status) ||
      !validate_store_options(options, status)) {
    return false;
  }
  status.clear();
  return true;
}

std::string to_config_text(const Options& options) {
  using detail::ValueKind;
  std::string text;
  BlockWriter writer(text);
  for (Key key = 0; key < detail::kKeyCount; ++key) {
    const detail::ConfigKey& row = detail::kConfigKeyRows[key];
    // The keys of the distributor not used would be refused, and the slot is written as it was
    // resolved; an empty text of a field means none.
    if (row.scope == (options.uses_store() ? detail::Scope::kStatic : detail::Scope::kStore) ||
        key == detail::kSlotSource) {
      continue;
    }
    std::string value = detail::value_of(options, key);
    if (value.empty() && row.parser.text != nullptr) continue;
    const bool quoted = row.kind == ValueKind::kName || row.kind == ValueKind::kPath ||
                        row.kind == ValueKind::kInstant;
    writer.write(row.key, quoted ? yaml_quoted(value) : value);
  }
  // The instances, type first, their settings grouped by block (a block cannot open twice).
  for (const StoreConfig& config : options.stores) {
    const std::string path = std::string(detail::kStoresBlock) + "." + config.name + ".";
    writer.write(path + "type", yaml_quoted(config.type));
    std::vector<StoreSetting> settings = config.settings;
    detail::group_store_settings(settings);
    for (const StoreSetting& setting : settings) {
      writer.write(path + setting.key, yaml_quoted(setting.value));
    }
  }
  return text;
}

namespace segment {

KeyDefinition SegmentOptions::definition_of(const std::string& key) const {
  const auto it = providers.find(key);
  return it != providers.end() ? it->second : share;
}

// The cosid.segment block; the rest is checked as resolve_options() checks it, but for the slot.
SegmentOptions resolve_segment_options(const OptionSources& sources, Status& status) noexcept {
  detail::Resolution resolved;
  if (!detail::resolve_sources(sources, /*need_slot=*/false, resolved, status))
    return SegmentOptions();
  return std::move(resolved.segment);
}

SegmentOptions resolve_segment_options(const OptionSources& sources, std::vector<Setting>& settings,
                                       Status& status) noexcept {
  detail::Resolution resolved;
  if (!detail::resolve_sources(sources, /*need_slot=*/false, resolved, status))
    return SegmentOptions();
  detail::describe_segment(resolved, settings);
  return std::move(resolved.segment);
}

}  // namespace segment
}  // namespace cosid
