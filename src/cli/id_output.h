// SPDX-License-Identifier: Apache-2.0
// How the commands that issue ids (`next`, `segment next`) write them: whole lines gathered into
// chunks, each chunk written and flushed once it is large, or at once when streaming; and, when
// streaming (-n 0), SIGINT, SIGTERM and SIGHUP ask the command to stop after the current id.
//
// A closed standard output (the reader of a pipe has gone: `cosid next -n 0 | head -1`) ends a
// stream like SIGTERM: the command closes cleanly and exits 0, since a reader that stops reading
// is how a stream is meant to end. With -n N it is a failure: fewer ids than asked for reached
// the reader, and the message says how many did.
//
// Thread safety: one IdOutput per command run, on its one thread; the stop flag is set by the
// signal handler and read by that thread.
#ifndef COSID_CLI_ID_OUTPUT_H_
#define COSID_CLI_ID_OUTPUT_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace cosid {
namespace cli {

// Makes SIGINT, SIGTERM and SIGHUP set the flag stop_requested() reads (SA_RESTART: a write the
// signal interrupts goes on, and the command stops after it).
void install_stop_handlers();
bool stop_requested() noexcept;

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
  // "closed after K of N ids" message; with the errno's text for anything else.
  bool flush();

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

#endif  // COSID_CLI_ID_OUTPUT_H_
