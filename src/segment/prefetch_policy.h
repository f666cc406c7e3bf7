// SPDX-License-Identifier: Apache-2.0
// Internal: how many segments a SegmentGenerator's background thread keeps ready (its distance),
// as one pure function, so that the rule is tested by a table and not by timing a thread.
//
// Thread safety: a pure function of its arguments.
#ifndef COSID_SRC_SEGMENT_PREFETCH_POLICY_H_
#define COSID_SRC_SEGMENT_PREFETCH_POLICY_H_

#include <cstdint>

namespace cosid {
namespace segment {
namespace detail {

struct PrefetchInputs {
  std::uint32_t distance = 2;       // segments kept ready until now
  bool hungry_since_last = false;   // a call found no value ready since the previous claim
  bool idle = false;                // no refill was needed for a while (the caller says how long)
  double ids_per_second = 0;        // consumption measured since the previous claim; 0: unknown
  std::int64_t claim_ns = 0;        // how long the last claim took; 0: unknown
  std::int64_t step = 100;          // ids per segment, 1 or more
  std::uint32_t safe_distance = 2;  // the bounds, safe_distance <= max_distance
  std::uint32_t max_distance = 1024;
};

// The distance for the next claims, in [safe_distance, max_distance]:
// - hunger since the last claim doubles it: the ranges kept ready did not last one claim;
// - it is at least 2 x rate x claim time in segments: the background thread refills when half of
//   the ready values are left, and that half must last one claim at the measured rate;
// - idle (and not hungry) halves it, so a burst does not keep max_distance segments claimed (the
//   values a crash skips) for ever.
std::uint32_t next_distance(const PrefetchInputs& in) noexcept;

}  // namespace detail
}  // namespace segment
}  // namespace cosid

#endif  // COSID_SRC_SEGMENT_PREFETCH_POLICY_H_
