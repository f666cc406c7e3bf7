// SPDX-License-Identifier: Apache-2.0
// SegmentGenerator: dense, increasing ids of one key, handed out from memory out of ranges that a
// RangeStore (segment/range_store.h) claimed for it (src/segment/SEGMENTS.md).
//
// open() claims the first range before it returns, so a key that cannot be served fails there.
// A background thread of the generator's own then keeps ranges ready ahead of the consumers: at
// least safe_distance segments of `step` ids, more while consumers find none ready or the rate
// and the store's claim time call for it (never more than max_distance segments), fewer again
// when idle; it claims them in one call, as one range of a multiple of `step`. No value of a range
// is handed out before the store confirmed the claim.
//
// next() is lock-free: one atomic fetch-and-add on the next value, checked against the end of
// the values ready, with no lock, allocation or system call, and the same for next_batch() (the
// one call per refill that reaches the low mark rings the background thread: a futex wake when
// it sleeps). A call that finds no value ready wastes the one value it drew: a gap. Ids
// are strictly increasing per generator (in the order the calls take their values), unique
// across every generator of the key that shares the store, and never 0. When no value is ready,
// next() waits for the background claim at most options.wait, then fails with the store's error
// (store_unavailable, range_sealed, range_exhausted, store_corrupt).
//
// close() stops the thread and hands the unused values back (RangeStore::give_back), so that a
// clean restart resumes from the first unused value. A store takes back one tail, with the last
// claim's version: the unused values of the run of contiguous claims that ends with the last one
// (the rest of the current range and the ranges prefetched after it, when no other generator
// claimed in between). Unused values before that run (another generator's claim lies between),
// every unused value when another generator claimed the key since, and after a crash, are
// skipped, never reused: a gap, not a repeat (stats() counts them).
//
// A child forked from the process that opened a generator must not use it (it would repeat the
// parent's ids): every call there fails with errc::forked_process.
//
// Thread safety: next(), next_batch(), stats() and close() may be called from any number of
// threads at once. The generator must not be destroyed while a call is running; the destructor
// closes it.
#ifndef COSID_SEGMENT_GENERATOR_H_
#define COSID_SEGMENT_GENERATOR_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>

#include "cosid/clock.h"
#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/export.h"
#include "cosid/segment/range_store.h"

namespace cosid {
namespace detail {
class ForkGuard;
}  // namespace detail
namespace segment {

struct COSID_EXPORT GeneratorOptions {
  std::string key;
  // A new key's first value is offset + 1 (RangeRequest::offset).
  std::int64_t offset = 0;
  // Ids per segment: the unit of every claim. 1 to kMaxClaim / max_distance.
  std::int64_t step = 100;
  // The fewest segments kept ready ahead of the consumers (CosId's safe distance): 1 or more.
  std::uint32_t safe_distance = 2;
  // The most: the most one claim takes, and with `step` the most values a crash can skip.
  // safe_distance to 65536.
  std::uint32_t max_distance = 1024;
  // How long next() waits for a claim when no value is ready, before it fails; 1 ms to 10 min.
  std::chrono::milliseconds wait{10000};
  // Monotonic time for rates and waits; null: the system clock. REQUIRES: outlives the generator.
  Clock* clock = nullptr;
  // Cancels open(): once *cancel is true (a signal handler may set it: the atomic is lock-free),
  // open() stops at its next look (before the first claim, in every slice of the claim's wait for
  // a store that waits, as the file store for another's lock, and right after the claim), hands
  // the values it claimed back and fails with errc::cancelled. Read only during open(); null:
  // open() cannot be cancelled. REQUIRES: outlives open().
  const std::atomic<bool>* cancel = nullptr;
};

// Counters of one generator since open(); every field but `distance` only grows.
struct COSID_EXPORT GeneratorStats {
  std::uint64_t claims = 0;          // successful claims, the first included
  std::uint64_t claim_failures = 0;  // claims the store refused or did not answer
  std::uint64_t ids_claimed = 0;     // values the claims took
  std::uint64_t hungry = 0;          // next()/next_batch() calls that found no value ready
  std::uint64_t ids_given_back = 0;  // values close() handed back and the store took
  std::uint64_t ids_skipped = 0;     // unused values close() could not hand back
  std::uint32_t distance = 0;        // segments the background thread keeps ready now
};

class COSID_EXPORT SegmentGenerator {
 public:
  // Checks the options (invalid_argument naming the value), claims the first range (the store's
  // error otherwise) and starts the background thread (store_unavailable if it cannot start);
  // errc::cancelled once options.cancel was set. On failure returns null and sets `status`, and
  // the values it claimed are given back. REQUIRES: `store` is not null.
  [[nodiscard]] static std::unique_ptr<SegmentGenerator> open(std::shared_ptr<RangeStore> store,
                                                              const GeneratorOptions& options,
                                                              Status& status);
#if COSID_HAS_EXCEPTIONS
  // Throws cosid::Error with the message.
  static std::unique_ptr<SegmentGenerator> open(std::shared_ptr<RangeStore> store,
                                                const GeneratorOptions& options);
#endif

