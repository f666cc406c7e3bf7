// SPDX-License-Identifier: Apache-2.0
// Real processes (tests/SCENARIOS.md C-02, C-03, K-02): a forked child issues ids from a Runtime
// on a real state file and streams them through a pipe; the parent stops it (SIGKILL at a random
// moment, or SIGTERM for a clean shutdown) and starts another. A pipe keeps what was written
// before the kill, so the parent sees every id the child handed out.
//
// The checks, over every id of a test: no id repeats, and every id of an incarnation is greater
// than every id of the incarnations before it (same slot, so that is "its timestamp lies after the
// previous holder's ceiling": the hand-off rule of src/lease/PROTOCOL.md, which a state file keeps
// across restarts as src/window/DURABILITY.md, "Open", argues). Every restart must succeed, except
// where a test sets the clock back by more than the start can wait, where it must fail with
// errc::clock_behind_floor and issue nothing.
//
// Scenarios (each of the first three in both start modes, options.h StartMode:
// StartModes/CrashTest.*/wait and /borrow, half the cycles each; in borrow mode a restart within
// ahead of the file's ceiling issues from floor + 1 at once, and with the clock set back further it
// waits until the clock is within ahead and borrows the rest):
//   CrashTest.SigkillAtRandomMomentsNeverRepeatsAnId    C-02: real file, 1 to 4 issuing threads
//   CrashTest.BufferedUntilSyncSigkillNeverRepeatsAnId  C-03: the buffer-until-fsync shim, each
//                                                       child's clock 0 to ahead back (so a lost
//                                                       ceiling shows)
//   CrashTest.KillInsideSyncNeverRepeatsAnId            C-03: the shim kills the child inside its
//                                                       k-th sync with a random subset applied
//   ClockBackTest/*                                     K-02: the clock set back between restarts
//                                                       (through the Clock seam), after a crash
//                                                       and after a clean stop
//
// Figures (cycles, ids, restart-to-first-id p50/max against ahead) are printed, never asserted.
//
// Knobs (environment):
//   COSID_CRASH_CYCLES  kill cycles of the C-02 loop over both start modes (half in each); the
//                       shim kill loop runs a fifth as many, the kill-inside-sync loop a tenth
//                       (each of its cycles is two children).
//                       Default 500, or 50 in a sanitizer build (COSID_TEST_SANITIZED, set by
//                       tests/CMakeLists.txt from COSID_SANITIZE). 10,000 before a release.
//   COSID_CRASH_SEED    the seed of every random choice (default 12345); printed on failure.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cosid/runtime.h"
#include "cosid/state_file.h"
#include "support/buffering_fs.h"
#include "support/fork_support.h"
#include "support/temp_dir.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using Steady = std::chrono::steady_clock;

#ifdef COSID_TEST_SANITIZED
constexpr int kDefaultCycles = 50;
#else
constexpr int kDefaultCycles = 500;
#endif

constexpr milliseconds kAhead{200};

// Exit statuses of the child.
constexpr int kChildStopped = 0;      // SIGTERM: closed cleanly
constexpr int kChildOpenFailed = 3;   // Runtime::open failed with anything else
constexpr int kChildNextFailed = 4;   // next() failed
constexpr int kChildWriteFailed = 5;  // the pipe broke
constexpr int kChildClockBehind = 7;  // Runtime::open failed with errc::clock_behind_floor

int env_int(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::atoi(value) : fallback;
}

int crash_cycles() { return env_int("COSID_CRASH_CYCLES", kDefaultCycles); }
std::uint32_t crash_seed() {
  return static_cast<std::uint32_t>(env_int("COSID_CRASH_SEED", 12345));
}

// The system clock, offset by a fixed amount (negative: set back). Monotonic time is untouched.
class OffsetClock final : public Clock {
 public:
  explicit OffsetClock(std::int64_t offset_ms) : offset_ms_(offset_ms) {}
  std::int64_t now_ms() noexcept override { return system_.now_ms() + offset_ms_; }
  std::int64_t monotonic_ns() noexcept override { return system_.monotonic_ns(); }
  void sleep_for(std::chrono::nanoseconds duration) noexcept override {
    system_.sleep_for(duration);
  }

