// SPDX-License-Identifier: Apache-2.0
// The real `cosid` binary in states that once made it unstoppable or made it die with no word:
//
// - While `cosid next -n 0` streams ids, its state file is removed, another file is renamed over
//   it, it is linked to a second name (`ln`), or a byte is appended to it. The writer used to spin
//   holding the lock that the shutdown needs, so the process never exited and ignored SIGTERM.
//   Now the process reports the change, stops issuing, and exits within 2 s of SIGTERM (it has
//   usually ended on its own by then) with status 1 and the error on standard error.
// - A background thread that cannot start (EAGAIN, as under a low `ulimit -u`) is a clear error
//   with status 1, not "internal error ... report it as a bug".
//
// The deadlines only keep a hung child from hanging the test; the one that is asserted is the
// 2 s from SIGTERM to the exit, which is the promise under test.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_command.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace {

using Steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr auto kHangGuard = std::chrono::seconds(20);
constexpr auto kStopDeadline = std::chrono::seconds(2);

using cosid::testing::read_file;

bool write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  return static_cast<bool>(out);
}

// A running `cosid` with stdin /dev/null and stdout and stderr in files; `limit`, if set, runs in
// the child before the exec (to set resource limits).
class Cli {
 public:
  Cli(const TempDir& dir, const std::vector<std::string>& args,
      const std::function<void()>& limit = nullptr)
      : out_path_(dir.path() + "/stdout-" + std::to_string(++count_)),
        err_path_(dir.path() + "/stderr-" + std::to_string(count_)) {
    std::vector<std::string> words = cosid_cli_command();
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(&word[0]);
    argv.push_back(nullptr);
    const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    const int out = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    pid_ = fork();
    if (pid_ == 0) {
      if (limit) limit();
      if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
      execv(argv[0], argv.data());
      _exit(127);
    }
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    if (err >= 0) close(err);
    if (pid_ < 0) ADD_FAILURE() << "cannot fork";
  }
  ~Cli() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      (void)wait_until(Steady::now() + kHangGuard);
    }
  }
  Cli(const Cli&) = delete;
  Cli& operator=(const Cli&) = delete;

  std::string out() const { return read_file(out_path_); }
  std::string err() const { return read_file(err_path_); }

  // Waits, up to the hang guard, until `ready` holds; false if it never did.
  bool await(const std::function<bool()>& ready) const {
    const Steady::time_point deadline = Steady::now() + kHangGuard;
    while (!ready()) {
      if (Steady::now() >= deadline) return false;
      std::this_thread::sleep_for(milliseconds(5));
    }
    return true;
  }

  // SIGTERM, then the exit status (128 + signal if killed), polled until `deadline` passes from
  // now: a process still running then is SIGKILLed, fails the test, and gives -1.
  int terminate_within(Steady::duration deadline) {
    kill(pid_, SIGTERM);
    const int status = wait_until(Steady::now() + deadline);
    if (status >= 0) return status;
    ADD_FAILURE() << "cosid did not exit within "
                  << std::chrono::duration_cast<milliseconds>(deadline).count()
                  << " ms of SIGTERM; killed it. Standard error:\n"
                  << err();
    kill(pid_, SIGKILL);
    (void)wait_until(Steady::now() + kHangGuard);
    return -1;
  }

  // The exit status once the process ends, up to the hang guard (then -1).
  int wait() { return wait_until(Steady::now() + kHangGuard); }

 private:
  int wait_until(Steady::time_point deadline) {
    if (reaped_) return code_;
    int status = 0;
    for (;;) {
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) break;
      if (done < 0 || Steady::now() >= deadline) return -1;
      std::this_thread::sleep_for(milliseconds(2));
    }
    reaped_ = true;
    code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return code_;
  }

  static int count_;
  std::string out_path_;
  std::string err_path_;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int code_ = -1;
};
int Cli::count_ = 0;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Streams ids on slot `slot`, applies `change` to the state file once ids flow, and expects the
// process to report `what` in a warning, fail its next id with state_file_replaced, and exit
// within 2 s of SIGTERM with status 1.
void expect_stoppable_after(int slot, const std::function<void(const std::string&)>& change,
                            const std::string& what) {
  TempDir dir("cli_stop");
  ASSERT_FALSE(dir.path().empty());
  const std::string state = dir.path() + "/state";
  Cli cli(dir, {"next", "-n", "0", "--slot", std::to_string(slot), "--state-file", state});
  ASSERT_TRUE(cli.await([&] { return cli.out().size() > 1000; })) << cli.err();
  change(state);
  const std::string warning = "cosid: warning: state file " + state + what;
  const std::string error = "cosid: next: no more ids are issued on slot " + std::to_string(slot) +
                            ": its state file was removed or replaced while in use";
  // Found about once a second, or at the next write; the generator fails at once then.
  EXPECT_TRUE(cli.await([&] { return contains(cli.err(), error); })) << cli.err();
  const int status = cli.terminate_within(kStopDeadline);
  EXPECT_EQ(status, 1) << cli.err();
  const std::string err = cli.err();
  EXPECT_TRUE(contains(err, warning)) << err;
  EXPECT_TRUE(contains(err, "no more ceilings are written and no more ids are issued")) << err;
  EXPECT_TRUE(contains(err, error)) << err;
  EXPECT_FALSE(contains(err, "internal error")) << err;
}

