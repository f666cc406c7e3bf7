// Options: the settings of a Runtime (a static slot, or a slot leased from a store), and how they
// are resolved from command-line flags, COSID_* environment variables, a config file and built-in
// defaults.
//
// Precedence, key by key: flag > COSID_* variable > config file > default. The config file is the
// one given with --config (OptionSources::config_file), else the one COSID_CONFIG names, else none;
// there is no default path. It is a small YAML subset (see "Config file" below) whose values may
// say ${VAR} or ${VAR:-DEFAULT}; flags and COSID_* values are taken literally.
//
//   key                                   flag                   variable          default
//   cosid.namespace                       --namespace NS         COSID_NAMESPACE   cosid
//   cosid.machine.static.slot             --slot N               COSID_SLOT        (none: required)
//   cosid.machine.static.slot-source      --slot-from-hostname                     explicit
//   cosid.machine.static.state-file       --state-file PATH      COSID_STATE_FILE  (none)
//   cosid.machine.static.ahead            --ahead DUR            COSID_AHEAD       10s
//   cosid.machine.static.not-before       --not-before TIME      COSID_NOT_BEFORE  0
//   cosid.machine.static.require-state-file  --require-state-file                  false
//   cosid.machine.distributor.type        --store TYPE[:DIR]                       static
//   cosid.machine.distributor.ttl         --ttl DUR                                30s
//   cosid.machine.distributor.tolerance   --tolerance DUR                          1s
//   cosid.machine.distributor.owner-key   --owner-key KEY        COSID_OWNER_KEY   HOST:PID
//   cosid.machine.distributor.preferred-slot  --preferred-slot N COSID_PREFERRED_SLOT (none)
//   cosid.machine.distributor.file.directory  --store file:DIR                     (none)
//   cosid.layout.preset                   --layout NAME                            default
//   cosid.layout.epoch                    --epoch MS                               the preset's
//   cosid.layout.unit                     --unit ms|s                              the preset's
//   cosid.layout.timestamp-bits           --timestamp-bits N                       the preset's
//   cosid.layout.slot-bits                --slot-bits N                            the preset's
//   cosid.layout.sequence-bits            --sequence-bits N                        the preset's
//
// Values (parsed strictly; anything else is refused with errc::invalid_value naming the key, the
// value, where it came from and the rule):
//   namespace     1 to 255 bytes of printable ASCII without spaces.
//   slot          a whole number below 2^slot-bits (see slot_source.h for the exact rules).
//   slot-source   explicit | stateful-set. stateful-set takes the ordinal at the end of the host
//                 name (HOSTNAME, else gethostname()); a slot given as well is refused as
//                 ambiguous.
//   state-file    a path (relative ones are relative to the working directory), no control bytes.
//   ahead         a duration, "500ms", "10s", "1m", "1h", from 10ms to 24h; at least 2s for a
//                 layout that counts seconds, so that a window always holds a whole tick.
//   not-before    Unix milliseconds or RFC 3339 ("2026-11-30T02:22:58.123Z", offsets allowed); 0
//                 means none. Otherwise it must lie at or after the layout's epoch (a smaller
//                 value is usually seconds given for milliseconds) and before the layout's end.
//   require-state-file  true | false; true needs a state-file.
//   type          static (the slot is configured: the keys under cosid.machine.static) or the name
//                 of a lease store: memory, file, or one registered in a lease::StoreRegistry
//                 (lower-case letters, digits, '-', '_', '.'). With a store the slot is leased at
//                 start (lease/keeper.h); a slot, slot-source stateful-set, state-file, ahead or
//                 require-state-file given as well is refused as ambiguous. --store file:DIR sets
//                 the type and the directory in one flag.
//   ttl           how long a lease lasts unless renewed: from 300ms to 1h (at least 3s for a
//                 layout that counts seconds). It is renewed every ttl/3; a crashed holder's slot
//                 is free again after ttl + tolerance.
//   tolerance     how far past its expiry a holder may still issue: from 0ms to 1h. Every runtime
//                 of a namespace must give the same (src/lease/PROTOCOL.md, D20); the store refuses another.
//   owner-key     the holder's logical name, 1 to 255 bytes of printable ASCII without spaces;
//                 default "HOST:PID". A live lease of the same key is never taken over.
//   preferred-slot  a whole number below 2^slot-bits: tried first when free.
//   directory     the file store's directory (required by type file, refused by the others),
//                 checked like state-file.
//   A store key given while the type is static is refused: it would have no effect.
//   epoch         Unix milliseconds, even for a layout that counts seconds (then a whole second).
//                 When only the unit is changed, the preset's epoch is converted.
//   *-bits        whole numbers; Layout::validate() checks the layout they make.
// An empty value is a value, and refused like any other invalid one: COSID_SLOT="" is an error,
// not "unset".
//
// Config file: block mappings of scalars under one top-level `cosid:` key, indented with spaces
// (the same number for the keys of one block), `# comments` on their own line or after a value
// and a space, plain, 'single-quoted' ('' is a quote) or "double-quoted" (\" \\ \n \t) scalars,
// CRLF line ends allowed. Refused with errc::config_syntax and "FILE:LINE: why": tabs in the
// indentation, lists, anchors, aliases, tags, flow style, block scalars, "---", a null value, a
// known key without a value; errc::config_duplicate_key for a key given twice;
// errc::config_unknown_key for any key outside the table above.
//
// Thread safety: Options and Setting are plain values. resolve_options() reads the environment
// through OptionSources::env (std::getenv when empty; do not race it with setenv), may read the
// config file and call gethostname(), and is otherwise pure: calls may run concurrently.
#ifndef COSID_OPTIONS_H_
#define COSID_OPTIONS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/export.h"
#include "cosid/layout.h"
#include "cosid/slot_source.h"

