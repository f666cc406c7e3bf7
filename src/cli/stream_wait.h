// SPDX-License-Identifier: Apache-2.0
// How a stream (`cosid next -n 0`, `cosid segment next -n 0`) rides out trouble: a call that fails
// for a reason that waiting can mend (a renewal that is late, a ceiling reached, a lease lost, a
// clock behind the floor, a store that does not answer) does not end the stream. It waits, says
// so on standard error when the wait starts and every --report-every while it lasts (the part at
// fault, its last error, the clock skew when one was reported, and since when), retries, and says
// once how long it waited when ids flow again. It ends on a stop signal (stop_requested(), exit
// 0), on a fault that waiting cannot mend (waiting_mends() lists them, exit 1 with the message),
// or once --give-up-after has passed (exit 1 with the last failure and the time waited).
// A run of N ids (-n N) does not wait: it fails with the message, as before.
//
// Thread safety: FailureRecorder may be called from the runtime's threads while the command's
// thread reads it; StreamWait belongs to the command's one thread.
#ifndef COSID_SRC_CLI_STREAM_WAIT_H_
#define COSID_SRC_CLI_STREAM_WAIT_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <system_error>

#include "cli/args.h"
#include "cli/command.h"
#include "cosid/error.h"
#include "cosid/events.h"

namespace cosid {
namespace cli {

// --report-every and --give-up-after, which only a stream takes.
struct StreamWaitOptions {
  std::chrono::milliseconds report_every{10000};
  std::chrono::milliseconds give_up_after{0};  // 0: never give up
};

// The flags of a stream's waits, for a command's option group.
OptionGroup stream_wait_flags_group();

// Reads --report-every and --give-up-after; a usage message in `error` when one is malformed, out
// of range, or given with a count other than 0.
bool parse_stream_wait_flags(const ParsedArgs& args, std::uint64_t count,
                             StreamWaitOptions& options, std::string& error);

// The one list of failures: whether waiting can mend `code` (true) or the stream must end (false),
// with the reason, for the documentation and the final message.
bool waiting_mends(std::error_code code, const char*& reason) noexcept;

// Passes every event on to `next` and keeps the last failure the runtime reported (a write of the
// state file or a renewal that failed, a lost lease, a slow sync, no free slot) and the last
// clock skew, for the waiting warnings.
class FailureRecorder final : public EventListener {
 public:
  explicit FailureRecorder(EventListener& next) : next_(next) {}
  void on_event(const Event& event) noexcept override;
  // The last failure's message; empty when none was reported.
  std::string last_failure() const;
  // The last reported skew of the store's clock (store minus local); false when none was.
  bool skew(std::int64_t& skew_ms) const;
  // Forgets the last failure, once ids flow again: the next wait names only what happens after.
  void forget_failure();

 private:
  EventListener& next_;
  mutable std::mutex mutex_;
  std::string last_failure_;
  bool has_skew_ = false;
  std::int64_t skew_ms_ = 0;
};

class StreamWait {
 public:
  // `name`: the command's; `part`: what keeps the stream going ("the state file /x", "the lease
  // store file:/y"), named in every line; `recorder`: null when no runtime reports events.
  StreamWait(const char* name, std::FILE* err, std::string part, const StreamWaitOptions& options,
             FailureRecorder* recorder)
      : name_(name), err_(err), part_(std::move(part)), options_(options), recorder_(recorder) {}

  // After a call that failed with `failure`: waits a short while and returns true for a retry, or
  // returns false when the stream must end, with `exit_status` kExitOk (a stop signal) or
  // kExitFailure (a fault waiting cannot mend, or --give-up-after ran out: the message printed).
  bool retry_after(const Status& failure, int& exit_status);
  // After a call that succeeded: ends a wait in progress with its one "resumed" line.
  void succeeded();

 private:
  void report(const Status& failure, bool first);
  std::string unmendable_message(const Status& failure, const char* reason) const;
  std::string gave_up_message(const Status& failure) const;
  static void pause_or_stop();
  std::string last_error(const Status& failure) const;

  const char* name_;
  std::FILE* err_;
  std::string part_;
  StreamWaitOptions options_;
  FailureRecorder* recorder_;
  bool waiting_ = false;
  std::chrono::steady_clock::time_point since_;
  std::int64_t since_unix_ms_ = 0;
  std::chrono::steady_clock::time_point next_report_;
};

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_STREAM_WAIT_H_
