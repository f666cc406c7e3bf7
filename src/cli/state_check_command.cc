// SPDX-License-Identifier: Apache-2.0
// cosid state check: says whether a slot's state file is held and being renewed, for readiness
// probes. Reads the file without locking or changing it.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>

#include "base/parse_util.h"
#include "cli/commands.h"
#include "cli/config_flags.h"
#include "cli/layout_flags.h"
#include "cli/output_format.h"
#include "cosid/clock.h"
#include "cosid/fs.h"
#include "cosid/options.h"
#include "cosid/state_file.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "state check";

constexpr const char* kDescription =
    "Checks that the state file of this slot is live: a process holds it and keeps its ceiling\n"
    "ahead of the clock, so it can issue ids now. Meant for a readiness probe. The file is FILE,\n"
    "else the configured state file; the slot, the namespace and the layout are resolved as\n"
    "`cosid next` resolves them (flags, COSID_* variables, the config file), so a probe can run\n"
    "the same configuration as the service; with no slot configured, the slot is the one the\n"
    "file records. The file is read without locking or changing it.\n"
    "\n"
    "Ready means all of these hold:\n"
    "\n"
    "  the file exists and has a valid block;\n"
    "  its current record was written for this slot, namespace and layout;\n"
    "  it was not written by a clean shutdown (the holder stopped);\n"
    "  a process holds the file's lock (a running cosid runtime always does);\n"
    "  its ceiling lies at least DUR (--min-lead, default 0ms) after the clock.\n"
    "\n"
    "A running runtime keeps the ceiling between `ahead`/2 and `ahead` after the clock; when its\n"
    "writes fail, the lead shrinks to nothing and ids stop. Give --min-lead below `ahead`/2 to\n"
    "report that before it happens. A probe cannot see inside the process: for up to `ahead`\n"
    "after the holder was killed, or while a restart waits for the clock to pass the floor, a\n"
    "lock may be held and the ceiling ahead.\n"
    "\n"
    "Prints one line: on standard output `ready: ...` and status 0, or on standard error\n"
    "`cosid: state check: not ready: REASON` and status 1. With --json it prints instead, on\n"
    "standard output and with the same status, one JSON object (null where the check did not\n"
    "get that far):\n"
    "\n"
    "  {\"file\":FILE,\"slot\":S,\"held\":B,\"clean\":B,\"ceiling\":TIME,\"lead_ms\":MS,\"ok\":B,\n"
    "   \"reason\":null|REASON}\n";

// `ms` as "1500ms", "-250ms" for a lead that lies behind the clock.
std::string signed_duration(std::int64_t ms) {
  return ms < 0 ? "-" + detail::format_duration(std::chrono::milliseconds(-ms))
                : detail::format_duration(std::chrono::milliseconds(ms));
}

// An instant as RFC 3339 where it can be written so, else as Unix milliseconds.
std::string instant(std::int64_t unix_ms) {
  return unix_ms >= 0 ? format_time(unix_ms) : std::to_string(unix_ms);
}

// Whether some open file description holds a lock on the file at `path`. Asks with F_OFD_GETLK,
// which takes no lock: a probe that took the lock, however briefly, could make the service's own
// open fail with state_file_locked. Not through the FileSystem seam, which has no query: this is
// the one question only a tool outside the runtime asks.
// O_NONBLOCK: the file was found regular just before, but a FIFO put in its place since must not
// make the probe wait for a writer.
bool lock_is_held(const std::string& path, bool& held, std::string& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    why = "cannot open " + path + " to look at its lock: " + std::strerror(errno);
    return false;
  }
  struct flock probe {};
  probe.l_type = F_WRLCK;  // conflicts with any lock, so any holder is reported
  probe.l_whence = SEEK_SET;
  const int result = ::fcntl(fd, F_OFD_GETLK, &probe);
  const int error_number = errno;
  ::close(fd);
  if (result < 0) {
    why = "cannot look at the lock of " + path + ": " + std::strerror(error_number) +
          ": the file system must support open-file-description locks, as the runtime needs";
    return false;
  }
  held = probe.l_type != F_UNLCK;
  return true;
}