 private:
  SystemClock system_;
  const std::int64_t offset_ms_;
};

// What one child runs with. The child is forked, not exec'd: this struct is its argv.
struct ChildConfig {
  std::string path;
  int threads = 1;
  std::int64_t clock_offset_ms = 0;
  milliseconds start_wait{5000};
  StartMode start = StartMode::kWait;
  bool shim = false;     // run over the buffer-until-fsync file system
  int kill_at_sync = 0;  // with the shim: die inside this sync (0: never)
  testing_fs::BufferingFileSystem::TearMode tear =
      testing_fs::BufferingFileSystem::TearMode::kWrites;
  std::uint64_t seed = 0;  // for the shim's subset
};

// Set by the SIGTERM handler and read by the issuing threads: a lock-free atomic, which is both
// safe in a signal handler and free of data races across threads (sig_atomic_t is only the first).
std::atomic<int> g_child_stop{0};
static_assert(std::atomic<int>::is_always_lock_free, "signal handlers need a lock-free flag");
extern "C" void on_child_term(int) { g_child_stop.store(1, std::memory_order_relaxed); }

[[noreturn]] void run_child(const ChildConfig& config, int out) {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = on_child_term;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);

  Options options;
  options.slot = 1;
  options.state_file = config.path;
  options.ahead = kAhead;
  options.start_wait = config.start_wait;
  options.start = config.start;
  OffsetClock clock(config.clock_offset_ms);
  testing_fs::BufferingFileSystem shim(config.kill_at_sync, config.tear, config.seed);
  RuntimeEnvironment environment;
  environment.clock = &clock;
  if (config.shim) environment.fs = &shim;
  Status status;
  auto runtime = Runtime::open(options, environment, status);
  if (!runtime) {
    if (status.code() == errc::clock_behind_floor) _exit(kChildClockBehind);
    std::fprintf(stderr, "child: open failed: %s\n", status.message().c_str());
    _exit(kChildOpenFailed);
  }
  Generator* generator = runtime->generator("default", status);
  std::atomic<int> failure{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < config.threads; ++t) {
    threads.emplace_back([&] {
      std::error_code next_ec;
      while (g_child_stop.load(std::memory_order_relaxed) == 0 && failure.load() == 0) {
        const std::uint64_t id = generator->next(next_ec);
        if (next_ec) {
          failure = kChildNextFailed;
          break;
        }
        // 8 bytes are below PIPE_BUF: each write lands whole or not at all.
        if (write(out, &id, sizeof id) != static_cast<ssize_t>(sizeof id)) {
          failure = kChildWriteFailed;
          break;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  if (failure.load() != 0) _exit(failure.load());
  // SIGTERM: the ordered shutdown writes the exact last timestamp with the clean flag.
  _exit(runtime->close(status) ? kChildStopped : kChildOpenFailed);
}

// How one child ended, and what it sent.
struct Incarnation {
  std::vector<std::uint64_t> ids;
  int status = 0;           // from waitpid
  double first_id_ms = -1;  // fork to first id; -1 if none came
};

enum class Stop { kKill, kTerm, kItself };

// Appends every whole id readable from `fd` until `deadline`, or until the first id when
// `until_first`. Returns false at end of file.
bool pump(int fd, std::vector<std::uint64_t>& ids, std::string& carry, Steady::time_point deadline,
          bool until_first) {
  const std::size_t before = ids.size();
  for (;;) {
    if (until_first && ids.size() > before) return true;
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Steady::now()).count();
    if (left <= 0) return true;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left));
    if (ready <= 0) continue;
    char buffer[64 * 1024];
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n <= 0) return false;
    carry.append(buffer, static_cast<std::size_t>(n));
    const std::size_t whole = carry.size() / sizeof(std::uint64_t);
    for (std::size_t i = 0; i < whole; ++i) {
      std::uint64_t id = 0;
      std::memcpy(&id, carry.data() + i * sizeof id, sizeof id);
      ids.push_back(id);
    }
    carry.erase(0, whole * sizeof(std::uint64_t));
  }
}

