// SPDX-License-Identifier: Apache-2.0
// Internal: the typed values of the options (options_values.cc): the layout from its keys, and
// the checks shared by the resolution (resolver.cc) and validate_options(). It calls nothing of
// the resolution. validate_static_options() serves Runtime::open_static(), which must refuse what
// open() refuses with the same messages without linking the checks of a store's options
// (options.cc).
//
// Thread safety: pure functions.
#ifndef COSID_SRC_CONFIG_OPTIONS_VALUES_H_
#define COSID_SRC_CONFIG_OPTIONS_VALUES_H_

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_keys.h"
#include "cosid/error.h"
#include "cosid/options.h"

namespace cosid {
namespace detail {

// One raw text per row of the table, as the sources gave it.
using RawSettings = std::array<RawValue, kKeyCount>;

// Every check of validate_options() but those of the distributor (store_type and the store's
// keys): the layout, namespace, slot, state file, ahead, lock wait, not-before and start wait.
bool validate_static_options(const Options& options, Status& status) noexcept;

// "KEY = "TEXT" (ORIGIN)" of a raw value, as messages quote it.
std::string describe(std::string_view key, const RawValue& value);
std::string describe(Key key, const RawValue& value);
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

// The value of the row `key` in `options` as a config file would say it ("" for none; no slot
// with a store): what `cosid config check` shows and to_config_text() writes.
std::string value_of(const Options& options, Key key);

// The instance of `stores` that `store_type` names (the last of that name), or null: the lease
// distributor's (Options) and the segment distributor's (segment::SegmentOptions) alike.
const StoreConfig* selected_store(std::string_view store_type,
                                  const std::vector<StoreConfig>& stores) noexcept;
const StoreConfig* selected_store(const Options& options) noexcept;
// The store type the distributor leases from: the selected instance's type, else store_type.
const std::string& store_type_of(const Options& options) noexcept;

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_CONFIG_OPTIONS_VALUES_H_
