// SPDX-License-Identifier: Apache-2.0
// SegmentGenerator (segment/generator.h). The protocol and the argument for every memory order
// are in SEGMENTS.md next to this file; the comments here say which step of it each line is.
#include "cosid/segment/generator.h"

#include <algorithm>
#include <array>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

#include "base/background_thread.h"
#include "base/cancel.h"
#include "base/fail.h"
#include "base/fork_guard.h"
#include "base/hot_path.h"
#include "base/parse_util.h"
#include "cosid/segment/range_rules.h"
#include "segment/doorbell.h"
#include "segment/prefetch_policy.h"

namespace cosid {
namespace segment {
namespace {

using cosid::detail::fail;

// close() sets this bit of next_value_: every later draw is >= 2^63, above every value a range
// can hold (ranges end at most at 2^63 - 1), so it fails the v < ready_end_ test and reaches the
// slow path, which reports errc::closed. Draws after it only add 1 (or a batch of at most
// kMaxBatch): 2^63 more of them would be needed to wrap.
constexpr std::uint64_t kClosedBit = std::uint64_t{1} << 63;
// The most values one next_batch() call draws: its draw is also clamped to the values it saw
// ready, so this only bounds what a racing call can waste.
constexpr std::uint64_t kMaxBatch = std::uint64_t{1} << 32;
// Pending ranges (claimed, not contiguous with the published block) the ring holds. A second
// generator on the key makes one per interleaved claim; more than a few means the key is shared
// by many generators claiming at once, and the thread then waits for consumers to reach them.
constexpr std::uint64_t kRing = 8;

// The background thread's backstop: it wakes at least this often, whatever rings it.
constexpr std::chrono::milliseconds kBackstop{100};
// No refill needed for this long: the distance halves (once per such period).
constexpr std::int64_t kIdleNs = 1000000000;
// Retries of a failed claim back off from 1 ms, doubling, to 100 ms (store_unavailable: the
// store may be back any moment) or 1 s (range_sealed, range_exhausted: it will not).
constexpr std::int64_t kFirstBackoffNs = 1000000;
constexpr std::int64_t kTransientBackoffNs = 100000000;
constexpr std::int64_t kPermanentBackoffNs = 1000000000;

using cosid::detail::clear;
using cosid::detail::Waiter;

// A refusal's sink (see SegmentGenerator::issue()): a Status is cleared on success only when it
// holds a failure, as the std::error_code is (detail::clear()).
void clear(Status& status) noexcept {
  if (!status.ok()) status.clear();
}
bool failed(const std::error_code& ec) noexcept { return static_cast<bool>(ec); }
bool failed(const Status& status) noexcept { return !status.ok(); }

// Reports a refusal: the code alone to a std::error_code, so that the hot path's overloads build
// no message; the code and the sentence `message()` builds to a Status.
template <typename Message>
void refuse(std::error_code& ec, std::error_code code, const Message&) noexcept {
  ec = code;
}
template <typename Message>
void refuse(Status& status, std::error_code code, const Message& message) {
  fail(status, code, message());
}

// The sentences of the refusals below, at the end of this file.
std::string empty_batch_message();
std::string broken_claim_message(const std::string& key, std::int64_t count, const Range& range,
                                 const Range& after);
std::string broken_first_claim_message(const std::string& key, std::int64_t count,
                                       const Range& range);
std::string forked_close_message(const std::string& key);
// open()'s checks of the options, each refusal with its sentence.
bool check_options(const GeneratorOptions& options, Status& status);

bool permanent(const std::error_code& code) {
  return code == errc::range_sealed || code == errc::range_exhausted || code == errc::store_corrupt;
}

std::string key_text(const std::string& key) { return "segment key " + cosid::detail::quote(key); }

// The first range of an open() that fails after claiming it: nobody used it, so it goes back.
// A failed give-back skips it (a gap, never a repeat).
void give_back_unused(RangeStore& store, const std::string& key, const Range& range) {
  bool returned = false;
  Status ignored;
  (void)store.give_back(key, range, returned, ignored);
}

}  // namespace

// Everything off the hot path. The background thread owns the bookkeeping of claimed ranges
// (`claimed_`, `run_start_`, `last_claim_`, the policy's measurements); close() reads it after
// joining the thread, which orders it.
class SegmentGenerator::Impl {
 public:
  Impl(SegmentGenerator& owner, std::shared_ptr<RangeStore> store, const GeneratorOptions& options)
      : owner_(owner),
        store_(std::move(store)),
        options_(options),
        clock_(options.clock != nullptr ? *options.clock : system_clock_),
        thread_(std::make_unique<cosid::detail::BackgroundThread>()) {}

  // A pending range: claimed and confirmed, not contiguous with the block, waiting for the
  // consumers to exhaust the block. Written by the background thread only, as a seqlock: `seq`
  // is odd while it writes and 2 * (index + 1) once entry `index` is complete, so a reader knows
  // which entry it read, and that it read it whole.
  struct Entry {
    std::atomic<std::uint64_t> seq{0};
    std::atomic<std::uint64_t> first{0};
    std::atomic<std::uint64_t> end{0};
  };

