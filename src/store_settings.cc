// SPDX-License-Identifier: Apache-2.0
// StoreSettings: a store instance's keys, read by its factory with the config syntax's parsers.
#include <algorithm>

#include "base/fail.h"
#include "base/parse_util.h"
#include "cosid/store_registry.h"

namespace cosid {

using detail::fail;
using detail::quote;

std::string StoreSettings::full_key(std::string_view key) const {
  return "cosid.stores." + (config_ != nullptr ? config_->name : std::string("?")) + "." +
         std::string(key);
}

const StoreSetting* StoreSettings::take(std::string_view key) {
  read_.emplace_back(key);
  if (config_ == nullptr) return nullptr;
  const StoreSetting* found = nullptr;
  // A later setting wins, as a later flag does.
  for (const StoreSetting& setting : config_->settings) {
    if (setting.key == key) found = &setting;
  }
  return found;
}

namespace {

bool refuse(Status& status, const std::string& key, const StoreSetting& setting,
            const std::string& rule) {
  return fail(status, errc::invalid_value,
              key + " = " + quote(setting.value) + " (" + setting.origin + ") " + rule);
}

}  // namespace

bool StoreSettings::read_text(std::string_view key, std::size_t max_bytes, std::string& value,
                              Status& status) {
  const StoreSetting* setting = take(key);
  if (setting == nullptr) {
    status.clear();  // a Status reused from an earlier failure must not fail this read
    return true;
  }
  if (setting->value.empty() || setting->value.size() > max_bytes) {
    return refuse(status, full_key(key), *setting,
                  "must be 1 to " + std::to_string(max_bytes) + " bytes");
  }
  for (const char c : setting->value) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return refuse(status, full_key(key), *setting, "must not hold control characters");
    }
  }
  value = setting->value;
  status.clear();
  return true;
}

bool StoreSettings::read_duration(std::string_view key, std::chrono::milliseconds min,
                                  std::chrono::milliseconds max, std::chrono::milliseconds& value,
                                  Status& status) {
  const StoreSetting* setting = take(key);
  if (setting == nullptr) {
    status.clear();  // a Status reused from an earlier failure must not fail this read
    return true;
  }
  std::chrono::milliseconds parsed{0};
  Status why;
  if (!detail::parse_duration(setting->value, parsed, why)) {
    return refuse(status, full_key(key), *setting, "is not a duration: " + why.message());
  }
  if (parsed < min || parsed > max) {
    return refuse(
        status, full_key(key), *setting,
        "must be from " + detail::format_duration(min) + " to " + detail::format_duration(max));
  }
  value = parsed;
  status.clear();
  return true;
}

bool StoreSettings::read_whole(std::string_view key, std::int64_t min, std::int64_t max,
                               std::int64_t& value, Status& status) {
  const StoreSetting* setting = take(key);
  if (setting == nullptr) {
    status.clear();  // a Status reused from an earlier failure must not fail this read
    return true;
  }
  std::uint64_t parsed = 0;
  Status why;
  const bool in_range =
      detail::parse_uint(setting->value, static_cast<std::uint64_t>(max), parsed, why) &&
      static_cast<std::int64_t>(parsed) >= min;
  if (!in_range) {
    return refuse(
        status, full_key(key), *setting,
        "must be a whole number from " + std::to_string(min) + " to " + std::to_string(max));
  }
  value = static_cast<std::int64_t>(parsed);
  status.clear();
  return true;
}

bool StoreSettings::finish(Status& status) const {
  if (config_ != nullptr) {
    for (const StoreSetting& setting : config_->settings) {
      if (std::find(read_.begin(), read_.end(), setting.key) != read_.end()) continue;
      std::string known = "type";
      for (const std::string& key : read_) known += ", " + key;
      return fail(status, errc::config_unknown_key,
                  full_key(setting.key) + " = " + quote(setting.value) + " (" + setting.origin +
                      ") is not a key of a " + config_->type + " store: it knows " + known);
    }
  }
  status.clear();
  return true;
}

}  // namespace cosid