TEST(CliStop, RemovedStateFileStopsTheProcessAndSigtermEndsIt) {
  expect_stoppable_after(
      11, [](const std::string& state) { ASSERT_EQ(unlink(state.c_str()), 0); },
      " was removed or renamed (No such file or directory) while in use");
}

TEST(CliStop, FileRenamedOverTheStateFileStopsTheProcessAndSigtermEndsIt) {
  expect_stoppable_after(
      12,
      [](const std::string& state) {
        const std::string other = state + ".other";
        ASSERT_TRUE(write_file(other, read_file(state)));  // a copy: another inode
        ASSERT_EQ(rename(other.c_str(), state.c_str()), 0);
      },
      " names another file now (it was replaced, as by a rename over it) while in use");
}

TEST(CliStop, HardLinkedStateFileStopsTheProcessAndSigtermEndsIt) {
  expect_stoppable_after(
      13,
      [](const std::string& state) { ASSERT_EQ(link(state.c_str(), (state + ".bak").c_str()), 0); },
      " has 2 names now (it was linked, as by `ln`) while in use");
}

TEST(CliStop, ByteAppendedToTheStateFileStopsTheProcessAndSigtermEndsIt) {
  expect_stoppable_after(
      14,
      [](const std::string& state) {
        const int fd = open(state.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
        ASSERT_GE(fd, 0);
        ASSERT_EQ(write(fd, "x", 1), 1);
        close(fd);
      },
      " is 8193 bytes now, not 8192 (appended to or truncated) while in use");
}

// In the ordinary state too: SIGTERM ends the stream cleanly within the deadline, status 0.
TEST(CliStop, StreamingProcessEndsWithinTheDeadlineOfSigterm) {
  TempDir dir("cli_stop");
  ASSERT_FALSE(dir.path().empty());
  Cli cli(dir, {"next", "-n", "0", "--slot", "15", "--state-file", dir.path() + "/state"});
  ASSERT_TRUE(cli.await([&] { return cli.out().size() > 1000; })) << cli.err();
  EXPECT_EQ(cli.terminate_within(kStopDeadline), 0) << cli.err();
  EXPECT_FALSE(contains(cli.err(), "cosid: next:")) << cli.err();  // only the new file's warning
}

// Every new thread asks for a 1 GiB stack (glibc sizes thread stacks by RLIMIT_STACK) in an
// address space of 512 MiB: pthread_create fails with EAGAIN, as under a low `ulimit -u`, which
// does not bind root (who runs the tests).
void no_room_for_threads() {
  const rlimit stack{rlim_t{1} << 30, rlim_t{1} << 30};
  const rlimit space{rlim_t{512} << 20, rlim_t{512} << 20};
  if (setrlimit(RLIMIT_STACK, &stack) != 0 || setrlimit(RLIMIT_AS, &space) != 0) _exit(125);
}

TEST(CliStop, BackgroundThreadThatCannotStartIsAClearError) {
  if (const char* why = thread_limits_do_not_bind()) GTEST_SKIP() << why;
  TempDir dir("cli_stop");
  ASSERT_FALSE(dir.path().empty());
  Cli cli(dir, {"next", "--slot", "16", "--state-file", dir.path() + "/state"},
          no_room_for_threads);
  EXPECT_EQ(cli.wait(), 1) << cli.err();
  EXPECT_TRUE(contains(cli.err(),
                       "cosid: next: cannot start the runtime's background thread: Resource "
                       "temporarily unavailable: raise the limit on processes and threads "
                       "(ulimit -u)"))
      << cli.err();
  EXPECT_EQ(cli.out(), "");
}

TEST(CliStop, LeaseKeeperThreadThatCannotStartIsAClearError) {
  if (const char* why = thread_limits_do_not_bind()) GTEST_SKIP() << why;
  TempDir dir("cli_stop");
  ASSERT_FALSE(dir.path().empty());
  Cli cli(dir, {"next", "--store", "file:" + dir.path()}, no_room_for_threads);
  EXPECT_EQ(cli.wait(), 1) << cli.err();
  EXPECT_TRUE(contains(cli.err(),
                       "cosid: next: cannot start the lease keeper's background thread: Resource "
                       "temporarily unavailable: raise the limit on processes and threads "
                       "(ulimit -u)"))
      << cli.err();
  EXPECT_EQ(cli.out(), "");
}

}  // namespace
