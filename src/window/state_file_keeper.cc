// SPDX-License-Identifier: Apache-2.0
#include "window/state_file_keeper.h"

#include <algorithm>
#include <utility>

#include "base/fail.h"
#include "base/time_format.h"

namespace cosid {
namespace detail {
namespace {

using std::chrono::milliseconds;

// Besides before every write, the state file's identity (removed, replaced) is checked once every
// this many rounds of the loop, which runs at least every kMaxIdle: so a change is noticed within
// about a second even while no write is due, at the cost of two stats.
constexpr int kIdentityRounds = 5;

// Within kSlowReportNs of a reported slow sync, another is reported only if it took at least
// kSlowerNumerator / kSlowerDenominator (1.5) times as long; every one is counted. So a disk that
// stays slow for an hour warns once a minute, one that gets much slower warns at once (from
// ahead/4, the third report is past ahead/2), and the jitter of a steady disk adds nothing (with
// "any slower", a sync a little slower than the last one reported warned each time).
constexpr std::int64_t kSlowReportNs = 60'000'000'000;
constexpr std::int64_t kSlowerNumerator = 3;
constexpr std::int64_t kSlowerDenominator = 2;

// `ms` rounded up to what format_gap() shows (ms below 1 s, tenths of a second below a minute,
// then seconds), so that a bound it prints is never below the value.
std::int64_t round_up_for_gap(std::int64_t ms) {
  const std::int64_t unit = ms < 1000 ? 1 : ms < 60000 ? 100 : 1000;
  return (ms + unit - 1) / unit * unit;
}

// The sentences of this file's refusals and notices, at its end, so that each success path reads
// without stepping over text.
std::string created_notice(const std::string& path, std::int64_t floor, std::int64_t epoch_ms);
std::string no_state_file_notice(std::uint32_t slot);
std::string waiting_at_ceiling_text(std::int64_t ceiling_ms, std::int64_t needed_ms);
std::string start_identity_failed_message(const Status& problem);
std::string first_ceiling_failed_message(const std::string& path, std::int64_t wanted,
                                         const Status& problem);
std::string written_again_notice(const std::string& path, int failures);
std::string identity_check_retried_text(std::int64_t durable_ceiling_ms);

}  // namespace

StateFileKeeper::StateFileKeeper(const Options& options, Clock& clock, FileSystem& fs,
                                 EventListener* listener, const ForkGuard& fork_guard,
                                 KeeperLoop* loop, const std::atomic<bool>* cancel)
    : options_(options),
      clock_(clock),
      fs_(fs),
      listener_(listener),
      fork_guard_(fork_guard),
      loop_(loop),
      cancel_(cancel),
      backoff_(options.ahead / 4) {}

bool StateFileKeeper::start(const FloorWait& wait_for_floor, Status& status) {
  std::int64_t floor = options_.not_before_ms;
  if (!options_.state_file.empty()) {
    StateFileOpenOptions open_options;
    open_options.create_if_missing = !options_.require_state_file;
    open_options.not_before_ms = options_.not_before_ms;
    open_options.lock_wait = options_.lock_wait;
    open_options.cancel = cancel_;
    file_ = StateFile::open(fs_, clock_, options_.state_file,
                            StateFileOwner{options_.slot, options_.layout, options_.namespace_name},
                            open_options, status);
    if (!file_) return false;
    floor = file_->floor_ms();
    if (file_->created()) {
      emit(EventKind::kStateFileCreated, {},
           created_notice(options_.state_file, floor, options_.layout.epoch_ms()));
    }
    // Reported whenever it happens, although the start goes on: a block that a torn write or
    // the disk damaged once says something about the disk (DURABILITY.md, "Open").
    if (!file_->damaged_block().empty()) {
      emit(EventKind::kStateFileDamaged, make_error_code(errc::state_file_corrupt),
           file_->damaged_block());
    }
  } else {
    emit(EventKind::kNoStateFile, {}, no_state_file_notice(options_.slot));
  }
  if (wait_for_floor && !wait_for_floor(floor, options_.slot, status)) return false;
  std::int64_t ceiling = options_.layout.end_ms() - 1;
  if (file_) {
    if (!write_first_ceiling(floor, status)) return false;
    ceiling = file_->durable_ceiling_ms();
  }
  CeilingListener* wishes = this;  // the private base, for the binding to call back
  binding_ = std::make_unique<Binding>(options_.slot, floor, ceiling, wishes);
  return true;
}

Binding* StateFileKeeper::binding(std::uint64_t& generation, std::error_code& ec) noexcept {
  // One binding for the keeper's life: generation 1. Null only before start() succeeded.
  generation = 1;
  if (binding_ == nullptr) {
    ec = make_error_code(errc::closed);
    return nullptr;
  }
  ec.clear();
  return binding_.get();
}

bool StateFileKeeper::maintain(Status& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!file_) return true;
  if (replaced_) return replaced_error(status);
  const std::int64_t remaining = binding_->ceiling_ms() - clock_.now_ms();
  if (remaining >= options_.ahead.count() / 2 && !wanted_.load(std::memory_order_relaxed)) {
    // Without the background loop this is where a removed or replaced file is noticed while no
    // write is due (with it, round() looks about once a second).
    return loop_ != nullptr ? true : check_identity_locked(status);
  }
  return advance_locked(status);  // which checks the file's identity first
}

NextRound StateFileKeeper::round() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  // No more ceilings go into a file no restart will read, and every generator fails already (the
  // binding is invalidated): nothing is left to do until close(), and wanted_, which may stay
  // set, must not wake the loop for it.
  if (!file_ || replaced_) return {kNever, false};
  const std::int64_t half = options_.ahead.count() / 2;
  const bool due =
      wanted_.load(std::memory_order_relaxed) || binding_->ceiling_ms() - clock_.now_ms() < half;
  if (due || check_due_) {
    // A failed write or check is retried whole after a back-off from kFirstBackoff doubling to
    // ahead/4; the generators go on up to the durable ceiling meanwhile.
    Status failure;
    const bool ok = due ? advance_locked(failure) : check_identity_locked(failure);
    if (replaced_) return {kNever, false};
    if (ok) {
      backoff_.succeeded();
    } else {
      (void)backoff_.failed();
    }
    check_due_ = !ok && !due;  // a failed check is retried as a failed write is
  }
  if (++rounds_ % kIdentityRounds == 0) check_due_ = true;
  if (backoff_.current().count() > 0) return {backoff_.current(), false};
  return {milliseconds(binding_->ceiling_ms() - clock_.now_ms() - half), true};
}

