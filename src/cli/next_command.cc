// SPDX-License-Identifier: Apache-2.0
// cosid next: issues ids on a static slot or on one leased from a store (--store), from the
// options that flags, COSID_* variables and a config file resolve to.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <system_error>
#include <thread>

#include "cli/commands.h"
#include "cli/config_flags.h"
#include "cli/id_output.h"
#include "cli/id_text.h"
#include "cli/layout_flags.h"
#include "cli/stream_wait.h"
#include "cli/tool_stores.h"
#include "cli/warning_printer.h"
#include "cosid/codec.h"
#include "cosid/metrics.h"
#include "cosid/options.h"
#include "cosid/runtime.h"
#include "cosid/store_registry.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "next";

constexpr const char* kDescription =
    "Issues COUNT new ids (default 1) on the configured slot, one per line. With -n 0 it issues\n"
    "ids until it receives SIGINT, SIGTERM or SIGHUP, or its standard output is closed (the\n"
    "reader of a pipe has gone), writing each line as soon as it is made; then it shuts down\n"
    "cleanly, so that the state file records the last timestamp, and exits 0. A signal does so\n"
    "at any moment: during the start (nothing is issued, a lease taken is released) and while\n"
    "standard output is blocked (the lines not yet written are dropped: a gap, never a repeat).\n"
    "With -n N a closed standard output is a failure (status 1): the message says how many ids\n"
    "got out. A signal during -n N also shuts down cleanly and prints the ids issued that the\n"
    "output takes at once, then exits 128 + the signal (143 for SIGTERM) with \"stopped by\n"
    "SIGTERM after K of N ids\": a script must not take a short batch for a whole one.\n"
    "--rate N paces a stream at N ids per second (for a demo that must not fill a disk).\n"
    "\n"
    "Formats: decimal (the default), radix62, radix36, friendly, or json, one object a line:\n"
    "\n"
    "  {\"id\":\"ID\",\"timestamp_ms\":UNIX_MS,\"time\":\"TIME\",\"slot\":S,\"sequence\":Q}\n"
    "\n"
    "With --metrics, the runtime's counters and window are written to standard error at exit,\n"
    "in the Prometheus text format (cosid_ids_issued_total, cosid_state_writes_total, ...).\n"
    "\n"
    "A slot is required: --slot N, COSID_SLOT=N, the config file, or --slot-from-hostname;\n"
    "or --store memory|file:DIR|zookeeper:CONNECT (or a store instance of the config file)\n"
    "leases one: the lease is renewed while ids are issued and released with the last\n"
    "timestamp at the end. A file or ZooKeeper store must exist (cosid store init creates it\n"
    "once): a missing one is refused and nothing is created. Without a state file a static slot's "
    "restart is not protected\n"
    "against a clock set back: a warning says so. Warnings go to standard error as\n"
    "`cosid: warning: MESSAGE`.\n"
    "\n"
    "A stream (-n 0) rides out trouble that passes: when the state file's writes fail or are\n"
    "slow, the store does not answer (also at the start), a renewal is late, the lease is lost\n"
    "or the clock is behind the floor, it stops issuing, warns once when the wait begins and\n"
    "every --report-every while it lasts (naming the state file or the store, its last error,\n"
    "the store's clock skew, and since when), and goes on with one `resumed after` line once\n"
    "ids can be issued again (after a lost lease, on the slot leased in its place). It ends\n"
    "with status 1 on a fault that waiting cannot mend (a replaced state file, a damaged\n"
    "record, other terms in the store, a layout run out), or once it has waited\n"
    "--give-up-after. With -n N the first such failure ends the run with status 1.\n";

constexpr const char* kWriteFormats = "decimal, radix62, radix36, friendly, json";

// The --format value: `json` set, or one codec in `format`.
bool parse_write_format(const std::string& name, bool& json, IdFormat& format, std::string& error) {
  json = name == "json";
  if (json || parse_format(name, format)) return true;
  error = "--format: unknown format " + quote(name) + ": use one of " + kWriteFormats;
  return false;
}

void append_id(std::string& chunk, std::uint64_t id, bool json, IdFormat format,
               const Layout& layout) {
  if (json) {
    chunk += id_record(id, layout).to_json_line();
    return;
  }
  char text[kMaxEncodedChars];
  chunk.append(text, encode(id, format, layout, text));
  chunk += '\n';
}

