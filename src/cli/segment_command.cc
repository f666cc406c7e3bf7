// SPDX-License-Identifier: Apache-2.0
// cosid segment next | show: segment ids of one key, claimed in ranges from a range store
// (segment/range_store.h) and handed out by a SegmentGenerator (segment/generator.h), and the
// store's record of a key.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/id_output.h"
#include "cli/output_format.h"
#include "cli/stream_wait.h"
#include "cli/tool_stores.h"
#include "cli/warning_printer.h"
#include "config/config_keys.h"
#include "cosid/codec.h"
#include "cosid/segment/generator.h"
#include "cosid/segment/options.h"
#include "cosid/segment/range_rules.h"
#include "cosid/segment/range_store.h"
#include "cosid/store_registry.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kNextName = "segment next";
constexpr const char* kShowName = "segment show";

constexpr const char* kNextDescription =
    "Issues COUNT segment ids of KEY (default 1), one per line: dense, increasing numbers of\n"
    "one key, such as order numbers, claimed from the range store (--store, or\n"
    "cosid.segment.distributor.type in the config file) a segment of --step ids at a time and\n"
    "handed out from memory. The ids of one run are strictly increasing, and no id is issued\n"
    "twice by any process that shares the store: memory is this process alone, file:DIR the\n"
    "processes of one host, zookeeper:CONNECT (in a cosid built with the ZooKeeper store) a\n"
    "fleet. With -n 0 it issues ids until it receives SIGINT, SIGTERM or SIGHUP, or its standard\n"
    "output is closed (the reader of a pipe has gone), writing each line as soon as it is taken;\n"
    "with -n N a closed standard output is a failure (status 1) that says how many ids got out.\n"
    "A stream (-n 0) rides out a range store that does not answer (also at the start): it\n"
    "warns when the wait begins and every --report-every while it lasts, and says `resumed\n"
    "after` once a claim succeeds; it ends with status 1 on a sealed or exhausted key, a\n"
    "damaged record, or once it has waited --give-up-after.\n"
    "A signal ends a run cleanly at any moment, during the first claim (a store waiting for its\n"
    "lock) too: a stream exits 0; -n N prints the ids issued that the output takes at once and\n"
    "exits 128 + the signal (143 for SIGTERM), saying \"stopped by SIGTERM after K of N ids\".\n"
    "\n"
    "At the end the ids claimed but not issued are handed back to the store, so that the next\n"
    "run of the key resumes at the id after the last one issued, unless another process claimed\n"
    "meanwhile; a process that is killed skips them instead (a gap, never a repeat).\n"
    "\n"
    "The store must exist (cosid store init creates it once): a missing one is refused, no id\n"
    "is issued and nothing is created. A new key's first id is offset + 1, and its first claim\n"
    "says so on standard error (cosid: warning: segment key \"KEY\" had no record ...): expected\n"
    "for a new key, a sign of a mistyped key or a moved store for any other. --step and --offset\n"
    "set KEY's entry (cosid.segment.provider.KEY.step and .offset), over the config file's;\n"
    "without them the config file's entry of KEY, else cosid.segment.share, else step 100 and\n"
    "offset 0.\n"
    "\n"
    "Formats: decimal (the default), radix62, radix36, or json, one object a line:\n"
    "\n"
    "  {\"key\":\"KEY\",\"id\":ID}\n";

constexpr const char* kShowDescription =
    "Reads the store's record of KEY, without changing it, and prints whether it exists, the\n"
    "next value a claim will hand out, whether the key is sealed, and the record's version\n"
    "(which changes with every change). A key never claimed has no record: exists is false and\n"
    "next is the first id its first claim will hand out (offset + 1); that is not an error.\n"
    "With --json it prints one object:\n"
    "\n"
    "  {\"key\":\"KEY\",\"exists\":true,\"next\":N,\"sealed\":false,\"version\":V}\n";

constexpr const char* kFormats = "decimal, radix62, radix36, json";

// Ids taken with one next_batch() call when not streaming.
constexpr std::size_t kBatch = 1024;
// The most segments one claim takes unless the safe distance asks for more (GeneratorOptions).
constexpr std::uint32_t kMaxDistance = 1024;

