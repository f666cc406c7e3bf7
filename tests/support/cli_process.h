// SPDX-License-Identifier: Apache-2.0
// A `cosid` process for a test: spawned with posix_spawn (stdin /dev/null, stdout a pipe read
// line by line, stderr a file), signalled, waited for with a hang guard, and killed if the test
// leaves it running. tests/cli/cli_kill_test.cc and tests/zookeeper/zk_cli_test.cc stream ids with
// it.
//
// Thread safety: none; one test thread drives a Cli.
#ifndef COSID_TESTS_SUPPORT_CLI_PROCESS_H_
#define COSID_TESTS_SUPPORT_CLI_PROCESS_H_

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_command.h"
#include "temp_dir.h"
#include "test_util.h"

extern char** environ;

namespace cosid {
namespace testing {

using Steady = std::chrono::steady_clock;

// How long a wait for a child may last before the test calls it hung.
constexpr auto kHangGuard = std::chrono::seconds(20);

inline double ms_since(Steady::time_point start) {
  return std::chrono::duration<double, std::milli>(Steady::now() - start).count();
}

// This process's environment with `extra` set (replacing a variable of the same name).
inline std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
  std::vector<std::string> result;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    bool replaced = false;
    for (const std::string& mine : extra) {
      const std::string name = mine.substr(0, mine.find('=') + 1);
      replaced = replaced || text.compare(0, name.size(), name) == 0;
    }
    if (!replaced) result.push_back(text);
  }
  result.insert(result.end(), extra.begin(), extra.end());
  return result;
}

// A running `cosid`: stdin /dev/null, stdout a pipe read line by line, stderr a file.
class Cli {
 public:
  Cli(const TempDir& dir, const std::vector<std::string>& args,
      const std::vector<std::string>& extra_env = {})
      : err_path_(dir.path() + "/stderr-" + std::to_string(++count_)) {
    int fds[2];
    if (pipe(fds) != 0) return;
    const int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    std::vector<std::string> words = cosid_cli_command();
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(&word[0]);
    argv.push_back(nullptr);
    std::vector<std::string> env = environment_with(extra_env);
    std::vector<char*> envp;
    for (std::string& entry : env) envp.push_back(&entry[0]);
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err, 2);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    started_ = Steady::now();
    const int failed = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (err >= 0) close(err);
    out_ = fds[0];
    if (failed != 0) {
      ADD_FAILURE() << "cannot run " << COSID_CLI_PATH << ": error " << failed;
      pid_ = -1;
    }
  }
  ~Cli() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      (void)wait();
    }
    if (out_ >= 0) close(out_);
  }
  Cli(const Cli&) = delete;
  Cli& operator=(const Cli&) = delete;

  // Up to `n` more lines of stdout; fewer at end of file or after the hang guard.
  std::vector<std::string> lines(std::size_t n) {
    std::vector<std::string> result;
    const Steady::time_point deadline = Steady::now() + kHangGuard;
    while (result.size() < n) {
      const std::size_t newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        result.push_back(buffer_.substr(0, newline));
        buffer_.erase(0, newline + 1);
        continue;
      }
      if (eof_ || Steady::now() >= deadline) break;
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char chunk[4096];
      const ssize_t got = read(out_, chunk, sizeof chunk);
      if (got <= 0) {
        eof_ = true;
      } else {
        buffer_.append(chunk, static_cast<std::size_t>(got));
      }
    }
    return result;
  }
  // Every remaining line (the process must have ended or be ending).
  std::vector<std::string> rest() { return lines(static_cast<std::size_t>(-1)); }
  // The text after the last newline, if the output ended without one.
  const std::string& partial() const { return buffer_; }

  // Closes the read end of stdout, as `| head -1` does once it has its line: the process's next
  // write fails with EPIPE.
  void close_output() {
    if (out_ >= 0) close(out_);
    out_ = -1;
    eof_ = true;
  }
  // Bytes written to stdout that this side has not read yet (FIONREAD on the pipe): how full the
  // pipe is while the test does not read.
  std::size_t unread_bytes() const {
    int bytes = 0;
    if (out_ < 0 || ioctl(out_, FIONREAD, &bytes) != 0) return 0;
    return static_cast<std::size_t>(bytes);
  }
  void signal(int sig) { kill(pid_, sig); }
  pid_t pid() const { return pid_; }
  // Waits for the end; the exit status, or 128 + signal.
  int wait() {
    if (reaped_) return code_;
    int status = 0;
    const Steady::time_point deadline = Steady::now() + kHangGuard;
    for (;;) {
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) break;
      if (Steady::now() >= deadline) {
        ADD_FAILURE() << "cosid did not end within the hang guard; killing it";
        kill(pid_, SIGKILL);
        while (waitpid(pid_, &status, 0) < 0) {
        }
        break;
      }
      poll(nullptr, 0, 5);
    }
    reaped_ = true;
    ended_ms_ = ms_since(started_);
    code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return code_;
  }
  std::string err() const { return read_file(err_path_); }
  double ms_to_end() const { return ended_ms_; }
  double ms_since_start() const { return ms_since(started_); }

 private:
  static inline int count_ = 0;
  std::string err_path_;
  pid_t pid_ = -1;
  int out_ = -1;
  std::string buffer_;
  bool eof_ = false;
  bool reaped_ = false;
  int code_ = -1;
  double ended_ms_ = 0;
  Steady::time_point started_;
};

inline std::uint64_t to_id(const std::string& line) {
  std::uint64_t id = 0;
  if (line.empty() || line.find_first_not_of("0123456789") != std::string::npos) {
    ADD_FAILURE() << "not a decimal id: '" << line << "'";
    return 0;
  }
  for (const char c : line) id = id * 10 + static_cast<std::uint64_t>(c - '0');
  return id;
}

inline std::vector<std::uint64_t> to_ids(const std::vector<std::string>& lines) {
  std::vector<std::uint64_t> ids;
  for (const std::string& line : lines) ids.push_back(to_id(line));
  return ids;
}

}  // namespace testing
}  // namespace cosid

#endif  // COSID_TESTS_SUPPORT_CLI_PROCESS_H_
