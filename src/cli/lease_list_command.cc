// SPDX-License-Identifier: Apache-2.0
// cosid lease list: prints the slot records of a namespace in a lease store.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "cli/commands.h"
#include "cli/config_flags.h"
#include "cli/layout_flags.h"
#include "cli/output_format.h"
#include "cli/store_registry.h"
#include "cosid/clock.h"
#include "cosid/lease/store.h"
#include "cosid/lease/store_registry.h"
#include "cosid/options.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "lease list";

constexpr const char* kDescription =
    "Reads the slot records of the namespace (--namespace, default cosid) from the lease store\n"
    "that the config flags name (--store file:DIR or zookeeper:CONNECT, or the config file),\n"
    "without changing them, and prints one line per slot that was ever leased: its state\n"
    "(held, expired or free), the owner key and incarnation, the fence, when the lease expires\n"
    "on the store's clock, its window (floor, ceiling], and the floor of the next holder.\n"
    "zookeeper:CONNECT needs a cosid built with the ZooKeeper store. A slot never leased has no\n"
    "record and is free with next floor 0. The slot bits and --tolerance must be the\n"
    "namespace's (a store refuses other terms and says which it records). With --json it\n"
    "prints one object a line:\n"
    "\n"
    "  {\"namespace\":NS,\"slot\":S,\"state\":\"held\",\"owner_key\":KEY,\"incarnation\":UUID,\n"
    "   "
    "\"last_owner_key\":KEY,\"fence\":F,\"expires_at_ms\":MS,\"floor_ms\":MS,\"ceiling_ms\":MS,\n"
    "   \"next_floor_ms\":MS,\"store_now_ms\":MS}\n";

const char kNoStore[] =
    "no lease store is configured (the distributor type is static): name one with --store "
    "file:DIR, --store zookeeper:CONNECT or cosid.machine.distributor.type in the config file";

std::string state_of(const lease::SlotRecord& record, std::int64_t store_now) {
  if (!record.held) return "free";
  return store_now > record.expires_at ? "expired" : "held";
}

std::string time_or_dash(std::int64_t unix_ms) {
  return unix_ms > 0 ? format_time(unix_ms) : std::string("-");
}

std::string padded(std::string text, std::size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text + "  ";
}

std::string to_table(const std::string& name_space, const std::vector<lease::SlotRecord>& records,
                     std::int64_t store_now) {
  std::string text = "namespace " + name_space + ", store clock " + format_time(store_now) + ", " +
                     std::to_string(records.size()) + " slot records\n";
  text += padded("SLOT", 5) + padded("STATE", 7) + padded("OWNER", 24) + padded("INCARNATION", 36) +
          padded("FENCE", 6) + padded("EXPIRES", 24) + padded("FLOOR", 24) + padded("CEILING", 24) +
          "NEXT FLOOR\n";
  for (const lease::SlotRecord& record : records) {
    const bool held = record.held;
    text += padded(std::to_string(record.slot), 5) + padded(state_of(record, store_now), 7) +
            padded(held ? record.owner.key : "(" + record.last_owner_key + ")", 24) +
            padded(held ? record.owner.incarnation.to_string() : "-", 36) +
            padded(std::to_string(record.fence), 6) +
            padded(held ? time_or_dash(record.expires_at) : "-", 24) +
            padded(time_or_dash(record.floor), 24) + padded(time_or_dash(record.ceiling), 24) +
            time_or_dash(record.next_floor) + "\n";
  }
  return text;
}

std::string to_json_lines(const std::string& name_space,
                          const std::vector<lease::SlotRecord>& records, std::int64_t store_now) {
  std::string text;
  for (const lease::SlotRecord& record : records) {
    Record fields;
    fields.add_string("namespace", name_space)
        .add_number("slot", std::uint64_t{record.slot})
        .add_string("state", state_of(record, store_now));
    if (record.held) {
      fields.add_string("owner_key", record.owner.key)
          .add_string("incarnation", record.owner.incarnation.to_string());
    } else {
      fields.add_null("owner_key").add_null("incarnation");
    }
    fields.add_string("last_owner_key", record.last_owner_key)
        .add_number("fence", record.fence)
        .add_number("expires_at_ms", record.expires_at)
        .add_number("floor_ms", record.floor)
        .add_number("ceiling_ms", record.ceiling)
        .add_number("next_floor_ms", record.next_floor)
        .add_number("store_now_ms", store_now);
    text += fields.to_json_line();
  }
  return text;
}

int run_lease_list(Invocation& invocation) {
  const ParsedArgs& args = invocation.args;
  Options options;
  int exit_status = kExitOk;
  // Without a store the configuration is static, which asks for a slot first; a listing needs a
  // store, so that is what it asks for.
  if (!resolve_command_options(invocation, kName, options, nullptr, exit_status, kNoStore)) {
    return exit_status;
  }
  // A missing setting, like a missing slot elsewhere: a usage error (exit 2).
  if (!options.uses_store()) {
    return usage_error(invocation.err, kName, std::string(kName) + ": " + kNoStore);
  }
  // A listing changes nothing: a missing store is refused by the store itself
  // (store_not_initialized), never made.
  SystemClock clock;
  Status status;
  const std::unique_ptr<lease::StoreRegistry> stores = make_store_registry(status);
  if (stores == nullptr) return call_failed(invocation.err, kName, status);
  const std::shared_ptr<lease::SlotLeaseStore> store =
      stores->open(lease::StoreContext{options, clock}, status);
  lease::NamespaceTerms terms;
  terms.slot_limit = std::uint32_t{1} << options.layout.slot_bits;
  terms.tolerance = options.tolerance;
  std::vector<lease::SlotRecord> records;
  std::int64_t store_now = 0;
  if (store == nullptr || !store->scan(options.namespace_name, terms, records, store_now, status)) {
    return call_failed(invocation.err, kName, status);
  }
  const std::string text = args.has("json")
                               ? to_json_lines(options.namespace_name, records, store_now)
                               : to_table(options.namespace_name, records, store_now);
  std::fwrite(text.data(), 1, text.size(), invocation.out);
  return kExitOk;
}

}  // namespace

const Command& lease_list_command() {
  static const Command command{
      kName,
      "print the slot leases of a namespace in a lease store",
      "cosid lease list [--json] [config flags]",
      kDescription,
      {
          {"Options",
           {
               {"json", '\0', nullptr, "print one JSON object per slot record"},
               help_option(),
           }},
          config_flags_group(),
          layout_flags_group(),
      },
      {
          {kExitOk, "the records were printed"},
          {kExitFailure,
           "no store is configured, the options are not valid, or the store could not be read "
           "(see standard error)"},
          usage_exit_status(),
      },
      run_lease_list,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
