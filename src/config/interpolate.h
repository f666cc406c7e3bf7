// SPDX-License-Identifier: Apache-2.0
// Internal: ${VAR} interpolation in config file values.
//
//   ${NAME}            the variable's value; unset is an error (errc::unset_variable), set but
//                      empty gives "" (the key's own rule then refuses an empty slot, say)
//   ${NAME:-DEFAULT}   the variable's value, or DEFAULT when it is unset or empty; DEFAULT is taken
//                      literally up to the first '}' and may not contain "${"
//   $$                 one literal '$' (so "$${X}" is the text "${X}")
//   $ before anything but '{' or '$' is a literal '$'
//
// NAME is [A-Za-z_][A-Za-z0-9_]*. A "${" without its '}', a bad name or any other form such as
// ${NAME-x} or ${NAME:=x} is errc::config_syntax. The result is not scanned again, so a variable
// whose value contains "${" or "#" is taken as it is.
//
// Pure apart from the lookup; call it from any thread the lookup allows.
#ifndef COSID_SRC_CONFIG_INTERPOLATE_H_
#define COSID_SRC_CONFIG_INTERPOLATE_H_

#include <string>
#include <string_view>

#include "cosid/options.h"

namespace cosid {
namespace detail {

// `text` expanded, looking variables up with `env` (std::getenv when empty). On failure returns ""
// and sets `status` to a clause that names the variable or the bad form and the fix.
std::string interpolate(std::string_view text, const EnvLookup& env, Status& status) noexcept;

// `env` when it is set, else a lookup through std::getenv.
EnvLookup env_or_getenv(const EnvLookup& env);

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_CONFIG_INTERPOLATE_H_
