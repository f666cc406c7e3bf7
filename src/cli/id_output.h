// SPDX-License-Identifier: Apache-2.0
// How the commands that issue ids (`next`, `segment next`) write them: whole lines gathered into
// chunks, each chunk written once it is large, or at once when streaming; and how SIGINT, SIGTERM
// and SIGHUP stop them. The handlers are installed before anything is opened, so that a signal at
// any moment (during the start too: the library's start looks at the same flag) ends the run
// cleanly: nothing issued but what was written, a lease released, claimed values given back.
// A stream (-n 0) stopped by a signal exits 0; a batch (-n N) exits 128 + the signal after saying
// how many of its ids got out, so that a script does not take a short batch for a whole one.
//
// The lines go out through the file descriptor, in writes of whole lines of at most PIPE_BUF
// bytes, once poll() says the output takes them: a stop signal is noticed while a reader
// that stopped reading keeps a pipe full, and the unwritten lines are then abandoned (ids nobody
// sees: a gap, never a repeat). The descriptor is never made non-blocking (its file description
// may be shared with other processes). An output without a descriptor (a memory stream) is
// written with stdio.
//
// A closed standard output (the reader of a pipe has gone: `cosid next -n 0 | head -1`) ends a
// stream like SIGTERM: the command closes cleanly and exits 0, since a reader that stops reading
// is how a stream is meant to end. With -n N it is a failure: fewer ids than asked for reached
// the reader, and the message says how many did.
//
// Thread safety: one IdOutput per command run, on its one thread; the stop flag is set by the
// signal handler and read by that thread.
#ifndef COSID_SRC_CLI_ID_OUTPUT_H_
#define COSID_SRC_CLI_ID_OUTPUT_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace cosid {
namespace cli {

// Makes SIGINT, SIGTERM and SIGHUP set the flag stop_requested() reads (SA_RESTART: a call the
// signal interrupts goes on, and the command stops after it); one ignored at the start (nohup)
// stays ignored.
void install_stop_handlers();
bool stop_requested() noexcept;
// The same flag, for RuntimeEnvironment::cancel and segment::GeneratorOptions::cancel: a
// lock-free atomic, which the handler sets.
const std::atomic<bool>* stop_flag() noexcept;
// The signal that stopped the run; 0 if none came.
int stop_signal() noexcept;

class IdOutput {
 public:
  // `name` is the command's, for the message of a failed write; `count` the ids asked for (0: a
  // stream), for the message of a closed output.
  IdOutput(const char* name, std::FILE* out, std::FILE* err, std::uint64_t count)
      : name_(name), out_(out), err_(err), count_(count) {}

  // Where the caller appends whole lines.
  std::string& chunk() noexcept { return chunk_; }

  // After `lines` lines appended: writes the chunk when streaming (flushed, a line at a time) or
  // once it is large. False when the write failed or the output was closed: the run must stop.
  bool lines_done(std::uint64_t lines);

  // Writes and flushes the chunk. On failure stops the run: for a closed output (EPIPE: the
  // command ignores SIGPIPE so that it shows as one) quietly when streaming, else with the
  // "closed after K of N ids" message; with the errno's text for anything else. After a stop
  // signal it writes only what the output takes at once and abandons the rest (false).
  bool flush();

  // The run's exit status once its loop ended with `status` (kExitOk, or a failure it reported):
  // kExitFailure after a failed output; a batch (-n N) that a stop signal cut short before all N
  // ids got out says "NAME: stopped by SIGTERM after K of N ids" and gives 128 + the signal; a
  // stream stopped by a signal gives `status`.
  int exit_status(int status) const;

  // Whether the run must end with status 1 because of the output (a stream whose reader went
  // away ended as asked: not a failure).
  bool failed() const noexcept { return failed_; }
  // Whether the run stopped because of the output (failed, or a stream's reader went away).
  bool stopped() const noexcept { return stopped_; }

 private:
  const char* name_;
  std::FILE* out_;
  std::FILE* err_;
  std::uint64_t count_;
  std::string chunk_;
  std::uint64_t pending_ = 0;  // lines in chunk_
  std::uint64_t written_ = 0;  // lines that reached the output whole
  std::size_t room_ = 0;       // bytes the output takes without blocking (id_output.cc)
  bool failed_ = false;
  bool stopped_ = false;
};

// Paces a stream at `per_second` ids (--rate): the n-th id waits for start + n / per_second, an
// absolute deadline, so that the time the ids take to make and write does not add up to a drift.
// The wait is cut into short slices, so that a stop signal or a closed pipe ends it at once, not
// after a long sleep.
class Pacer {
 public:
  // 0: no pacing.
  Pacer(std::uint64_t per_second, std::FILE* out) : per_second_(per_second), out_(out) {}
  // Waits for the next id's turn; false when the stream must stop (a stop signal, or the reader of
  // standard output has gone) instead.
  bool wait_turn();

 private:
  std::uint64_t per_second_;
  std::FILE* out_;
  std::uint64_t issued_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// Ignores SIGPIPE, so that a closed output shows as EPIPE to IdOutput instead of killing the
// process silently (with the state file or the claimed segment not closed).
void ignore_broken_pipe();

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_ID_OUTPUT_H_