  SegmentGenerator& owner_;
  const std::shared_ptr<RangeStore> store_;
  const GeneratorOptions options_;
  SystemClock system_clock_;
  Clock& clock_;
  cosid::detail::ForkGuard fork_guard_;
  // A unique_ptr so that a forked child can leak it: the child must not join a thread of its
  // parent's (it would wait for ever on a thread that does not exist in it).
  std::unique_ptr<cosid::detail::BackgroundThread> thread_;
  detail::Doorbell bell_;               // wakes the background thread
  std::atomic<bool> stop_{false};       // tells the background thread to end
  std::atomic<bool> wake_sent_{false};  // a call passed low_mark_ and rang; reset per low mark
  std::atomic<bool> closed_{false};     // close() began

  std::array<Entry, kRing> ring_;
  std::atomic<std::uint64_t> head_{0};  // the next entry to activate; entries below are active
  std::atomic<std::uint64_t> tail_{0};  // entries pushed; written by the background thread only

  // The last claim's outcome, for hungry calls: the code (0: the last claim succeeded) read
  // without the lock, the message under it.
  std::atomic<int> last_error_code_{0};
  std::mutex error_mutex_;
  Status last_error_;  // guarded by error_mutex_

  // The sentences of next()'s refusals (at the end of this file); the last one reads last_error_.
  std::string forked_message() const;
  std::string closed_message() const;
  std::string no_claim_message() const;
  std::string claim_failed_message(std::int64_t waited_ms);

  std::mutex close_mutex_;   // one close() at a time
  bool close_done_ = false;  // guarded by close_mutex_

  // Counters (relaxed: each is a count, publishing nothing).
  std::atomic<std::uint64_t> claims_{0};
  std::atomic<std::uint64_t> claim_failures_{0};
  std::atomic<std::uint64_t> ids_claimed_{0};
  std::atomic<std::uint64_t> hungry_{0};
  std::atomic<std::uint64_t> ids_given_back_{0};
  std::atomic<std::uint64_t> ids_skipped_{0};
  std::atomic<std::uint32_t> distance_{0};

  // The background thread's own.
  std::vector<Range> claimed_;        // claimed ranges that may still hold unused values
  std::int64_t run_start_ = 0;        // start of the contiguous run of claims ending at last_claim_
  Range last_claim_;                  // the latest claim: its end and version for the give-back
  std::array<Range, kRing> pending_;  // copies of the ring's entries, by index % kRing
  std::uint64_t ids_published_ = 0;   // values of every claim so far
  std::int64_t last_claim_ns_ = 0;    // when the last claim returned (clock_)
  std::int64_t last_shrink_ns_ = 0;
  std::uint64_t consumed_at_last_claim_ = 0;
  std::uint64_t hungry_at_last_claim_ = 0;
  std::int64_t last_claim_latency_ns_ = 0;
  std::int64_t retry_at_ns_ = 0;  // no claim before this after a failure
  std::int64_t backoff_ns_ = 0;

  std::int64_t step() const noexcept { return options_.step; }

  // The values ready ahead of the consumers: the rest of the block and every pending entry.
  // Background thread only (it reads its own copies of the entries).
  std::uint64_t ready_values(std::uint64_t& next_value) const noexcept {
    next_value = owner_.next_value_.load(std::memory_order_relaxed);
    // Relaxed: an estimate for the policy; a stale reading claims early or late, never unsafely.
    const std::uint64_t end = owner_.ready_end_.load(std::memory_order_relaxed);
    std::uint64_t ready = next_value < end ? end - next_value : 0;
    const std::uint64_t head = head_.load(std::memory_order_acquire);
    const std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    for (std::uint64_t i = head; i < tail; ++i) {
      const Range& entry = pending_[i % kRing];
      const auto first =
          std::max<std::uint64_t>(static_cast<std::uint64_t>(entry.first), next_value);
      const auto last = static_cast<std::uint64_t>(entry.end);
      if (first < last) ready += last - first;
    }
    return ready;
  }

  // The value at which the ready values fall to `keep`: the call that draws it wakes the thread.
  // 0 when they are at or below it already (every call may ring; wake_sent_ makes one of them do).
  std::uint64_t low_mark(std::uint64_t next_value, std::uint64_t ready,
                         std::uint64_t keep) const noexcept {
    if (ready <= keep) return 0;
    std::uint64_t skip = ready - keep;
    const std::uint64_t end = owner_.ready_end_.load(std::memory_order_relaxed);
    if (next_value < end) {
      if (skip < end - next_value) return next_value + skip;
      skip -= end - next_value;
    }
    const std::uint64_t head = head_.load(std::memory_order_acquire);
    const std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    for (std::uint64_t i = head; i < tail; ++i) {
      const Range& entry = pending_[i % kRing];
      const auto first =
          std::max<std::uint64_t>(static_cast<std::uint64_t>(entry.first), next_value);
      const auto last = static_cast<std::uint64_t>(entry.end);
      if (first >= last) continue;
      if (skip < last - first) return first + skip;
      skip -= last - first;
    }
    return end;
  }

