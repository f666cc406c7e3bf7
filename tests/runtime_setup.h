// The Runtime set-up that the in-memory tests share: slot 3 of namespace "orders" on a state file
// in a test file system, ahead 100 ms (a renewal is due once 50 ms of manual time have passed),
// start wait 150 ms, every generator wait bounded at 20 ms, and no background thread, so that
// renewals happen inline and every run is deterministic.
#ifndef COSID_TESTS_RUNTIME_SETUP_H_
#define COSID_TESTS_RUNTIME_SETUP_H_

#include <algorithm>
#include <chrono>
#include <mutex>
#include <vector>

#include "cosid/runtime.h"

namespace cosid::testing {

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

// Keeps every event a runtime reports, from any thread, to count them by kind.
class RecordingListener final : public EventListener {
 public:
  void on_event(const Event& event) noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(event);
  }
  int count(EventKind kind) {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int>(std::count_if(events_.begin(), events_.end(),
                                          [kind](const Event& e) { return e.kind == kind; }));
  }

 private:
  std::mutex mutex_;
  std::vector<Event> events_;
};

}  // namespace cosid::testing

#endif  // COSID_TESTS_RUNTIME_SETUP_H_