// The flags both commands take: where the options come from.
OptionGroup segment_flags_group() {
  return {"Segment flags",
          {{"config", '\0', "FILE", "read the config file FILE (else the one COSID_CONFIG names)"},
           {"store", '\0', "STORE",
            "memory, file:DIR, zookeeper:CONNECT, or a store instance of the config file"}}};
}

// KEY, the one positional argument, as a segment key. False with a usage message.
bool key_argument(const ParsedArgs& args, std::string& key, std::string& error) {
  if (!one_positional(args, "KEY", "give the segment key, such as orders", key, error)) {
    return false;
  }
  Status status;
  if (!segment::check_key(key, status)) {
    error = status.message();
    return false;
  }
  return true;
}

// The segment options from --config, --store and, for `key`, --step and --offset. Reports a
// failure through call_failed() ("cosid: NAME: why") and returns false with `exit_status`.
bool resolve_segment(const Invocation& invocation, const char* name, const std::string& key,
                     segment::SegmentOptions& options, int& exit_status) {
  const ParsedArgs& args = invocation.args;
  OptionSources sources;
  sources.config_file = args.value_or("config", "");
  Status status;
  if (args.has("store") && !detail::split_store_flag(args.value_or("store", ""), sources.flags,
                                                     status, detail::kSegmentStoreFlag)) {
    exit_status = call_failed(invocation.err, name, status);
    return false;
  }
  for (const detail::SegmentKey field : {detail::kProviderOffset, detail::kProviderStep}) {
    const char* flag = detail::kSegmentKeyRows[field].flag;
    if (args.has(flag)) {
      sources.flags.emplace_back(detail::provider_key(key, field), args.value_or(flag, ""));
    }
  }
  options = segment::resolve_segment_options(sources, status);
  if (!status.ok()) {
    exit_status = call_failed(invocation.err, name, status);
    return false;
  }
  return true;
}

// The range store the options name, from the tool's registry; null after reporting the failure,
// with `exit_status` its status. A missing store is refused by the store (store_not_initialized),
// never made. `listener`, if not null, hears what the store reports (a key that starts anew).
std::shared_ptr<segment::RangeStore> open_store(const Invocation& invocation, const char* name,
                                                const segment::SegmentOptions& options,
                                                EventListener* listener, int& exit_status) {
  Status status;
  const std::unique_ptr<StoreRegistry> stores = make_store_registry(status);
  std::shared_ptr<segment::RangeStore> store;
  if (stores != nullptr) {
    store = stores->open_range(RangeStoreContext{options, listener}, status);
  }
  if (store == nullptr) exit_status = call_failed(invocation.err, name, status);
  return store;
}

// The --format value: `json` set, or one codec in `format`.
bool parse_segment_format(const std::string& name, bool& json, IdFormat& format,
                          std::string& error) {
  json = name == "json";
  if (json) return true;
  if (name != "friendly" && parse_format(name, format)) return true;
  error = "--format: unknown format " + quote(name) + ": use one of " + kFormats +
          (name == "friendly" ? " (friendly shows the time and slot of a Snowflake id, which a "
                                "segment id has not)"
                              : "");
  return false;
}

void append_id(std::string& chunk, const std::string& key, std::int64_t id, bool json,
               IdFormat format) {
  if (json) {
    chunk += Record().add_string("key", key).add_number("id", id).to_json_line();
    return;
  }
  char text[kMaxEncodedChars];
  chunk.append(text, encode(static_cast<std::uint64_t>(id), format, layouts::kDefault, text));
  chunk += '\n';
}

// How long a stream's next_batch() waits for a claim before its waiting warning (and a stop
// signal is seen): the default of 10 s suits a run of N ids, which fails after it.
constexpr std::chrono::milliseconds kStreamClaimWait{1000};

// The range store as --store named it (else as the configuration did), for a stream's warnings.
std::string range_store_part(const ParsedArgs& args, const segment::SegmentOptions& options) {
  if (args.has("store")) return "the range store " + args.value_or("store", "");
  const std::string where = options.store_directory.empty() ? "" : ":" + options.store_directory;
  return "the range store " + options.store_type + where;
}

