// SPDX-License-Identifier: Apache-2.0
#include "cli/stream_wait.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "base/parse_util.h"
#include "base/time_format.h"
#include "cli/id_output.h"

namespace cosid {
namespace cli {
namespace {

using Steady = std::chrono::steady_clock;

// The pause between two attempts: the calls that fail here mostly waited their own bound first
// (the generator's ceiling or floor wait, a store's lock timeout), so this only keeps a call that
// fails at once (a lost lease whose successor is not leased yet) from spinning.
constexpr auto kPause = std::chrono::milliseconds(50);
// The shortest --report-every: a line more often than this would drown the other warnings.
constexpr auto kMinReportEvery = std::chrono::milliseconds(100);

// A flag's duration, above 0. False with `error` the usage message.
bool parse_positive_duration(const ParsedArgs& args, const char* flag,
                             std::chrono::milliseconds minimum, std::chrono::milliseconds& value,
                             std::string& error) {
  const std::string text = args.value_or(flag, "");
  Status why;
  if (!detail::parse_duration(text, value, why)) {
    error = std::string("--") + flag + ": " + quote(text) + ": " + why.message();
    return false;
  }
  if (value < minimum) {
    error = std::string("--") + flag + ": " + quote(text) + " is shorter than " +
            detail::format_duration(minimum) + ": give a duration such as 10s or 2min";
    return false;
  }
  return true;
}

std::int64_t unix_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::int64_t ms_since(Steady::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - start).count();
}

// Whether an event reports a failure worth naming in a waiting warning.
bool is_failure_event(EventKind kind) {
  switch (kind) {
    case EventKind::kStateWriteFailed:
    case EventKind::kStateFileReplaced:
    case EventKind::kLeaseWaiting:
    case EventKind::kLeaseRenewalFailed:
    case EventKind::kLeaseLost:
    case EventKind::kSlowSync:
      return true;
    default:
      return false;
  }
}

}  // namespace

OptionGroup stream_wait_flags_group() {
  return {"Stream flags (with -n 0)",
          {{"report-every", '\0', "DUR",
            "while ids wait for the store, the state file or the clock, repeat the waiting "
            "warning this often (default 10s)"},
           {"give-up-after", '\0', "DUR",
            "exit 1 once ids have waited this long (default: wait until stopped)"}}};
}

bool parse_stream_wait_flags(const ParsedArgs& args, std::uint64_t count,
                             StreamWaitOptions& options, std::string& error) {
  for (const char* flag : {"report-every", "give-up-after"}) {
    if (args.has(flag) && count != 0) {
      error = std::string("--") + flag +
              " is for a stream, which waits out trouble: give it with " +
              "-n 0, or leave it out with -n " + std::to_string(count) +
              " (which fails at the first trouble)";
      return false;
    }
  }
  if (args.has("report-every") && !parse_positive_duration(args, "report-every", kMinReportEvery,
                                                           options.report_every, error)) {
    return false;
  }
  return !args.has("give-up-after") ||
         parse_positive_duration(args, "give-up-after", std::chrono::milliseconds(1),
                                 options.give_up_after, error);
}

bool waiting_mends(std::error_code code, const char*& reason) noexcept {
  if (code.category() != error_category()) {
    reason = "an error of the system, not of the window: not known to pass";
    return false;
  }
  switch (static_cast<errc>(code.value())) {
    case errc::ceiling_reached:
      reason = "the next ceiling is not durable yet: it comes once the write or renewal succeeds";
      return true;
    case errc::slot_lost:
      reason = "the lease was lost: the runtime leases a new slot on its own";
      return true;
    case errc::clock_behind_floor:
      reason = "the clock is behind the floor: it passes the floor in time";
      return true;
    case errc::clock_backwards:
      reason = "the clock went back: ids go on once it is back near the last id";
      return true;
    case errc::clock_stalled:
      reason = "the clock stood still: ids go on once it moves";
      return true;
    case errc::store_unavailable:
      reason = "the store did not answer: it may again";
      return true;
    case errc::lease_exhausted:
      reason = "every slot is held: one comes free when its lease expires or is released";
      return true;
    case errc::state_file_replaced:
      reason = "the state file was replaced: its ceilings no longer protect a restart";
      return false;
    case errc::state_file_corrupt:
    case errc::store_corrupt:
      reason = "the record is damaged: waiting does not repair it";
      return false;
    case errc::lease_terms_mismatch:
      reason = "the store's terms differ from the configured ones: a configuration must change";
      return false;
    case errc::range_sealed:
      reason = "the key is sealed: its store hands out no more ranges";
      return false;
    case errc::range_exhausted:
      reason = "the key has no values left";
      return false;
    case errc::timestamp_overflow:
      reason = "the layout has run out of timestamps";
      return false;
    case errc::store_not_initialized:
      reason = "the store's directory or root nodes do not exist: they must be created";
      return false;
    default:
      reason = "not a fault that passes by itself";
      return false;
  }
}

void FailureRecorder::on_event(const Event& event) noexcept {
  if (is_failure_event(event.kind) || event.kind == EventKind::kClockSkew) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (event.kind == EventKind::kClockSkew) {
      has_skew_ = true;
      skew_ms_ = event.skew_ms;
    } else {
      last_failure_ = event.message;
    }
  }
  next_.on_event(event);
}