namespace cosid {

// Looks an environment variable up: its value, or nullptr when it is not set. The returned
// pointer need only stay valid until the next call.
using EnvLookup = std::function<const char*(const char*)>;

// A raw setting: a canonical dotted key and its text, as flags arrive from the command line.
using KeyValue = std::pair<std::string, std::string>;

struct COSID_EXPORT Options {
  std::string namespace_name = "cosid";
  Layout layout = layouts::kDefault;
  std::uint32_t slot = 0;  // set it (or resolve it): there is no default slot
  SlotSource slot_source = SlotSource::kExplicit;
  std::string state_file;  // empty: none, and no protection against a clock set back
  std::chrono::milliseconds ahead{10000};
  std::int64_t not_before_ms = 0;  // Unix ms; 0: none
  bool require_state_file = false;
  // How long the start may wait for the clock to pass the floor. resolve_options() sets it to
  // ahead + 1s (static) or ttl + tolerance (a store); set it afterwards to change it (no flag,
  // variable or key sets it).
  std::chrono::milliseconds start_wait{11000};
  // The slot distributor: "static" (slot, slot_source, state_file, ahead above), or the name of a
  // lease store (lease/store_registry.h) from which the slot is leased.
  std::string store_type = "static";
  std::chrono::milliseconds ttl{30000};
  std::chrono::milliseconds tolerance{1000};
  std::string owner_key;                        // empty: "HOST:PID"
  std::optional<std::uint32_t> preferred_slot;  // tried first when free
  std::string store_directory;                  // the file store's directory