// Opens the key's generator; a stream retries an open whose store does not answer, through
// `wait`. Null after reporting the failure, with `exit_status`; also null when a stop signal
// cancelled the first claim (a stream ends as asked, a batch with output's status for a signal).
std::unique_ptr<segment::SegmentGenerator> open_generator(
    const std::shared_ptr<segment::RangeStore>& store, const segment::GeneratorOptions& options,
    bool streaming, StreamWait& wait, const IdOutput& output, std::FILE* err, int& exit_status) {
  for (;;) {
    Status status;
    std::unique_ptr<segment::SegmentGenerator> generator =
        segment::SegmentGenerator::open(store, options, status);
    if (generator != nullptr) {
      wait.succeeded();
      return generator;
    }
    if (status.code() == errc::cancelled) {  // by a stop signal: the claimed values went back
      exit_status = output.exit_status(kExitOk);
      return nullptr;
    }
    if (!streaming || status.code() != errc::store_unavailable) {
      exit_status = call_failed(err, kNextName, status);
      return nullptr;
    }
    if (!wait.retry_after(status, exit_status)) return nullptr;
  }
}

int run_segment_next(Invocation& invocation) {
  const ParsedArgs& args = invocation.args;
  std::string key;
  std::string error;
  std::uint64_t count = 1;
  bool json = false;
  IdFormat format = IdFormat::kDecimal;
  StreamWaitOptions wait_options;
  if (!key_argument(args, key, error) ||
      (args.has("count") &&
       !parse_option_number("count", args.value_or("count", ""), UINT64_MAX, count, error)) ||
      !parse_segment_format(args.value_or("format", "decimal"), json, format, error) ||
      !parse_stream_wait_flags(args, count, wait_options, error)) {
    return usage_error(invocation.err, kNextName, std::string(kNextName) + ": " + error);
  }
  // Before anything is opened: a signal during the first claim cancels it (generator_options).
  install_stop_handlers();
  ignore_broken_pipe();
  segment::SegmentOptions options;
  int exit_status = kExitOk;
  if (!resolve_segment(invocation, kNextName, key, options, exit_status)) return exit_status;
  // Prints kRangeKeyStarted (a key's first claim) as a warning; it outlives the store.
  WarningPrinter warnings(invocation.err);
  IdOutput output(kNextName, invocation.out, invocation.err, count);
  const std::shared_ptr<segment::RangeStore> store =
      open_store(invocation, kNextName, options, &warnings, exit_status);
  if (store == nullptr) return exit_status;
  const segment::KeyDefinition definition = options.definition_of(key);
  segment::GeneratorOptions generator_options;
  generator_options.key = key;
  generator_options.offset = definition.offset;
  generator_options.step = definition.step;
  generator_options.safe_distance = options.safe_distance;
  generator_options.cancel = stop_flag();
  // As far ahead as 1024 segments, or as one claim may take (resolution checked that the safe
  // distance fits in it).
  generator_options.max_distance = std::max<std::uint32_t>(
      options.safe_distance, static_cast<std::uint32_t>(std::min<std::int64_t>(
                                 kMaxDistance, segment::kMaxClaim / definition.step)));
  const bool streaming = count == 0;
  if (streaming) generator_options.wait = kStreamClaimWait;
  StreamWait wait(kNextName, invocation.err, range_store_part(args, options), wait_options,
                  nullptr);
  const std::unique_ptr<segment::SegmentGenerator> generator = open_generator(
      store, generator_options, streaming, wait, output, invocation.err, exit_status);
  if (generator == nullptr) return exit_status;

  Status status;
  int result = kExitOk;
  std::vector<std::int64_t> ids(
      streaming ? 1 : static_cast<std::size_t>(std::min<std::uint64_t>(count, kBatch)));
  for (std::uint64_t issued = 0; streaming || issued < count;) {
    if (stop_requested()) break;  // with -n N too: exit_status() says how many got out
    const auto want = static_cast<std::size_t>(
        std::min<std::uint64_t>(ids.size(), streaming ? 1 : count - issued));
    const std::size_t taken = generator->next_batch(ids.data(), want, status);
    if (taken == 0 && streaming) {
      if (!wait.retry_after(status, result)) break;
      continue;
    }
    if (streaming) wait.succeeded();
    if (taken == 0) {
      // The ids taken before the failure are still printed.
      if (output.flush()) result = call_failed(invocation.err, kNextName, status);
      break;
    }
    for (std::size_t i = 0; i < taken; ++i) append_id(output.chunk(), key, ids[i], json, format);
    issued += taken;
    if (!output.lines_done(taken)) break;
  }
  if (result == kExitOk && !output.stopped() && !output.chunk().empty()) output.flush();
  // Hands the ids not issued back; if that fails they are skipped, which is safe: a warning.
  if (!generator->close(status)) {
    std::fprintf(invocation.err, "cosid: warning: %s: the ids claimed but not issued are skipped\n",
                 status.message().c_str());
  }
  return output.exit_status(result);
}

