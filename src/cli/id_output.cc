// SPDX-License-Identifier: Apache-2.0
#include "cli/id_output.h"

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

volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop_signal(int /*signal*/) { g_stop = 1; }

// Writes all of `data` to `fd`; the bytes that went out, with `error` the errno when not all did.
std::size_t write_all(int fd, const char* data, std::size_t size, int& error) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t wrote = ::write(fd, data + done, size - done);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      error = errno;
      break;
    }
    done += static_cast<std::size_t>(wrote);
  }
  return done;
}

}  // namespace

void install_stop_handlers() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // a write interrupted by the signal goes on; the loop then stops
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGHUP, &action, nullptr);  // a closed terminal ends a stream like SIGTERM
}

bool stop_requested() noexcept { return g_stop != 0; }

void ignore_broken_pipe() { std::signal(SIGPIPE, SIG_IGN); }

bool IdOutput::lines_done(std::uint64_t lines) {
  pending_ += lines;
  return !(count_ == 0 || chunk_.size() >= kChunkBytes) || flush();
}

bool IdOutput::flush() {
  // The chunk goes out with write(2), not stdio, so that the lines that reached the reader are
  // known exactly when the output closes part way (the K of the message).
  int error_number = 0;
  std::size_t done = 0;
  if (std::fflush(out_) != 0) {
    error_number = errno;
  } else {
    done = write_all(fileno(out_), chunk_.data(), chunk_.size(), error_number);
  }
  const bool ok = error_number == 0;
  const auto whole = static_cast<std::uint64_t>(
      std::count(chunk_.begin(), chunk_.begin() + static_cast<std::ptrdiff_t>(done), '\n'));
  written_ += ok ? pending_ : whole;
  pending_ = 0;
  chunk_.clear();
  if (ok) return true;
  stopped_ = true;
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
