// Internal: a counter that many threads add to without contending for one cache line.
//
// Each thread adds to one of kStripes cells, each on a cache line of its own, chosen once per
// thread (round robin over the threads that ever counted); a read sums the cells. An add is one
// uncontended atomic add while at most kStripes threads count at once, instead of a cache line
// that every counting thread would have to take exclusively in turn, as the hot path's own state
// word is.
//
// Thread safety: add() and sum() may be called from any thread at any time.
#ifndef COSID_SRC_STRIPED_COUNTER_H_
#define COSID_SRC_STRIPED_COUNTER_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace cosid {
namespace detail {

class StripedCounter {
 public:
  void add(std::uint64_t n) noexcept {
    // Relaxed: the counter publishes nothing; sum() only needs each add to land once.
    cells_[this_thread_stripe()].value.fetch_add(n, std::memory_order_relaxed);
  }

  std::uint64_t sum() const noexcept {
    std::uint64_t total = 0;
    for (const Cell& cell : cells_) total += cell.value.load(std::memory_order_relaxed);
    return total;
  }

 private:
  static constexpr std::size_t kStripes = 16;
  static constexpr std::size_t kUnassigned = ~std::size_t{0};

  static std::size_t this_thread_stripe() noexcept {
    // Constant-initialized, so reading it needs no per-access guard for dynamic initialization.
    thread_local std::size_t stripe = kUnassigned;
    if (stripe == kUnassigned) stripe = assign_stripe();
    return stripe;
  }
  static std::size_t assign_stripe() noexcept;

  struct alignas(64) Cell {
    std::atomic<std::uint64_t> value{0};
  };
  std::array<Cell, kStripes> cells_;
};

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_STRIPED_COUNTER_H_
