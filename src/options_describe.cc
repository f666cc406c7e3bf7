// Options back to text: the effective settings with their origins (for `cosid config check`) and
// a config file that resolves to the same options.
#include "options_internal.h"
#include "parse_util.h"

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

}  // namespace

void describe_settings(const Options& options, const RawSettings& raw,
                       const std::string& slot_origin, std::vector<Setting>& settings) {
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
}

}  // namespace detail

std::string to_config_text(const Options& options) {
  using detail::Key;
  const bool store = options.uses_store();
  const Layout& layout = options.layout;
  std::string text;
  std::vector<std::string_view> blocks;  // the mappings open above the next key, outermost first
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
    // Close the blocks this key is not under, open the ones it is under, then write it.
    std::vector<std::string_view> path;
    std::string_view rest = row.key;
    for (std::size_t dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
      path.push_back(rest.substr(0, dot));
      rest.remove_prefix(dot + 1);
    }
    std::size_t same = 0;
    while (same < blocks.size() && same < path.size() && blocks[same] == path[same]) ++same;
    blocks.resize(same);
    for (; same < path.size(); ++same) {
      text += std::string(2 * same, ' ') + std::string(path[same]) + ":\n";
      blocks.push_back(path[same]);
    }
    text += std::string(2 * path.size(), ' ') + std::string(rest) + ": " + value + "\n";
  }
  return text;
}

}  // namespace cosid