// With -n N, after a lost lease: the generator over the slot the runtime leases next, once it has
// one; null when none came within ttl + tolerance or on a stop signal (a stream waits instead:
// next_riding()).
Generator* replacement_generator(Runtime& runtime, const Options& options) {
  const auto deadline = std::chrono::steady_clock::now() + options.ttl + options.tolerance;
  for (;;) {
    Status status;
    Generator* generator = runtime.generator("default", status);
    if (generator != nullptr || status.code() != errc::slot_lost) return generator;
    if (std::chrono::steady_clock::now() >= deadline || stop_requested()) return nullptr;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Closes the runtime, reporting a failure as a warning (the durable ceiling is still safe); with
// `metrics`, then writes the final counts as Prometheus text.
void close_runtime(Runtime& runtime, std::FILE* err, bool metrics) {
  Status status;
  if (!runtime.close(status)) {
    const std::string message = status.message();
    std::fprintf(err, "cosid: warning: %s%s\n", message.c_str(),
                 write_hint(status.code(), message));
  }
  if (metrics) {
    std::fputs(to_prometheus(runtime.metrics()).c_str(), err);
    std::fflush(err);
  }
}

// The --rate value: ids per second of a stream, 1 to kMaxRate; 0 when not given. Only with -n 0:
// a count of ids is a batch whose end the caller waits for, so pacing it would only slow it.
constexpr std::uint64_t kMaxRate = 1000000;
bool parse_rate(const ParsedArgs& args, std::uint64_t count, std::uint64_t& rate,
                std::string& error) {
  if (!args.has("rate")) return true;
  if (!parse_option_number("rate", args.value_or("rate", ""), kMaxRate, rate, error)) return false;
  if (rate == 0) {
    error = "--rate: 0 ids per second issues nothing: give at least 1 (ids per second)";
    return false;
  }
  if (count != 0) {
    error = "--rate paces a stream: give it with -n 0, or leave it out with -n " +
            std::to_string(count);
    return false;
  }
  return true;
}

// What keeps a stream's ids going, for its waiting warnings: the lease store as --store named it
// (else as the configuration did), or the state file, or (a static slot without one) the clock.
std::string window_part(const ParsedArgs& args, const Options& options) {
  if (options.uses_store()) {
    if (args.has("store")) return "the lease store " + args.value_or("store", "");
    const std::string where = options.store_directory.empty() ? "" : ":" + options.store_directory;
    return "the lease store " + options.store_type + where;
  }
  if (!options.state_file.empty()) return "the state file " + options.state_file;
  return "the clock";
}

// Opens the runtime; a stream retries an open that fails for a reason waiting mends (a store
// that does not answer, every slot held), through `wait`. Null after reporting the failure, with
// `exit_status`; also null when a stop signal cancelled the start, which undid what it did (a
// stream ends as asked, a batch with output's status for a signal).
std::unique_ptr<Runtime> open_runtime(const Options& options, const RuntimeEnvironment& environment,
                                      bool streaming, StreamWait& wait, const IdOutput& output,
                                      std::FILE* err, int& exit_status) {
  for (;;) {
    Status opening;
    std::unique_ptr<Runtime> runtime = Runtime::open(options, environment, opening);
    if (runtime != nullptr) {
      wait.succeeded();
      return runtime;
    }
    if (opening.code() == errc::cancelled) {
      exit_status = output.exit_status(kExitOk);
      return nullptr;
    }
    const bool retry =
        opening.code() == errc::store_unavailable || opening.code() == errc::lease_exhausted;
    if (!streaming || !retry) {
      exit_status = call_failed(err, kName, opening);
      return nullptr;
    }
    if (!wait.retry_after(opening, exit_status)) return nullptr;
  }
}

// The next id of a stream: on a failure waiting can mend, waits and retries (over the slot leased
// in place of a lost one) until an id comes, and returns true with it; false when the stream
// ends, with `exit_status`.
bool next_riding(Runtime& runtime, Generator*& generator, StreamWait& wait, std::uint64_t& id,
                 int& exit_status) {
  for (;;) {
    Status outcome;
    id = generator->next(outcome);
    if (outcome.ok()) {
      wait.succeeded();
      return true;
    }
    if (!wait.retry_after(outcome, exit_status)) return false;
    if (outcome.code() == errc::slot_lost) {
      Status ignored;  // slot_lost until the new slot is leased: the wait goes on
      Generator* replacement = runtime.generator("default", ignored);
      if (replacement != nullptr) generator = replacement;
    }
  }
}

int run_next(Invocation& invocation) {
  const ParsedArgs& args = invocation.args;
  std::string error;
  std::uint64_t count = 1;
  std::uint64_t rate = 0;
  bool json = false;
  IdFormat format = IdFormat::kDecimal;
  StreamWaitOptions wait_options;
  if ((args.has("count") &&
       !parse_option_number("count", args.value_or("count", ""), UINT64_MAX, count, error)) ||
      !parse_write_format(args.value_or("format", "decimal"), json, format, error) ||
      !parse_rate(args, count, rate, error) ||
      !parse_stream_wait_flags(args, count, wait_options, error)) {
    return usage_error(invocation.err, kName, std::string(kName) + ": " + error);
  }
  // Before anything is opened: a signal during the start cancels it (environment.cancel).
  install_stop_handlers();
  ignore_broken_pipe();
  Options options;
  int exit_status = kExitOk;
  if (!resolve_command_options(invocation, kName, options, nullptr, exit_status)) {
    return exit_status;
  }
  IdOutput output(kName, invocation.out, invocation.err, count);
  WarningPrinter warnings(invocation.err);
  FailureRecorder failures(warnings);
  Status opening;
  const std::unique_ptr<StoreRegistry> stores = make_store_registry(opening);
  if (stores == nullptr) return call_failed(invocation.err, kName, opening);
  RuntimeEnvironment environment;
  environment.listener = &failures;
  environment.stores = stores.get();
  environment.cancel = stop_flag();
  const bool streaming = count == 0;
  StreamWait wait(kName, invocation.err, window_part(args, options), wait_options, &failures);
  const std::unique_ptr<Runtime> runtime =
      open_runtime(options, environment, streaming, wait, output, invocation.err, exit_status);
  if (runtime == nullptr) return exit_status;
  const bool metrics = args.has("metrics");
  Generator* generator = runtime->generator("default", opening);
  if (generator == nullptr) {
    const int status =
        runtime_error(invocation.err, std::string(kName) + ": " + opening.code().message());
    close_runtime(*runtime, invocation.err, metrics);  // the metrics come last, as on every exit
    return status;
  }

  const Layout& layout = options.layout;
  Pacer pacer(rate, invocation.out);
  int status = kExitOk;
  Status outcome;  // of the last next()
  for (std::uint64_t issued = 0; streaming || issued < count; ++issued) {
    if (!pacer.wait_turn()) break;  // a stop signal (with -n N too), or a stream's reader gone
    std::uint64_t id = 0;
    if (streaming) {
      if (!next_riding(*runtime, generator, wait, id, status)) break;
    } else {
      id = generator->next(outcome);
      while (outcome.code() == errc::slot_lost && options.uses_store()) {
        // The lease was lost (a warning said so): go on over the slot leased in its place. Again
        // if that one is lost too before its first id (each wait is bounded by ttl + tolerance).
        Generator* replacement = replacement_generator(*runtime, options);
        if (replacement == nullptr) break;
        generator = replacement;
        id = generator->next(outcome);
      }
      if (!outcome.ok()) {
        // The ids issued before the failure are still printed.
        if (output.flush()) status = call_failed(invocation.err, kName, outcome);
        break;
      }
    }
    append_id(output.chunk(), id, json, format, layout);
    if (!output.lines_done(1)) break;
  }
  if (status == kExitOk && !output.stopped() && !output.chunk().empty()) output.flush();
  close_runtime(*runtime, invocation.err, metrics);
  return output.exit_status(status);
}

}  // namespace

const Command& next_command() {
  static const Command command{
      kName,
      "issue new ids on the configured slot",
      "cosid next [-n COUNT] [--rate N] [--report-every DUR] [--give-up-after DUR] "
      "[--format decimal|radix62|radix36|friendly|json] [--metrics] [config flags]",
      kDescription,
      {
          {"Options",
           {
               {"count", 'n', "COUNT",
                "issue COUNT ids (default 1); 0: until SIGINT, SIGTERM, SIGHUP or a closed output"},
               {"rate", '\0', "N", "with -n 0: at most N ids per second, 1 to 1000000"},
               {"format", '\0', "FORMAT",
                "decimal (the default), radix62, radix36, friendly or json"},
               {"metrics", '\0', nullptr,
                "at exit, write the metrics to standard error (Prometheus text)"},
               help_option(),
           }},
          stream_wait_flags_group(),
          config_flags_group(),
          layout_flags_group(),
      },
      {
          {kExitOk,
           "the ids were issued, or -n 0 was stopped by SIGINT, SIGTERM, SIGHUP or a closed "
           "standard output"},
          {kExitFailure,
           "the config file could not be read, or the state file, the lease store or the clock "
           "did not allow issuing ids (with -n 0: a fault waiting cannot mend, or --give-up-after "
           "ran out), or the output could not be written (see standard error)"},
          usage_exit_status(),
          signal_exit_status(),
      },
      run_next,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