  // Whether the slot comes from a lease store rather than from configuration.
  bool uses_store() const noexcept { return store_type != "static"; }
};

// Where resolve_options() looks.
struct COSID_EXPORT OptionSources {
  // The config file given with --config. Empty: the one COSID_CONFIG names, else none.
  std::string config_file;
  // When set, read instead of a file (tests, fuzzing); config_file names it in messages.
  std::optional<std::string> config_text;
  // Flags as canonical keys and raw values, in command-line order; a later one wins. See
  // kConfigFlags for turning a flag into its key.
  std::vector<KeyValue> flags;
  // Environment lookup, for COSID_*, HOSTNAME and the config file's ${VAR}; empty: std::getenv.
  EnvLookup env;
  // The host name for slot-source stateful-set. Empty: HOSTNAME (through env) when set and not
  // empty, else gethostname().
  std::string hostname;
};

// One effective setting, for `cosid config check`.
struct COSID_EXPORT Setting {
  std::string key;     // "cosid.machine.static.slot"
  std::string value;   // canonical text, as a config file would say it; "" for an unset path
  std::string origin;  // "flag --slot", "env COSID_SLOT", "file /etc/cosid.yaml:4", "default", ...
};

// Every key cosid knows, in the order of the table above (and of resolve_options' settings).
inline constexpr const char* kConfigKeys[] = {
    "cosid.namespace",
    "cosid.machine.static.slot",
    "cosid.machine.static.slot-source",
    "cosid.machine.static.state-file",
    "cosid.machine.static.ahead",
    "cosid.machine.static.not-before",
    "cosid.machine.static.require-state-file",
    "cosid.machine.distributor.type",
    "cosid.machine.distributor.ttl",
    "cosid.machine.distributor.tolerance",
    "cosid.machine.distributor.owner-key",
    "cosid.machine.distributor.preferred-slot",
    "cosid.machine.distributor.file.directory",
    "cosid.layout.preset",
    "cosid.layout.epoch",
    "cosid.layout.unit",
    "cosid.layout.timestamp-bits",
    "cosid.layout.slot-bits",
    "cosid.layout.sequence-bits",
};

// A command-line flag (without "--") and the key it sets. A flag without a value (a switch) sets
// its key to `implied_value`; for the others implied_value is nullptr. --config is not here: it
// names the file (OptionSources::config_file). --store is listed twice: its value TYPE[:DIR] sets
// the type key, and the part after the first ':' the directory key (see split_store_flag()).
struct COSID_EXPORT ConfigFlag {
  const char* flag;
  const char* key;
  const char* implied_value;
};
inline constexpr ConfigFlag kConfigFlags[] = {
    {"namespace", "cosid.namespace", nullptr},
    {"slot", "cosid.machine.static.slot", nullptr},
    {"slot-from-hostname", "cosid.machine.static.slot-source", "stateful-set"},
    {"state-file", "cosid.machine.static.state-file", nullptr},
    {"ahead", "cosid.machine.static.ahead", nullptr},
    {"not-before", "cosid.machine.static.not-before", nullptr},
    {"require-state-file", "cosid.machine.static.require-state-file", "true"},
    {"store", "cosid.machine.distributor.type", nullptr},
    {"store", "cosid.machine.distributor.file.directory", nullptr},
    {"ttl", "cosid.machine.distributor.ttl", nullptr},
    {"tolerance", "cosid.machine.distributor.tolerance", nullptr},
    {"owner-key", "cosid.machine.distributor.owner-key", nullptr},
    {"preferred-slot", "cosid.machine.distributor.preferred-slot", nullptr},
    {"layout", "cosid.layout.preset", nullptr},
    {"epoch", "cosid.layout.epoch", nullptr},
    {"unit", "cosid.layout.unit", nullptr},
    {"timestamp-bits", "cosid.layout.timestamp-bits", nullptr},
    {"slot-bits", "cosid.layout.slot-bits", nullptr},
    {"sequence-bits", "cosid.layout.sequence-bits", nullptr},
};

// The environment variables and the keys they set. COSID_CONFIG, which names the config file, is
// not here.
struct COSID_EXPORT ConfigVariable {
  const char* name;
  const char* key;
};
inline constexpr ConfigVariable kConfigVariables[] = {
    {"COSID_NAMESPACE", "cosid.namespace"},
    {"COSID_SLOT", "cosid.machine.static.slot"},
    {"COSID_STATE_FILE", "cosid.machine.static.state-file"},
    {"COSID_AHEAD", "cosid.machine.static.ahead"},
    {"COSID_NOT_BEFORE", "cosid.machine.static.not-before"},
    {"COSID_OWNER_KEY", "cosid.machine.distributor.owner-key"},
    {"COSID_PREFERRED_SLOT", "cosid.machine.distributor.preferred-slot"},
};

// The entry of kConfigFlags for `flag` (given without "--"), or nullptr.
COSID_EXPORT const ConfigFlag* find_config_flag(std::string_view flag) noexcept;
// The key `flag` sets, or nullptr when it is not a config or layout flag.
COSID_EXPORT const char* key_for_flag(std::string_view flag) noexcept;

// The settings one --store VALUE gives: the type key with the text before the first ':' (all of
// it when there is none), and the directory key with the text after it, if any.
COSID_EXPORT std::vector<KeyValue> split_store_flag(std::string_view value);

// Resolves the options from `sources`. On success fills `out` and, in the second form,
// `settings` with one entry per key of kConfigKeys. On failure leaves `out` alone and sets `ec`:
// config_unreadable, config_syntax, config_unknown_key (also for a flag key not in kConfigKeys),
// config_duplicate_key, unset_variable, invalid_value, unknown_layout, layout_*,
// no_slot_configured, invalid_slot, no_hostname_ordinal or slot_out_of_range. A store type is
// only checked for its spelling here: whether a store of that name exists is for the
// lease::StoreRegistry that Runtime::open() uses (errc::unknown_store_type).
[[nodiscard]] COSID_EXPORT bool resolve_options(const OptionSources& sources, Options& out,
                                                std::error_code& ec,
                                                std::string* message = nullptr) noexcept;
[[nodiscard]] COSID_EXPORT bool resolve_options(const OptionSources& sources, Options& out,
                                                std::vector<Setting>& settings, std::error_code& ec,
                                                std::string* message = nullptr) noexcept;

// Checks options built in code by the rules above (the slot against the layout, ahead's range,
// ...). resolve_options() output always passes.
[[nodiscard]] COSID_EXPORT bool validate_options(const Options& options, std::error_code& ec,
                                                 std::string* message = nullptr) noexcept;

// The layout the cosid.layout.* entries of `flags` describe (other keys are ignored), for
// commands that take layout flags but no other options. Messages name the flags ("flag --epoch").
[[nodiscard]] COSID_EXPORT bool layout_from_settings(const std::vector<KeyValue>& flags,
                                                     Layout& out, std::error_code& ec,
                                                     std::string* message = nullptr) noexcept;

// A config file that resolves to `options` again (with an explicit slot, and the layout spelled
// out field by field). Keys at their default are written too, except an empty state-file, an
// empty owner-key, an unset preferred-slot, and the keys of the distributor that is not used.
COSID_EXPORT std::string to_config_text(const Options& options);

#if COSID_HAS_EXCEPTIONS
// Throwing overloads: throw cosid::Error with the message of the noexcept overload.
inline Options resolve_options(const OptionSources& sources) {
  std::error_code ec;
  std::string message;
  Options options;
  if (!resolve_options(sources, options, ec, &message)) detail::throw_error(ec, message);
  return options;
}
inline Options resolve_options(const OptionSources& sources, std::vector<Setting>& settings) {
  std::error_code ec;
  std::string message;
  Options options;
  if (!resolve_options(sources, options, settings, ec, &message)) {
    detail::throw_error(ec, message);
  }
  return options;
}
inline void validate_options(const Options& options) {
  std::error_code ec;
  std::string message;
  if (!validate_options(options, ec, &message)) detail::throw_error(ec, message);
}
inline Layout layout_from_settings(const std::vector<KeyValue>& flags) {
  std::error_code ec;
  std::string message;
  Layout layout;
  if (!layout_from_settings(flags, layout, ec, &message)) detail::throw_error(ec, message);
  return layout;
}
#endif

}  // namespace cosid

#endif  // COSID_OPTIONS_H_
