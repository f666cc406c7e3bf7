// SPDX-License-Identifier: Apache-2.0
// Internal: the one table of config keys. Each row gives a key with its flag, its COSID_* variable,
// its default, its kind of value, its range, its parser (the Options field it sets and the check
// of the result) and its wording; everything else that names a key derives from the rows:
//
//   - the config file reader accepts the rows' keys and lists them in its messages
//     (config_file.cc);
//   - resolution layers the rows' variables and flags over the file, refuses a key of one
//     distributor given with the other by the rows' scope, and applies each row with a parser in
//     row order (resolver.cc);
//   - the range checks take their bounds from the rows and quote them (range_text()), so a
//     message never retypes a range (options_values.cc);
//   - `cosid config check` prints one setting per row, in row order, and to_config_text() writes
//     the rows back as a config file (resolver.cc, options.cc);
//   - the CLI's config and layout flags, their --help text, the manual page's ENVIRONMENT and
//     CONFIGURATION sections (src/cli/);
//   - tests/config/config_table_test.cc holds src/config/README.md's table against the rows.
//
// Adding a key is adding its row, its Options field and its line in src/config/README.md's table; a
// check beyond the parse is one function (check_* below). The keys the code treats by name (the
// slot, its source, the distributor type, the layout) have no parser and are applied by code of
// their own. The keys every lease store shares are rows of scope kStore under
// cosid.machine.distributor.
//
// The keys of a store instance (cosid.stores.NAME.*, options.h StoreConfig) are not rows: they
// belong to the instance's store type, whose factory reads and checks them (StoreSettings). The
// core checks only the instance's name and that it has a type; they have no flag of their own (but
// --store zookeeper:CONNECT) and no COSID_* variable.
//
// Thread safety: constant data and pure functions.
#ifndef COSID_SRC_CONFIG_CONFIG_KEYS_H_
#define COSID_SRC_CONFIG_CONFIG_KEYS_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cosid/options.h"

