#include "cli/id_output.h"

#include <stdio_ext.h>

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

}  // namespace

void install_stop_handlers() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // a write interrupted by the signal goes on; the loop then stops
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool stop_requested() noexcept { return g_stop != 0; }

bool IdOutput::line_done(bool streaming) {
  return !(streaming || chunk_.size() >= kChunkBytes) || flush();
}

bool IdOutput::flush() {
  const bool ok = std::fwrite(chunk_.data(), 1, chunk_.size(), out_) == chunk_.size() &&
                  std::fflush(out_) == 0 && !std::ferror(out_);
  chunk_.clear();
  if (ok) return true;
  const int error_number = errno;
  __fpurge(out_);  // so that the exit does not try (and report) the write again
  std::clearerr(out_);
  if (error_number != EPIPE) {
    runtime_error(err_, std::string(name_) + ": writing the ids: " + std::strerror(error_number) +
                            ". Check that the file, pipe or disk they go to can take them");
  }
  failed_ = true;
  return false;
}

}  // namespace cli
}  // namespace cosid
