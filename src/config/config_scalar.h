// SPDX-License-Identifier: Apache-2.0
// Internal: one scalar value of the config file, the part of a line after "key: ".
//
//   plain           up to a '#' that follows a space (a comment), trailing spaces dropped
//   'single'        '' is a quote; nothing else is special
//   "double"        \" \\ \n \t are the only escapes
//
// A quoted value ends on its line and may be followed only by spaces and a comment. Whatever
// YAML would read as something other than a string scalar is refused: flow style, anchors,
// aliases, tags, block scalars, list items, a ': ' inside a plain value, and the nulls ~ and null.
// Pure; call it from any thread.
#ifndef COSID_SRC_CONFIG_CONFIG_SCALAR_H_
#define COSID_SRC_CONFIG_CONFIG_SCALAR_H_

#include <string>
#include <string_view>

namespace cosid {
namespace detail {

// Reads the scalar `text` (not empty, no leading space) into `out`. On failure returns false and
// stores in `why` what is wrong and what to write instead.
bool read_scalar(std::string_view text, std::string& out, std::string& why);

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_CONFIG_CONFIG_SCALAR_H_
