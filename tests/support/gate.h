// SPDX-License-Identifier: Apache-2.0
// Test seams that stop a thread at a chosen point, so a test can act while that thread holds a
// lock or sits inside a store call, with no timing: Gate (one stop), GateClock (a Clock whose
// n-th reading by one thread stops), and run_in_child() (a body run in a forked child that must
// exit within a bound).
#ifndef COSID_TESTS_SUPPORT_GATE_H_
#define COSID_TESTS_SUPPORT_GATE_H_

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>

#include "cosid/clock.h"

namespace cosid::testing {

// How long a test waits for something that must happen at once before it calls it a hang and
// fails. Only a failure waits this long.
constexpr std::chrono::seconds kHangBound{5};

// One stop: pass() blocks its caller until open(); wait_entered() lets the test wait until a
// caller is stopped there.
class Gate {
 public:
  void pass() {
    std::unique_lock<std::mutex> lock(mutex_);
    entered_ = true;
    changed_.notify_all();
    changed_.wait(lock, [this] { return opened_; });
  }
  // True once a caller is inside pass(); false if none came within kHangBound.
  bool wait_entered() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, kHangBound, [this] { return entered_; });
  }
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    opened_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool entered_ = false;
  bool opened_ = false;
};

// A ManualClock that can stop one reading: after arm(read, n), the n-th reading of that kind by
// the thread that armed it stops in gate until gate.open(). Every other reading passes through.
class GateClock final : public Clock {
 public:
  enum class Read { kWall, kMonotonic };

  explicit GateClock(ManualClock& inner) noexcept : inner_(inner) {}

  std::int64_t now_ms() noexcept override {
    pass(Read::kWall);
    return inner_.now_ms();
  }
  std::int64_t monotonic_ns() noexcept override {
    pass(Read::kMonotonic);
    return inner_.monotonic_ns();
  }
  void sleep_for(std::chrono::nanoseconds duration) noexcept override {
    inner_.sleep_for(duration);
  }

  void arm(Read read, int nth) {
    std::lock_guard<std::mutex> lock(mutex_);
    thread_ = std::this_thread::get_id();
    read_ = read;
    left_ = nth;
    armed_.store(true);
  }

  Gate gate;

 private:
  void pass(Read read) {
    if (!armed_.load()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!armed_.load() || std::this_thread::get_id() != thread_ || read != read_ || --left_ > 0) {
        return;
      }
      armed_.store(false);
    }
    gate.pass();
  }

  ManualClock& inner_;
  std::mutex mutex_;
  std::atomic<bool> armed_{false};
  std::thread::id thread_;
  Read read_ = Read::kWall;
  int left_ = 0;
};

// Forks; the child runs `body` and leaves with _exit(0) if it returned true, else _exit(1). The
// child must be gone within kHangBound: past it the parent kills it and fails, since a child
// that does not exit is blocked (on a lock a parent thread held at the fork, say). `body` runs
// in a copy of the process with one thread, so it must not use gtest assertions.
inline ::testing::AssertionResult run_in_child(const std::function<bool()>& body) {
  const pid_t child = fork();
  if (child < 0) return ::testing::AssertionFailure() << "fork: " << std::strerror(errno);
  if (child == 0) _exit(body() ? 0 : 1);
  const auto deadline = std::chrono::steady_clock::now() + kHangBound;
  int status = 0;
  for (;;) {
    const pid_t got = waitpid(child, &status, WNOHANG);
    if (got == child) break;
    if (got < 0 && errno != EINTR) {
      return ::testing::AssertionFailure() << "waitpid: " << std::strerror(errno);
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      (void)waitpid(child, &status, 0);
      return ::testing::AssertionFailure()
             << "the forked child did not exit within " << kHangBound.count()
             << " s: it is blocked, on a lock or a condition variable a parent thread held at the "
                "fork";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return ::testing::AssertionFailure()
           << "the forked child saw something other than expected (status " << status << ")";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace cosid::testing

#endif  // COSID_TESTS_SUPPORT_GATE_H_
