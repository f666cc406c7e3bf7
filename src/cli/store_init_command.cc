// SPDX-License-Identifier: Apache-2.0
// cosid store init: creates a lease or range store (a file store's directory, a ZooKeeper store's
// root nodes), the one way a store comes into being (cosid/store_registry.h, StoreRegistry::init).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/config_flags.h"
#include "cli/tool_stores.h"
#include "config/options_values.h"
#include "cosid/clock.h"
#include "cosid/options.h"
#include "cosid/segment/options.h"
#include "cosid/store_registry.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "store init";

constexpr const char* kDescription =
    "Creates the store that --store names (file:DIR, zookeeper:CONNECT, or a store instance of\n"
    "the config file), or without --store the config file's lease store and range store\n"
    "(cosid.machine.distributor and cosid.segment.distributor). One store serves leases and\n"
    "segment ids alike. file:DIR makes the directory DIR (its last component only, mode 0770,\n"
    "the parent synced; the parent must exist); zookeeper:CONNECT (in a cosid built with the\n"
    "ZooKeeper store) makes the nodes /cosid, /cosid/slot, /cosid/owner and /cosid/range under\n"
    "the connect string's chroot, which must exist.\n"
    "\n"
    "Run it once per store, before the store's first use: no other command creates a store,\n"
    "because a store that should exist and does not (a mistyped directory or chroot, a moved\n"
    "directory) would start every slot and key from zero, and ids would repeat. On a store that\n"
    "exists it changes nothing and says so. It prints one line per store:\n"
    "\n"
    "  file store /var/lib/cosid/ranges: created /var/lib/cosid/ranges\n"
    "  file store /var/lib/cosid/ranges: exists already, nothing changed\n";

const char kNoStore[] =
    "no store to create: name one with --store file:DIR, --store zookeeper:CONNECT or a store "
    "instance of the config file, or configure cosid.machine.distributor.type or "
    "cosid.segment.distributor.type in the config file (--config)";

// The line that says what init did.
std::string outcome_line(const StoreInitReport& report) {
  if (report.created.empty()) return report.store + ": exists already, nothing changed\n";
  std::string line = report.store + ": created ";
  for (std::size_t i = 0; i < report.created.size(); ++i) {
    line += (i == 0 ? "" : ", ") + report.created[i];
  }
  return line + '\n';
}

// Whether a store the config file names is one to create: a memory store is passed over (it
// lives in one process, with nothing to create).
bool made_by_init(const Options& store) { return detail::store_type_of(store) != "memory"; }

// Adds the config file's range store (cosid.segment.distributor) to `stores`, unless it is none,
// memory, or the lease store already there. False, with `status`, when the segment settings do not
// resolve.
bool add_range_store(const OptionSources& sources, std::vector<Options>& stores, Status& status) {
  const segment::SegmentOptions segment = segment::resolve_segment_options(sources, status);
  if (!status.ok()) return false;
  Options range_store;
  range_store.store_type = segment.store_type;
  range_store.store_directory = segment.store_directory;
  range_store.stores = segment.stores;
  const bool same = !stores.empty() && stores[0].store_type == range_store.store_type &&
                    stores[0].store_directory == range_store.store_directory;
  if (!segment.store_type.empty() && !same && made_by_init(range_store)) {
    stores.push_back(range_store);
  }
  return true;
}

// The stores to create: the one --store names (a memory store is refused by its initializer);
// without it, the config file's lease store (cosid.machine.distributor) and range store
// (cosid.segment.distributor), once if they are one. False, with `exit_status`, after a report.
bool stores_to_create(const Invocation& invocation, std::vector<Options>& stores,
                      int& exit_status) {
  const ParsedArgs& args = invocation.args;
  if (!args.positionals().empty()) {
    exit_status = usage_error(
        invocation.err, kName,
        std::string(kName) + ": unexpected argument " + quote(args.positionals().front()));
    return false;
  }
  Status status;
  OptionSources sources;
  Options lease_store;
  bool slot_given = false;
  const bool flag = args.has("store");
  if (!option_sources_from_args(args, sources, status) ||
      !resolve_options_without_slot(sources, lease_store, slot_given, status)) {
    exit_status = call_failed(invocation.err, kName, status);
    return false;
  }
  if (lease_store.uses_store() && (flag || made_by_init(lease_store))) {
    stores.push_back(lease_store);
  }
  if (!flag && !add_range_store(sources, stores, status)) {
    exit_status = call_failed(invocation.err, kName, status);
    return false;
  }
  if (stores.empty()) {
    exit_status = usage_error(invocation.err, kName, std::string(kName) + ": " + kNoStore);
    return false;
  }
  return true;
}

int run_store_init(Invocation& invocation) {
  std::vector<Options> stores;
  int exit_status = kExitOk;
  if (!stores_to_create(invocation, stores, exit_status)) return exit_status;
  SystemClock clock;
  Status status;
  const std::unique_ptr<StoreRegistry> registry = make_store_registry(status);
  if (registry == nullptr) return call_failed(invocation.err, kName, status);
  for (const Options& options : stores) {
    StoreInitReport report;
    if (!registry->init(StoreContext{options, clock}, report, status)) {
      return call_failed(invocation.err, kName, status);
    }
    const std::string line = outcome_line(report);
    std::fwrite(line.data(), 1, line.size(), invocation.out);
  }
  return finish_output(kExitOk, invocation.out, invocation.err);
}

}  // namespace

const Command& store_init_command() {
  static const Command command{
      kName,
      "create a lease or range store (a directory, ZooKeeper nodes)",
      "cosid store init [--config FILE] [--store file:DIR|zookeeper:CONNECT|INSTANCE]",
      kDescription,
      {
          {"Options", {help_option()}},
          {"Store flags",
           {config_file_option(),
            {"store", '\0', "STORE",
             "file:DIR, zookeeper:CONNECT, or a store instance of the config file"}}},
      },
      {
          {kExitOk, "the store was created, or it existed and nothing was changed"},
          {kExitFailure,
           "the store could not be created: a file store's parent directory is missing or not "
           "writable, the ensemble or its chroot cannot be reached, or the config file could not "
           "be read (see standard error)"},
          usage_exit_status(),
      },
      run_store_init,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
