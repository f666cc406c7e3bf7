// SPDX-License-Identifier: Apache-2.0
// Events: what a runtime reports as it happens (a new state file, a write that failed, a lease
// lost, ...), one at a time, for a log; and EventListener, which receives them.
// RuntimeEnvironment::listener (runtime.h) takes the listener; the runtime's keepers call it.
// Counts of the same happenings, for a scrape rather than a log, come from Runtime::metrics().
//
// Thread safety: Event is a plain value. A listener is called on the thread that caused the
// event, often the runtime's background thread, and from more than one thread over its life.
#ifndef COSID_EVENTS_H_
#define COSID_EVENTS_H_

#include <cstdint>
#include <string>
#include <system_error>

#include "cosid/export.h"

namespace cosid {

enum class EventKind {
  kStateFileCreated,     // warning: a new state file, floor = not-before
  kNoStateFile,          // warning: no state file configured
  kWaitingForFloor,      // start-up waits for the clock to pass the floor
  kCeilingAdvanced,      // a new ceiling is durable (metric)
  kStateWriteFailed,     // writing the next ceiling (or checking the file first) failed; retried
  kStateWriteRecovered,  // a write succeeded after failures
  kWaitingAtCeiling,     // a generator waits for the next ceiling
  kStateFileReplaced,    // the file was removed or replaced: no more ceilings, no more ids
  kStateFileDamaged,     // warning: a block was damaged at open; the start went on with the other
  // A slot leased from a store (the lease keeper).
  kLeaseAcquired,          // a slot was leased, at start or after a loss (slot, ceiling_ms)
  kLeaseWaiting,           // start-up found no free slot and retries (warning)
  kDuplicateOwnerKey,      // another live runtime leases under the same owner key (warning)
  kClockSkew,              // the store's clock differs from the local one by > tolerance/2
  kLeaseRenewalFailed,     // a renewal failed; retried with back-off (warning)
  kLeaseRenewalRecovered,  // a renewal succeeded after failures
  kLeaseLost,              // the lease is gone: its generator fails with slot_lost (warning)
  kLeaseReleased,          // the lease was given back at close
  kStoreLog,               // a line a store's client library logged (ZooKeeper's C client)
  // Start mode borrow (options.h StartMode): start-up issues from the first tick past the floor
  // at once, ids' time ahead of the clock by at most the gap the message names (ceiling_ms: the
  // floor). Last, so that the values above stay what they were.
  kBorrowingAhead,
  // Added in 0.7, after the values above so that they stay what they were.
  kRangeKeyStarted,  // warning: a range key with no record began at its first value (the message
                     // names the key and the value); a typo'd key starts over silently otherwise
  kSlowSync,         // warning: one sync of the state file took longer than ahead/4 (ceiling_ms:
                     // the sync's duration in ms); ids stop if a sync outlasts about ahead/2.
                     // A sync is the write and fdatasync of a ceiling (the first one at start
                     // included, failed attempts too). Within a minute of one reported, only a
                     // sync at least 1.5 times as long is reported: a disk that stays slow warns
                     // once a minute, one that gets much slower at once, and jitter adds nothing.
                     // RuntimeMetrics::state_slow_syncs counts every one, state_sync_max_us
                     // shows the longest of the last minute
};

struct COSID_EXPORT Event {
  EventKind kind;
  // The failure, for kStateWriteFailed (a write, or the stat of the identity check before it),
  // kStateFileReplaced and kStateFileDamaged.
  std::error_code code;
  std::string message;  // a sentence for a log
  // A ceiling or an instant in Unix ms (kBorrowingAhead: the floor); kSlowSync: a duration in ms.
  std::int64_t ceiling_ms = 0;
  std::uint32_t slot = 0;    // the leased slot, for the kLease* events
  std::int64_t skew_ms = 0;  // kClockSkew: the store's clock minus the local one
};

// Receives the runtime's events, on the thread that caused them (often the background thread).
// Must not block for long, must not throw, and must not call back into the Runtime. A logger is
// the usual listener: examples/logging/logging.cc logs every event with a level, and
// src/METRICS.md says what each event means. Counts of the same happenings, for a scrape
// rather than a log, come from Runtime::metrics().
class COSID_EXPORT EventListener {
 public:
  virtual ~EventListener() = default;
  virtual void on_event(const Event& event) noexcept = 0;
};

}  // namespace cosid

#endif  // COSID_EVENTS_H_
