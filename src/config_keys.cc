// The lookups over the table of config keys.
#include "config_keys.h"

#include <chrono>

#include "parse_util.h"

namespace cosid {
namespace detail {
namespace {

constexpr std::string_view kLayoutPrefix = "cosid.layout.";

// Whether `key` lies under the block `parent` ("" for the top level); `rest` gets what follows.
bool under(std::string_view key, std::string_view parent, std::string_view& rest) noexcept {
  if (parent.empty()) {
    rest = key;
    return true;
  }
  if (key.size() <= parent.size() || key.substr(0, parent.size()) != parent ||
      key[parent.size()] != '.') {
    return false;
  }
  rest = key.substr(parent.size() + 1);
  return true;
}

}  // namespace

void no_such_config_key() {}

Key find_key(std::string_view key) noexcept {
  for (Key i = 0; i < kKeyCount; ++i) {
    if (key == kConfigKeyRows[i].key) return i;
  }
  return kKeyCount;
}

bool is_key_block(std::string_view path) noexcept {
  std::string_view rest;
  for (const ConfigKey& row : kConfigKeyRows) {
    if (!path.empty() && under(row.key, path, rest)) return true;
  }
  return false;
}

std::string keys_under(std::string_view parent) {
  std::vector<std::string_view> children;
  for (const ConfigKey& row : kConfigKeyRows) {
    std::string_view rest;
    if (!under(row.key, parent, rest)) continue;
    const std::string_view child = rest.substr(0, rest.find('.'));
    bool known = false;
    for (const std::string_view seen : children) known = known || seen == child;
    if (!known) children.push_back(child);
  }
  std::string list;
  for (const std::string_view child : children) {
    if (!list.empty()) list += ", ";
    list += child;
  }
  return list;
}

std::string range_text(Key key) {
  const ConfigKey& row = kConfigKeyRows[key];
  switch (row.kind) {
    case ValueKind::kDuration:
      return "from " + format_duration(std::chrono::milliseconds(row.min)) + " to " +
             format_duration(std::chrono::milliseconds(row.max));
    case ValueKind::kName:
    case ValueKind::kPath:
      return std::to_string(row.min) + " to " + std::to_string(row.max) + " bytes";
    case ValueKind::kWhole:
      if (row.max == 0) break;  // no bound of its own (the epoch: the layout's rules)
      return std::to_string(row.min) + " to " + std::to_string(row.max);
    case ValueKind::kInstant:
    case ValueKind::kBool:
    case ValueKind::kSlot:
    case ValueKind::kChoice:
      break;
  }
  return std::string();
}

bool is_layout_key(Key key) noexcept {
  return std::string_view(kConfigKeyRows[key].key).substr(0, kLayoutPrefix.size()) == kLayoutPrefix;
}

const ConfigKey* find_config_flag(std::string_view flag) noexcept {
  for (const ConfigKey& row : kConfigKeyRows) {
    if (row.flag != nullptr && flag == row.flag) return &row;
  }
  return nullptr;
}

const char* key_for_flag(std::string_view flag) noexcept {
  const ConfigKey* row = find_config_flag(flag);
  return row != nullptr ? row->key : nullptr;
}

std::vector<KeyValue> split_store_flag(std::string_view value) {
  const std::size_t colon = value.find(':');
  std::vector<KeyValue> settings;
  settings.emplace_back(key_name(kStoreType), std::string(value.substr(0, colon)));
  if (colon != std::string_view::npos) {
    settings.emplace_back(key_name(kStoreDirectory), std::string(value.substr(colon + 1)));
  }
  return settings;
}

std::string flag_origin(std::string_view key, std::string_view value) {
  const ConfigKey* plain = nullptr;
  for (const ConfigKey& row : kConfigKeyRows) {
    if (key != row.key || row.flag == nullptr) continue;
    if (row.implied == nullptr) {
      plain = &row;
    } else if (value == row.implied) {
      return std::string("flag --") + row.flag;
    }
  }
  return plain != nullptr ? std::string("flag --") + plain->flag : "flag " + std::string(key);
}

}  // namespace detail
}  // namespace cosid