// What the check found, as far as it got: for --json, which prints it whether ready or not.
struct Finding {
  std::string path;
  bool has_record = false;  // slot, clean and ceiling are known
  std::uint32_t slot = 0;
  bool clean = false;
  std::int64_t ceiling_ms = 0;
  bool has_lock = false;  // held is known
  bool held = false;
  bool has_lead = false;
  std::int64_t lead_ms = 0;
};

std::string finding_json(const Finding& finding, const std::string& reason) {
  Record record;
  record.add_string("file", finding.path);
  if (finding.has_record) {
    record.add_number("slot", std::uint64_t{finding.slot});
  } else {
    record.add_null("slot");
  }
  if (finding.has_lock) {
    record.add_bool("held", finding.held);
  } else {
    record.add_null("held");
  }
  if (finding.has_record) {
    record.add_bool("clean", finding.clean).add_string("ceiling", instant(finding.ceiling_ms));
  } else {
    record.add_null("clean").add_null("ceiling");
  }
  if (finding.has_lead) {
    record.add_number("lead_ms", finding.lead_ms);
  } else {
    record.add_null("lead_ms");
  }
  record.add_bool("ok", reason.empty());
  if (reason.empty()) {
    record.add_null("reason");
  } else {
    record.add_string("reason", reason);
  }
  return record.to_json_line();
}

// Not ready: the text form's one line on standard error, or --json's object on standard output.
int not_ready(Invocation& invocation, const Finding& finding, const std::string& reason) {
  if (invocation.args.has("json")) {
    const std::string json = finding_json(finding, reason);
    std::fwrite(json.data(), 1, json.size(), invocation.out);
    return kExitFailure;
  }
  return runtime_error(invocation.err, std::string(kName) + ": not ready: " + reason);
}

// Reads the state file at options.state_file and checks that it is live; on "not ready", sets
// `reason` and returns false. `finding` says how far it got; without a configured slot
// (`slot_given` false), options.slot becomes the one the file records.
bool check_live(Options& options, bool slot_given, std::chrono::milliseconds min_lead,
                Finding& finding, std::string& reason) {
  const std::string& path = options.state_file;
  finding.path = path;
  StateFileView view;
  Status status;
  if (!read_state_file(posix_file_system(), path, view, status)) {
    reason = status.message();
    return false;
  }
  if (view.current < 0) {
    reason = "state file " + path + " has no valid block: see `cosid state show " + path + "`";
    return false;
  }
  const StateRecord& record = view.records[view.current];
  if (!slot_given) options.slot = record.slot;
  finding.has_record = true;
  finding.slot = record.slot;
  finding.clean = record.clean_shutdown;
  finding.ceiling_ms = record.ceiling_ms;
  const StateFileOwner owner{options.slot, options.layout, options.namespace_name};
  if (!state_record_belongs_to(record, owner, path, status)) {
    reason = status.message();
    return false;
  }
  if (record.clean_shutdown) {
    reason = "state file " + path + " was closed by a clean shutdown at " +
             instant(record.written_at_ms) + ": no process issues ids on slot " +
             std::to_string(options.slot) + " now";
    return false;
  }
  bool held = false;
  if (!lock_is_held(path, held, reason)) return false;
  finding.has_lock = true;
  finding.held = held;
  if (!held) {
    reason = "no process holds state file " + path + ": nothing issues ids on slot " +
             std::to_string(options.slot) + " now";
    return false;
  }
  SystemClock clock;
  const std::int64_t lead = record.ceiling_ms - clock.now_ms();
  finding.has_lead = true;
  finding.lead_ms = lead;
  if (lead > 0 && lead >= min_lead.count()) return true;
  reason = "the ceiling " + instant(record.ceiling_ms) + " of state file " + path + " lies " +
           signed_duration(lead) + " ahead of the clock" +
           (lead <= 0 ? "" : ", less than --min-lead " + detail::format_duration(min_lead)) +
           ": it is not being renewed; look at the service's warnings (disk full, "
           "file replaced) or a stuck process";
  return false;
}

