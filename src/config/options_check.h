// SPDX-License-Identifier: Apache-2.0
// Internal: the part of validate_options() (cosid/options.h) that a static slot needs, for
// Runtime::open_static(), which must refuse what open() refuses with the same messages without
// linking the checks of a store's options (options.cc).
//
// Thread safety: a pure function.
#ifndef COSID_SRC_CONFIG_OPTIONS_CHECK_H_
#define COSID_SRC_CONFIG_OPTIONS_CHECK_H_

#include "cosid/error.h"
#include "cosid/options.h"

namespace cosid {
namespace detail {

// Every check of validate_options() but those of the distributor (store_type and the store's
// keys): the layout, namespace, slot, state file, ahead, lock wait, not-before and start wait.
// Defined in options_values.cc, beside the checks it calls.
bool validate_static_options(const Options& options, Status& status) noexcept;

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_CONFIG_OPTIONS_CHECK_H_
