// SPDX-License-Identifier: Apache-2.0
// cosid lease fence: makes every later holder of a namespace's slots (or of one) start after a
// given time, by the store's own compare-and-set (SlotLeaseStore::fence), without trusting clocks.
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/config_flags.h"
#include "cli/layout_flags.h"
#include "cli/lease_store_open.h"
#include "cli/output_format.h"
#include "cosid/lease/store.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "lease fence";

constexpr const char* kDescription =
    "Raises the next floor of every slot of the namespace (--namespace, default cosid), or of\n"
    "--slot N only, to at least TIME, in the lease store that the config flags name (--store\n"
    "file:DIR or zookeeper:CONNECT, or the config file): no later holder of a fenced slot issues\n"
    "a timestamp at or below TIME. Each slot is one compare-and-set of the store: its next floor\n"
    "becomes max(next floor, ceiling, TIME); a lease recorded on it (live or expired) ends, so "
    "its\n"
    "holder, if it still runs, issues at most up to the ceiling it has and gets lease_lost at its\n"
    "next renewal; a slot without a record gets one. No clock decides it. Use it after a store\n"
    "was restored from a backup, or whenever its records may be older than the ids issued:\n"
    "\n"
    "  cosid lease fence --store file:DIR --not-before $(cosid not-before --from-id MAX_ID)\n"
    "\n"
    "with MAX_ID the largest id of the namespace seen anywhere (logs, databases). TIME is Unix\n"
    "ms or RFC 3339 UTC. The slot bits and --tolerance must be the namespace's. Repeating a\n"
    "fence is safe and changes nothing more. It prints a line per slot that had a record (every\n"
    "slot with --slot) and a summary line; with --json one object a line per slot:\n"
    "\n"
    "  {\"namespace\":NS,\"slot\":S,\"outcome\":\"ended_lease\",\"fence\":F,\"next_floor_ms\":MS,\n"
    "   \"previous_next_floor_ms\":MS,\"ended_owner_key\":KEY,\"ended_incarnation\":UUID}\n"
    "\n"
    "outcome is created, raised, ended_lease or unchanged; the ended_ fields are null but for\n"
    "ended_lease.\n";

const char* outcome_name(lease::FenceOutcome outcome) {
  switch (outcome) {
    case lease::FenceOutcome::kCreated:
      return "created";
    case lease::FenceOutcome::kRaised:
      return "raised";
    case lease::FenceOutcome::kEndedLease:
      return "ended_lease";
    case lease::FenceOutcome::kUnchanged:
      break;
  }
  return "unchanged";
}

// One line of text for a fenced slot.
std::string slot_line(const lease::FenceResult& result) {
  const std::string slot = "slot " + std::to_string(result.after.slot) + ": ";
  const std::string next = "next floor " + format_time(result.after.next_floor);
  const std::string was = " (was " + format_time(result.before.next_floor) + ")";
  switch (result.outcome) {
    case lease::FenceOutcome::kCreated:
      return slot + "no record; made one with " + next + "\n";
    case lease::FenceOutcome::kRaised:
      return slot + next + was + "\n";
    case lease::FenceOutcome::kEndedLease:
      return slot + "ended the lease of " + quote(result.before.owner.key) + " (incarnation " +
             result.before.owner.incarnation.to_string() + ", fence " +
             std::to_string(result.before.fence) + "); fence " +
             std::to_string(result.after.fence) + ", " + next + was + "\n";
    case lease::FenceOutcome::kUnchanged:
      break;
  }
  return slot + "unchanged, " + next + "\n";
}

std::string json_line(const std::string& name_space, const lease::FenceResult& result) {
  Record fields;
  fields.add_string("namespace", name_space)
      .add_number("slot", std::uint64_t{result.after.slot})
      .add_string("outcome", outcome_name(result.outcome))
      .add_number("fence", result.after.fence)
      .add_number("next_floor_ms", result.after.next_floor)
      .add_number("previous_next_floor_ms", result.before.next_floor);
  if (result.outcome == lease::FenceOutcome::kEndedLease) {
    fields.add_string("ended_owner_key", result.before.owner.key)
        .add_string("ended_incarnation", result.before.owner.incarnation.to_string());
  } else {
    fields.add_null("ended_owner_key").add_null("ended_incarnation");
  }
  return fields.to_json_line();
}

// How many slots came out each way.
struct Tally {
  std::uint64_t counts[4] = {0, 0, 0, 0};  // by FenceOutcome
  std::uint64_t of(lease::FenceOutcome outcome) const { return counts[static_cast<int>(outcome)]; }
};

std::string summary_line(const std::string& name_space, std::int64_t not_before,
                         std::uint64_t slots, const Tally& tally) {
  std::string text = "fenced namespace " + name_space + " at " + format_time(not_before) + ": " +
                     std::to_string(slots) + (slots == 1 ? " slot" : " slots") + " (leases ended " +
                     std::to_string(tally.of(lease::FenceOutcome::kEndedLease)) +
                     ", next floors raised " +
                     std::to_string(tally.of(lease::FenceOutcome::kRaised)) + ", records made " +
                     std::to_string(tally.of(lease::FenceOutcome::kCreated)) + ", unchanged " +
                     std::to_string(tally.of(lease::FenceOutcome::kUnchanged)) + ")\n";
  if (tally.of(lease::FenceOutcome::kEndedLease) > 0) {
    text +=
        "a holder of an ended lease that still runs stops at its ceiling and leases a slot "
        "anew at its next renewal\n";
  }
  return text;
}

