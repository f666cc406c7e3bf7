// SPDX-License-Identifier: Apache-2.0
#include "cli/id_output.h"

#include <limits.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "cli/command.h"

namespace cosid {
namespace cli {
namespace {

// Flush the ids at least this often when not streaming; always whole lines.
constexpr std::size_t kChunkBytes = 64 * 1024;
// How long one poll() for a blocked output lasts before the stop flag is looked at again.
constexpr int kPollSliceMs = 50;

// Set by the handler: a lock-free atomic (cancel.h holds every target to that) and the signal's
// number, which the handler writes first.
std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_stop_signal(int signal) {
  if (g_signal == 0) g_signal = signal;  // the first one names the stop
  g_stop.store(true, std::memory_order_relaxed);
}

// The longest run of whole lines at the start of `data` that fits in `room` bytes; 0 if the first
// line does not fit (with room < PIPE_BUF: poll() again for a whole free buffer), the first line
// whole if it alone is longer than PIPE_BUF (no id's line is).
std::size_t whole_lines(const char* data, std::size_t size, std::size_t room) {
  if (size <= room) return size;  // the chunk ends with a newline
  for (std::size_t end = room; end > 0; --end) {
    if (data[end - 1] == '\n') return end;
  }
  if (room < PIPE_BUF) return 0;
  const void* newline = std::memchr(data, '\n', size);
  return newline == nullptr
             ? size
             : static_cast<std::size_t>(static_cast<const char*>(newline) - data) + 1;
}

// Writes `data`, whole lines, to `fd` as the header comment says; the bytes that went out. Sets
// `error` to the errno of a failed write; returns early without one when a stop signal came and
// the output would not take the rest at once. A line a write left half done (not a pipe: a file
// or terminal may take part of a write) is finished before the stop is honoured.
//
// `room` carries, from call to call, how many bytes the output still takes without blocking since
// poll() last said it takes some: a Linux pipe that reports POLLOUT has a free page buffer, which
// takes PIPE_BUF bytes in any number of writes (merged into it), so a stream of short lines polls
// once per PIPE_BUF bytes, not once per line. Another writer of the same pipe may fill that buffer
// first; a write may then block until the reader reads, as any write to a shared pipe may.
std::size_t write_lines(int fd, const char* data, std::size_t size, std::size_t& room, int& error) {
  std::size_t done = 0;
  while (done < size) {
    std::size_t piece = whole_lines(data + done, size - done, room);
    if (piece == 0) {
      const bool stopping = stop_requested() && (done == 0 || data[done - 1] == '\n');
      pollfd output{fd, POLLOUT, 0};
      const int ready = poll(&output, 1, stopping ? 0 : kPollSliceMs);
      if (ready < 0 && errno != EINTR) {
        error = errno;
        break;
      }
      if (ready <= 0) {
        if (stopping) break;  // abandoned: the reader does not take more now
        continue;
      }
      // POLLERR or POLLHUP (the reader has gone) too: the write reports it as EPIPE.
      room = PIPE_BUF;
      piece = whole_lines(data + done, size - done, room);
    }
    const ssize_t wrote = ::write(fd, data + done, piece);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      room = 0;
      error = errno;
      break;
    }
    done += static_cast<std::size_t>(wrote);
    room -= std::min(room, static_cast<std::size_t>(wrote));
  }
  return done;
}

// Writes `data` to a stream without a file descriptor (a memory stream); the bytes that went out.
std::size_t write_stdio(std::FILE* out, const char* data, std::size_t size, int& error) {
  const std::size_t done = std::fwrite(data, 1, size, out);
  if ((done < size || std::fflush(out) != 0) && error == 0) error = errno != 0 ? errno : EIO;
  return done;
}

const char* signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

}  // namespace

void install_stop_handlers() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // A call the signal interrupts goes on (a sync, a store call: the start looks at the flag right
  // after it); a blocked output is left by write_lines()'s poll slices, not by EINTR.
  action.sa_flags = SA_RESTART;
  // SIGHUP too: a closed terminal ends a stream like SIGTERM. A signal ignored when the command
  // started stays ignored: whoever started it (nohup, a shell's background job) asked that this
  // signal not end it.
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction before;
    if (sigaction(signal, nullptr, &before) == 0 && before.sa_handler == SIG_IGN) continue;
    sigaction(signal, &action, nullptr);
  }
}

