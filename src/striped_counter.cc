#include "striped_counter.h"

namespace cosid {
namespace detail {

std::size_t StripedCounter::assign_stripe() noexcept {
  // Relaxed: the handout only has to spread threads over the stripes, not order anything.
  static std::atomic<std::size_t> next_stripe{0};
  return next_stripe.fetch_add(1, std::memory_order_relaxed) % kStripes;
}

}  // namespace detail
}  // namespace cosid
