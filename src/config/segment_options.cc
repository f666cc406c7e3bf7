// SPDX-License-Identifier: Apache-2.0
// Segment options (segment/options.h): the cosid.segment block read from the raw texts that
// resolution gathered (options.cc), with the checks of its keys.
#include <limits>
#include <utility>

#include "base/fail.h"
#include "base/parse_util.h"
#include "config/config_keys.h"
#include "config/options_internal.h"
#include "cosid/segment/options.h"
#include "cosid/segment/range_rules.h"

namespace cosid {
namespace detail {
namespace {

using segment::KeyDefinition;
using segment::SegmentOptions;

// Fails with "KEY = "TEXT" (ORIGIN): WHY" for a key of the table.
bool refuse(SegmentKey key, const RawValue& value, const std::string& why, Status& status) {
  return fail_value(errc::invalid_value, kSegmentKeyRows[key].key, value, why, status);
}

// "KEY = "TEXT" (ORIGIN)" of a raw value, for messages about two keys.
std::string describe(std::string_view key, const RawValue& value) {
  return std::string(key) + " = " + quote(value.text) + " (" + value.origin + ")";
}

// A whole number of the row `row` (its bounds) given as the key `key` (a provider entry's own).
bool read_whole(SegmentKey row, std::string_view key, const RawValue& raw, std::int64_t& value,
                Status& status) {
  if (!raw.given) return true;
  const SegmentKeyRow& rule = kSegmentKeyRows[row];
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

// The distributor: its type, the instance it names, and the file store's directory.
bool build_distributor(const RawSegment& raw, const RawInstances& instances,
                       SegmentOptions& segment, Status& status) {
  const RawValue& type = raw.values[kSegmentType];
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
    for (const RawInstance& instance : instances) {
      if (instance.name != type.text) continue;
      segment.stores = {{instance.name, instance.type.text, instance.settings}};
    }
  }
  const StoreConfig* instance = selected_store(segment);
  const std::string& kind = instance != nullptr ? instance->type : segment.store_type;
  const RawValue& directory = raw.values[kSegmentDirectory];
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
bool check_claim_size(const RawSegment& raw, std::uint32_t safe_distance, std::int64_t step,
                      const std::string& step_key, const RawValue& step_value, Status& status) {
  if (static_cast<std::int64_t>(safe_distance) <= segment::kMaxClaim / step) return true;
  const RawValue& distance = raw.values[kSafeDistance];
  return fail(status, errc::invalid_value,
              describe(kSegmentKeyRows[kSafeDistance].key, distance) + " and " +
                  describe(step_key, step_value) +
                  ": one claim of that many segments of that step would take more than 2^40 ids; "
                  "lower one of them");
}

}  // namespace

const StoreConfig* selected_store(const segment::SegmentOptions& options) noexcept {
  return selected_store(options.store_type, options.stores);
}

bool build_segment(const RawSegment& raw, const RawInstances& instances,
                   segment::SegmentOptions& segment, Status& status) {
  SegmentOptions result;
  if (!build_distributor(raw, instances, result, status) ||
      !read_whole(kShareOffset, kSegmentKeyRows[kShareOffset].key, raw.values[kShareOffset],
                  result.share.offset, status) ||
      !read_whole(kShareStep, kSegmentKeyRows[kShareStep].key, raw.values[kShareStep],
                  result.share.step, status)) {
    return false;
  }
  std::int64_t distance = result.safe_distance;
  if (!read_whole(kSafeDistance, kSegmentKeyRows[kSafeDistance].key, raw.values[kSafeDistance],
                  distance, status)) {
    return false;
  }
  result.safe_distance = static_cast<std::uint32_t>(distance);
  const auto shown = [&raw](SegmentKey key) {
    const RawValue& value = raw.values[key];
    return value.given ? value : RawValue{false, kSegmentKeyRows[key].default_text, "default"};
  };
  if (!check_claim_size(raw, result.safe_distance, result.share.step,
                        kSegmentKeyRows[kShareStep].key, shown(kShareStep), status)) {
    return false;
  }
  for (const RawProvider& provider : raw.providers) {
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
        !check_claim_size(raw, result.safe_distance, definition.step,
                          provider.step.given ? step_key : kSegmentKeyRows[kShareStep].key,
                          provider.step.given ? provider.step : shown(kShareStep), status)) {
      return false;
    }
    result.providers[provider.key] = definition;
  }
  segment = std::move(result);
  return true;
}

}  // namespace detail

namespace segment {
namespace {

using detail::kSegmentKeyRows;
using detail::RawValue;

// One entry per key of the block, then each provider entry's two, then the keys of the instance
// the distributor names, as `cosid config check` prints them.
void describe_segment(const SegmentOptions& options, const detail::RawSegment& raw,
                      const detail::RawInstances& instances, std::vector<Setting>& settings) {
  const auto origin_of = [](const RawValue& value, const char* otherwise) {
    return value.given ? value.origin : std::string(otherwise);
  };
  settings.clear();
  const auto add = [&settings](std::string key, std::string value, std::string origin) {
    settings.push_back({std::move(key), std::move(value), std::move(origin)});
  };
  add(kSegmentKeyRows[detail::kSegmentType].key, options.store_type,
      origin_of(raw.values[detail::kSegmentType], "default: none, segment ids need one"));
  add(kSegmentKeyRows[detail::kSegmentDirectory].key, options.store_directory,
      origin_of(raw.values[detail::kSegmentDirectory], "default"));
  add(kSegmentKeyRows[detail::kShareOffset].key, std::to_string(options.share.offset),
      origin_of(raw.values[detail::kShareOffset], "default"));
  add(kSegmentKeyRows[detail::kShareStep].key, std::to_string(options.share.step),
      origin_of(raw.values[detail::kShareStep], "default"));
  add(kSegmentKeyRows[detail::kSafeDistance].key, std::to_string(options.safe_distance),
      origin_of(raw.values[detail::kSafeDistance], "default"));
  for (const auto& entry : options.providers) {
    for (const detail::RawProvider& provider : raw.providers) {
      if (provider.key != entry.first) continue;
      add(detail::provider_key(entry.first, detail::kProviderOffset),
          std::to_string(entry.second.offset),
          origin_of(provider.offset, "share: cosid.segment.share.offset"));
      add(detail::provider_key(entry.first, detail::kProviderStep),
          std::to_string(entry.second.step),
          origin_of(provider.step, "share: cosid.segment.share.step"));
    }
  }
  for (const StoreConfig& config : options.stores) {
    const std::string path = std::string(detail::kStoresBlock) + "." + config.name + ".";
    for (const detail::RawInstance& instance : instances) {
      if (instance.name == config.name) add(path + "type", config.type, instance.type.origin);
    }
    for (const StoreSetting& setting : config.settings) {
      add(path + setting.key, setting.value, setting.origin);
    }
  }
}

bool resolve(const OptionSources& sources, SegmentOptions& out, std::vector<Setting>* settings,
             Status& status) {
  detail::RawSettings raw;
  detail::RawInstances instances;
  detail::RawSegment raw_segment;
  Options options;  // checked as resolve_options() checks them, but for the slot
  SegmentOptions segment;
  std::string slot_origin;
  if (!detail::resolve_sources(sources, /*need_slot=*/false, options, segment, raw, instances,
                               raw_segment, slot_origin, status)) {
    return false;
  }
  if (settings != nullptr) describe_segment(segment, raw_segment, instances, *settings);
  out = std::move(segment);
  status.clear();
  return true;
}

}  // namespace

KeyDefinition SegmentOptions::definition_of(const std::string& key) const {
  const auto it = providers.find(key);
  return it != providers.end() ? it->second : share;
}

SegmentOptions resolve_segment_options(const OptionSources& sources, Status& status) noexcept {
  SegmentOptions options;
  if (!resolve(sources, options, nullptr, status)) return SegmentOptions();
  return options;
}

SegmentOptions resolve_segment_options(const OptionSources& sources, std::vector<Setting>& settings,
                                       Status& status) noexcept {
  SegmentOptions options;
  if (!resolve(sources, options, &settings, status)) return SegmentOptions();
  return options;
}

}  // namespace segment
}  // namespace cosid
