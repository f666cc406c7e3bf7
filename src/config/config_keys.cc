// SPDX-License-Identifier: Apache-2.0
// The lookups over the table of config keys.
#include "config/config_keys.h"

#include <chrono>

#include "base/fail.h"
#include "base/parse_util.h"

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

namespace {

// KEY of a provider entry's path below its block ("orders" of cosid.segment.provider.orders), or
// "" when `path` does not lie below the block.
std::string_view provider_of(std::string_view path) noexcept {
  std::string_view rest;
  if (!under(path, kProviderBlock, rest)) return std::string_view();
  return rest;
}

}  // namespace

SegmentKey find_segment_key(std::string_view path, std::string_view& provider) noexcept {
  for (SegmentKey i = 0; i < kSegmentKeyCount; ++i) {
    if (i != kProviderOffset && i != kProviderStep && path == kSegmentKeyRows[i].key) return i;
  }
  const std::string_view rest = provider_of(path);
  const std::size_t dot = rest.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return kSegmentKeyCount;
  const std::string_view field = rest.substr(dot + 1);
  provider = rest.substr(0, dot);
  if (field == "offset") return kProviderOffset;
  if (field == "step") return kProviderStep;
  return kSegmentKeyCount;
}

std::string provider_key(std::string_view provider, SegmentKey field) {
  const std::string_view row = kSegmentKeyRows[field].key;
  return std::string(kProviderBlock) + "." + std::string(provider) +
         std::string(row.substr(row.rfind('.')));
}

const ConfigKey* find_any_row(std::string_view path) noexcept {
  const Key key = find_key(path);
  if (key != kKeyCount) return &kConfigKeyRows[key];
  std::string_view provider;
  const SegmentKey segment_key = find_segment_key(path, provider);
  return segment_key != kSegmentKeyCount ? &kSegmentKeyRows[segment_key] : nullptr;
}

bool is_key_block(std::string_view path) noexcept {
  if (path.empty()) return false;
  std::string_view rest;
  for (const ConfigKey& row : kConfigKeyRows) {
    if (under(row.key, path, rest)) return true;
  }
  for (const ConfigKey& row : kSegmentKeyRows) {
    if (under(row.key, path, rest)) return true;
  }
  // A provider entry: one name below the block (a config file's names hold no '.').
  const std::string_view provider = provider_of(path);
  return !provider.empty() && provider.find('.') == std::string_view::npos;
}

std::string keys_under(std::string_view parent) {
  std::vector<std::string_view> children;
  const auto add = [&children](std::string_view key, std::string_view block) {
    std::string_view rest;
    if (!under(key, block, rest)) return;
    const std::string_view child = rest.substr(0, rest.find('.'));
    bool known = false;
    for (const std::string_view seen : children) known = known || seen == child;
    if (!known) children.push_back(child);
  };
  for (const ConfigKey& row : kConfigKeyRows) add(row.key, parent);
  // The store instances' block has no row of its own.
  if (parent == kStoresBlock.substr(0, kStoresBlock.find('.'))) {
    children.push_back(kStoresBlock.substr(kStoresBlock.find('.') + 1));
  }
  // A provider entry's keys are those of the provider rows, whose KEY stands for its name.
  const std::string_view provider = provider_of(parent);
  const bool entry = !provider.empty() && provider.find('.') == std::string_view::npos;
  const std::string entry_row = std::string(kProviderBlock) + ".KEY";
  for (const ConfigKey& row : kSegmentKeyRows) {
    add(row.key, entry ? std::string_view(entry_row) : parent);
  }
  std::string list;
  for (const std::string_view child : children) {
    if (!list.empty()) list += ", ";
    list += child;
  }
  return list;
}

std::string range_text(const ConfigKey& row) {
  switch (row.kind) {
    case ValueKind::kDuration:
      return "from " + format_duration(std::chrono::milliseconds(row.min)) + " to " +
             format_duration(std::chrono::milliseconds(row.max));
    case ValueKind::kName:
    case ValueKind::kPath:
      return std::to_string(row.min) + " to " + std::to_string(row.max) + " bytes";
    case ValueKind::kWhole:
      if (row.max == 0) break;  // no bound of its own (the epoch: the layout's rules)
      return (row.scope == Scope::kSegment ? "from " : "") + std::to_string(row.min) + " to " +
             std::to_string(row.max);
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

bool is_store_instance_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > kMaxStoreNameBytes) return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return false;
  }
  return true;
}

bool is_store_setting_key(std::string_view key) noexcept {
  if (key.empty()) return false;
  bool after_dot = true;  // a name must start the key and follow every dot
  for (const char c : key) {
    if (c == '.') {
      if (after_dot) return false;
      after_dot = true;
    } else if (is_key_char(c)) {
      after_dot = false;
    } else {
      return false;
    }
  }
  return !after_dot;
}

bool split_store_key(std::string_view path, std::string_view& name,
                     std::string_view& key) noexcept {
  std::string_view rest;
  if (!under(path, kStoresBlock, rest)) return false;
  const std::size_t dot = rest.find('.');
  name = rest.substr(0, dot);
  key = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
  return true;
}

namespace {

// "cosid.stores.zookeeper.KEY", a key of the instance --store zookeeper:CONNECT makes.
std::string zookeeper_flag_key(std::string_view key) {
  return std::string(kStoresBlock) + "." + std::string(kZooKeeperType) + "." + std::string(key);
}

}  // namespace

bool split_store_flag(std::string_view value, std::vector<KeyValue>& settings, Status& status,
                      const StoreFlagKeys& keys) {
  const std::size_t colon = value.find(':');
  const std::string type(value.substr(0, colon));
  const auto refuse = [&](const std::string& why) {
    return fail(status, errc::invalid_value,
                std::string(keys.type) + " = " + quote(value) + " (flag --store): " + why);
  };
  if (colon != std::string_view::npos && type != "file" && type != kZooKeeperType) {
    return refuse("only file:DIR and zookeeper:CONNECT take a target after ':', and " +
                  quote(type) + " takes none on the command line: give --store " + type +
                  " and configure the store in cosid.stores of the config file");
  }
  const std::string target(colon != std::string_view::npos ? value.substr(colon + 1) : "");
  if (colon != std::string_view::npos && type == kZooKeeperType && target.empty()) {
    return refuse(
        "no ensemble after ':': give zookeeper:HOST:PORT[,HOST:PORT...][/CHROOT], or "
        "--store zookeeper alone for localhost:2181");
  }
  settings.emplace_back(keys.type, type);
  if (colon != std::string_view::npos && type == "file") {
    settings.emplace_back(keys.directory, target);
  } else if (colon != std::string_view::npos) {
    settings.emplace_back(zookeeper_flag_key("type"), std::string(kZooKeeperType));
    settings.emplace_back(zookeeper_flag_key(kConnectStringKey), target);
  }
  status.clear();
  return true;
}

std::string flag_origin(std::string_view key, std::string_view value) {
  std::string_view name;
  std::string_view below;
  if (split_store_key(key, name, below) && name == kZooKeeperType &&
      (below == "type" || below == kConnectStringKey)) {
    return "flag --store";
  }
  // A switch's row names its flag only for the value the switch sets.
  const ConfigKey* row = find_any_row(key);
  if (row != nullptr && row->flag != nullptr &&
      (row->implied == nullptr || value == row->implied)) {
    return std::string("flag --") + row->flag;
  }
  return "flag " + std::string(key);
}

}  // namespace detail
}  // namespace cosid
