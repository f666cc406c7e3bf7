// SPDX-License-Identifier: Apache-2.0
// The config flags of the commands that resolve cosid::Options (`next`, `config check`):
//
//   --config FILE, and the flag of every row of the config key table (config_keys.h): --namespace,
//   --slot, ..., --slot-from-hostname and --require-state-file as switches, the lease store's
//   --store TYPE[:TARGET] (split by split_store_flag() into the type key and file:DIR's directory
//   key or zookeeper:CONNECT's instance), --ttl, --tolerance, --owner-key, --preferred-slot, and
//   the layout flags.
//
// Their values are checked by resolve_options(), not here, so that a flag, a COSID_* variable and
// a config file are held to the same rules and messages.
#ifndef COSID_SRC_CLI_CONFIG_FLAGS_H_
#define COSID_SRC_CLI_CONFIG_FLAGS_H_

#include <initializer_list>
#include <string_view>
#include <vector>

#include "cli/args.h"
#include "cli/command.h"
#include "config/config_keys.h"
#include "cosid/options.h"

namespace cosid {
namespace cli {

// The --help line of the flag of `key`: its row's summary, variable and default.
const char* config_flag_help(detail::Key key);

// --config FILE.
OptionSpec config_file_option();

// The "Config flags" group (without the layout flags: add layout_flags_group() as well).
OptionGroup config_flags_group();
// The same group without the flags `left_out`: for a command whose own options of those names mean
// something else (`lease fence --slot`) or say more (`lease fence --not-before`, required).
OptionGroup config_flags_group_without(std::initializer_list<std::string_view> left_out);

// Where resolve_options() should look, from the config flags in `args` and std::getenv, into
// `sources`. Fails (invalid_value) for a --store that split_store_flag() refuses.
[[nodiscard]] bool option_sources_from_args(const ParsedArgs& args, OptionSources& sources,
                                            Status& status);

// How a command that takes config flags and no argument starts: a positional argument is a usage
// error; then the options are resolved, and what resolve_options() refuses is reported by
// call_failed() as "cosid: NAME: why" (a usage error for a malformed or missing value, a runtime
// one for a config file that cannot be read). Returns false, with `status` the exit status to
// return, when the command must stop. `settings`, if not null, receives every setting with its
// source. `no_slot`, if not null, replaces the no-slot message: for a command that needs no slot
// but something the missing slot stands for (a static configuration asks for a slot; `lease list`
// wants a store).
// `missing_slot`, if not null, takes a missing slot as no failure: the rest is resolved (a slot
// setting of no value, "not given") and the no-slot error is left in *missing_slot, for a command
// that shows what it can before it fails (`config check`).
bool resolve_command_options(const Invocation& invocation, const char* name, Options& options,
                             std::vector<Setting>* settings, int& status,
                             const char* no_slot = nullptr, Status* missing_slot = nullptr);

// Resolves `sources` as resolve_options() does, with the same checks, but needs no slot: for a
// command that can do without one (a state file records its slot). `slot_given` says whether a
// slot was configured; options.slot is then that slot. `settings`, if not null, receives every
// setting with its source, the slot's "not given" when none was. On failure returns false with
// `status`.
[[nodiscard]] bool resolve_options_without_slot(const OptionSources& sources, Options& options,
                                                bool& slot_given, Status& status,
                                                std::vector<Setting>* settings = nullptr);

// How a command that reads or describes ids (parse, not-before, layout) finds their layout: as
// `next` resolves it, from the same sources (--config or COSID_CONFIG, the layout flags) through
// the same resolution, which checks the rest of the configuration too but needs no slot; so an id
// of a custom layout decodes with the layout that issued it. What the resolution refuses is
// reported by call_failed(). Returns false, with `status` the exit status, when the command must
// stop.
bool resolve_command_layout(const Invocation& invocation, const char* name, Layout& layout,
                            int& status);

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_CONFIG_FLAGS_H_