// Runs one child: waits for its first id, lets it issue for `run_for` more, stops it as `stop`
// says and collects everything it sent. With Stop::kItself the child is expected to die on its
// own (kill inside a sync, or a failed start); it is killed after 10 s anyway.
Incarnation run_incarnation(const ChildConfig& config, milliseconds run_for, Stop stop) {
  Incarnation result;
  int fds[2];
  if (pipe(fds) != 0) return result;
  const Steady::time_point start = Steady::now();
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    run_child(config, fds[1]);
  }
  close(fds[1]);
  std::string carry;
  bool open = pump(fds[0], result.ids, carry, start + std::chrono::seconds(10), true);
  if (!result.ids.empty()) {
    result.first_id_ms = std::chrono::duration<double, std::milli>(Steady::now() - start).count();
  }
  if (open && stop != Stop::kItself && !result.ids.empty()) {
    open = pump(fds[0], result.ids, carry, Steady::now() + run_for, false);
    kill(child, stop == Stop::kKill ? SIGKILL : SIGTERM);
    // A clean stop ends in well under 10 s; one that hangs is killed, which the status shows.
    if (open)
      open = pump(fds[0], result.ids, carry, Steady::now() + std::chrono::seconds(10), false);
  } else if (open) {
    open = pump(fds[0], result.ids, carry, Steady::now() + std::chrono::seconds(10), false);
  }
  // Still running: a hang. SIGALRM (no handler) tells it apart from a kill the test meant.
  if (open) kill(child, SIGALRM);
  while (pump(fds[0], result.ids, carry, Steady::now() + std::chrono::seconds(10), false)) {
  }
  close(fds[0]);
  while (waitpid(child, &result.status, 0) < 0) {
  }
  return result;
}