  // Publishes a confirmed range [first, end) (SEGMENTS.md, "Publishing"). Background thread only.
  void publish(const Range& range) noexcept {
    const auto first = static_cast<std::uint64_t>(range.first);
    const auto end = static_cast<std::uint64_t>(range.end);
    const std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    // Acquire: pairs with the release of the head CAS in activate(); seeing head == tail means
    // every entry's ready_end_ CAS (sequenced before its head CAS) is visible below.
    if (head_.load(std::memory_order_acquire) == tail) {
      std::uint64_t expected = owner_.ready_end_.load(std::memory_order_acquire);
      // Contiguous with the published block: raise its end. acq_rel: release so that a consumer
      // that reads the new end also sees next_value_ at or past the block's start (the jump or
      // open() that started the block happens before the end this CAS replaces, which it
      // acquires).
      if (expected == first &&
          owner_.ready_end_.compare_exchange_strong(expected, end, std::memory_order_acq_rel,
                                                    std::memory_order_relaxed)) {
        return;
      }
    }
    // Not contiguous (or entries are pending, which come first): a new entry. The slot's last
    // entry, tail - kRing, was activated (the caller checked tail - head < kRing).
    Entry& slot = ring_[tail % kRing];
    pending_[tail % kRing] = range;
    slot.seq.store(2 * tail + 1, std::memory_order_relaxed);
    // Release fence: a reader that sees either field's new value and then reads seq again sees
    // the odd value or later, and rejects what it read (the seqlock's writer side).
    std::atomic_thread_fence(std::memory_order_release);
    slot.first.store(first, std::memory_order_relaxed);
    slot.end.store(end, std::memory_order_relaxed);
    // Release: a reader that acquires seq == 2 * (tail + 1) reads the fields written above.
    slot.seq.store(2 * (tail + 1), std::memory_order_release);
    // Release: a reader that acquires tail > index finds the entry complete.
    tail_.store(tail + 1, std::memory_order_release);
  }

  // One attempt to move the consumers to the next pending entry, by any thread (SEGMENTS.md,
  // "Activation"). Returns false when no entry is pending; true when the caller should look at
  // ready_end_ again (this call or another moved things, or values are ready in the block).
  bool activate() noexcept {
    // Acquire on head_ and tail_: entries below head are active (their CASes are visible), and an
    // entry below tail is complete.
    const std::uint64_t head = head_.load(std::memory_order_acquire);
    if (tail_.load(std::memory_order_acquire) <= head) return false;
    // Acquire: pairs with the release CASes on ready_end_ (the chain of the block's start).
    const std::uint64_t end = owner_.ready_end_.load(std::memory_order_acquire);
    // Relaxed: a stale (lower) reading only says "not exhausted" and sends the caller back to
    // draw, which then sees a fresh value (its own RMW's).
    if (owner_.next_value_.load(std::memory_order_relaxed) < end) return true;
    Entry& slot = ring_[head % kRing];
    const std::uint64_t seq = slot.seq.load(std::memory_order_acquire);
    const std::uint64_t first = slot.first.load(std::memory_order_relaxed);
    const std::uint64_t entry_end = slot.end.load(std::memory_order_relaxed);
    // Acquire fence, then seq again: if the fields held a later write, the second read of seq
    // sees its odd value or later (the seqlock's reader side).
    std::atomic_thread_fence(std::memory_order_acquire);
    if (seq != 2 * (head + 1) || slot.seq.load(std::memory_order_relaxed) != seq) return true;
    // Head still here: the entry was not activated and superseded before `end` was read, so `end`
    // is the block's end before this entry or this entry's own end, never a later one.
    if (head_.load(std::memory_order_acquire) != head) return true;
    // The jump: next_value_ up to the entry's first value, only upward. Release: ordered before
    // the ready_end_ CAS below anyway (sequenced before a release); said for the reader.
    std::uint64_t next = owner_.next_value_.load(std::memory_order_relaxed);
    while (next < first && !owner_.next_value_.compare_exchange_weak(
                               next, first, std::memory_order_release, std::memory_order_relaxed)) {
    }
    // From exactly `end` (ready_end_ only grows, so no ABA): a helper that was overtaken fails.
    // Release: a consumer that acquires entry_end sees next_value_ >= first.
    std::uint64_t expected = end;
    owner_.ready_end_.compare_exchange_strong(expected, entry_end, std::memory_order_release,
                                              std::memory_order_relaxed);
    // Release: whoever acquires head + 1 sees this entry's ready_end_ CAS (ours or the helper's
    // whose CAS made ours fail: we read its value, and RMWs continue its release sequence).
    std::uint64_t expected_head = head;
    head_.compare_exchange_strong(expected_head, head + 1, std::memory_order_release,
                                  std::memory_order_relaxed);
    return true;
  }

