// SPDX-License-Identifier: Apache-2.0
// Options: the settings of a Runtime (a static slot, or a slot leased from a store), and how they
// are resolved from command-line flags, COSID_* environment variables, a config file and built-in
// defaults.
//
// Precedence, key by key: flag > COSID_* variable > config file > default. The config file is the
// one given with --config (OptionSources::config_file), else the one COSID_CONFIG names, else none;
// there is no default path. It is a small YAML subset (see "Config file" below) whose values may
// say ${VAR} or ${VAR:-DEFAULT}; flags and COSID_* values are taken literally.
//
// Relative paths: a relative path that the config file gives (cosid.machine.static.state-file,
// cosid.machine.distributor.file.directory, cosid.segment.distributor.file.directory; after
// ${VAR} interpolation) is relative to the config file's directory: "state-file: cosid.state" in
// conf/cosid.yaml is conf/cosid.state, wherever the process runs. The directory is joined to the
// path as text ("conf/" + "cosid.state"), not made absolute, so a config file named relative to
// the working directory gives a path relative to it too. Flags and COSID_* variables are typed
// where the command runs and stay relative to the working directory; an absolute path is
// unchanged everywhere. A config_text (below) resolves against the directory of config_file when
// that names one, else stays relative to the working directory. Setting::value shows the resolved
// path and Setting::origin what the file wrote.
//
// The keys, with their flag, variable, default and rule, are listed by `cosid help --man`
// (CONFIGURATION), in src/config/README.md's table, and by `cosid config check` with their
// effective values. Values are parsed strictly; anything else is refused with errc::invalid_value
// naming the key, the value, where it came from and the rule. A slot is never defaulted. A store
// type (cosid.machine.distributor.type) other than static leases the slot at start from that
// store (lease/store.h); a static key given with a store is refused as ambiguous, a store key
// given while the type is static as having no effect. The cosid.stores block declares store
// instances (cosid.stores.NAME.type and the keys below NAME, which belong to that store type and
// are read by its factory: StoreConfig below); the distributor type names the one to use, and an
// instance it does not name is refused as having no effect. The cosid.segment block (segment ids,
// cosid/segment/options.h) is checked here too and otherwise left to resolve_segment_options(); an
// instance its distributor names is accepted and left out of Options::stores.
// An empty value is a value, and refused like any other invalid one: COSID_SLOT="" is an error,
// not "unset".
//
// Config file: block mappings of scalars under one top-level `cosid:` key, indented with spaces
// (the same number for the keys of one block), `# comments` on their own line or after a value
// and a space, plain, 'single-quoted' ('' is a quote) or "double-quoted" (\" \\ \n \t) scalars,
// CRLF line ends allowed. Refused with errc::config_syntax and "FILE:LINE: why": tabs in the
// indentation, lists, anchors, aliases, tags, flow style, block scalars, "---", a null value, a
// known key without a value; errc::config_duplicate_key for a key given twice;
// errc::config_unknown_key for any key cosid does not know.
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

// One key of a store instance (below), as text: the store's factory parses it.
struct COSID_EXPORT StoreSetting {
  std::string key;     // below the instance: "timeout", "options.connectString"
  std::string value;   // the raw text
  std::string origin;  // "file cosid.yaml:7", "flag --store"
};

// A store instance of the config file's cosid.stores block (cosid.stores.NAME.type and the keys
// below NAME): the registered store type it is made by, and its other keys as text, each with its
// origin, for that store's factory to read (cosid/store_registry.h, StoreSettings) and to refuse
// when it does not know one. cosid.machine.distributor.type names an instance or a store type.
struct COSID_EXPORT StoreConfig {
  std::string name;                    // NAME: lower-case letters, digits, '-', '_' (1 to 64)
  std::string type;                    // cosid.stores.NAME.type: a registered store type
  std::vector<StoreSetting> settings;  // every other key below NAME, in the order given
};

// What the start of a static slot does when its state file's ceiling lies ahead of the clock (the
// file of an unclean stop: a crash, SIGKILL, a power cut), so that ids up to that ceiling may
// exist.
enum class StartMode {
  // Wait until the clock has passed the floor (up to start_wait), then issue: ids' time is the
  // clock's from the first id. The wait is up to `ahead` (10 s by default) after a crash.
  kWait,
  // Issue at once, from the first tick past the floor, when the floor lies at most `ahead` ahead
  // of the clock: the first ceiling (floor + ahead) is made durable first, as always, and ids'
  // time then leads the clock by at most that gap (never more than `ahead`, always under the
  // durable ceiling) until the clock catches up: within the gap at rates below the sequence limit,
  // for as long as the saturation lasts at the limit. A larger gap (a not-before, a clock set far
  // back, or a run that borrowed and crashed before the clock caught up: up to 2 x ahead) is
  // waited for until the clock is within `ahead` (within start_wait, else the start fails as
  // kWait's does), and the rest is borrowed. A clean stop's file needs neither: its floor is the
  // last id's timestamp.
  kBorrow,
};