std::string describe(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

// Every id of a test, by incarnation, with the checks of the header comment.
class History {
 public:
  // Adds an incarnation's ids; an id at or below the largest id before it is a failure.
  void add(const std::vector<std::uint64_t>& ids, const std::string& where) {
    if (!ids.empty()) {
      const std::uint64_t low = *std::min_element(ids.begin(), ids.end());
      if (max_ != 0 && low <= max_) ++out_of_order_;
      EXPECT_TRUE(max_ == 0 || low > max_)
          << where << ": an id " << low << " not above the previous incarnations' largest " << max_;
      max_ = std::max(max_, *std::max_element(ids.begin(), ids.end()));
    }
    all_.insert(all_.end(), ids.begin(), ids.end());
  }
  void add_wait(double ms) { waits_.push_back(ms); }
  std::size_t ids() const { return all_.size(); }
  // Sorts and reports the first repeated id, if any.
  void expect_no_duplicate() {
    std::sort(all_.begin(), all_.end());
    const auto repeat = std::adjacent_find(all_.begin(), all_.end());
    for (std::size_t i = 1; i < all_.size(); ++i) duplicates_ += all_[i] == all_[i - 1] ? 1u : 0u;
    EXPECT_EQ(repeat, all_.end()) << "duplicate id " << (repeat == all_.end() ? 0 : *repeat);
  }
  std::string wait_figures() const {
    if (waits_.empty()) return "no restart issued";
    std::vector<double> sorted = waits_;
    std::sort(sorted.begin(), sorted.end());
    char text[160];
    std::snprintf(text, sizeof text,
                  "restart-to-first-id p50 %.1f ms, p90 %.1f ms, max %.1f ms (ahead %lld ms)",
                  sorted[sorted.size() / 2], sorted[sorted.size() * 9 / 10], sorted.back(),
                  static_cast<long long>(kAhead.count()));
    return text;
  }

 private:
  std::vector<std::uint64_t> all_;
  std::vector<double> waits_;
  std::uint64_t max_ = 0;

 public:
  std::size_t out_of_order_ = 0;  // incarnations with an id not above every earlier one
  std::size_t duplicates_ = 0;
};

// A clock offset of a uniform 0 to ahead back.
std::int64_t up_to_ahead_back(std::mt19937& random) {
  return -std::uniform_int_distribution<std::int64_t>(0, kAhead.count())(random);
}

// C-02 and C-03 (SIGKILL at random): `cycles` kills at a uniform 0-50 ms after the first id.
// With `jitter`, each child's clock is also set back by a uniform 0 to ahead: with a correct clock
// a restart issues after the previous ids whatever the file says, so only a clock behind the
// previous run's ids shows whether the durable ceiling really survived the kill.
void kill_loop(int cycles, bool shim, bool jitter, StartMode start_mode, const std::string& name) {
  TempDir dir("crash_test");
  ASSERT_FALSE(dir.path().empty());
  const std::uint32_t seed = crash_seed();
  SCOPED_TRACE("COSID_CRASH_SEED=" + std::to_string(seed));
  std::mt19937 random(seed);
  History history;
  const Steady::time_point start = Steady::now();
  int per_threads[5] = {0, 0, 0, 0, 0};
  for (int cycle = 0; cycle < cycles; ++cycle) {
    ChildConfig config;
    config.path = dir.path() + "/state";
    config.threads = std::uniform_int_distribution<int>(1, 4)(random);
    config.shim = shim;
    config.start = start_mode;
    config.seed = random();
    if (jitter) config.clock_offset_ms = up_to_ahead_back(random);
    ++per_threads[config.threads];
    const milliseconds run_for(std::uniform_int_distribution<int>(0, 50)(random));
    const Incarnation run = run_incarnation(config, run_for, Stop::kKill);
    const std::string where = name + " cycle " + std::to_string(cycle) + " (" +
                              std::to_string(config.threads) + " threads)";
    ASSERT_FALSE(run.ids.empty()) << where << ": the restart issued nothing, "
                                  << describe(run.status);
    ASSERT_TRUE(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGKILL)
        << where << ": the child ended on its own, " << describe(run.status);
    history.add(run.ids, where);
    if (cycle > 0) history.add_wait(run.first_id_ms);
  }
  history.expect_no_duplicate();
  const double seconds = std::chrono::duration<double>(Steady::now() - start).count();
  std::printf(
      "%s: %d kills (threads 1/2/3/4: %d/%d/%d/%d), %zu ids, %zu duplicates, %zu restarts "
      "out of order: %s; %.1f s\n",
      name.c_str(), cycles, per_threads[1], per_threads[2], per_threads[3], per_threads[4],
      history.ids(), history.duplicates_, history.out_of_order_, history.wait_figures().c_str(),
      seconds);
}

// The start mode of a test: each runs in both, with half the cycles in each.
class CrashTest : public ::testing::TestWithParam<StartMode> {
 protected:
  StartMode start_mode() const { return GetParam(); }
  std::string mode() const {
    return start_mode() == StartMode::kBorrow ? "start borrow" : "start wait";
  }
  static int half(int cycles) { return std::max(1, cycles / 2); }
};

TEST_P(CrashTest, SigkillAtRandomMomentsNeverRepeatsAnId) {
  kill_loop(half(crash_cycles()), false, false, start_mode(), "C-02 real file, " + mode());
}

TEST_P(CrashTest, BufferedUntilSyncSigkillNeverRepeatsAnId) {
  kill_loop(half(std::max(1, crash_cycles() / 5)), true, true, start_mode(),
            "C-03 buffer-until-fsync shim, clock back 0 to ahead, " + mode());
}

// C-03, kill inside a sync: each child runs over the shim told to die inside its k-th sync (k
// from 1 to 8: the syncs of creation, of the open's rewrite, of the first ceiling and of the next
// refreshes), with a random subset of the pending writes, or of their 512-byte sectors, applied.
// Some children die before their first id; the next one must start all the same. Every child's
// clock is set back by a uniform 0 to ahead, as in the shim's kill loop.
TEST_P(CrashTest, KillInsideSyncNeverRepeatsAnId) {
  TempDir dir("crash_test");
  ASSERT_FALSE(dir.path().empty());
  const std::uint32_t seed = crash_seed();
  SCOPED_TRACE("COSID_CRASH_SEED=" + std::to_string(seed));
  std::mt19937 random(seed);
  History history;
  const int cycles = half(std::max(1, crash_cycles() / 10));
  int before_first_id = 0;
  int torn_sectors = 0;
  const Steady::time_point start = Steady::now();
  for (int cycle = 0; cycle < cycles; ++cycle) {
    ChildConfig config;
    config.path = dir.path() + "/state";
    config.threads = std::uniform_int_distribution<int>(1, 4)(random);
    config.shim = true;
    config.start = start_mode();
    config.kill_at_sync = std::uniform_int_distribution<int>(1, 8)(random);
    const bool sectors = random() % 2 == 0;
    torn_sectors += sectors ? 1 : 0;
    config.tear = sectors ? testing_fs::BufferingFileSystem::TearMode::kSectors
                          : testing_fs::BufferingFileSystem::TearMode::kWrites;
    config.seed = random();
    config.clock_offset_ms = up_to_ahead_back(random);
    const Incarnation run = run_incarnation(config, milliseconds(0), Stop::kItself);
    const std::string where = "kill-in-sync cycle " + std::to_string(cycle) + " (sync " +
                              std::to_string(config.kill_at_sync) +
                              (sectors ? ", sectors)" : ", writes)");
    ASSERT_TRUE(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGKILL)
        << where << ": the child did not die inside its sync, " << describe(run.status);
    if (run.ids.empty()) ++before_first_id;
    history.add(run.ids, where);
    // Then a normal start on what the kill left, killed at random: it must succeed.
    config.kill_at_sync = 0;
    config.clock_offset_ms = up_to_ahead_back(random);
    const Incarnation next = run_incarnation(
        config, milliseconds(std::uniform_int_distribution<int>(0, 50)(random)), Stop::kKill);
    ASSERT_FALSE(next.ids.empty())
        << where << ": the start after it issued nothing, " << describe(next.status);
    history.add(next.ids, where + ", the start after it");
    history.add_wait(next.first_id_ms);
  }
  history.expect_no_duplicate();
  const double seconds = std::chrono::duration<double>(Steady::now() - start).count();
  std::printf(
      "C-03 kill inside sync, %s: %d self-kills (%d torn by sector, %d before the first id) "
      "each followed by a start and a SIGKILL, %zu ids, %zu duplicates, %zu restarts out of "
      "order: %s; %.1f s\n",
      mode().c_str(), cycles, torn_sectors, before_first_id, history.ids(), history.duplicates_,
      history.out_of_order_, history.wait_figures().c_str(), seconds);
}

INSTANTIATE_TEST_SUITE_P(StartModes, CrashTest,
                         ::testing::Values(StartMode::kWait, StartMode::kBorrow),
                         [](const ::testing::TestParamInfo<StartMode>& param) {
                           return std::string(param.param == StartMode::kBorrow ? "borrow"
                                                                                : "wait");
                         });

// K-02: the clock set back by `step` between two runs, after a crash and after a clean
// stop. A step the start can wait out (start_wait 2 s: the gap is at most step + ahead) gives a
// restart whose ids lie after the earlier ones; a larger one must fail with clock_behind_floor and
// issue nothing, and the start after the clock is right again must succeed. After the SIGKILL in
// both start modes: with borrow, a gap within ahead is lent (no wait), a larger one waits or fails
// as in wait mode, by the same rule. (After SIGTERM nothing is borrowed: wait mode only.)
struct ClockStep {
  const char* name;
  std::int64_t step_ms;
};

class ClockBackTest : public ::testing::TestWithParam<ClockStep> {};

constexpr milliseconds kClockTestStartWait{2000};

TEST_P(ClockBackTest, RestartWithTheClockSetBackNeverRepeatsAnId) {
  const ClockStep step = GetParam();
  const bool waitable = step.step_ms + kAhead.count() < kClockTestStartWait.count();
  for (const auto& [stop, start_mode] :
       {std::pair{Stop::kKill, StartMode::kWait}, std::pair{Stop::kKill, StartMode::kBorrow},
        std::pair{Stop::kTerm, StartMode::kWait}}) {
    const char* how = stop == Stop::kTerm              ? "after SIGTERM"
                      : start_mode == StartMode::kWait ? "after SIGKILL, start wait"
                                                       : "after SIGKILL, start borrow";
    SCOPED_TRACE(std::string("clock back ") + step.name + " " + how);
    TempDir dir("crash_test");
    ASSERT_FALSE(dir.path().empty());
    std::mt19937 random(crash_seed());
    History history;
    ChildConfig config;
    config.path = dir.path() + "/state";
    config.threads = 2;
    config.start_wait = kClockTestStartWait;
    config.start = start_mode;
    const Incarnation first = run_incarnation(
        config, milliseconds(std::uniform_int_distribution<int>(0, 50)(random)), stop);
    ASSERT_FALSE(first.ids.empty()) << describe(first.status);
    if (stop == Stop::kTerm) {
      ASSERT_TRUE(WIFEXITED(first.status) && WEXITSTATUS(first.status) == kChildStopped)
          << describe(first.status);
    }
    history.add(first.ids, "first run");

    config.clock_offset_ms = -step.step_ms;
    const Incarnation back = run_incarnation(config, milliseconds(20), Stop::kKill);
    if (waitable) {
      ASSERT_FALSE(back.ids.empty())
          << "the restart with the clock back issued nothing, " << describe(back.status);
      history.add(back.ids, "restart with the clock back");
    } else {
      EXPECT_TRUE(WIFEXITED(back.status) && WEXITSTATUS(back.status) == kChildClockBehind)
          << "expected clock_behind_floor, got " << describe(back.status);
      EXPECT_TRUE(back.ids.empty()) << "issued " << back.ids.size() << " ids";
    }
    config.clock_offset_ms = 0;
    const Incarnation fixed = run_incarnation(config, milliseconds(20), Stop::kKill);
    ASSERT_FALSE(fixed.ids.empty())
        << "the restart with the clock right issued nothing, " << describe(fixed.status);
    history.add(fixed.ids, "restart with the clock right");
    history.expect_no_duplicate();
    std::printf(
        "K-02 clock back %s %s: %s, restart with the clock back %s after %.1f ms; "
        "%zu ids, %zu duplicates, %zu restarts out of order\n",
        step.name, how, waitable ? "waitable" : "beyond start_wait",
        back.ids.empty() ? "refused" : "issued", back.first_id_ms, history.ids(),
        history.duplicates_, history.out_of_order_);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Steps, ClockBackTest,
    ::testing::Values(ClockStep{"1ms", 1}, ClockStep{"10ms", 10}, ClockStep{"1s", 1000},
                      ClockStep{"ahead", kAhead.count()}, ClockStep{"1h", 3600LL * 1000},
                      ClockStep{"1day", 86400LL * 1000}, ClockStep{"1year", 365LL * 86400 * 1000}),
    [](const ::testing::TestParamInfo<ClockStep>& param) { return std::string(param.param.name); });

// A child forked from a process that holds a Runtime gets a copy of its generator and of its
// state file's descriptor. Issuing from the copy would repeat the parent's ids, and closing it
// would write a ceiling over the parent's: the child gets errc::forked_process and writes nothing.
TEST(ForkTest, ChildOfAProcessWithARuntimeCannotIssueOrWrite) {
  const std::string unseen = wipe_on_fork_not_honoured();
  if (!unseen.empty()) GTEST_SKIP() << unseen;
  const TempDir dir("crash_test_fork");
  ASSERT_FALSE(dir.path().empty());
  Options options;
  options.slot = 2;
  options.state_file = dir.file("state");
  RuntimeEnvironment environment;
  // The child allocates (the refusals' messages): where that can deadlock on a lock the parent's
  // background thread held at the fork, the runtime runs without that thread, and the test still
  // holds every refusal of the child to its code.
  if (allocating_in_a_forked_child_can_deadlock() != nullptr) environment.background_thread = false;
  Status opened;
  auto runtime = Runtime::open(options, environment, opened);
  ASSERT_TRUE(runtime) << opened.message();
  Generator* generator = runtime->generator("default", opened);
  ASSERT_NE(generator, nullptr) << opened.message();
  std::error_code ec;
  ASSERT_NE(generator->next(ec), 0u);

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::error_code child_ec;
    const bool refused = generator->next(child_ec) == 0 && child_ec == errc::forked_process;
    Status child_status;
    const bool no_new_generator = runtime->generator("other", child_status) == nullptr &&
                                  child_status.code() == errc::forked_process;
    Status closed;
    const bool closed_quietly = runtime->close(closed);
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
  Status read;
  ASSERT_TRUE(read_state_file(posix_file_system(), options.state_file, view, read));
  EXPECT_FALSE(view.records[view.current].clean_shutdown);
  EXPECT_TRUE(runtime->close(opened)) << opened.message();
}

}  // namespace
}  // namespace cosid