// The report of a failed fence: which slot, the store's words, what was done, and, when the
// store did not answer (the fence may or may not have been applied), that running the command
// again is safe.
Status fence_failed(const Status& store_error, std::uint32_t slot, std::uint32_t first,
                    bool one_slot) {
  const std::string done = one_slot || slot == first
                               ? std::string()
                               : " (slots " + std::to_string(first) + " to " +
                                     std::to_string(slot - 1) + " were fenced, slot " +
                                     std::to_string(slot) + " and the ones after it may not be)";
  const std::string retry = store_error.code() == make_error_code(errc::store_unavailable)
                                ? "; a fence is safe to repeat: run the same command again once "
                                  "the store answers"
                                : std::string();
  return Status(store_error.code(), "slot " + std::to_string(slot) + " was not fenced" + done +
                                        ": " + store_error.message() + retry);
}

// The warning for a TIME ahead of this host's clock: nothing is issued on a fenced slot before it.
void warn_if_ahead(std::FILE* err, std::int64_t not_before, std::int64_t local_now) {
  if (not_before <= local_now) return;
  std::fprintf(err,
               "cosid: warning: --not-before %s lies %lld ms ahead of this host's clock: holders "
               "of the fenced slots issue no id until their clocks pass it\n",
               format_time(not_before).c_str(), static_cast<long long>(not_before - local_now));
}

int run_lease_fence(Invocation& invocation) {
  const ParsedArgs& args = invocation.args;
  if (!args.has("not-before")) {
    return usage_error(invocation.err, kName,
                       std::string(kName) +
                           ": no --not-before given: give a time after the largest id the "
                           "namespace issued (`cosid not-before --from-id ID`)");
  }
  std::uint64_t only_slot = 0;
  std::string error;
  const bool one_slot = args.has("slot");
  if (one_slot &&
      !parse_option_number("slot", args.value_or("slot", ""),
                           std::numeric_limits<std::uint32_t>::max(), only_slot, error)) {
    return usage_error(invocation.err, kName, std::string(kName) + ": " + error);
  }
  // --slot is this command's, not the static slot of the config flags, which a store refuses.
  Invocation resolved{invocation.command, args.without("slot"), invocation.out, invocation.err};
  OpenLeaseStore opened;
  if (const int exit_status = open_lease_store(resolved, kName, opened)) return exit_status;
  const std::int64_t not_before = opened.options.not_before_ms;
  if (not_before == 0) {
    return usage_error(invocation.err, kName,
                       std::string(kName) +
                           ": --not-before 0 protects nothing: give a time after the largest id "
                           "the namespace issued (`cosid not-before --from-id ID`)");
  }
  warn_if_ahead(invocation.err, not_before, opened.clock.now_ms());
  const std::string& name_space = opened.options.namespace_name;
  const bool json = args.has("json");
  const auto first = static_cast<std::uint32_t>(only_slot);
  const std::uint32_t end = one_slot ? first + 1 : opened.terms.slot_limit;
  Tally tally;
  for (std::uint32_t slot = first; slot < end; ++slot) {
    lease::FenceResult result;
    Status status;
    if (!opened.store->fence(name_space, opened.terms, slot, not_before, result, status)) {
      std::fflush(invocation.out);  // what was done before, ahead of the error
      return call_failed(invocation.err, kName, fence_failed(status, slot, first, one_slot));
    }
    ++tally.counts[static_cast<int>(result.outcome)];
    std::string line;
    if (json) {
      line = json_line(name_space, result);
    } else if (one_slot || result.outcome != lease::FenceOutcome::kCreated) {
      line = slot_line(result);
    }
    std::fwrite(line.data(), 1, line.size(), invocation.out);
  }
  if (!json) {
    const std::string summary = summary_line(name_space, not_before, end - first, tally);
    std::fwrite(summary.data(), 1, summary.size(), invocation.out);
  }
  return kExitOk;
}

}  // namespace

const Command& lease_fence_command() {
  static const Command command{
      kName,
      "raise the next floor of a namespace's slots past a time (after a restore)",
      "cosid lease fence --not-before TIME [--slot N] [--json] [config flags]",
      kDescription,
      {
          {"Options",
           {
               {"not-before", '\0', "TIME",
                "later holders issue only timestamps after TIME: Unix ms or RFC 3339 (required)"},
               {"slot", '\0', "N", "fence only slot N (default: every slot of the namespace)"},
               {"json", '\0', nullptr, "print one JSON object per slot"},
               help_option(),
           }},
          config_flags_group_without({"not-before", "slot"}),
          layout_flags_group(),
      },
      {
          {kExitOk, "every slot asked for was fenced"},
          {kExitFailure,
           "no store is configured, the options are not valid, or a slot could not be fenced "
           "(the message names it; running the command again is safe)"},
          usage_exit_status(),
      },
      run_lease_fence,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
