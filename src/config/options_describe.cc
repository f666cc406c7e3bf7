// SPDX-License-Identifier: Apache-2.0
// Options back to text: the effective settings with their origins (for `cosid config check`) and
// a config file that resolves to the same options.
#include <algorithm>
#include <utility>

#include "base/parse_util.h"
#include "config/options_internal.h"

namespace cosid {
namespace detail {
namespace {

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

// The value of a layout field's key (cosid.layout.epoch, .unit and the bit counts).
std::string layout_value(const Layout& layout, Key key) {
  if (key == kEpoch) return std::to_string(layout.epoch_ms());
  if (key == kUnit) return to_string(layout.unit);
  return std::to_string(key == kTimestampBits ? layout.timestamp_bits
                        : key == kSlotBits    ? layout.slot_bits
                                              : layout.sequence_bits);
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

void describe_settings(const Options& options, const RawSettings& raw,
                       const RawInstances& instances, const std::string& slot_origin,
                       std::vector<Setting>& settings) {
  const auto origin_of = [&raw](Key key) {
    return raw[key].given ? raw[key].origin : std::string("default");
  };
  // A layout field not given itself comes from the preset when one was given.
  const auto layout_origin = [&raw](Key key) {
    if (raw[key].given) return raw[key].origin;
    if (raw[kPreset].given) return "preset " + raw[kPreset].text + " (" + raw[kPreset].origin + ")";
    return std::string("default");
  };
  // The store keys say "" and "unused" under static, where they would be refused.
  const bool store = options.uses_store();
  const Layout& layout = options.layout;
  settings.clear();
  settings.reserve(kKeyCount);
  for (Key key = 0; key < kKeyCount; ++key) {
    const ConfigKey& row = kConfigKeyRows[key];
    std::string value;
    std::string origin = origin_of(key);
    if (row.parser.text != nullptr) {
      value = row.parser.text(options);
      if (row.scope == Scope::kStore && !store) {
        value.clear();
        origin = "unused: the distributor is static";
      } else if (key == kOwnerKey && !raw[key].given) {
        origin = "default: HOST:PID at start";
      }
    } else if (key == kSlot) {
      value = store ? std::string() : std::to_string(options.slot);
      origin = slot_origin;
    } else if (key == kSlotSource) {
      value = to_string(options.slot_source);
    } else if (key == kStoreType) {
      value = options.store_type;
    } else if (key == kPreset) {
      value = raw[kPreset].given ? raw[kPreset].text : "default";
    } else {
      origin = layout_origin(key);
      value = layout_value(layout, key);
    }
    settings.push_back({row.key, std::move(value), std::move(origin)});
  }
  // The store instances' keys as they were given: their store's factory parses them.
  for (const StoreConfig& config : options.stores) {
    const std::string path = std::string(kStoresBlock) + "." + config.name + ".";
    std::string type_origin;
    for (const RawInstance& instance : instances) {
      if (instance.name == config.name) type_origin = instance.type.origin;
    }
    settings.push_back({path + "type", config.type, std::move(type_origin)});
    for (const StoreSetting& setting : config.settings) {
      settings.push_back({path + setting.key, setting.value, setting.origin});
    }
  }
}

}  // namespace detail

std::string to_config_text(const Options& options) {
  using detail::Key;
  const bool store = options.uses_store();
  const Layout& layout = options.layout;
  std::string text;
  detail::BlockWriter writer(text);
  for (Key key = 0; key < detail::kKeyCount; ++key) {
    const detail::ConfigKey& row = detail::kConfigKeyRows[key];
    std::string value;
    if (row.parser.text != nullptr) {
      // The keys of the distributor not used would be refused; an empty text means none.
      if (row.scope == (store ? detail::Scope::kStatic : detail::Scope::kStore)) continue;
      value = row.parser.text(options);
      if (value.empty()) continue;
      if (row.kind == detail::ValueKind::kName || row.kind == detail::ValueKind::kPath ||
          row.kind == detail::ValueKind::kInstant) {
        value = detail::yaml_quoted(value);
      }
    } else if (key == detail::kSlot) {
      if (store) continue;
      value = std::to_string(options.slot);
    } else if (key == detail::kSlotSource) {
      continue;  // the slot is written as it was resolved
    } else if (key == detail::kStoreType) {
      value = detail::yaml_quoted(options.store_type);
    } else if (key == detail::kPreset) {
      value = "default";  // and every field spelled out below
    } else {
      value = detail::layout_value(layout, key);
    }
    writer.write(row.key, value);
  }
  // The instances, type first, their settings grouped by block (a block cannot open twice).
  for (const StoreConfig& config : options.stores) {
    const std::string path = std::string(detail::kStoresBlock) + "." + config.name + ".";
    writer.write(path + "type", detail::yaml_quoted(config.type));
    std::vector<StoreSetting> settings = config.settings;
    detail::group_store_settings(settings);
    for (const StoreSetting& setting : settings) {
      writer.write(path + setting.key, detail::yaml_quoted(setting.value));
    }
  }
  return text;
}

}  // namespace cosid