  ~SegmentGenerator();
  SegmentGenerator(const SegmentGenerator&) = delete;
  SegmentGenerator& operator=(const SegmentGenerator&) = delete;

  // The next id: the hot path. On failure returns 0 and sets `ec` (header comment); never
  // allocates and builds no message.
  [[nodiscard]] std::int64_t next(std::error_code& ec) noexcept;
  // As next(ec); on failure `status` also gets the store's message (what it said, the key, what
  // to do). Only a failure allocates.
  [[nodiscard]] std::int64_t next(Status& status) noexcept;
#if COSID_HAS_EXCEPTIONS
  std::int64_t next();
#endif

  // Up to `count` consecutive ids, taken with one fetch-and-add: fewer when the values ready run
  // out first (call again for the rest). Returns how many were written, at least 1 on success; 0
  // with `ec` set on the failures of next(). REQUIRES: `ids` holds `count` values; count >= 1.
  [[nodiscard]] std::size_t next_batch(std::int64_t* ids, std::size_t count,
                                       std::error_code& ec) noexcept;
  [[nodiscard]] std::size_t next_batch(std::int64_t* ids, std::size_t count,
                                       Status& status) noexcept;

  // Stops the background thread, makes every later call fail with errc::closed, and hands the
  // unused values back (header comment). Returns false with the store's error when the give-back
  // failed (the values are then skipped, and stats() counts them); true otherwise, whether the
  // store took them or the key had moved on. Idempotent: a second call returns true.
  [[nodiscard]] bool close(Status& status);

  GeneratorStats stats() const noexcept;
  const std::string& key() const noexcept;

 private:
  class Impl;  // everything off the hot path: the store, the thread, the prefetched ranges
  explicit SegmentGenerator(std::unique_ptr<Impl> impl);

  // next() past its fast path: the value it took was not ready (or the generator is closed or
  // forked); waits for the background claim, moves to the next prefetched range, or fails.
  template <typename Sink>
  std::int64_t next_slow(std::uint64_t taken, Sink& sink) noexcept;
  // The hot path of both next() overloads (inlined into each), and next_batch()'s. `Sink` is
  // what a refusal is reported to, the overload's last parameter: std::error_code (the code
  // alone, so that those failures build no message) or Status (the code and its sentence).
  template <typename Sink>
  std::int64_t issue(Sink& sink) noexcept;
  template <typename Sink>
  std::size_t batch(std::int64_t* ids, std::size_t count, Sink& sink) noexcept;
  // Up to `want` values once the fast path failed: activates the next prefetched range, waits
  // for the background claim, or fails. `taken` is the value the failed draw took, or kNoDraw.
  template <typename Sink>
  std::uint64_t take_slow(std::uint64_t want, std::uint64_t taken, std::uint64_t& got,
                          Sink& sink) noexcept;
  static constexpr std::uint64_t kNoDraw = ~std::uint64_t{0};

  // The hot words, inline so that next() reaches them without following a pointer, each on a
  // pair of cache lines of its own (128 bytes: with 64, a prefetcher that fetches the neighbouring
  // line made the read-mostly line contend with the written one; tests/bench/README.md):
  // next_value_ is written by every call, ready_end_ and low_mark_ only when a range is published
  // (SEGMENTS.md, "The hot path").
  alignas(128) std::atomic<std::uint64_t> next_value_{0};  // the next value a call takes
  alignas(128) std::atomic<std::uint64_t> ready_end_{0};   // values below it are ready
  std::atomic<std::uint64_t> low_mark_{0};  // a call that takes it wakes the background claim
  const detail::ForkGuard* fork_guard_ = nullptr;
  alignas(128) std::unique_ptr<Impl> impl_;
};

}  // namespace segment
}  // namespace cosid

#endif  // COSID_SEGMENT_GENERATOR_H_
