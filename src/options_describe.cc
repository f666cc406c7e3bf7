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
      value = key == kEpoch  ? std::to_string(layout.epoch_ms())
              : key == kUnit ? std::string(to_string(layout.unit))
                             : std::to_string(key == kTimestampBits ? layout.timestamp_bits
                                              : key == kSlotBits    ? layout.slot_bits
                                                                    : layout.sequence_bits);
    }
    settings.push_back({row.key, std::move(value), std::move(origin)});
  }
}

}  // namespace detail

std::string to_config_text(const Options& options) {
  const Layout& layout = options.layout;
  std::string text = "cosid:\n";
  text += "  namespace: " + detail::yaml_quoted(options.namespace_name) + "\n";
  text += "  machine:\n    static:\n";
  if (!options.uses_store()) {
    text += "      slot: " + std::to_string(options.slot) + "\n";
    if (!options.state_file.empty()) {
      text += "      state-file: " + detail::yaml_quoted(options.state_file) + "\n";
    }
    text += "      ahead: " + detail::format_duration(options.ahead) + "\n";
  }
  text += "      not-before: \"" + detail::value_text(options.not_before_ms) + "\"\n";
  if (!options.uses_store()) {
    text += std::string("      require-state-file: ") +
            (options.require_state_file ? "true" : "false") + "\n";
  }
  text += "    distributor:\n";
  text += "      type: " + detail::yaml_quoted(options.store_type) + "\n";
  if (options.uses_store()) {
    text += "      ttl: " + detail::format_duration(options.ttl) + "\n";
    text += "      tolerance: " + detail::format_duration(options.tolerance) + "\n";
    if (!options.owner_key.empty()) {
      text += "      owner-key: " + detail::yaml_quoted(options.owner_key) + "\n";
    }
    if (options.preferred_slot) {
      text += "      preferred-slot: " + std::to_string(*options.preferred_slot) + "\n";
    }
    if (!options.store_directory.empty()) {
      text +=
          "      file:\n        directory: " + detail::yaml_quoted(options.store_directory) + "\n";
    }
  }
  text += "  layout:\n    preset: default\n";
  text += "    epoch: " + std::to_string(layout.epoch_ms()) + "\n";
  text += std::string("    unit: ") + to_string(layout.unit) + "\n";
  text += "    timestamp-bits: " + std::to_string(layout.timestamp_bits) + "\n";
  text += "    slot-bits: " + std::to_string(layout.slot_bits) + "\n";
  text += "    sequence-bits: " + std::to_string(layout.sequence_bits) + "\n";
  return text;
}

}  // namespace cosid
