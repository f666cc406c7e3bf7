// SPDX-License-Identifier: Apache-2.0
// The prefetch distance rule (prefetch_policy.h).
#include "segment/prefetch_policy.h"

#include <algorithm>
#include <cmath>

namespace cosid {
namespace segment {
namespace detail {

std::uint32_t next_distance(const PrefetchInputs& in) noexcept {
  const double low = in.safe_distance;
  const double high = std::max(in.max_distance, in.safe_distance);
  double distance = in.distance;
  if (in.hungry_since_last) {
    distance *= 2;
  } else if (in.idle) {
    return static_cast<std::uint32_t>(std::clamp(std::floor(distance / 2), low, high));
  }
  if (in.ids_per_second > 0 && in.claim_ns > 0 && in.step > 0) {
    // The ids one claim's latency consumes, twice over, in whole segments. Computed in double: a
    // rate of 1e9 ids/s times a claim of seconds overflows no integer this way, and is clamped.
    const double ids = 2.0 * in.ids_per_second * (static_cast<double>(in.claim_ns) / 1e9);
    distance = std::max(distance, std::ceil(ids / static_cast<double>(in.step)));
  }
  return static_cast<std::uint32_t>(std::clamp(distance, low, high));
}

}  // namespace detail
}  // namespace segment
}  // namespace cosid
