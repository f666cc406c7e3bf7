// SPDX-License-Identifier: Apache-2.0
// Internal: what options.cc, options_values.cc and options_describe.cc share.
//
// Resolution first gathers one raw text per key (the highest-precedence source that gave it, and
// a description of that source), then turns the texts into typed values key by key. The checks
// on typed values are shared with validate_options(), which checks Options built in code.
#ifndef COSID_SRC_CONFIG_OPTIONS_INTERNAL_H_
#define COSID_SRC_CONFIG_OPTIONS_INTERNAL_H_

#include <array>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "base/fail.h"
#include "config/config_keys.h"
#include "cosid/options.h"
#include "cosid/segment/options.h"

namespace cosid {
namespace detail {

using RawSettings = std::array<RawValue, kKeyCount>;

// A store instance as its sources gave it (cosid.stores.NAME): its type with its origin, and its
// other keys, a later source's value replacing an earlier one's key by key.
struct RawInstance {
  std::string name;
  RawValue type;
  std::vector<StoreSetting> settings;
};
using RawInstances = std::vector<RawInstance>;

// The cosid.segment block as its sources gave it: one raw text per key of the table, and the
// provider entries in the order of their first key.
struct RawProvider {
  std::string key;  // KEY of cosid.segment.provider.KEY
  RawValue offset;
  RawValue step;
};
struct RawSegment {
  std::array<RawValue, kSegmentKeyCount> values;  // the provider rows' stay empty
  std::vector<RawProvider> providers;
};

// What resolve_options() and resolve_segment_options() share: the sources gathered (the raw texts
// of both blocks and the instances), the layout, the distributor and the other keys of Options
// applied and checked, the cosid.segment block checked into `segment`, and the slot resolved when
// `need_slot`, else checked only when one is given. `slot_origin` receives where the slot came
// from. On failure returns false with `status` set.
bool resolve_sources(const OptionSources& sources, bool need_slot, Options& options,
                     segment::SegmentOptions& segment, RawSettings& raw, RawInstances& instances,
                     RawSegment& raw_segment, std::string& slot_origin, Status& status);

// The cosid.segment block from its raw texts, each checked (src/config/segment_options.cc);
// `instances` holds the instance the segment distributor may name, whose type resolution has
// checked.
bool build_segment(const RawSegment& raw, const RawInstances& instances,
                   segment::SegmentOptions& segment, Status& status);

// The instance of `stores` the segment distributor names, or null.
const StoreConfig* selected_store(const segment::SegmentOptions& options) noexcept;

// Fails with `code` and "KEY = "TEXT" (ORIGIN): WHY".
bool fail_value(errc code, Key key, const RawValue& value, const std::string& why, Status& status);
bool fail_value(errc code, std::string_view key, const RawValue& value, const std::string& why,
                Status& status);

// A path in the value of the key `key`: not empty, at most `max` bytes, no control bytes; the
// message of an empty one gives `example`.
bool check_path(std::string_view key, std::size_t max, std::string_view path, const RawValue& shown,
                const char* example, Status& status);
// The spelling of a store type's (or a distributor's) name, and its rule as messages give it:
// "(lower-case letters, digits, '-', '_', '.', at most 64)".
bool is_store_type_name(std::string_view type) noexcept;
std::string type_name_rule();

// The layout from the layout keys of `raw` (preset, then unit, epoch and bit counts), validated.
bool resolve_layout(const RawSettings& raw, Layout& layout, Status& status);

// The checks of the rows (config_keys.h) take the options; these take the value alone.
bool check_store_type(std::string_view type, const RawValue& shown, Status& status);
// The type of the store instance `name`: a store type's name, not static.
bool check_instance_type(std::string_view name, const RawValue& type, Status& status);
bool check_store_directory(std::string_view path, const RawValue& shown, Status& status);
// A store leases slots 0 .. 2^slot_bits - 1 and records the limit as a 32-bit number.
bool check_store_slot_bits(const Layout& layout, Status& status);

// The instance of `stores` that `store_type` names (the last of that name), or null: the lease
// distributor's (Options) and the segment distributor's (segment::SegmentOptions) alike.
const StoreConfig* selected_store(std::string_view store_type,
                                  const std::vector<StoreConfig>& stores) noexcept;
const StoreConfig* selected_store(const Options& options) noexcept;
// The store type the distributor leases from: the selected instance's type, else store_type.
const std::string& store_type_of(const Options& options) noexcept;

// Orders an instance's settings so that the keys of one block follow each other, blocks in the
// order of their first key: as a config file has to give them (a block cannot open twice).
void group_store_settings(std::vector<StoreSetting>& settings);

// Fills `settings` from resolved options and the raw values they came from.
void describe_settings(const Options& options, const RawSettings& raw,
                       const RawInstances& instances, const std::string& slot_origin,
                       std::vector<Setting>& settings);

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_CONFIG_OPTIONS_INTERNAL_H_