namespace cosid {
namespace detail {

// What a key's value is: for the manual page, the quoting of to_config_text(), and what the row's
// min and max bound (range_text()).
enum class ValueKind {
  kName,      // printable ASCII without spaces; min..max bytes
  kPath,      // a path without control bytes; min..max bytes
  kDuration,  // "500ms", "10s", "1m", "1h"; min..max milliseconds
  kInstant,   // Unix milliseconds or RFC 3339
  kBool,      // true | false
  kSlot,      // a whole number below 2^slot-bits (slot_source.h)
  kChoice,    // one of the words the wording names
  kWhole,     // a whole number, min..max
};

// Which distributor a key applies to. A key of one given while the other is chosen is refused:
// it would have no effect, or be ambiguous.
enum class Scope {
  kAny,      // both (the namespace, not-before, the distributor type, the layout)
  kStatic,   // the configured slot (cosid.machine.static.*)
  kStore,    // a slot leased from a store (cosid.machine.distributor.*)
  kSegment,  // the cosid.segment block (kSegmentKeyRows): no variable, no parser
};

// A row's index: what RawSettings and Setting lists are indexed by, in row order.
using Key = std::size_t;

// The text one source gave for a key.
struct RawValue {
  bool given = false;
  std::string text;
  std::string origin;  // "flag --slot", "env COSID_SLOT", "file cosid.yaml:4"
};

// Reads the text of a key into the Options field its row names, by the field's type (a text as
// it is, a duration, an instant, true | false, a slot below 2^slot-bits of options.layout); a
// text that does not parse is errc::invalid_value naming the key, the value and its origin.
bool read_value(Key key, const RawValue& raw, const Options& options, std::string& value,
                Status& status);
bool read_value(Key key, const RawValue& raw, const Options& options,
                std::chrono::milliseconds& value, Status& status);
bool read_value(Key key, const RawValue& raw, const Options& options, std::int64_t& value,
                Status& status);
bool read_value(Key key, const RawValue& raw, const Options& options, bool& value, Status& status);
bool read_value(Key key, const RawValue& raw, const Options& options,
                std::optional<std::uint32_t>& value, Status& status);
bool read_value(Key key, const RawValue& raw, const Options& options, StartMode& value,
                Status& status);
// A field's value as a config file would say it.
std::string value_text(const std::string& value);
std::string value_text(std::chrono::milliseconds value);
std::string value_text(std::int64_t value);
std::string value_text(bool value);
std::string value_text(const std::optional<std::uint32_t>& value);
std::string value_text(StartMode value);

// A row's parser: reads the key's text, when given, into the field `Field` of Options.
template <auto Field>
bool apply_field(Key key, const RawValue& raw, Options& options, Status& status) {
  return !raw.given || read_value(key, raw, options, options.*Field, status);
}
// The field's value as text, for a message about a default.
template <auto Field>
std::string field_text(const Options& options) {
  return value_text(options.*Field);
}

// The checks of the applied values (options_values.cc): given the options so far (the layout is
// resolved first) and the value the message quotes, which is the raw text or the default.
bool check_namespace(const Options& options, const RawValue& shown, Status& status);
bool check_state_file(const Options& options, const RawValue& shown, Status& status);
bool check_ahead(const Options& options, const RawValue& shown, Status& status);
bool check_not_before(const Options& options, const RawValue& shown, Status& status);
bool check_require_state_file(const Options& options, const RawValue& shown, Status& status);
bool check_lock_wait(const Options& options, const RawValue& shown, Status& status);
bool check_ttl(const Options& options, const RawValue& shown, Status& status);
bool check_tolerance(const Options& options, const RawValue& shown, Status& status);
bool check_owner_key(const Options& options, const RawValue& shown, Status& status);
// The directory of a store that keeps files (not memory), checked like a path.
bool check_store_directory_key(const Options& options, const RawValue& shown, Status& status);

// How resolution applies a row's text: its parser, the check of the result, and the text of the
// field for a message about its default. A row without a parser (the slot, its source, the
// distributor type, the layout) is applied by code of its own (resolver.cc, options_values.cc).
struct KeyParser {
  bool (*apply)(Key key, const RawValue& raw, Options& options, Status& status);
  bool (*check)(const Options& options, const RawValue& shown, Status& status);
  std::string (*text)(const Options& options);
};
template <auto Field>
constexpr KeyParser parser(bool (*check)(const Options&, const RawValue&, Status&) = nullptr) {
  return {&apply_field<Field>, check, &field_text<Field>};
}
inline constexpr KeyParser kByCode{nullptr, nullptr, nullptr};

struct ConfigKey {
  const char* key;         // "cosid.machine.static.ahead"
  const char* flag;        // "ahead" for --ahead, or nullptr
  const char* value_name;  // "DUR" for --ahead DUR; nullptr for a switch
  const char* implied;     // the value a switch sets ("true"); nullptr for a flag with a value
  const char* variable;    // "COSID_AHEAD", or nullptr
  const char* default_text;
  ValueKind kind;
  std::int64_t min;  // the bounds of kName, kPath, kDuration (ms) and kWhole; else 0
  std::int64_t max;
  Scope scope;
  KeyParser parser;
  const char* summary;  // one line: --help, src/config/README.md's table
  const char* wording;  // the full rule: the manual page
};

inline constexpr std::int64_t kHourMs = 3600 * 1000;

inline constexpr ConfigKey kConfigKeyRows[] = {
    {"cosid.namespace", "namespace", "NS", nullptr, "COSID_NAMESPACE", "cosid", ValueKind::kName, 1,
     255, Scope::kAny, parser<&Options::namespace_name>(check_namespace),
     "namespace of the state files and leases (not in the ids)",
     "The namespace: 1 to 255 bytes of printable ASCII without spaces. It is not in the ids: a "
     "state file and a lease store keep the windows of one namespace apart from another's."},
    {"cosid.machine.static.slot", "slot", "N", nullptr, "COSID_SLOT", "none: required",
     ValueKind::kSlot, 0, 0, Scope::kStatic, kByCode, "the slot this process issues ids on",
     "The slot: a whole number below 2^slot-bits, without sign or leading zero. There is no "
     "default slot: give one, take it from the host name, or lease one from a store."},
    {"cosid.machine.static.slot-source", "slot-from-hostname", nullptr, "stateful-set", nullptr,
     "explicit", ValueKind::kChoice, 0, 0, Scope::kStatic, kByCode,
     "take the slot from the ordinal at the end of the host name",
     "explicit | stateful-set. stateful-set takes the ordinal at the end of the host name "
     "(HOSTNAME, else gethostname()): order-service-3 is slot 3; a slot given as well is refused "
     "as ambiguous."},
    {"cosid.machine.static.state-file", "state-file", "PATH", nullptr, "COSID_STATE_FILE", "none",
     ValueKind::kPath, 1, 4095, Scope::kStatic, parser<&Options::state_file>(check_state_file),
     "state file that keeps the window across restarts",
     "A path, no control bytes. A relative one given in a config file is relative to the config "
     "file's directory; given as a flag or variable, to the working directory. Without one, "
     "nothing protects the ids from a clock set back across a restart."},
    {"cosid.machine.static.ahead", "ahead", "DUR", nullptr, "COSID_AHEAD", "10s",
     ValueKind::kDuration, 10, 24 * kHourMs, Scope::kStatic, parser<&Options::ahead>(check_ahead),
     "how far ahead the ceiling is written",
     "A duration (500ms, 10s, 1m, 1h); at least 2s for a layout that counts seconds, so that a "
     "window always holds a whole tick. A crash makes the restart wait up to ahead."},
    {"cosid.machine.static.not-before", "not-before", "TIME", nullptr, "COSID_NOT_BEFORE", "0",
     ValueKind::kInstant, 0, 0, Scope::kAny, parser<&Options::not_before_ms>(check_not_before),
     "issue no timestamp at or before TIME, Unix ms or RFC 3339",
     "Unix milliseconds or RFC 3339 (2026-11-30T02:22:58.123Z, offsets allowed); 0 means none. "
     "Otherwise it must lie at or after the layout's epoch (a smaller value is usually seconds "
     "given for milliseconds) and before the layout's end."},
    {"cosid.machine.static.require-state-file", "require-state-file", nullptr, "true", nullptr,
     "false", ValueKind::kBool, 0, 0, Scope::kStatic,
     parser<&Options::require_state_file>(check_require_state_file),
     "refuse to run without a state file", "true | false; true needs a state-file."},
    {"cosid.machine.static.lock-wait", "lock-wait", "DUR", nullptr, "COSID_LOCK_WAIT", "0",
     ValueKind::kDuration, 0, kHourMs, Scope::kStatic, parser<&Options::lock_wait>(check_lock_wait),
     "how long to wait for the state file while another process holds it",
     "A duration (0, 500ms, 10s, 1m) up to 1h. While another process holds the state file's lock "
     "the start tries again until lock-wait has passed, then fails as with 0 (at once): for "
     "shell loops that run short processes on one slot one after another."},
    {"cosid.machine.static.start", "start", "MODE", nullptr, "COSID_START", "wait",
     ValueKind::kChoice, 0, 0, Scope::kStatic, parser<&Options::start>(),
     "after a crash: wait for the clock to pass the file's ceiling, or borrow up to ahead",
     "wait | borrow. After an unclean stop (a crash, SIGKILL) the state file's ceiling lies ahead "
     "of the clock. wait: the start waits until the clock has passed it (up to ahead). borrow: "
     "when that gap is at most ahead, the first id comes at once, from the first tick past the "
     "ceiling, once the new ceiling is durable; ids' time then leads the clock by at most the gap "
     "until the clock catches up: within the gap below the sequence limit, as long as a sustained "
     "saturation lasts at it. A larger gap (not-before, a clock set far back, a borrowing run "
     "that crashed before the clock caught up) is waited for until the clock is within ahead, "
     "and the rest is borrowed."},
    {"cosid.machine.distributor.type", "store", "TYPE[:TARGET]", nullptr, nullptr, "static",
     ValueKind::kName, 1, 64, Scope::kAny, kByCode,
     "lease the slot: memory, file:DIR, zookeeper:CONNECT (a build with ZooKeeper), or an instance",
     "static (the slot is configured: the keys under cosid.machine.static) or the name of a lease "
     "store: memory, file, zookeeper (in a build with ZooKeeper), one registered in a "
     "StoreRegistry, or a store instance of cosid.stores (lower-case letters, digits, '-', "
     "'_', '.'). With a store the slot is leased at start; a static key given as well is refused "
     "as ambiguous, and a store key or store instance given without a store as having no effect. "
     "--store file:DIR sets the type and the directory in one flag; --store "
     "zookeeper:HOST:PORT[,HOST:PORT...][/CHROOT] the type and the instance zookeeper with that "
     "options.connectString (--store zookeeper alone: localhost:2181). Any other store takes no "
     "target after ':': configure it in cosid.stores."},
    {"cosid.machine.distributor.ttl", "ttl", "DUR", nullptr, nullptr, "30s", ValueKind::kDuration,
     300, kHourMs, Scope::kStore, parser<&Options::ttl>(check_ttl),
     "how long a lease lasts unless renewed",
     "How long a lease lasts unless renewed (at least 3s for a layout that counts seconds). It is "
     "renewed every ttl/3; a crashed holder's slot is free again after ttl + tolerance."},
    {"cosid.machine.distributor.tolerance", "tolerance", "DUR", nullptr, nullptr, "1s",
     ValueKind::kDuration, 0, kHourMs, Scope::kStore, parser<&Options::tolerance>(check_tolerance),
     "how far past expiry a lease may issue, alike in a namespace",
     "How far past its expiry a holder may still issue. Every runtime of a namespace must give "
     "the same; the store refuses another."},
    {"cosid.machine.distributor.owner-key", "owner-key", "KEY", nullptr, "COSID_OWNER_KEY",
     "HOST:PID", ValueKind::kName, 1, 255, Scope::kStore,
     parser<&Options::owner_key>(check_owner_key), "the lease holder's name",
     "The holder's logical name, printable ASCII without spaces. A live lease of the same key is "
     "never taken over."},
    {"cosid.machine.distributor.preferred-slot", "preferred-slot", "N", nullptr,
     "COSID_PREFERRED_SLOT", "none", ValueKind::kSlot, 0, 0, Scope::kStore,
     parser<&Options::preferred_slot>(), "the slot to lease when it is free",
     "A whole number below 2^slot-bits: tried first when free."},
    {"cosid.machine.distributor.file.directory", "store", "file:DIR", nullptr, nullptr, "none",
     ValueKind::kPath, 1, 4095, Scope::kStore,
     parser<&Options::store_directory>(check_store_directory_key), "the file store's directory",
     "The file store's directory, shared by every process of the namespace: required by type "
     "file, refused by memory; checked, and a relative one resolved, like state-file."},
    {"cosid.layout.preset", "layout", "NAME", nullptr, nullptr, "default", ValueKind::kChoice, 0, 0,
     Scope::kAny, kByCode, "preset: default (the default), seconds, js-safe or js-safe-seconds",
     "A layout preset: default, seconds, js-safe or js-safe-seconds. The keys below override its "
     "fields."},
    {"cosid.layout.epoch", "epoch", "MS", nullptr, nullptr, "the preset's", ValueKind::kWhole, 0, 0,
     Scope::kAny, kByCode, "instant of timestamp 0 in Unix ms; a whole second if the unit is s",
     "Unix milliseconds, even for a layout that counts seconds (then a whole second). When only "
     "the unit is changed, the preset's epoch is converted."},
    {"cosid.layout.unit", "unit", "UNIT", nullptr, nullptr, "the preset's", ValueKind::kChoice, 0,
     0, Scope::kAny, kByCode, "unit of the timestamp: ms or s",
     "ms | s: the unit of the timestamp."},
    {"cosid.layout.timestamp-bits", "timestamp-bits", "N", nullptr, nullptr, "the preset's",
     ValueKind::kWhole, 0, 63, Scope::kAny, kByCode,
     "bits of the timestamp; the three fields take 63 bits at most",
     "A whole number; Layout::validate() checks the layout the three bit counts make."},
    {"cosid.layout.slot-bits", "slot-bits", "N", nullptr, nullptr, "the preset's",
     ValueKind::kWhole, 0, 63, Scope::kAny, kByCode, "bits of the slot: 2^N slots",
     "A whole number; at most 31 with a lease store."},
    {"cosid.layout.sequence-bits", "sequence-bits", "N", nullptr, nullptr, "the preset's",
     ValueKind::kWhole, 0, 63, Scope::kAny, kByCode,
     "bits of the sequence: 2^N ids per tick and slot", "A whole number."},
};

inline constexpr Key kKeyCount = std::size(kConfigKeyRows);

void no_such_config_key();  // not constexpr: a key_of() that finds nothing does not compile

// The index of the row of `key` in `rows`, or N when no row has it.
template <std::size_t N>
constexpr std::size_t find_row(const ConfigKey (&rows)[N], std::string_view key) noexcept {
  for (std::size_t i = 0; i < N; ++i) {
    if (key == rows[i].key) return i;
  }
  return N;
}

// The index of the row of `key`; for the keys the code treats by name.
constexpr Key key_of(std::string_view key) {
  const Key row = find_row(kConfigKeyRows, key);
  return row < kKeyCount ? row : (no_such_config_key(), row);
}

inline constexpr Key kNamespace = key_of("cosid.namespace");
inline constexpr Key kSlot = key_of("cosid.machine.static.slot");
inline constexpr Key kSlotSource = key_of("cosid.machine.static.slot-source");
inline constexpr Key kStateFile = key_of("cosid.machine.static.state-file");
inline constexpr Key kAhead = key_of("cosid.machine.static.ahead");
inline constexpr Key kNotBefore = key_of("cosid.machine.static.not-before");
inline constexpr Key kRequireStateFile = key_of("cosid.machine.static.require-state-file");
inline constexpr Key kLockWait = key_of("cosid.machine.static.lock-wait");
inline constexpr Key kStart = key_of("cosid.machine.static.start");
inline constexpr Key kStoreType = key_of("cosid.machine.distributor.type");
inline constexpr Key kTtl = key_of("cosid.machine.distributor.ttl");
inline constexpr Key kTolerance = key_of("cosid.machine.distributor.tolerance");
inline constexpr Key kOwnerKey = key_of("cosid.machine.distributor.owner-key");
inline constexpr Key kPreferredSlot = key_of("cosid.machine.distributor.preferred-slot");
inline constexpr Key kStoreDirectory = key_of("cosid.machine.distributor.file.directory");
inline constexpr Key kPreset = key_of("cosid.layout.preset");
inline constexpr Key kEpoch = key_of("cosid.layout.epoch");
inline constexpr Key kUnit = key_of("cosid.layout.unit");
inline constexpr Key kTimestampBits = key_of("cosid.layout.timestamp-bits");
inline constexpr Key kSlotBits = key_of("cosid.layout.slot-bits");
inline constexpr Key kSequenceBits = key_of("cosid.layout.sequence-bits");

// A key's offset (RangeRequest::offset) and step (the generator's) at most, and the segments kept
// ready ahead at most (the generator's max_distance bounds them).
inline constexpr std::int64_t kMaxSegmentOffset = std::int64_t{1} << 62;
inline constexpr std::int64_t kMaxSegmentStep = std::int64_t{1} << 30;
inline constexpr std::int64_t kMaxSafeDistance = 65536;

// The keys of the cosid.segment block (segment/options.h): rows of a table of their own, as they
// set no field of Options (Scope::kSegment, no variable, no parser). resolve_options() accepts
// them, checks their values and leaves them alone; resolve_segment_options() reads them into
// segment::SegmentOptions (src/config/resolver.cc). The config file reader accepts them like the
// rows above and lists them in its messages, the manual page and src/config/README.md's table list
// them (tests/config/config_table_test.cc holds that). In a provider row's key, KEY stands for a
// segment key (range_store.h: 1 to 200 bytes of [A-Za-z0-9_.-]; a config file's block names take no
// '.', a flag's key may). No COSID_* variable sets them; `cosid segment` sets the distributor with
// --store and a key's entry with --offset and --step (the flag column).
inline constexpr ConfigKey kSegmentKeyRows[] = {
    {"cosid.segment.distributor.type", "store", "TYPE[:TARGET]", nullptr, nullptr, "none: required",
     ValueKind::kName, 1, 64, Scope::kSegment, kByCode,
     "the range store segment ids are claimed from",
     "file, zookeeper, memory, or a store instance of cosid.stores: the range store every key's "
     "segments are claimed from. There is no default: segment ids need a store, shared by every "
     "process that issues ids of the same keys."},
    {"cosid.segment.distributor.file.directory", "store", "file:DIR", nullptr, nullptr, "none",
     ValueKind::kPath, 1, 4095, Scope::kSegment, kByCode, "the file range store's directory",
     "The file range store's directory, shared by every process of the host that issues ids of "
     "the same keys: required by type file, refused by memory; checked, and a relative one "
     "resolved, like state-file."},
    {"cosid.segment.share.offset", nullptr, "N", nullptr, nullptr, "0", ValueKind::kWhole, 0,
     kMaxSegmentOffset, Scope::kSegment, kByCode,
     "where every key starts: its first id is offset + 1",
     "A whole number from 0 to 2^62: a new key's first id is offset + 1, and a key below it jumps "
     "up to it. For every key without a provider entry of its own."},
    {"cosid.segment.share.step", nullptr, "N", nullptr, nullptr, "100", ValueKind::kWhole, 1,
     kMaxSegmentStep, Scope::kSegment, kByCode, "ids per segment of every key",
     "A whole number from 1 to 2^30: the ids of one segment, the unit of every claim. For every "
     "key without a provider entry of its own. A crash skips at most the segments kept ready."},
    {"cosid.segment.provider.KEY.offset", "offset", "N", nullptr, nullptr, "share.offset",
     ValueKind::kWhole, 0, kMaxSegmentOffset, Scope::kSegment, kByCode,
     "where the key KEY starts: its first id is offset + 1",
     "As share.offset, for the key KEY alone (a segment key: 1 to 200 bytes of letters, digits, "
     "'_', '.' and '-')."},
    {"cosid.segment.provider.KEY.step", "step", "N", nullptr, nullptr, "share.step",
     ValueKind::kWhole, 1, kMaxSegmentStep, Scope::kSegment, kByCode,
     "ids per segment of the key KEY", "As share.step, for the key KEY alone."},
    {"cosid.segment.chain.safe-distance", nullptr, "N", nullptr, nullptr, "2", ValueKind::kWhole, 1,
     kMaxSafeDistance, Scope::kSegment, kByCode, "segments kept ready ahead of the consumers",
     "A whole number from 1 to 65536: the fewest segments the background claim keeps ready; more "
     "while consumers find none ready. With the step, at most 2^40 ids in one claim."},
};

// A row of kSegmentKeyRows by its index.
using SegmentKey = std::size_t;
inline constexpr SegmentKey kSegmentKeyCount = std::size(kSegmentKeyRows);

// The index of the segment row of `key` (a provider row's key with KEY); for the keys the code
// treats by name.
constexpr SegmentKey segment_key_of(std::string_view key) {
  const SegmentKey row = find_row(kSegmentKeyRows, key);
  return row < kSegmentKeyCount ? row : (no_such_config_key(), row);
}

inline constexpr SegmentKey kSegmentType = segment_key_of("cosid.segment.distributor.type");
inline constexpr SegmentKey kSegmentDirectory =
    segment_key_of("cosid.segment.distributor.file.directory");
inline constexpr SegmentKey kShareOffset = segment_key_of("cosid.segment.share.offset");
inline constexpr SegmentKey kShareStep = segment_key_of("cosid.segment.share.step");
inline constexpr SegmentKey kProviderOffset = segment_key_of("cosid.segment.provider.KEY.offset");
inline constexpr SegmentKey kProviderStep = segment_key_of("cosid.segment.provider.KEY.step");
inline constexpr SegmentKey kSafeDistance = segment_key_of("cosid.segment.chain.safe-distance");

// The block of the provider entries: cosid.segment.provider.KEY.offset and .step.
inline constexpr std::string_view kProviderBlock = "cosid.segment.provider";

// The segment row of `path`: a key of the table (not a provider row's), or a provider entry's
// key, cosid.segment.provider.KEY.offset or .step (kProviderOffset, kProviderStep) with `provider`
// set to KEY, which may hold dots (it is not checked here). kSegmentKeyCount for any other path.
SegmentKey find_segment_key(std::string_view path, std::string_view& provider) noexcept;

// A provider entry's key: cosid.segment.provider.KEY.FIELD.
std::string provider_key(std::string_view provider, SegmentKey field);

// The name of a key: its row's key.
inline const char* key_name(Key key) noexcept { return kConfigKeyRows[key].key; }

// The index of `key`, or kKeyCount when no row has it.
inline Key find_key(std::string_view key) noexcept { return find_row(kConfigKeyRows, key); }

// The row of `path` in either table (a provider entry's key by its provider row), or nullptr.
const ConfigKey* find_any_row(std::string_view path) noexcept;

// True iff `path` is a mapping above some key ("cosid", "cosid.machine", ...), the segment keys and
// a provider entry's block (cosid.segment.provider.KEY) included.
bool is_key_block(std::string_view path) noexcept;

// The names directly under the block `parent` ("" for the top level), comma separated.
std::string keys_under(std::string_view parent);

// "from 10ms to 24h", "1 to 255 bytes": the range a row's min and max give, as messages quote it.
// A whole number's is "1 to 63" in the key table and "from 1 to 1073741824" in the segment table,
// whose messages said so first.
std::string range_text(const ConfigKey& row);
inline std::string range_text(Key key) { return range_text(kConfigKeyRows[key]); }
inline std::string segment_range_text(SegmentKey key) { return range_text(kSegmentKeyRows[key]); }

// Whether the key is a layout key (cosid.layout.*).
bool is_layout_key(Key key) noexcept;

// The row of the switch or flag `flag` (without "--"), or nullptr. --store is the type's row.
const ConfigKey* find_config_flag(std::string_view flag) noexcept;

// The key `flag` sets, or nullptr when it is not a config or layout flag.
const char* key_for_flag(std::string_view flag) noexcept;

// A character of a config key's name: a letter, a digit, '-' or '_'.
constexpr bool is_key_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

// The block of the store instances, and the bytes of an instance's name at most.
inline constexpr std::string_view kStoresBlock = "cosid.stores";
inline constexpr std::size_t kMaxStoreNameBytes = 64;
// The instance --store zookeeper:CONNECT makes (of type zookeeper), and the key it sets.
inline constexpr std::string_view kZooKeeperType = "zookeeper";
inline constexpr std::string_view kConnectStringKey = "options.connectString";

// Whether `name` may name a store instance: lower-case letters, digits, '-', '_' (1 to 64 bytes).
bool is_store_instance_name(std::string_view name) noexcept;

// Whether `key` is a key below a store instance: dot-separated names of key characters.
bool is_store_setting_key(std::string_view key) noexcept;

// Splits "cosid.stores.NAME[.KEY]" into NAME and KEY ("" for the instance itself); false when
// `path` does not lie below cosid.stores.
bool split_store_key(std::string_view path, std::string_view& name, std::string_view& key) noexcept;

// The keys a --store flag sets: the lease distributor's (cosid.machine.distributor.type and
// .file.directory), or the segment distributor's for `cosid segment`.
struct StoreFlagKeys {
  const char* type;
  const char* directory;
};
inline constexpr StoreFlagKeys kMachineStoreFlag{kConfigKeyRows[kStoreType].key,
                                                 kConfigKeyRows[kStoreDirectory].key};
inline constexpr StoreFlagKeys kSegmentStoreFlag{kSegmentKeyRows[kSegmentType].key,
                                                 kSegmentKeyRows[kSegmentDirectory].key};

// Appends the settings one --store VALUE gives to `settings`: the type key with the text before
// the first ':' (all of it when there is none), and the target after it: the directory key of
// file, or for zookeeper the instance "zookeeper" of type zookeeper with options.connectString
// (an empty one is refused). Any other type with a ':' is refused with invalid_value: it takes no
// target on the command line. On failure `settings` is left as it was. The keys are `keys`'s:
// the lease distributor's unless told otherwise.
[[nodiscard]] bool split_store_flag(std::string_view value, std::vector<KeyValue>& settings,
                                    Status& status, const StoreFlagKeys& keys = kMachineStoreFlag);

// "flag --slot" for a key that arrived as a flag with `value` ("flag --store" for the keys
// split_store_flag() makes, "flag --step" for a provider entry's step).
std::string flag_origin(std::string_view key, std::string_view value);

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_CONFIG_CONFIG_KEYS_H_
