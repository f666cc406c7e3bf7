// SPDX-License-Identifier: Apache-2.0
// cosid lease check: says whether a service's lease is live in the store and renewed ahead of the
// store's clock, for readiness probes; the store counterpart of `cosid state check`.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "base/parse_util.h"
#include "cli/commands.h"
#include "cli/config_flags.h"
#include "cli/layout_flags.h"
#include "cli/lease_scan.h"
#include "cli/output_format.h"
#include "cosid/lease/store.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "lease check";

constexpr const char* kDescription =
    "Checks that the service whose owner key is KEY (--owner-key, COSID_OWNER_KEY or\n"
    "cosid.machine.distributor.owner-key: required, since the default HOST:PID names the probe\n"
    "itself) holds a live lease in the store and keeps it renewed, so it can issue ids now.\n"
    "Meant for a readiness probe of a service that leases its slot (`cosid next --store ...`).\n"
    "The store, the namespace, the slot bits and the tolerance are resolved as `cosid next`\n"
    "resolves them; the store is read without changing it, as `cosid lease list` reads it.\n"
    "\n"
    "Ready means the store holds a lease of KEY that has not expired on the store's clock and\n"
    "whose ceiling lies at least DUR (--min-lead, default 0ms) after the store's clock. A\n"
    "runtime renews every ttl/3 to about ttl ahead; while renewals fail (the store does not\n"
    "answer, or the service is stuck) the lead shrinks and ids stop once it is gone, which is\n"
    "when a stream (`next -n 0`) waits. A store that cannot be read is not ready either.\n"
    "\n"
    "Prints one line: on standard output `ready: ...` and status 0, or on standard error\n"
    "`cosid: lease check: not ready: REASON` and status 1.\n";

// The live lease of `key` with the largest ceiling; null when the store holds none.
const lease::SlotRecord* live_lease_of(const LeaseScan& scan, const std::string& key) {
  const lease::SlotRecord* best = nullptr;
  for (const lease::SlotRecord& record : scan.records) {
    if (!record.held || record.owner.key != key || scan.store_now > record.expires_at) continue;
    if (best == nullptr || record.ceiling > best->ceiling) best = &record;
  }
  return best;
}

// The last expired lease of `key` (its latest expiry), to say when renewals stopped; else null.
const lease::SlotRecord* expired_lease_of(const LeaseScan& scan, const std::string& key) {
  const lease::SlotRecord* last = nullptr;
  for (const lease::SlotRecord& record : scan.records) {
    if (!record.held || record.owner.key != key) continue;
    if (last == nullptr || record.expires_at > last->expires_at) last = &record;
  }
  return last;
}

std::string lead_text(std::int64_t ms) {
  return ms < 0 ? "-" + detail::format_duration(std::chrono::milliseconds(-ms))
                : detail::format_duration(std::chrono::milliseconds(ms));
}

// Why `key` is not ready, or empty when it is.
std::string not_ready_reason(const LeaseScan& scan, const std::string& key,
                             std::chrono::milliseconds min_lead) {
  const std::string where = "namespace " + scan.options.namespace_name;
  const lease::SlotRecord* live = live_lease_of(scan, key);
  if (live == nullptr) {
    const lease::SlotRecord* expired = expired_lease_of(scan, key);
    if (expired != nullptr) {
      return "the lease of " + key + " on slot " + std::to_string(expired->slot) + " of " + where +
             " expired at " + format_time(expired->expires_at) + " (the store's clock is at " +
             format_time(scan.store_now) +
             "): its renewals do not reach the store; look at the service's warnings";
    }
    return "the store holds no lease of " + key + " in " + where +
           ": the service is not running, has not leased a slot yet (it waits for the store or "
           "a free slot), or uses another owner key or namespace";
  }
  const std::int64_t lead = live->ceiling - scan.store_now;
  if (lead < min_lead.count()) {
    return "the lease of " + key + " on slot " + std::to_string(live->slot) + " has its ceiling " +
           format_time(live->ceiling) + " " + lead_text(lead) +
           " ahead of the store's clock, less than --min-lead " +
           detail::format_duration(min_lead) +
           ": its renewals are late or failing; look at the service's warnings";
  }
  return std::string();
}

int run_lease_check(Invocation& invocation) {
  const ParsedArgs& args = invocation.args;
  std::chrono::milliseconds min_lead{0};
  if (args.has("min-lead")) {
    const std::string text = args.value_or("min-lead", "");
    Status why;
    if (!detail::parse_duration(text, min_lead, why)) {
      return usage_error(
          invocation.err, kName,
          std::string(kName) + ": --min-lead: " + quote(text) + ": " + why.message());
    }
  }
  LeaseScan scan;
  Status failure;
  int exit_status = kExitOk;
  const bool read = scan_lease_store(invocation, kName, scan, failure, exit_status);
  if (!read && failure.ok()) return exit_status;  // the options were wrong: reported
  const std::string& key = scan.options.owner_key;
  if (key.empty()) {
    return usage_error(invocation.err, kName,
                       std::string(kName) +
                           ": no owner key to check: give the service's with --owner-key KEY, "
                           "COSID_OWNER_KEY or owner-key in the config file");
  }
  const std::string reason = read ? not_ready_reason(scan, key, min_lead) : failure.message();
  if (!reason.empty()) {
    return runtime_error(invocation.err, std::string(kName) + ": not ready: " + reason);
  }
  const lease::SlotRecord& live = *live_lease_of(scan, key);
  std::fprintf(invocation.out, "ready: %s holds slot %u of namespace %s, ceiling %s, %s ahead\n",
               key.c_str(), live.slot, scan.options.namespace_name.c_str(),
               format_time(live.ceiling).c_str(), lead_text(live.ceiling - scan.store_now).c_str());
  return kExitOk;
}

}  // namespace

const Command& lease_check_command() {
  static const Command command{
      kName,
      "exit 0 if an owner's lease is live and renewed (readiness probes)",
      "cosid lease check --owner-key KEY [--min-lead DUR] [config flags]",
      kDescription,
      {
          {"Options",
           {
               {"min-lead", '\0', "DUR",
                "ready only while the ceiling lies at least DUR after the store's clock "
                "(default 0ms)"},
               help_option(),
           }},
          config_flags_group(),
          layout_flags_group(),
      },
      {
          {kExitOk, "ready: the owner's lease is live and its ceiling ahead by --min-lead"},
          {kExitFailure,
           "not ready: no live lease of the owner, its ceiling too close to the store's clock, or "
           "the store could not be read (see standard error)"},
          usage_exit_status(),
      },
      run_lease_check,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
