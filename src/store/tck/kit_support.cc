// SPDX-License-Identifier: Apache-2.0
#include "store/tck/kit_support.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cosid {
namespace tck_support {

std::string run_children(int count, const std::function<int(int index, int out)>& child) {
  int start[2];
  int results[2];
  if (::pipe(start) != 0 || ::pipe(results) != 0) {
    ADD_FAILURE() << "pipe failed";
    return std::string();
  }
  std::vector<pid_t> children;
  for (int i = 0; i < count; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      ADD_FAILURE() << "fork failed";
      break;
    }
    if (pid == 0) {
      ::close(start[1]);
      ::close(results[0]);
      char byte;
      while (::read(start[0], &byte, 1) < 0) {
      }
      ::_exit(child(i, results[1]));
    }
    children.push_back(pid);
  }
  ::close(start[0]);
  ::close(results[1]);
  ::close(start[1]);  // every child's read returns at once: they start together
  std::string answers;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(results[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    answers.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(results[0]);
  for (const pid_t pid : children) {
    int status = 0;
    EXPECT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  return answers;
}

}  // namespace tck_support
}  // namespace cosid