  // Rings the background thread once per low mark.
  void wake() noexcept {
    // A load first: once rung, every later call past the mark reads true without writing the
    // cache line. Relaxed: a hint; the thread re-reads everything it acts on.
    if (wake_sent_.load(std::memory_order_relaxed)) return;
    if (wake_sent_.exchange(true, std::memory_order_relaxed)) return;
    bell_.ring();
  }

  void record_failure(const Status& status) {
    {
      std::lock_guard<std::mutex> lock(error_mutex_);
      last_error_ = status;
    }
    // Release: the unlock above comes before this store, so a hungry call that acquires the code
    // and then takes the lock reads this failure's message, not an older one. A code of another
    // category (a store's own) or none is reported as store_unavailable.
    const std::error_code& code = status.code();
    const bool ours = code && code.category() == error_category();
    last_error_code_.store(ours ? code.value() : static_cast<int>(errc::store_unavailable),
                           std::memory_order_release);
  }

  // One claim of `segments` segments; publishes the range on success.
  void claim(std::uint32_t segments, std::uint64_t consumed) {
    RangeRequest request;
    request.key = options_.key;
    request.offset = options_.offset;
    request.count = static_cast<std::int64_t>(segments) * step();
    Range range;
    Status status;
    const std::int64_t started = clock_.monotonic_ns();
    const bool ok = store_->claim(request, range, status);
    const std::int64_t now = clock_.monotonic_ns();
    if (ok && (range.first < 1 || range.end - range.first != request.count ||
               range.first < last_claim_.end)) {
      // A store that breaks its contract: its range is not used (it may overlap one handed out).
      cosid::detail::fail(status, errc::store_corrupt,
                          broken_claim_message(options_.key, request.count, range, last_claim_));
    }
    if (!ok && status.code() == errc::range_exhausted && segments > 1) {
      // Near 2^63 - 1 fewer segments may still fit: the last ones are worth having.
      claim(1, consumed);
      return;
    }
    if (!ok || !status.ok()) {
      record_failure(status);  // first: a caller that sees the count finds the error too
      claim_failures_.fetch_add(1, std::memory_order_relaxed);
      const std::int64_t cap = permanent(status.code()) ? kPermanentBackoffNs : kTransientBackoffNs;
      backoff_ns_ = backoff_ns_ == 0 ? kFirstBackoffNs : std::min(2 * backoff_ns_, cap);
      retry_at_ns_ = now + backoff_ns_;
      return;
    }
    backoff_ns_ = 0;
    // Counted before the range is published: a caller that drew a value from it and then reads
    // stats() finds the claim counted (the publication's release orders these increments before
    // the caller's acquire of the range).
    claims_.fetch_add(1, std::memory_order_relaxed);
    ids_claimed_.fetch_add(static_cast<std::uint64_t>(range.size()), std::memory_order_relaxed);
    publish(range);
    if (range.first != last_claim_.end) run_start_ = range.first;
    last_claim_ = range;
    claimed_.push_back(range);
    ids_published_ += static_cast<std::uint64_t>(range.size());
    // Release: pairs with the acquire of hungry calls: a code of 0 means the values are out.
    last_error_code_.store(0, std::memory_order_release);

    // The policy, from what happened since the previous claim.
    const std::uint64_t hungry = hungry_.load(std::memory_order_relaxed);
    detail::PrefetchInputs in;
    in.distance = distance_.load(std::memory_order_relaxed);
    in.hungry_since_last = hungry != hungry_at_last_claim_;
    const std::int64_t elapsed = now - last_claim_ns_;
    if (elapsed > 0 && consumed > consumed_at_last_claim_) {
      in.ids_per_second = static_cast<double>(consumed - consumed_at_last_claim_) * 1e9 /
                          static_cast<double>(elapsed);
    }
    in.claim_ns = now - started;
    in.step = step();
    in.safe_distance = options_.safe_distance;
    in.max_distance = options_.max_distance;
    distance_.store(detail::next_distance(in), std::memory_order_relaxed);
    hungry_at_last_claim_ = hungry;
    consumed_at_last_claim_ = consumed;
    last_claim_ns_ = now;
    last_shrink_ns_ = now;
    last_claim_latency_ns_ = in.claim_ns;
  }

