// SPDX-License-Identifier: Apache-2.0
// Internal: the resolution of the settings, the one owner of what the sources gave.
//
// resolve_sources() gathers one raw text per key (the highest-precedence source that gave it, and
// a description of that source: flag > COSID_* variable > config file > default), then turns the
// texts into typed values: the layout, the distributor, each other row once, the cosid.segment
// block, the slot. The Resolution keeps the raw texts, so that the effective settings are told
// with the origins they came from. resolve_options() and resolve_segment_options() (options.cc)
// and the CLI read it.
//
// Thread safety: pure functions over a Resolution the caller owns, apart from the environment
// lookup and the read of the config file and the host name.
#ifndef COSID_SRC_CONFIG_RESOLVER_H_
#define COSID_SRC_CONFIG_RESOLVER_H_

#include <array>
#include <string>
#include <vector>

#include "config/options_values.h"
#include "cosid/options.h"
#include "cosid/segment/options.h"

namespace cosid {
namespace detail {

// A store instance as its sources gave it (cosid.stores.NAME): its type with its origin, and its
// other keys, a later source's value replacing an earlier one's key by key.
struct RawInstance {
  std::string name;
  RawValue type;
  std::vector<StoreSetting> settings;
};

// A provider entry of the cosid.segment block, made on its first key.
struct RawProvider {
  std::string key;  // KEY of cosid.segment.provider.KEY
  RawValue offset;
  RawValue step;
};

// The sources as given and what they resolve to.
struct Resolution {
  RawSettings raw;
  std::vector<RawInstance> instances;
  std::array<RawValue, kSegmentKeyCount> segment_raw;  // the provider rows' stay empty
  std::vector<RawProvider> providers;                  // in the order of their first key
  Options options;
  segment::SegmentOptions segment;
  std::string slot_origin;  // where the slot came from; empty when it was not looked for
};

// Resolves `sources` into `out`: the layout, the distributor and the other keys of Options applied
// and checked, the cosid.segment block checked into out.segment, and the slot resolved when
// `need_slot`, else checked only when one is given. On failure returns false with `status` set,
// else leaves `status` ok.
bool resolve_sources(const OptionSources& sources, bool need_slot, Resolution& out, Status& status);

// The effective settings of Options with their origins, one per row in row order, then the store
// instances' keys; the slot's origin is `slot_origin`.
void describe_settings(const Resolution& resolved, const std::string& slot_origin,
                       std::vector<Setting>& settings);

// The effective settings of the cosid.segment block: one per key, then each provider entry's two,
// then the keys of the instance the segment distributor names.
void describe_segment(const Resolution& resolved, std::vector<Setting>& settings);

// Orders an instance's settings so that the keys of one block follow each other, blocks in the
// order of their first key: as a config file has to give them (a block cannot open twice).
void group_store_settings(std::vector<StoreSetting>& settings);

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_CONFIG_RESOLVER_H_
