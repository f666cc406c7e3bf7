// SPDX-License-Identifier: Apache-2.0
// cosid layout: prints a layout's fields, its capacity and the instant it runs out.
#include <cstdint>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/config_flags.h"
#include "cli/layout_flags.h"
#include "cli/output_format.h"
#include "cosid/layout.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "layout";

// Ids up to 2^53 are exact in a JavaScript number (a double).
constexpr int kJsSafeBits = 53;

constexpr const char* kDescription =
    "Prints the layout that `cosid next` would use: the layout flags over the config file's\n"
    "(--config or COSID_CONFIG), by default the default preset; one `name: value` a line, or\n"
    "with --json as one JSON object:\n"
    "\n"
    "  timestamp_bits, slot_bits, sequence_bits   the width of each field of an id\n"
    "  unit                                       ms or s: the length of one tick\n"
    "  epoch                                      the instant of timestamp 0, in the unit\n"
    "  epoch_ms, epoch_time                       the same in Unix ms and in RFC 3339 UTC\n"
    "  slots                                      how many holders can issue ids: 2^slot_bits\n"
    "  ids_per_tick                               ids per tick and slot: 2^sequence_bits\n"
    "  limit_per_second                           the most ids one slot can issue a second\n"
    "  runs_out                                   the first instant the layout cannot hold\n"
    "  js_safe                                    true if every id is a safe JavaScript integer\n"
    "                                             (53 bits or fewer in all)\n";

// 2^bits in decimal. REQUIRES: 0 <= bits <= 63.
std::uint64_t power_of_two(int bits) { return std::uint64_t{1} << bits; }

Record describe(const Layout& layout) {
  const std::uint64_t ids_per_tick = power_of_two(layout.sequence_bits);
  // A second holds 1000 ticks of 1 ms: appending "000" keeps 2^61 * 1000 exact past 64 bits.
  const std::string limit_per_second = layout.unit == TimeUnit::kMillisecond
                                           ? std::to_string(ids_per_tick) + "000"
                                           : std::to_string(ids_per_tick);
  const int total_bits = layout.timestamp_bits + layout.slot_bits + layout.sequence_bits;
  Record record;
  record.add_number("timestamp_bits", std::int64_t{layout.timestamp_bits})
      .add_number("slot_bits", std::int64_t{layout.slot_bits})
      .add_number("sequence_bits", std::int64_t{layout.sequence_bits})
      .add_string("unit", to_string(layout.unit))
      .add_number("epoch", layout.epoch)
      .add_number("epoch_ms", layout.epoch_ms())
      .add_string("epoch_time", format_time(layout.epoch_ms()))
      .add_number("slots", power_of_two(layout.slot_bits))
      .add_number("ids_per_tick", ids_per_tick)
      .add_number("limit_per_second", limit_per_second)
      .add_string("runs_out", format_time(layout.end_ms()))
      .add_bool("js_safe", total_bits <= kJsSafeBits);
  return record;
}

int run_layout(Invocation& invocation) {
  if (!invocation.args.positionals().empty()) {
    return usage_error(invocation.err, kName,
                       std::string(kName) + ": unexpected argument " +
                           quote(invocation.args.positionals().front()) +
                           ": the layout comes from the layout flags and the config file only");
  }
  Layout layout;
  int exit_status = kExitOk;
  if (!resolve_command_layout(invocation, kName, layout, exit_status)) return exit_status;
  const Record record = describe(layout);
  const std::string text = invocation.args.has("json") ? record.to_json_line() : record.to_text();
  std::fwrite(text.data(), 1, text.size(), invocation.out);
  return kExitOk;
}

}  // namespace

const Command& layout_command() {
  static const Command command{
      kName,
      "print a layout's fields, capacity and the instant it runs out",
      "cosid layout [--json] [--config FILE] [layout flags]",
      kDescription,
      {
          {"Options",
           {
               {"json", '\0', nullptr, "print one JSON object instead of name: value lines"},
               config_file_option(),
               help_option(),
           }},
          layout_flags_group(),
      },
      {
          {kExitOk, "the layout was printed"},
          {kExitFailure, "the output could not be written (see standard error)"},
          usage_exit_status(),
      },
      run_layout,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
