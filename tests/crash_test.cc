// Real processes: a child issues ids from a Runtime on a real state file and streams them through
// a pipe; the parent kills it with SIGKILL at a random moment and starts another. No id may ever
// repeat. A pipe keeps what was written before the kill, so the parent sees every id the child
// handed out.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "cosid/runtime.h"
#include "cosid/state_file.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;

[[noreturn]] void run_child(const std::string& path, int out) {
  Options options;
  options.slot = 1;
  options.state_file = path;
  options.ahead = milliseconds(200);
  options.start_wait = milliseconds(5000);
  std::error_code ec;
  auto runtime = Runtime::open(options, {}, ec);
  if (!runtime) _exit(3);
  Generator* generator = runtime->generator("default", ec);
  for (;;) {
    const std::uint64_t id = generator->next(ec);
    if (ec) _exit(4);
    // 8 bytes are below PIPE_BUF: each write lands whole or not at all.
    if (write(out, &id, sizeof id) != static_cast<ssize_t>(sizeof id)) _exit(5);
  }
}

TEST(CrashTest, SigkillAtRandomMomentsNeverRepeatsAnId) {
  char pattern[] = "/tmp/cosid-crash-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  const std::string path = dir + "/state";
  const int cycles =
      std::getenv("COSID_CRASH_CYCLES") ? std::atoi(std::getenv("COSID_CRASH_CYCLES")) : 50;
  std::mt19937 random(12345);
  std::vector<std::uint64_t> all;
  for (int cycle = 0; cycle < cycles; ++cycle) {
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(pipe_fds[0]);
      run_child(path, pipe_fds[1]);
    }
    close(pipe_fds[1]);
    // Wait for the first id, so that every kill lands while ids are being issued.
    std::uint64_t id = 0;
    ASSERT_EQ(read(pipe_fds[0], &id, sizeof id), static_cast<ssize_t>(sizeof id))
        << "child failed to start in cycle " << cycle;
    all.push_back(id);
    std::this_thread::sleep_for(milliseconds(std::uniform_int_distribution<int>(0, 50)(random)));
    kill(child, SIGKILL);
    std::uint64_t buffer[4096];
    for (;;) {
      const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
      if (n <= 0) break;
      all.insert(all.end(), buffer, buffer + n / static_cast<ssize_t>(sizeof id));
    }
    close(pipe_fds[0]);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "cycle " << cycle << ": the child exited on its own with status " << status;
  }
  const std::size_t issued = all.size();
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate id";
  EXPECT_GT(issued, static_cast<std::size_t>(cycles));
  std::printf("crash test: %d kills, %zu ids, no duplicate\n", cycles, issued);
  (void)std::system(("rm -rf " + dir).c_str());
}

// A child forked from a process that holds a Runtime gets a copy of its generator and of its
// state file's descriptor. Issuing from the copy would repeat the parent's ids, and closing it
// would write a ceiling over the parent's: the child gets errc::forked_process and writes nothing.
TEST(ForkTest, ChildOfAProcessWithARuntimeCannotIssueOrWrite) {
  char pattern[] = "/tmp/cosid-fork-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  Options options;
  options.slot = 2;
  options.state_file = dir + "/state";
  std::error_code ec;
  auto runtime = Runtime::open(options, {}, ec);
  ASSERT_TRUE(runtime) << ec.message();
  Generator* generator = runtime->generator("default", ec);
  ASSERT_NE(generator->next(ec), 0u);

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::error_code child_ec;
    const bool refused = generator->next(child_ec) == 0 && child_ec == errc::forked_process;
    const bool no_new_generator =
        runtime->generator("other", child_ec) == nullptr && child_ec == errc::forked_process;
    const bool closed_quietly = !runtime->close();
    runtime.release();  // its destructor belongs to the parent
    _exit(refused && no_new_generator && closed_quietly ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  // The parent goes on, and its state file was not touched by the child.
  EXPECT_NE(generator->next(ec), 0u);
  EXPECT_FALSE(ec) << ec.message();
  StateFileView view;
  ASSERT_TRUE(read_state_file(posix_file_system(), options.state_file, view, ec));
  EXPECT_FALSE(view.records[view.current].clean_shutdown);
  EXPECT_FALSE(runtime->close());
  (void)std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace cosid