bool StateFileKeeper::close(const std::function<std::int64_t(const Binding&)>& last_issued,
                            Status& status) {
  // The loop has stopped; this waits only for a maintain() or an inline renewal in progress.
  std::lock_guard<std::mutex> lock(mutex_);
  if (!file_) return true;
  if (binding_ == nullptr) {
    // start() failed: no id was issued, and the file must keep the ceiling it has. A clean record
    // here would roll it back.
    file_.reset();
    return true;
  }
  // The last timestamp, flagged clean: the next start need not wait out `ahead`.
  const std::int64_t last = std::max(binding_->floor_ms(), last_issued(*binding_));
  bool ok = true;
  if (!replaced_) ok = file_->write_clean_shutdown(last, status);
  // Closing the file releases its lock.
  file_.reset();
  return ok;
}

void StateFileKeeper::abandon_in_forked_child() noexcept {
  // The child's copies of the descriptors are closed, which leaves the parent's lock in place (it
  // belongs to the open file description). No lock: the child has one thread, and a parent
  // thread may have held mutex_ across a sync at the fork.
  file_.reset();
}

KeeperStats StateFileKeeper::stats() const noexcept {
  KeeperStats stats;
  stats.state_writes = state_writes_.load(std::memory_order_relaxed);  // see state_writes_
  stats.state_write_failures = state_write_failures_.load(std::memory_order_relaxed);
  stats.state_slow_syncs = slow_syncs_.load(std::memory_order_relaxed);
  stats.state_sync_max_us = sync_times_.longest_us(clock_.monotonic_ns());
  return stats;
}

// Called by a generator that waits at the ceiling (on its thread).
void StateFileKeeper::on_ceiling_wanted(std::int64_t needed_ms) noexcept {
  emit(EventKind::kWaitingAtCeiling, {}, waiting_at_ceiling_text(binding_->ceiling_ms(), needed_ms),
       needed_ms);
  // Relaxed order on wanted_ throughout: the flag publishes no other data, and the ceiling it
  // asks for is read through the binding's own acquire.
  wanted_.store(true, std::memory_order_relaxed);
  if (loop_ != nullptr) {
    // The loop's own lock, never held across a sync: this does not wait for the disk.
    loop_->wake();
    return;
  }
  // Inline mode: the waiting thread renews, after the identity check advance_locked() makes. Never
  // block here: a maintain() holds mutex_ across a whole fdatasync, and a waiting generator must
  // give up at its own bound however slow the disk is. A replaced file invalidates the binding in
  // advance_locked(), which ends this generator's wait.
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (lock.owns_lock() && file_ && !replaced_) {
    Status ignored;  // reported as an event
    (void)advance_locked(ignored);
  }  // else another thread is writing right now
}