bool stop_requested() noexcept { return g_stop.load(std::memory_order_relaxed); }
const std::atomic<bool>* stop_flag() noexcept { return &g_stop; }
int stop_signal() noexcept { return stop_requested() ? static_cast<int>(g_signal) : 0; }

void ignore_broken_pipe() { std::signal(SIGPIPE, SIG_IGN); }

bool IdOutput::lines_done(std::uint64_t lines) {
  pending_ += lines;
  return !(count_ == 0 || chunk_.size() >= kChunkBytes) || flush();
}

bool IdOutput::flush() {
  // The chunk goes out with write(2), not stdio, so that the lines that reached the reader are
  // known exactly when the output closes part way (the K of the message), and so that a stop
  // signal is noticed while the output is blocked.
  int error_number = 0;
  std::size_t done = 0;
  const int fd = fileno(out_);
  if (fd < 0) {
    done = write_stdio(out_, chunk_.data(), chunk_.size(), error_number);
  } else if (std::fflush(out_) != 0) {
    error_number = errno;
  } else {
    done = write_lines(fd, chunk_.data(), chunk_.size(), room_, error_number);
  }
  const bool ok = error_number == 0 && done == chunk_.size();
  written_ += static_cast<std::uint64_t>(
      std::count(chunk_.begin(), chunk_.begin() + static_cast<std::ptrdiff_t>(done), '\n'));
  pending_ = 0;
  chunk_.clear();
  if (ok) return true;
  stopped_ = true;
  if (error_number == 0) return false;                     // a stop signal: the rest is abandoned
  if (error_number == EPIPE && count_ == 0) return false;  // the stream's reader has gone
  failed_ = true;
  if (error_number == EPIPE) {
    runtime_error(err_, std::string(name_) + ": standard output closed after " +
                            std::to_string(written_) + " of " + std::to_string(count_) +
                            " ids: the reader stopped reading. Read all the ids asked for, or ask "
                            "for fewer (-n), or use -n 0 to stream until the reader goes");
  } else {
    runtime_error(err_, std::string(name_) + ": writing the ids: " + std::strerror(error_number) +
                            ". Check that the file, pipe or disk they go to can take them");
  }
  return false;
}

int IdOutput::exit_status(int status) const {
  if (failed_) return kExitFailure;
  const int signal = stop_signal();
  if (status != kExitOk || signal == 0 || count_ == 0 || written_ >= count_) return status;
  runtime_error(err_, std::string(name_) + ": stopped by " + signal_name(signal) + " after " +
                          std::to_string(written_) + " of " + std::to_string(count_) +
                          " ids: the run shut down cleanly, and only the ids printed are "
                          "yours; ask again for the rest");
  return 128 + signal;
}

bool Pacer::wait_turn() {
  using Clock = std::chrono::steady_clock;
  if (per_second_ == 0) return !stop_requested();
  if (issued_ == 0) start_ = Clock::now();
  // The n-th deadline from the start, in whole nanoseconds (n / rate seconds, no rounding drift).
  const std::uint64_t whole = issued_ / per_second_;
  const std::uint64_t part = issued_ % per_second_;
  const Clock::time_point turn = start_ + std::chrono::seconds(whole) +
                                 std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::nanoseconds(part * 1000000000ULL / per_second_));
  ++issued_;
  constexpr auto kSlice = std::chrono::milliseconds(20);
  for (;;) {
    if (stop_requested()) return false;
    const Clock::time_point now = Clock::now();
    if (now >= turn) return true;
    const auto wait = std::min<Clock::duration>(turn - now, kSlice);
    // Sleeps on the output: a pipe whose reader has gone reports POLLERR at once.
    pollfd output{fileno(out_), 0, 0};
    const int ms = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(wait).count());
    if (poll(&output, 1, ms) > 0 && (output.revents & (POLLERR | POLLHUP)) != 0) return false;
  }
}

}  // namespace cli
}  // namespace cosid