struct COSID_EXPORT Options {
  std::string namespace_name = "cosid";
  Layout layout = layouts::kDefault;
  std::uint32_t slot = 0;  // set it (or resolve it): there is no default slot
  SlotSource slot_source = SlotSource::kExplicit;
  std::string state_file;  // empty: none, and no protection against a clock set back
  std::chrono::milliseconds ahead{10000};
  std::int64_t not_before_ms = 0;  // Unix ms; 0: none
  bool require_state_file = false;
  // How long the start waits for the state file's lock while another process holds it, retrying;
  // 0: it fails at once (0 to 1h).
  std::chrono::milliseconds lock_wait{0};
  // After an unclean stop: wait for the clock to pass the floor, or issue at once with ids' time
  // ahead of the clock by at most the gap (StartMode above). A static slot's setting: a lease
  // store refuses kBorrow.
  StartMode start = StartMode::kWait;
  // How long the start may wait for the clock to pass the floor. resolve_options() sets it to
  // ahead + 1s (static) or ttl + tolerance (a store); set it afterwards to change it (no flag,
  // variable or key sets it).
  std::chrono::milliseconds start_wait{11000};
  // The slot distributor: "static" (slot, slot_source, state_file, ahead above), or the name of a
  // lease store (cosid/store_registry.h) from which the slot is leased.
  std::string store_type = "static";
  std::chrono::milliseconds ttl{30000};
  std::chrono::milliseconds tolerance{1000};
  std::string owner_key;                        // empty: "HOST:PID"
  std::optional<std::uint32_t> preferred_slot;  // tried first when free
  std::string store_directory;                  // the file store's directory
  // The store instances of the cosid.stores block; store_type may name one of them.
  std::vector<StoreConfig> stores;

  // Whether the slot comes from a lease store rather than from configuration.
  bool uses_store() const noexcept { return store_type != "static"; }
};

// Where resolve_options() looks.
struct COSID_EXPORT OptionSources {
  // The config file given with --config. Empty: the one COSID_CONFIG names, else none.
  std::string config_file;
  // When set, read instead of a file (tests, fuzzing); config_file names it in messages, and its
  // directory, if it has one, is the one the text's relative paths resolve against (as if the
  // text were that file's).
  std::optional<std::string> config_text;
  // Flags as canonical keys and raw values, in command-line order; a later one wins.
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

// Resolves the options from `sources` and returns them; the second form also fills `settings`
// with one entry per key, in the order `cosid config check` prints them. On failure returns
// default Options and sets `status`: config_unreadable, config_syntax, config_unknown_key (also
// for a flag key cosid does not know), config_duplicate_key, unset_variable, invalid_value,
// unknown_layout, layout_*, no_slot_configured, invalid_slot, no_hostname_ordinal or
// slot_out_of_range. A store type is only checked for its spelling here: whether a store of that
// name exists is for the StoreRegistry that Runtime::open() uses (errc::unknown_store_type).
[[nodiscard]] COSID_EXPORT Options resolve_options(const OptionSources& sources,
                                                   Status& status) noexcept;
[[nodiscard]] COSID_EXPORT Options resolve_options(const OptionSources& sources,
                                                   std::vector<Setting>& settings,
                                                   Status& status) noexcept;

// Checks options built in code by the rules above (the slot against the layout, ahead's range,
// ...). resolve_options() output always passes.
[[nodiscard]] COSID_EXPORT bool validate_options(const Options& options, Status& status) noexcept;

// The layout the cosid.layout.* entries of `flags` describe (other keys are ignored), for
// commands that take layout flags but no other options. Messages name the flags ("flag --epoch").
// On failure returns a default Layout and sets `status`.
[[nodiscard]] COSID_EXPORT Layout layout_from_settings(const std::vector<KeyValue>& flags,
                                                       Status& status) noexcept;

// A config file that resolves to `options` again (with an explicit slot, and the layout spelled
// out field by field). Keys at their default are written too, except an empty state-file, an
// empty owner-key, an unset preferred-slot, and the keys of the distributor that is not used.
// Relative paths are written as they are: read from a file in another directory than the working
// directory, they would resolve against that directory (above).
COSID_EXPORT std::string to_config_text(const Options& options);

#if COSID_HAS_EXCEPTIONS
// Throwing overloads: throw cosid::Error with the message of the noexcept overload.
inline Options resolve_options(const OptionSources& sources) {
  Status status;
  Options options = resolve_options(sources, status);
  detail::throw_if_failed(status);
  return options;
}
inline Options resolve_options(const OptionSources& sources, std::vector<Setting>& settings) {
  Status status;
  Options options = resolve_options(sources, settings, status);
  detail::throw_if_failed(status);
  return options;
}
inline void validate_options(const Options& options) {
  Status status;
  (void)validate_options(options, status);
  detail::throw_if_failed(status);
}
inline Layout layout_from_settings(const std::vector<KeyValue>& flags) {
  Status status;
  Layout layout = layout_from_settings(flags, status);
  detail::throw_if_failed(status);
  return layout;
}
#endif

}  // namespace cosid

#endif  // COSID_OPTIONS_H_
