// SPDX-License-Identifier: Apache-2.0
// Internal: the config file reader, for the YAML subset options.h describes.
//
// It reads block mappings of scalars under the top-level `cosid:` key and returns each leaf as its
// full dotted key, its value (unquoted, then ${VAR}-interpolated) and its line. Whatever lies
// outside the subset is refused with a "FILE:LINE: why" message rather than guessed at: a
// misread config file could hand two instances one slot.
//
// A scalar, the part of a line after "key: ", is one of
//
//   plain           up to a '#' that follows a space (a comment), trailing spaces dropped
//   'single'        '' is a quote; nothing else is special
//   "double"        \" \\ \n \t are the only escapes
//
// A quoted value ends on its line and may be followed only by spaces and a comment. Whatever
// YAML would read as something other than a string scalar is refused: flow style, anchors,
// aliases, tags, block scalars, list items, a ': ' inside a plain value, and the nulls ~ and null.
//
// Pure apart from the environment lookup and, for read_config_file, the read of the file.
#ifndef COSID_SRC_CONFIG_CONFIG_FILE_H_
#define COSID_SRC_CONFIG_CONFIG_FILE_H_

#include <string>
#include <string_view>
#include <vector>

#include "cosid/options.h"

namespace cosid {
namespace detail {

struct ConfigEntry {
  std::string key;    // "cosid.machine.static.slot"
  std::string value;  // after unquoting and interpolation
  int line = 0;       // 1-based
  // The text as written when interpolation made it empty ("${POD_ORDINAL}"), else empty: an
  // empty value's message must name the variable that emptied it, not show just "".
  std::string emptied_from;
};

// The largest config file read; a bigger one is config_syntax (it cannot be a cosid config).
inline constexpr std::size_t kMaxConfigBytes = 1 << 20;

// The entries of `text`; `name` is the FILE of the messages. Only the keys of the table in
// config_keys.h are accepted, and those of the store instances (cosid.stores.NAME.KEY at any
// depth, as they are: the store's factory checks them), each instance with a well-formed name
// and a type. On failure returns no entries and sets `status` (config_syntax, config_unknown_key,
// config_duplicate_key, unset_variable, invalid_value for an instance's name) with
// "NAME:LINE: why".
std::vector<ConfigEntry> parse_config(std::string_view text, std::string_view name,
                                      const EnvLookup& env, Status& status) noexcept;

// Reads the file at `path` and parses it. A file that cannot be opened or read is
// config_unreadable, with the system's reason; so is anything but a regular file (a directory, a
// FIFO), which is refused without waiting for a writer.
std::vector<ConfigEntry> read_config_file(const std::string& path, const EnvLookup& env,
                                          Status& status) noexcept;

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_CONFIG_CONFIG_FILE_H_
