// SPDX-License-Identifier: Apache-2.0
// Ids as the commands read and print them: the --format flag of the commands that read ids, the
// decoding that `parse` and `not-before` share, and the fields of an id that `parse --json` and
// `next --format json` print.
#ifndef COSID_SRC_CLI_ID_TEXT_H_
#define COSID_SRC_CLI_ID_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "cli/args.h"
#include "cli/command.h"
#include "cli/output_format.h"
#include "cosid/codec.h"
#include "cosid/layout.h"

namespace cosid {
namespace cli {

// The formats --format takes when reading ids, for messages and help.
inline constexpr const char* kReadFormats = "auto, decimal, radix62, radix36, friendly";

// How a command that reads ids reads them: the layout flags and --format (auto, the default, or
// one codec).
struct IdReading {
  Layout layout;
  bool automatic = true;  // detect_format() per id
  IdFormat format = IdFormat::kDecimal;
};

// Reads --format of the command line, and resolves the layout as `next` does
// (resolve_command_layout: --config, COSID_CONFIG, the layout flags). On an error reports it and
// returns false with `status` the exit status.
bool id_reading_from_flags(const Invocation& invocation, const char* name, IdReading& reading,
                           int& status);

// Decodes `text` as `reading` says and checks the id fits its layout. On failure returns false
// with `status` set: the decoder's code, or id_field_out_of_range for an id above the layout's
// largest, and a message saying why (without the text itself).
bool decode_id(std::string_view text, const IdReading& reading, std::uint64_t& id, Status& status);

// The fields of an id: id (decimal, as a string), timestamp_ms (the first millisecond of its
// tick), time (the same in RFC 3339), slot and sequence.
Record id_record(std::uint64_t id, const Layout& layout);

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_ID_TEXT_H_
