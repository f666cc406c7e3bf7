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

// Fails with `code` and "KEY = "TEXT" (ORIGIN): WHY".
bool fail_value(errc code, Key key, const RawValue& value, const std::string& why, Status& status);

// The layout from the layout keys of `raw` (preset, then unit, epoch and bit counts), validated.
bool resolve_layout(const RawSettings& raw, Layout& layout, Status& status);

// The checks of the rows (config_keys.h) take the options; these take the value alone.
bool check_store_type(std::string_view type, const RawValue& shown, Status& status);
bool check_store_directory(std::string_view path, const RawValue& shown, Status& status);
// A store leases slots 0 .. 2^slot_bits - 1 and records the limit as a 32-bit number.
bool check_store_slot_bits(const Layout& layout, Status& status);

// Fills `settings` from resolved options and the raw values they came from.
void describe_settings(const Options& options, const RawSettings& raw,
                       const std::string& slot_origin, std::vector<Setting>& settings);

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_OPTIONS_INTERNAL_H_
