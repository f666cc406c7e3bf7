// SPDX-License-Identifier: Apache-2.0
// Segment options: which range store serves segment ids and how each key claims, resolved like
// the Runtime's options (cosid/options.h: flag > COSID_* variable > config file > default) from the
// cosid.segment block of the config file. The keys are CosId's:
//
//   cosid.segment.distributor.type            file, zookeeper, memory, or a store instance of
//                                             the cosid.stores block; no default: segment ids
//                                             need a store named
//   cosid.segment.distributor.file.directory  the file range store's directory
//   cosid.segment.share.offset / .step        every key's offset and step (0 / 100) unless its
//                                             provider entry says otherwise
//   cosid.segment.provider.KEY.offset / .step one key's offset and step
//   cosid.segment.chain.safe-distance         segments kept ready ahead (2)
//
// Values are parsed strictly; anything else is errc::invalid_value naming the key, the value,
// where it came from and the rule. resolve_options() (the Runtime's) accepts the cosid.segment
// block and leaves it to this; resolve_segment_options() reads cosid.segment and cosid.stores and
// checks every other key of the file as resolve_options() would, except that no slot is needed.
//
// Thread safety: plain values; resolve_segment_options() is as resolve_options().
#ifndef COSID_SEGMENT_OPTIONS_H_
#define COSID_SEGMENT_OPTIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cosid/error.h"
#include "cosid/export.h"
#include "cosid/options.h"

namespace cosid {
namespace segment {

// How one key claims (GeneratorOptions::offset and ::step).
struct COSID_EXPORT KeyDefinition {
  std::int64_t offset = 0;  // 0 to 2^62
  std::int64_t step = 100;  // 1 to 2^30
};

struct COSID_EXPORT SegmentOptions {
  std::string store_type;       // empty: none configured
  std::string store_directory;  // for type file
  std::vector<StoreConfig> stores;
  KeyDefinition share;
  std::map<std::string, KeyDefinition> providers;  // by key
  std::uint32_t safe_distance = 2;                 // 1 to 65536

  // The provider entry of `key`, else `share`.
  KeyDefinition definition_of(const std::string& key) const;
};

// Resolves the options from `sources` (the flags are canonical keys: "cosid.segment.share.step").
// On failure returns default options and sets `status`: the errors of resolve_options() but the
// slot's.
[[nodiscard]] COSID_EXPORT SegmentOptions resolve_segment_options(const OptionSources& sources,
                                                                  Status& status) noexcept;
// The same, also filling `settings` with one entry per key for `cosid config check`.
[[nodiscard]] COSID_EXPORT SegmentOptions resolve_segment_options(const OptionSources& sources,
                                                                  std::vector<Setting>& settings,
                                                                  Status& status) noexcept;

}  // namespace segment
}  // namespace cosid

#endif  // COSID_SEGMENT_OPTIONS_H_
