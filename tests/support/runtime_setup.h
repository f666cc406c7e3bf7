// SPDX-License-Identifier: Apache-2.0
// The Runtime set-up that the in-memory tests share: slot 3 of namespace "orders" on a state file
// in a test file system, ahead 100 ms (a renewal is due once 50 ms of manual time have passed),
// start wait 150 ms, every generator wait bounded at 20 ms, and no background thread, so that
// renewals happen inline and every run is deterministic.
#ifndef COSID_TESTS_SUPPORT_RUNTIME_SETUP_H_
#define COSID_TESTS_SUPPORT_RUNTIME_SETUP_H_

#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "cosid/clock.h"
#include "cosid/runtime.h"
#include "test_util.h"

namespace cosid::testing {

// The state file of the set-up, in the test's file system.
constexpr char kStatePath[] = "var/state";

inline Options small_runtime_options(const char* state_file) {
  using std::chrono::milliseconds;
  Options options;
  options.slot = 3;
  options.namespace_name = "orders";
  options.state_file = state_file;
  options.ahead = milliseconds(100);
  options.start_wait = milliseconds(150);
  return options;
}

inline RuntimeEnvironment inline_environment(Clock& clock, FileSystem& fs) {
  using std::chrono::milliseconds;
  RuntimeEnvironment environment;
  environment.clock = &clock;
  environment.fs = &fs;
  environment.background_thread = false;
  environment.generator = GeneratorOptions{milliseconds(20), milliseconds(20), milliseconds(20)};
  return environment;
}

// The fixture of the runtime tests, on a file system of type `Fs` (MemoryFs, CrashFs): the set-up
// above on kStatePath with a manual clock at kNow. A test changes options_ and environment_ before
// open(); status_ holds what open() reported, and what the test's own calls report into it.
template <class Fs>
class RuntimeFixture : public ::testing::Test {
 protected:
  RuntimeFixture()
      : options_(small_runtime_options(kStatePath)),
        environment_(inline_environment(clock_, fs_)) {}

  std::unique_ptr<Runtime> open() {
    status_.clear();
    return Runtime::open(options_, environment_, status_);
  }

  Fs fs_;
  ManualClock clock_{kNow};
  Options options_;
  RuntimeEnvironment environment_;
  Status status_;
};

}  // namespace cosid::testing

#endif  // COSID_TESTS_SUPPORT_RUNTIME_SETUP_H_