int run_segment_show(Invocation& invocation) {
  const ParsedArgs& args = invocation.args;
  std::string key;
  std::string error;
  if (!key_argument(args, key, error)) {
    return usage_error(invocation.err, kShowName, std::string(kShowName) + ": " + error);
  }
  segment::SegmentOptions options;
  int exit_status = kExitOk;
  if (!resolve_segment(invocation, kShowName, key, options, exit_status)) return exit_status;
  const std::shared_ptr<segment::RangeStore> store =
      open_store(invocation, kShowName, options, nullptr, exit_status);
  if (store == nullptr) return exit_status;
  segment::RangeState state;
  Status status;
  if (!store->read(key, state, status)) return call_failed(invocation.err, kShowName, status);
  const std::int64_t next = state.exists ? state.next : options.definition_of(key).offset + 1;
  Record record;
  record.add_string("key", key)
      .add_bool("exists", state.exists)
      .add_number("next", next)
      .add_bool("sealed", state.sealed)
      .add_number("version", state.version);
  const std::string text = args.has("json") ? record.to_json_line() : record.to_text();
  std::fwrite(text.data(), 1, text.size(), invocation.out);
  return kExitOk;
}

}  // namespace

const Command& segment_next_command() {
  static const Command command{
      kNextName,
      "issue segment ids of a key from a range store",
      "cosid segment next KEY [-n COUNT] [--step N] [--offset N] "
      "[--report-every DUR] [--give-up-after DUR] "
      "[--format decimal|radix62|radix36|json] [--config FILE] "
      "--store memory|file:DIR|zookeeper:CONNECT",
      kNextDescription,
      {
          {"Options",
           {
               {"count", 'n', "COUNT",
                "issue COUNT ids (default 1); 0: until SIGINT, SIGTERM, SIGHUP or a closed output"},
               {"step", '\0', "N", "ids per segment of KEY, 1 to 2^30 (default 100)"},
               {"offset", '\0', "N", "a new KEY's first id is N + 1, N from 0 to 2^62 (default 0)"},
               {"format", '\0', "FORMAT", "decimal (the default), radix62, radix36 or json"},
               help_option(),
           }},
          stream_wait_flags_group(),
          segment_flags_group(),
      },
      {
          {kExitOk,
           "the ids were issued, or -n 0 was stopped by SIGINT, SIGTERM, SIGHUP or a closed "
           "standard output"},
          {kExitFailure,
           "the range store did not allow issuing ids (the key is sealed or exhausted, the store "
           "cannot be reached or its record is damaged; with -n 0 only a fault waiting cannot "
           "mend, or --give-up-after ran out), the config file could not be read, or the output "
           "could not be written (see standard error)"},
          usage_exit_status(),
          signal_exit_status(),
      },
      run_segment_next,
  };
  return command;
}

const Command& segment_show_command() {
  static const Command command{
      kShowName,
      "print a key's record in a range store",
      "cosid segment show KEY [--json] [--config FILE] --store memory|file:DIR|zookeeper:CONNECT",
      kShowDescription,
      {
          {"Options",
           {
               {"json", '\0', nullptr, "print the record as one JSON object"},
               help_option(),
           }},
          segment_flags_group(),
      },
      {
          {kExitOk, "the record was printed, or that the key has none"},
          {kExitFailure, "the store or the config file could not be read (see standard error)"},
          usage_exit_status(),
      },
      run_segment_show,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
