// SPDX-License-Identifier: Apache-2.0
#include "cli/id_text.h"

#include <system_error>

#include "base/fail.h"
#include "cli/args.h"
#include "cli/config_flags.h"

namespace cosid {
namespace cli {
namespace {

std::string does_not_fit(std::uint64_t id, const Layout& layout) {
  return "id " + std::to_string(id) + " is above " + std::to_string(layout.max_id()) +
         ", the largest id of this " + std::to_string(layout.timestamp_bits) + "/" +
         std::to_string(layout.slot_bits) + "/" + std::to_string(layout.sequence_bits) +
         "-bit layout. Give the layout that issued it with --layout or the other layout flags";
}

}  // namespace

bool id_reading_from_flags(const Invocation& invocation, const char* name, IdReading& reading,
                           int& status) {
  const std::string format = invocation.args.value_or("format", "auto");
  reading.automatic = format == "auto";
  if (!reading.automatic && !parse_format(format, reading.format)) {
    status = usage_error(invocation.err, name,
                         std::string(name) + ": --format: unknown format " + quote(format) +
                             ": use one of " + kReadFormats);
    return false;
  }
  return resolve_command_layout(invocation, name, reading.layout, status);
}

bool decode_id(std::string_view text, const IdReading& reading, std::uint64_t& id, Status& status) {
  const Layout& layout = reading.layout;
  const std::uint64_t decoded =
      decode(text, reading.automatic ? detect_format(text) : reading.format, layout, status);
  if (!status.ok()) return false;
  if (!layout.fits(decoded)) {
    return detail::fail(status, errc::id_field_out_of_range, does_not_fit(decoded, layout));
  }
  id = decoded;
  return true;
}

Record id_record(std::uint64_t id, const Layout& layout) {
  const IdParts parts = layout.parse(id);
  const std::int64_t unix_ms = layout.tick_start_ms(parts.timestamp);
  Record record;
  record.add_string("id", std::to_string(id))
      .add_number("timestamp_ms", unix_ms)
      .add_string("time", format_time(unix_ms))
      .add_number("slot", std::uint64_t{parts.slot})
      .add_number("sequence", std::uint64_t{parts.sequence});
  return record;
}

}  // namespace cli
}  // namespace cosid