  // The background thread: keeps distance segments ready (SEGMENTS.md, "Prefetch").
  void run() {
    while (!stop_.load(std::memory_order_acquire)) {
      const std::uint32_t seen = bell_.seen();
      const std::int64_t now = clock_.monotonic_ns();
      if (now - last_claim_ns_ >= kIdleNs && now - last_shrink_ns_ >= kIdleNs) {
        detail::PrefetchInputs in;
        in.distance = distance_.load(std::memory_order_relaxed);
        in.idle = true;
        in.hungry_since_last = hungry_.load(std::memory_order_relaxed) != hungry_at_last_claim_;
        in.step = step();
        in.safe_distance = options_.safe_distance;
        in.max_distance = options_.max_distance;
        distance_.store(detail::next_distance(in), std::memory_order_relaxed);
        last_shrink_ns_ = now;
      }
      std::uint64_t next_value = 0;
      const std::uint64_t ready = ready_values(next_value);
      const std::uint64_t target =
          static_cast<std::uint64_t>(distance_.load(std::memory_order_relaxed)) *
          static_cast<std::uint64_t>(step());
      const std::uint64_t tail = tail_.load(std::memory_order_relaxed);
      const bool room = tail - head_.load(std::memory_order_acquire) < kRing;
      prune(next_value);
      if (ready <= target / 2 && room && now >= retry_at_ns_) {
        const std::uint64_t missing = target - ready;
        const std::uint64_t segments = std::min<std::uint64_t>(
            (missing + static_cast<std::uint64_t>(step()) - 1) / static_cast<std::uint64_t>(step()),
            options_.max_distance);
        claim(static_cast<std::uint32_t>(std::max<std::uint64_t>(segments, 1)),
              ids_published_ - ready);
        continue;
      }
      if (ready > target / 2) {
        // Relaxed: hints (see wake()). The mark comes before the reset, so a call that reads the
        // reset flag and an old, lower mark only rings once more.
        owner_.low_mark_.store(low_mark(next_value, ready, target / 2), std::memory_order_relaxed);
        wake_sent_.store(false, std::memory_order_relaxed);
      }
      std::chrono::nanoseconds timeout = kBackstop;
      if (ready <= target / 2 && room && retry_at_ns_ > now) {
        timeout = std::min<std::chrono::nanoseconds>(timeout,
                                                     std::chrono::nanoseconds(retry_at_ns_ - now));
      }
      bell_.wait(seen, timeout);
    }
  }