// The write-ahead of start(): no id before this ceiling is durable. Fails, with a message of its
// own (nothing was issued, the start failed), when the file is no longer the one at its path or
// the write fails. REQUIRES: file_, and no other thread yet.
bool StateFileKeeper::write_first_ceiling(std::int64_t floor, Status& status) {
  const std::int64_t wanted = std::max(floor, clock_.now_ms()) + options_.ahead.count();
  Status problem;
  // Like every write (advance_locked()): a ceiling written into a file that a restart will not
  // read covers nothing.
  if (!file_->check_identity(problem)) {
    return fail(status, problem.code(), start_identity_failed_message(problem));
  }
  if (!timed_advance(wanted, problem)) {
    return fail(status, problem.code(),
                first_ceiling_failed_message(options_.state_file, wanted, problem));
  }
  // Counted like every later ceiling (metrics.h). Relaxed: see state_writes_.
  state_writes_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// Writes the next ceiling, once the file is known to be still the one at its path.
// REQUIRES: mutex_ held.
bool StateFileKeeper::advance_locked(Status& status) {
  if (fork_guard_.forked()) return fail(status, make_error_code(errc::forked_process), "");
  if (replaced_) return replaced_error(status);
  // Before every write, not only now and then: a ceiling written into a file that a restart will
  // not read would let ids out that nothing covers (DURABILITY.md, "A replaced file").
  if (!check_identity_locked(status)) return false;
  const std::int64_t wanted =
      std::max(binding_->floor_ms(), clock_.now_ms()) + options_.ahead.count();
  if (!timed_advance(wanted, status)) {
    ++failures_;
    state_write_failures_.fetch_add(1, std::memory_order_relaxed);  // see state_writes_
    emit(EventKind::kStateWriteFailed, status.code(), status.message());
    return false;
  }
  // Durable now: publish it (release, see Binding::ceiling_ms()).
  binding_->raise_ceiling(file_->durable_ceiling_ms());
  state_writes_.fetch_add(1, std::memory_order_relaxed);  // see state_writes_
  // A request that arrived during the write is served too: the ceiling just made durable is
  // max(floor, now) + ahead, past any tick a generator can want now.
  wanted_.store(false, std::memory_order_relaxed);
  if (failures_ > 0) {
    emit(EventKind::kStateWriteRecovered, {}, written_again_notice(options_.state_file, failures_));
    failures_ = 0;
  }
  emit(EventKind::kCeilingAdvanced, {}, "ceiling " + format_instant(file_->durable_ceiling_ms()),
       file_->durable_ceiling_ms());
  return true;
}

// file_->advance(), timed. REQUIRES: mutex_ held, or no other thread yet (start()).
bool StateFileKeeper::timed_advance(std::int64_t wanted, Status& status) {
  const std::int64_t start_ns = clock_.monotonic_ns();
  const bool ok = file_->advance(wanted, status);
  const std::int64_t end_ns = clock_.monotonic_ns();
  note_sync(end_ns, end_ns - start_ns);
  return ok;
}

// Records one sync for the gauge and, when it took longer than ahead/4, counts it and reports it
// (within kSlowReportNs of the last report only if it took 1.5 times as long).
// REQUIRES: as timed_advance().
void StateFileKeeper::note_sync(std::int64_t end_ns, std::int64_t duration_ns) {
  sync_times_.record(end_ns, duration_ns);
  const std::int64_t quarter_ns = options_.ahead.count() * 1'000'000 / 4;
  if (duration_ns <= quarter_ns) return;
  slow_syncs_.fetch_add(1, std::memory_order_relaxed);  // see state_writes_
  const bool reported_lately =
      slow_reported_ns_ >= 0 && end_ns - slow_reported_at_ns_ < kSlowReportNs;
  if (reported_lately && duration_ns * kSlowerDenominator < slow_reported_ns_ * kSlowerNumerator) {
    return;
  }
  slow_reported_at_ns_ = end_ns;
  slow_reported_ns_ = duration_ns;
  emit(EventKind::kSlowSync, {}, slow_sync_message(duration_ns, sync_times_.longest_us(end_ns)),
       duration_ns / 1'000'000);
}

// Checks that the state file is still the one at its path. A real change (removed, renamed,
// replaced, linked, resized) stops all further writes for good and fails every generator with
// state_file_replaced; a failed stat is only a failed attempt, reported and retried like a failed
// write. REQUIRES: mutex_ held, !replaced_.
bool StateFileKeeper::check_identity_locked(Status& status) {
  Status checked;
  if (file_->check_identity(checked)) return true;
  const std::error_code problem = checked.code();
  std::string why = checked.message();
  if (problem == errc::state_file_replaced) {
    replaced_ = true;
    replaced_why_ = why;
    // Also the ids below the durable ceiling stop: that ceiling lives in a file a restart will
    // not read, so ids issued under it from now on could be issued again after a restart.
    binding_->invalidate(errc::state_file_replaced);
    emit(EventKind::kStateFileReplaced, problem, replaced_message());
    return replaced_error(status);
  }
  ++failures_;
  state_write_failures_.fetch_add(1, std::memory_order_relaxed);  // see state_writes_
  why += identity_check_retried_text(file_->durable_ceiling_ms());
  emit(EventKind::kStateWriteFailed, problem, why);
  return fail(status, problem, why);
}

// REQUIRES: mutex_ held, replaced_.
bool StateFileKeeper::replaced_error(Status& status) const {
  return fail(status, make_error_code(errc::state_file_replaced), replaced_message());
}

void StateFileKeeper::emit(EventKind kind, std::error_code code, std::string text,
                           std::int64_t ceiling) {
  if (listener_ == nullptr) return;
  emit_event(listener_, Event{kind, code, std::move(text), ceiling});
}

// The sentences.

// "state file F: writing and syncing a ceiling took D, more than ahead/4 (Q); ...": what happened,
// when ids would stop, and the ahead that would cover the worst sync of the last minute.
std::string StateFileKeeper::slow_sync_message(std::int64_t duration_ns,
                                               std::int64_t worst_us) const {
  const std::int64_t ahead_ms = options_.ahead.count();
  const std::int64_t worst_ms = (std::max(worst_us * 1000, duration_ns) + 999'999) / 1'000'000;
  return "state file " + options_.state_file + ": writing and syncing a ceiling took " +
         format_gap(duration_ns / 1'000'000) + ", more than ahead/4 (" + format_gap(ahead_ms / 4) +
         "); ids stop if a sync outlasts about ahead/2 (" + format_gap(ahead_ms / 2) +
         "): set ahead (now " + format_gap(ahead_ms) + ") above twice the worst sync of the last " +
         "minute, to more than " + format_gap(round_up_for_gap(2 * worst_ms)) +
         ", or move the state file to a faster disk";
}

std::string StateFileKeeper::replaced_message() const {
  return replaced_why_ +
         ": no more ceilings are written and no more ids are issued; stop the process, undo the "
         "change (the file alone under its name, 8192 bytes) or create a new file with `cosid "
         "state init` and a not-before after the last id issued, and restart";
}

namespace {

std::string created_notice(const std::string& path, std::int64_t floor, std::int64_t epoch_ms) {
  return "created state file " + path + " with floor " + format_floor(floor, epoch_ms) +
         ": if this slot issued ids before, their state file is lost and not-before must lie "
         "after the last of them";
}

std::string no_state_file_notice(std::uint32_t slot) {
  return "no state file configured for slot " + std::to_string(slot) +
         ": nothing protects against a clock set back across a restart; set state-file";
}

std::string waiting_at_ceiling_text(std::int64_t ceiling_ms, std::int64_t needed_ms) {
  return "a generator waits at the ceiling " + format_instant(ceiling_ms) + " for " +
         format_instant(needed_ms);
}

std::string start_identity_failed_message(const Status& problem) {
  return problem.message() + ": nothing was issued and the start failed; " +
         (problem.code() == errc::state_file_replaced
              ? "undo the change, and start again"
              : "check the disk and the kernel log, then start again");
}

// The advance's own message speaks of a runtime that runs on up to its ceiling; at the start there
// is none, so only its cause is passed on (or all of it, for the one failure that is not a disk's:
// the generation counter used up, whose remedy it states).
std::string first_ceiling_failed_message(const std::string& path, std::int64_t wanted,
                                         const Status& problem) {
  const std::error_code io = problem.code();
  return "state file " + path + ": the first ceiling " + format_instant(wanted) +
         " could not be made durable: " +
         (io == std::errc::value_too_large ? problem.message() : io.message()) +
         "; nothing was issued and the start failed: free space or fix the disk (see the kernel "
         "log), then start again";
}

std::string written_again_notice(const std::string& path, int failures) {
  return "state file " + path + " written again after " + std::to_string(failures) + " failures";
}

std::string identity_check_retried_text(std::int64_t durable_ceiling_ms) {
  return "; no ceiling is written until the check succeeds (it is retried): ids go on up to the "
         "durable ceiling " +
         format_instant(durable_ceiling_ms) + " meanwhile";
}

}  // namespace

}  // namespace detail
}  // namespace cosid
