// SPDX-License-Identifier: Apache-2.0
// Internal: StateFileKeeper, the window keeper of a static slot (window_keeper.h), the ceiling
// writer of DURABILITY.md.
//
// start() opens the state file (floor = max(ceiling in the file, not-before)), lets the runtime
// wait for the clock to pass the floor, and makes ceiling = max(floor, now) + ahead durable before
// the binding exists. From then on a round (or the owner's maintain()) writes the next ceiling
// whenever less than ahead/2 remains, and at once when a generator waits at the ceiling; a failed
// write keeps the old ceiling and is retried whole with back-off. Before every write, and every
// kIdentityRounds rounds besides, it checks that the file is still the one at its path: once it
// was removed, renamed, replaced, linked or resized, no ceiling is written any more and the
// binding is invalidated with errc::state_file_replaced (DURABILITY.md, "A replaced file"). close()
// writes the last timestamp with the clean-shutdown flag, then closes the file, which
// releases its lock. Without a state file the window is (not-before, end of layout] and a warning
// event says that nothing protects against a clock set back across a restart.
//
// Every attempt to make a ceiling durable (the first one at start, then each advance: two writes
// and two fdatasyncs, failed attempts included, since a failed one holds the ceiling back just as
// long) is timed on the clock's monotonic time line, for the gauge of the longest sync of the
// last minute (sync_times.h) and the count of syncs longer than ahead/4. Renewal is due when
// ahead/2 remains, so a sync that outlasts about ahead/2 lets the generators reach the ceiling:
// one over ahead/4 is the warning before that (kSlowSync; within a minute of one reported, only a
// sync 1.5 times as long is reported again). The clean-shutdown record is not a ceiling and is not
// timed.
//
// Thread safety: as WindowKeeper; mutex_ is the lock of window_keeper.h's table.
#ifndef COSID_SRC_WINDOW_STATE_FILE_KEEPER_H_
#define COSID_SRC_WINDOW_STATE_FILE_KEEPER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "base/fork_guard.h"
#include "cosid/clock.h"
#include "cosid/fs.h"
#include "cosid/options.h"
#include "cosid/state_file.h"
#include "window/sync_times.h"
#include "window/window_keeper.h"

namespace cosid {
namespace detail {

class StateFileKeeper final : public WindowKeeper, private CeilingListener {
 public:
  // `loop` is the runtime's background loop (null without one: a generator waiting at the
  // ceiling then writes it itself, if no other call is writing). Every reference outlives the
  // keeper.
  // `cancel` (may be null) is the runtime's cancel flag: it ends the wait for the file's lock.
  StateFileKeeper(const Options& options, Clock& clock, FileSystem& fs, EventListener* listener,
                  const ForkGuard& fork_guard, KeeperLoop* loop, const std::atomic<bool>* cancel);

  bool start(const FloorWait& wait_for_floor, Status& status) override;
  Binding* binding(std::uint64_t& generation, std::error_code& ec) noexcept override;
  bool maintain(Status& status) override;
  NextRound round() noexcept override;
  bool close(const std::function<std::int64_t(const Binding&)>& last_issued,
             Status& status) override;
  bool has_rounds() const noexcept override { return file_ != nullptr; }
  void abandon_in_forked_child() noexcept override;
  KeeperStats stats() const noexcept override;

 private:
  void on_ceiling_wanted(std::int64_t needed_ms) noexcept override;
  bool write_first_ceiling(std::int64_t floor, Status& status);
  bool timed_advance(std::int64_t wanted, Status& status);
  void note_sync(std::int64_t end_ns, std::int64_t duration_ns);
  std::string slow_sync_message(std::int64_t duration_ns, std::int64_t worst_us) const;
  bool advance_locked(Status& status);
  bool check_identity_locked(Status& status);
  std::string replaced_message() const;
  bool replaced_error(Status& status) const;
  void emit(EventKind kind, std::error_code code, std::string text, std::int64_t ceiling = 0);

  const Options& options_;
  Clock& clock_;
  FileSystem& fs_;
  EventListener* const listener_;
  const ForkGuard& fork_guard_;
  KeeperLoop* const loop_;
  const std::atomic<bool>* const cancel_;
  // Set in start(), before any other thread can see the keeper, and constant after: binding()
  // reads it without a lock.
  std::unique_ptr<Binding> binding_;

  std::mutex mutex_;  // guards file_ writes and the fields below; held across one sync
  std::unique_ptr<StateFile> file_;
  std::atomic<bool> wanted_{false};  // set without the lock by a waiting generator
  bool replaced_ = false;
  std::string replaced_why_;  // what check_identity() said, once replaced_
  int failures_ = 0;
  Backoff backoff_;
  int rounds_ = 0;
  bool check_due_ = false;  // the next round checks the file's identity
  // Written under mutex_ (or in start(), before any other thread), read by stats() without it.
  // Relaxed: each is a counter that publishes no other data, and a snapshot promises no order
  // between its fields, only that each was exact at some moment during the call.
  std::atomic<std::uint64_t> state_writes_{0};
  std::atomic<std::uint64_t> state_write_failures_{0};
  std::atomic<std::uint64_t> slow_syncs_{0};
  SyncTimes sync_times_;  // written as state_writes_, read by stats() without a lock
  // The last kSlowSync reported (under mutex_): when it ended, on the monotonic clock, and how
  // long it took; -1 before the first.
  std::int64_t slow_reported_at_ns_ = 0;
  std::int64_t slow_reported_ns_ = -1;
};

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_WINDOW_STATE_FILE_KEEPER_H_