  // Drops the claimed ranges that are used up (background thread, and close() after the join).
  void prune(std::uint64_t next_value) {
    claimed_.erase(std::remove_if(claimed_.begin(), claimed_.end(),
                                  [&](const Range& r) {
                                    return static_cast<std::uint64_t>(r.end) <= next_value;
                                  }),
                   claimed_.end());
  }
};

// ---------------------------------------------------------------------------------------------

std::unique_ptr<SegmentGenerator> SegmentGenerator::open(std::shared_ptr<RangeStore> store,
                                                         const GeneratorOptions& options,
                                                         Status& status) {
  const std::string key = key_text(options.key);
  if (!check_key(options.key, status)) return nullptr;
  if (store == nullptr) {
    fail(status, errc::invalid_argument, key + ": no range store given: pass one");
    return nullptr;
  }
  if (!check_options(options, status)) return nullptr;

  std::unique_ptr<SegmentGenerator> generator(new SegmentGenerator(nullptr));
  generator->impl_ = std::make_unique<Impl>(*generator, std::move(store), options);
  Impl& impl = *generator->impl_;
  generator->fork_guard_ = &impl.fork_guard_;

  // The first range, before open() returns: a key that cannot be served fails here.
  RangeRequest request;
  request.key = options.key;
  request.offset = options.offset;
  request.count = static_cast<std::int64_t>(options.safe_distance) * options.step;
  request.cancel = options.cancel;  // the first claim only: the background claims run on
  if (cosid::detail::cancel_requested(options.cancel)) {
    cosid::detail::start_cancelled(status, "before the first claim of " + key,
                                   "nothing was claimed");
    return nullptr;
  }
  Range range;
  if (!impl.store_->claim(request, range, status)) return nullptr;
  if (range.first < 1 || range.end - range.first != request.count) {
    fail(status, errc::store_corrupt,
         broken_first_claim_message(options.key, request.count, range));
    return nullptr;
  }
  impl.last_claim_ = range;
  impl.run_start_ = range.first;
  impl.claimed_.push_back(range);
  impl.ids_published_ = static_cast<std::uint64_t>(range.size());
  impl.claims_.store(1, std::memory_order_relaxed);
  impl.ids_claimed_.store(static_cast<std::uint64_t>(range.size()), std::memory_order_relaxed);
  impl.distance_.store(options.safe_distance, std::memory_order_relaxed);
  impl.last_claim_ns_ = impl.clock_.monotonic_ns();
  impl.last_shrink_ns_ = impl.last_claim_ns_;
  // Relaxed: nothing else runs yet; the thread's start and the return of the generator to the
  // caller (then whatever hands it to other threads) order these stores before every use.
  generator->next_value_.store(static_cast<std::uint64_t>(range.first), std::memory_order_relaxed);
  generator->ready_end_.store(static_cast<std::uint64_t>(range.end), std::memory_order_relaxed);
  const std::uint64_t size = static_cast<std::uint64_t>(range.size());
  const std::uint64_t keep = size / 2;
  generator->low_mark_.store(static_cast<std::uint64_t>(range.first) + (size - keep),
                             std::memory_order_relaxed);

  // A claim cannot be interrupted: the look at the flag comes right after it.
  if (cosid::detail::cancel_requested(options.cancel)) {
    give_back_unused(*impl.store_, options.key, range);
    cosid::detail::start_cancelled(status, "once the first claim of " + key + " returned",
                                   "its values [" + std::to_string(range.first) + ", " +
                                       std::to_string(range.end) + ") are given back");
    return nullptr;
  }
  const std::error_code started = impl.thread_->start<Impl, &Impl::run>(&impl);
  if (started) {
    give_back_unused(*impl.store_, options.key, range);
    fail(status, errc::store_unavailable,
         cosid::detail::thread_start_failure("segment generator's", started));
    return nullptr;
  }
  status.clear();
  return generator;
}

#if COSID_HAS_EXCEPTIONS
std::unique_ptr<SegmentGenerator> SegmentGenerator::open(std::shared_ptr<RangeStore> store,
                                                         const GeneratorOptions& options) {
  Status status;
  auto generator = open(std::move(store), options, status);
  cosid::detail::throw_if_failed(status);
  return generator;
}

std::int64_t SegmentGenerator::next() {
  Status status;
  const std::int64_t id = next(status);
  cosid::detail::throw_if_failed(status);
  return id;
}
#endif

SegmentGenerator::SegmentGenerator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

SegmentGenerator::~SegmentGenerator() {
  if (impl_ == nullptr) return;
  Status ignored;
  (void)close(ignored);
}

const std::string& SegmentGenerator::key() const noexcept { return impl_->options_.key; }

// The hot path (SEGMENTS.md, "The hot path"). Inlined into both next() overloads, so that
// next(ec) stays the few instructions it is.
template <typename Sink>
[[gnu::always_inline]] inline std::int64_t SegmentGenerator::issue(Sink& sink) noexcept {
  // Acquire: pairs with the release that published this end (a raise or an activation), so the
  // draw below reads next_value_ at or past the start of the end's block.
  const std::uint64_t end = ready_end_.load(std::memory_order_acquire);
  // Relaxed: the RMW's place in next_value_'s modification order is what makes the value ours
  // alone; nothing is published through it.
  const std::uint64_t value = next_value_.fetch_add(1, std::memory_order_relaxed);
  if (__builtin_expect(value < end && !fork_guard_->forked(), 1)) {
    // Relaxed: the mark is a hint for the background thread.
    if (__builtin_expect(value >= low_mark_.load(std::memory_order_relaxed), 0)) impl_->wake();
    clear(sink);
    return static_cast<std::int64_t>(value);
  }
  return next_slow(value, sink);
}

std::int64_t SegmentGenerator::next(std::error_code& ec) noexcept { return issue(ec); }

std::int64_t SegmentGenerator::next(Status& status) noexcept { return issue(status); }

template <typename Sink>
[[gnu::noinline]] std::int64_t SegmentGenerator::next_slow(std::uint64_t taken,
                                                           Sink& sink) noexcept {
  std::uint64_t got = 0;
  const std::uint64_t first = take_slow(1, taken, got, sink);
  return failed(sink) ? 0 : static_cast<std::int64_t>(first);
}

std::size_t SegmentGenerator::next_batch(std::int64_t* ids, std::size_t count,
                                         std::error_code& ec) noexcept {
  return batch(ids, count, ec);
}

std::size_t SegmentGenerator::next_batch(std::int64_t* ids, std::size_t count,
                                         Status& status) noexcept {
  return batch(ids, count, status);
}

template <typename Sink>
std::size_t SegmentGenerator::batch(std::int64_t* ids, std::size_t count, Sink& sink) noexcept {
  if (count == 0) {
    refuse(sink, make_error_code(errc::invalid_argument), empty_batch_message);
    return 0;
  }
  const std::uint64_t want = std::min<std::uint64_t>(count, kMaxBatch);
  // As next(), with the draw clamped to the values seen ready, so that a batch near the end of
  // the block takes what is left instead of drawing past it and wasting the rest.
  const std::uint64_t end = ready_end_.load(std::memory_order_acquire);
  const std::uint64_t seen = next_value_.load(std::memory_order_relaxed);
  std::uint64_t first = 0;
  std::uint64_t got = 0;
  if (seen < end && !fork_guard_->forked()) {
    const std::uint64_t draw = std::min(want, end - seen);
    const std::uint64_t value = next_value_.fetch_add(draw, std::memory_order_relaxed);
    if (value < end) {
      first = value;
      got = std::min(value + draw, end) - value;
      if (value + got - 1 >= low_mark_.load(std::memory_order_relaxed)) impl_->wake();
      clear(sink);
    } else {
      first = take_slow(want, value, got, sink);
    }
  } else {
    first = take_slow(want, kNoDraw, got, sink);
  }
  if (failed(sink)) return 0;
  for (std::uint64_t i = 0; i < got; ++i) ids[i] = static_cast<std::int64_t>(first + i);
  return static_cast<std::size_t>(got);
}

template <typename Sink>
std::uint64_t SegmentGenerator::take_slow(std::uint64_t want, std::uint64_t taken,
                                          std::uint64_t& got, Sink& sink) noexcept {
  Impl& impl = *impl_;
  bool counted = false;
  Waiter waiter;
  for (;;) {
    if (fork_guard_->forked()) {
      refuse(sink, make_error_code(errc::forked_process), [&] { return impl.forked_message(); });
      return 0;
    }
    // Acquire on closed_: a call that sees it also sees the frozen next_value_, though either
    // alone makes it fail.
    if ((taken != kNoDraw && taken >= kClosedBit) || impl.closed_.load(std::memory_order_acquire)) {
      refuse(sink, make_error_code(errc::closed), [&] { return impl.closed_message(); });
      return 0;
    }
    const bool pending = impl.activate();
    // Acquire: as in next(). Then a fresh look at next_value_: draw again only when values are
    // ready, so that a waiting call draws (and wastes) at most one value per change it sees.
    const std::uint64_t end = ready_end_.load(std::memory_order_acquire);
    const std::uint64_t seen = next_value_.load(std::memory_order_relaxed);
    if (seen >= kClosedBit) {  // frozen by close(): reported at the top
      taken = seen;
      continue;
    }
    if (seen < end) {
      const std::uint64_t draw = std::min(want, end - seen);
      const std::uint64_t value = next_value_.fetch_add(draw, std::memory_order_relaxed);
      if (value < end) {
        got = std::min(value + draw, end) - value;
        if (value + got - 1 >= low_mark_.load(std::memory_order_relaxed)) impl.wake();
        clear(sink);
        return value;
      }
      taken = value;
      continue;
    }
    if (pending) continue;
    if (!counted) {
      counted = true;
      impl.hungry_.fetch_add(1, std::memory_order_relaxed);
      impl.bell_.ring();
    }
    // Acquire: pairs with record_failure()'s release.
    const int code = impl.last_error_code_.load(std::memory_order_acquire);
    // Spins, then sleeps in short steps (hot_path.h), until the wait has passed.
    const bool gave_up =
        (code != 0 && permanent(make_error_code(static_cast<errc>(code)))) ||
        !waiter.pause(impl.clock_, std::chrono::nanoseconds(impl.options_.wait).count());
    if (gave_up && code == 0) {
      refuse(sink, make_error_code(errc::store_unavailable),
             [&] { return impl.no_claim_message(); });
      return 0;
    }
    if (gave_up) {
      refuse(sink, make_error_code(static_cast<errc>(code)),
             [&] { return impl.claim_failed_message(waiter.waited_ms()); });
      return 0;
    }
  }
}

bool SegmentGenerator::close(Status& status) {
  Impl& impl = *impl_;
  if (fork_guard_->forked()) {
    // The parent's thread does not exist here, and the parent still hands these values out:
    // nothing is joined, nothing given back. The thread object is left to leak with the copy.
    (void)impl.thread_.release();
    return fail(status, errc::forked_process, forked_close_message(impl.options_.key));
  }
  std::lock_guard<std::mutex> lock(impl.close_mutex_);
  if (impl.close_done_) {
    status.clear();
    return true;
  }
  impl.close_done_ = true;
  impl.closed_.store(true, std::memory_order_release);
  // No claim in flight after this: the join orders the thread's bookkeeping before the reads below.
  impl.stop_.store(true, std::memory_order_release);
  impl.bell_.ring();
  impl.thread_->join();

  // The freeze. Relaxed: this RMW's place in next_value_'s modification order splits the draws:
  // those before it took values below `frozen`, those after take values >= 2^63 and fail. So no
  // value >= frozen was or will be returned. (Helpers still activating may move ready_end_ and
  // head_ afterwards; that hands out nothing, since every draw now fails.)
  const std::uint64_t frozen = next_value_.fetch_or(kClosedBit, std::memory_order_relaxed);

  std::uint64_t unused = 0;
  for (const Range& range : impl.claimed_) {
    const auto first = std::max<std::uint64_t>(static_cast<std::uint64_t>(range.first), frozen);
    if (first < static_cast<std::uint64_t>(range.end)) {
      unused += static_cast<std::uint64_t>(range.end) - first;
    }
  }
  // The run of unused values that ends at the last claim's end: the store takes it back only with
  // that claim's version, and only as one tail [first, end).
  const Range& last = impl.last_claim_;
  const auto back_first =
      std::max<std::uint64_t>(static_cast<std::uint64_t>(impl.run_start_), frozen);
  std::uint64_t given = 0;
  bool ok = true;
  if (back_first < static_cast<std::uint64_t>(last.end)) {
    Range tail;
    tail.first = static_cast<std::int64_t>(back_first);
    tail.end = last.end;
    tail.version = last.version;
    bool returned = false;
    // Once, never retried (range_store.h): a give-back whose answer was lost may have happened.
    ok = impl.store_->give_back(impl.options_.key, tail, returned, status);
    if (ok && returned) given = static_cast<std::uint64_t>(tail.size());
  }
  impl.ids_given_back_.store(given, std::memory_order_relaxed);
  impl.ids_skipped_.store(unused - given, std::memory_order_relaxed);
  if (!ok) return false;
  status.clear();
  return true;
}

GeneratorStats SegmentGenerator::stats() const noexcept {
  const Impl& impl = *impl_;
  GeneratorStats stats;
  stats.claims = impl.claims_.load(std::memory_order_relaxed);
  stats.claim_failures = impl.claim_failures_.load(std::memory_order_relaxed);
  stats.ids_claimed = impl.ids_claimed_.load(std::memory_order_relaxed);
  stats.hungry = impl.hungry_.load(std::memory_order_relaxed);
  stats.ids_given_back = impl.ids_given_back_.load(std::memory_order_relaxed);
  stats.ids_skipped = impl.ids_skipped_.load(std::memory_order_relaxed);
  stats.distance = impl.distance_.load(std::memory_order_relaxed);
  return stats;
}

// ---------------------------------------------------------------------------------------------
// The sentences of the refusals of next() and next_batch().

namespace {

std::string empty_batch_message() { return "next_batch() of 0 ids: ask for 1 or more"; }

// A store that breaks its contract (range_store.h): a range of another size or not increasing.
std::string broken_claim_message(const std::string& key, std::int64_t count, const Range& range,
                                 const Range& after) {
  return key_text(key) + ": the store answered a claim of " + std::to_string(count) +
         " values with [" + std::to_string(range.first) + ", " + std::to_string(range.end) +
         ") after [" + std::to_string(after.first) + ", " + std::to_string(after.end) +
         "): not used; check the store (a range store must hand out increasing ranges)";
}

std::string broken_first_claim_message(const std::string& key, std::int64_t count,
                                       const Range& range) {
  return key_text(key) + ": the store answered a claim of " + std::to_string(count) +
         " values with [" + std::to_string(range.first) + ", " + std::to_string(range.end) +
         "): not used; check the store";
}

std::string forked_close_message(const std::string& key) {
  return key_text(key) +
         ": close() in a child forked from the process that opened the generator does nothing: "
         "the parent's generator keeps its values";
}

bool check_options(const GeneratorOptions& options, Status& status) {
  const std::string key = key_text(options.key);
  if (options.offset < 0) {
    return fail(status, errc::invalid_argument,
                key + ": offset " + std::to_string(options.offset) +
                    " is negative; give 0 or more (the first value is offset + 1)");
  }
  if (options.safe_distance < 1) {
    return fail(status, errc::invalid_argument,
                key + ": safe_distance 0; keep 1 or more segments ready");
  }
  if (options.max_distance < options.safe_distance || options.max_distance > 65536) {
    return fail(status, errc::invalid_argument,
                key + ": max_distance " + std::to_string(options.max_distance) + " is outside " +
                    std::to_string(options.safe_distance) + " (safe_distance) to 65536");
  }
  const std::int64_t max_step = kMaxClaim / options.max_distance;
  if (options.step < 1 || options.step > max_step) {
    return fail(status, errc::invalid_argument,
                key + ": step " + std::to_string(options.step) + " is outside 1 to " +
                    std::to_string(max_step) + " (2^40 values per claim over max_distance " +
                    std::to_string(options.max_distance) + ")");
  }
  if (options.wait < std::chrono::milliseconds(1) || options.wait > std::chrono::minutes(10)) {
    return fail(
        status, errc::invalid_argument,
        key + ": wait " + std::to_string(options.wait.count()) + " ms is outside 1 ms to 10 min");
  }
  return true;
}

}  // namespace

std::string SegmentGenerator::Impl::forked_message() const {
  return key_text(options_.key) +
         ": this segment generator was opened in the parent of this forked process, and its "
         "copy would repeat the parent's ids: open a generator of its own in the child";
}

std::string SegmentGenerator::Impl::closed_message() const {
  return key_text(options_.key) +
         ": the segment generator is closed: open a new one (it resumes where this one stopped)";
}

std::string SegmentGenerator::Impl::no_claim_message() const {
  return key_text(options_.key) + ": no range was claimed within " +
         std::to_string(options_.wait.count()) +
         " ms (the store's claim is slow or hangs): retry, or give the generator a longer wait";
}

std::string SegmentGenerator::Impl::claim_failed_message(std::int64_t waited_ms) {
  std::lock_guard<std::mutex> lock(error_mutex_);
  return key_text(options_.key) + ": no value ready after " + std::to_string(waited_ms) +
         " ms, and the background claim failed: " + last_error_.message();
}

}  // namespace segment
}  // namespace cosid