int run_state_check(Invocation& invocation) {
  const ParsedArgs& args = invocation.args;
  const auto usage = [&](const std::string& message) {
    return usage_error(invocation.err, kName, std::string(kName) + ": " + message);
  };
  if (args.positionals().size() > 1) {
    return usage("unexpected argument " + quote(args.positionals()[1]) + ": give one FILE");
  }
  if (!args.positionals().empty() && args.has("state-file")) {
    return usage("both FILE and --state-file given: give the state file once");
  }
  std::chrono::milliseconds min_lead{0};
  if (args.has("min-lead")) {
    const std::string text = args.value_or("min-lead", "");
    Status why;
    if (!detail::parse_duration(text, min_lead, why)) {
      return usage("--min-lead: " + quote(text) + ": " + why.message());
    }
  }

  // FILE counts as the --state-file flag, so it is checked by the same rules.
  OptionSources sources;
  Status resolved;
  Options options;
  // Without a configured slot, the file's own slot: it is the one a probe of FILE asks about.
  bool slot_given = true;
  if (option_sources_from_args(args, sources, resolved)) {
    if (!args.positionals().empty()) {
      sources.flags.emplace_back("cosid.machine.static.state-file", args.positionals().front());
    }
    options = resolve_options(sources, resolved);
    if (resolved.code() == errc::no_slot_configured) {
      // A failure is in `resolved`, reported below as any other.
      (void)resolve_options_without_slot(sources, options, slot_given, resolved);
    }
  }
  if (!resolved.ok()) {
    // A malformed or missing setting is the probe's own mistake, not the service's state.
    if (is_usage_code(resolved.code())) return call_failed(invocation.err, kName, resolved);
    Finding unknown;
    unknown.path = options.state_file;
    return not_ready(invocation, unknown, resolved.message());
  }
  if (options.state_file.empty()) {
    return usage(
        "no state file to check: give FILE, --state-file PATH, COSID_STATE_FILE or state-file in "
        "the config file");
  }

  Finding finding;
  std::string reason;
  if (!check_live(options, slot_given, min_lead, finding, reason)) {
    return not_ready(invocation, finding, reason);
  }
  if (args.has("json")) {
    const std::string json = finding_json(finding, "");
    std::fwrite(json.data(), 1, json.size(), invocation.out);
    return kExitOk;
  }
  std::fprintf(invocation.out,
               "ready: state file %s, slot %u, namespace %s, ceiling %s, %s ahead\n",
               options.state_file.c_str(), static_cast<unsigned>(options.slot),
               options.namespace_name.c_str(), instant(finding.ceiling_ms).c_str(),
               signed_duration(finding.lead_ms).c_str());
  return kExitOk;
}

}  // namespace

const Command& state_check_command() {
  static const Command command{
      kName,
      "exit 0 if a state file is held and renewed (readiness probes)",
      "cosid state check [FILE] [--min-lead DUR] [--json] [config flags]",
      kDescription,
      {
          {"Options",
           {
               {"min-lead", '\0', "DUR",
                "the ceiling must lie at least DUR after the clock (default 0ms)"},
               {"json", '\0', nullptr, "print one JSON object on standard output, ready or not"},
               help_option(),
           }},
          config_flags_group(),
          layout_flags_group(),
      },
      {
          {kExitOk,
           "ready: the file is held and its ceiling lies ahead (one line on standard "
           "output)"},
          {kExitFailure,
           "not ready, or the file or the configuration cannot be read (one line on standard "
           "error)"},
          usage_exit_status(),
      },
      run_state_check,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
