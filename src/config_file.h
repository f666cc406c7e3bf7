// Internal: the config file reader, for the YAML subset options.h describes.
//
// It reads block mappings of scalars under the top-level `cosid:` key and returns each leaf as its
// full dotted key, its value (unquoted, then ${VAR}-interpolated) and its line. Whatever lies
// outside the subset is refused with a "FILE:LINE: why" message rather than guessed at: a
// misread config file could hand two instances one slot.
//
// Pure apart from the environment lookup and, for read_config_file, the read of the file.
#ifndef COSID_SRC_CONFIG_FILE_H_
#define COSID_SRC_CONFIG_FILE_H_

#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cosid/options.h"

namespace cosid {
namespace detail {

struct ConfigEntry {
  std::string key;    // "cosid.machine.static.slot"
  std::string value;  // after unquoting and interpolation
  int line = 0;       // 1-based
};

// The largest config file read; a bigger one is config_syntax (it cannot be a cosid config).
inline constexpr std::size_t kMaxConfigBytes = 1 << 20;

// Parses `text`; `name` is the FILE of the messages. Only keys of kConfigKeys are accepted. On
// failure sets `ec` (config_syntax, config_unknown_key, config_duplicate_key, unset_variable) and
// stores "NAME:LINE: why" in `message`; `entries` is then unspecified.
bool parse_config(std::string_view text, std::string_view name, const EnvLookup& env,
                  std::vector<ConfigEntry>& entries, std::error_code& ec,
                  std::string* message) noexcept;

// Reads the file at `path` and parses it. A file that cannot be opened or read is
// config_unreadable, with the system's reason; so is anything but a regular file (a directory, a
// FIFO), which is refused without waiting for a writer.
bool read_config_file(const std::string& path, const EnvLookup& env,
                      std::vector<ConfigEntry>& entries, std::error_code& ec,
                      std::string* message) noexcept;

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_CONFIG_FILE_H_
