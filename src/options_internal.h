// Internal: what options.cc, options_values.cc and options_describe.cc share.
//
// Resolution first gathers one raw text per key (the highest-precedence source that gave it, and
// a description of that source), then turns the texts into typed values key by key. The checks
// on typed values are shared with validate_options(), which checks Options built in code.
#ifndef COSID_SRC_OPTIONS_INTERNAL_H_
#define COSID_SRC_OPTIONS_INTERNAL_H_

#include <array>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "config_keys.h"
#include "cosid/options.h"
#include "fail.h"

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

// Fails with `code` and "KEY = "TEXT" (ORIGIN): WHY".
bool fail_value(errc code, Key key, const RawValue& value, const std::string& why, Status& status);

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

#endif  // COSID_SRC_OPTIONS_INTERNAL_H_
