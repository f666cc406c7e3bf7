// SPDX-License-Identifier: Apache-2.0
// cosid config check: resolves the options and prints every effective setting and its origin.
#include <cstdio>
#include <string>
#include <system_error>
#include <vector>

#include "cli/commands.h"
#include "cli/config_flags.h"
#include "cli/layout_flags.h"
#include "cli/output_format.h"
#include "cli/tool_stores.h"
#include "config/options_values.h"
#include "cosid/options.h"
#include "cosid/segment/options.h"
#include "cosid/store_registry.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "config check";

constexpr const char* kDescription =
    "Resolves the options as `cosid next` would (flags, then COSID_* variables, then the config\n"
    "file, then the defaults) and prints every effective setting with where it came from:\n"
    "\n"
    "  KEY = VALUE   (ORIGIN)\n"
    "\n"
    "such as `cosid.machine.static.slot = 3   (flag --slot)`. A setting that is not valid is\n"
    "reported on standard error with what to do, and the status is 2 (1 for a config file that\n"
    "cannot be read). Nothing is opened: the\n"
    "state file and the lease store are not read. The keys of a store instance\n"
    "(cosid.stores.NAME.KEY) are printed as given, once the tool's store of that type\n"
    "(memory, file, zookeeper) has checked them as it does when it opens. When the config file\n"
    "names a range store for segment ids (cosid.segment.distributor.type), the keys of\n"
    "cosid.segment follow, as `cosid segment next` resolves them.\n"
    "\n"
    "When no slot is configured, every other setting is printed all the same (the slot as not\n"
    "given), then the missing slot is reported and the status is 2. With --json it prints one\n"
    "JSON object instead, each key with its value and source, and whether it is complete:\n"
    "\n"
    "  {\"cosid.namespace\":{\"value\":\"cosid\",\"source\":\"default\"},...,\"ok\":B,\n"
    "   \"error\":null|MESSAGE}\n"
    "\n"
    "Any other setting that is not valid stops the check before anything is printed.\n";

int run_config_check(Invocation& invocation) {
  Options options;
  std::vector<Setting> settings;
  int exit_status = kExitOk;
  Status missing_slot;  // printed after the settings, which are shown all the same
  if (!resolve_command_options(invocation, kName, options, &settings, exit_status, nullptr,
                               &missing_slot)) {
    return exit_status;
  }
  // The store type is only spelled right so far: the CLI's registry decides whether it exists,
  // and the instance's store whether it knows the instance's keys.
  Status status;
  const std::unique_ptr<StoreRegistry> stores = make_store_registry(status);
  if (stores == nullptr) return call_failed(invocation.err, kName, status);
  const std::string& type = detail::store_type_of(options);
  if (options.uses_store() && !stores->contains(type)) {
    std::string known = "static";
    for (const std::string& name : stores->types()) known += ", " + name;
    const bool instance = type != options.store_type;
    // As Runtime::open() would refuse it: a usage error, the configuration names no store.
    return call_failed(invocation.err, kName,
                       Status(errc::unknown_store_type,
                              "no lease store is registered as " + quote(type) +
                                  (instance ? " (the type of the store instance cosid.stores." +
                                                  options.store_type + ")"
                                            : std::string(" (cosid.machine.distributor.type)")) +
                                  ": this cosid tool knows " + known));
  }
  if (!check_store_instance(options, status)) return call_failed(invocation.err, kName, status);
  // The segment keys too when the sources name a range store; resolve_options() has checked them.
  OptionSources sources;
  std::vector<Setting> segment_settings;
  if (option_sources_from_args(invocation.args, sources, status)) {
    const segment::SegmentOptions segment =
        segment::resolve_segment_options(sources, segment_settings, status);
    if (status.ok() && !segment.store_type.empty()) {
      settings.insert(settings.end(), segment_settings.begin(), segment_settings.end());
    }
  }
  std::string text;
  if (invocation.args.has("json")) {
    Record record;
    for (const Setting& setting : settings) {
      record.add_json(setting.key.c_str(), Record()
                                               .add_string("value", setting.value)
                                               .add_string("source", setting.origin)
                                               .to_json());
    }
    record.add_bool("ok", missing_slot.ok());
    if (missing_slot.ok()) {
      record.add_null("error");
    } else {
      record.add_string("error", missing_slot.message());
    }
    text = record.to_json_line();
  } else {
    for (const Setting& setting : settings) {
      text += setting.key + " = " + setting.value + "   (" + setting.origin + ")\n";
    }
  }
  std::fwrite(text.data(), 1, text.size(), invocation.out);
  if (!missing_slot.ok()) return call_failed(invocation.err, kName, missing_slot);
  return kExitOk;
}

}  // namespace

const Command& config_check_command() {
  static const Command command{
      kName,
      "print the effective settings and where each comes from",
      "cosid config check [--json] [config flags]",
      kDescription,
      {
          {"Options",
           {
               {"json", '\0', nullptr, "print one JSON object instead of text"},
               help_option(),
           }},
          config_flags_group(),
          layout_flags_group(),
      },
      {
          {kExitOk, "the settings are valid and were printed"},
          {kExitFailure, "the config file cannot be read (see standard error)"},
          usage_exit_status(),
      },
      run_config_check,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