std::string FailureRecorder::last_failure() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_failure_;
}

bool FailureRecorder::skew(std::int64_t& skew_ms) const {
  std::lock_guard<std::mutex> lock(mutex_);
  skew_ms = skew_ms_;
  return has_skew_;
}

void FailureRecorder::forget_failure() {
  std::lock_guard<std::mutex> lock(mutex_);
  last_failure_.clear();
}

bool StreamWait::retry_after(const Status& failure, int& exit_status) {
  exit_status = kExitOk;
  if (stop_requested()) return false;
  const char* reason = "";
  if (!waiting_mends(failure.code(), reason)) {
    exit_status = runtime_error(err_, unmendable_message(failure, reason));
    return false;
  }
  const bool first = !waiting_;
  if (first) {
    waiting_ = true;
    since_ = Steady::now();
    since_unix_ms_ = unix_now_ms();
    next_report_ = since_;
  }
  const std::chrono::milliseconds limit = options_.give_up_after;
  if (limit.count() > 0 && Steady::now() - since_ >= limit) {
    exit_status = runtime_error(err_, gave_up_message(failure));
    return false;
  }
  if (Steady::now() >= next_report_) {
    report(failure, first);
    next_report_ += options_.report_every;
  }
  pause_or_stop();
  return !stop_requested();
}

// "NAME: MESSAGE (REASON: the stream ends)": a failure the stream does not wait out.
std::string StreamWait::unmendable_message(const Status& failure, const char* reason) const {
  return std::string(name_) + ": " + failure.message() + " (" + reason + ": the stream ends)";
}

// "NAME: gave up after waiting 2 s (--give-up-after 2s) for PART: LAST ERROR".
std::string StreamWait::gave_up_message(const Status& failure) const {
  return std::string(name_) + ": gave up after waiting " + detail::format_gap(ms_since(since_)) +
         " (--give-up-after " + detail::format_duration(options_.give_up_after) + ") for " + part_ +
         ": " + last_error(failure);
}

// Sleeps the pause between attempts, in slices that a stop signal cuts short.
void StreamWait::pause_or_stop() {
  const auto pause_end = Steady::now() + kPause;
  while (Steady::now() < pause_end && !stop_requested()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void StreamWait::succeeded() {
  if (!waiting_) return;
  waiting_ = false;
  if (recorder_ != nullptr) recorder_->forget_failure();
  std::fprintf(err_, "cosid: warning: %s: resumed after %s: %s answers again\n", name_,
               detail::format_gap(ms_since(since_)).c_str(), part_.c_str());
  std::fflush(err_);
}

void StreamWait::report(const Status& failure, bool first) {
  const std::string since = detail::format_instant(since_unix_ms_);
  std::string line = std::string(name_) + ": ";
  if (first) {
    line += "waiting for " + part_ + " since " + since + ": ";
  } else {
    line += "still waiting for " + part_ + ", " + detail::format_gap(ms_since(since_)) + " since " +
            since + ": ";
  }
  line += last_error(failure);
  std::int64_t skew_ms = 0;
  if (recorder_ != nullptr && recorder_->skew(skew_ms) && skew_ms != 0) {
    line += "; the store's clock differs from this host's by " + std::to_string(skew_ms) + " ms";
  }
  line += "; ids resume on their own once it recovers";
  if (options_.give_up_after.count() > 0) {
    line += ", or the stream ends " + detail::format_duration(options_.give_up_after) +
            " after the wait began (--give-up-after)";
  }
  std::fprintf(err_, "cosid: warning: %s\n", line.c_str());
  std::fflush(err_);
}

// The call's own message, and the last failure the runtime reported when it says more.
std::string StreamWait::last_error(const Status& failure) const {
  std::string text = failure.message();
  const std::string reported = recorder_ != nullptr ? recorder_->last_failure() : std::string();
  if (!reported.empty() && reported != text) text += "; last error: " + reported;
  return text;
}

}  // namespace cli
}  // namespace cosid
