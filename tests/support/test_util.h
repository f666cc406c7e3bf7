// SPDX-License-Identifier: Apache-2.0
// The helpers most tests share: the assertions on an error, kNow, read_file(), the recording
// listener, and why a limit cannot bind here. Tests assert the specific error they expect: there is
// deliberately no "expect any error" helper.
#ifndef COSID_TESTS_SUPPORT_TEST_UTIL_H_
#define COSID_TESTS_SUPPORT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "cosid/error.h"
#include "cosid/generator.h"
#include "cosid/runtime.h"
#include "sanitizers.h"

// Expects `ec` to hold exactly `code` of cosid's category.
#define EXPECT_ERRC(ec, code) EXPECT_EQ((ec), ::cosid::make_error_code(code)) << (ec).message()
#define ASSERT_ERRC(ec, code) ASSERT_EQ((ec), ::cosid::make_error_code(code)) << (ec).message()
// Expects success; prints the error otherwise.
#define EXPECT_NO_ERROR(ec) EXPECT_FALSE(ec) << (ec).message()
#define ASSERT_NO_ERROR(ec) ASSERT_FALSE(ec) << (ec).message()
// Expects `status` to hold exactly `expected`; prints its message otherwise.
#define EXPECT_STATUS(status, expected) \
  EXPECT_EQ((status).code(), ::cosid::make_error_code(expected)) << (status).message()
#define ASSERT_STATUS(status, expected) \
  ASSERT_EQ((status).code(), ::cosid::make_error_code(expected)) << (status).message()
// Expects `status` to be ok; prints its message otherwise.
#define EXPECT_OK(status) EXPECT_TRUE((status).ok()) << (status).message()
#define ASSERT_OK(status) ASSERT_TRUE((status).ok()) << (status).message()

// Why an address-space limit cannot make a thread fail to start here, or null where it can (for
// the tests of a background thread that cannot start). A sanitizer's runtime reserves the address
// space the limit would cut; qemu-user puts a guest thread's stack in address space it reserved
// when it started, so the limit never binds (tests/CMakeLists.txt defines
// COSID_TEST_UNDER_EMULATOR in a cross build).
inline const char* thread_limits_do_not_bind() {
#if COSID_TEST_ASAN || COSID_TEST_TSAN
  return "an address-space limit breaks the sanitizer's runtime";
#endif
#ifdef COSID_TEST_UNDER_EMULATOR
  return "under qemu-user an address-space limit does not stop a guest thread from starting";
#endif
  return nullptr;
}

// Why a program exec'd under a small file size limit (RLIMIT_FSIZE) cannot reach main() here, or
// null: under TSan it dies of SIGXFSZ before main() can ignore the signal (seen on CI: status 153,
// nothing on stderr), so its runtime writes to a file at start.
inline const char* file_size_limit_kills_the_runtime() {
#if COSID_TEST_TSAN
  return "under TSan a program dies of SIGXFSZ before main() can ignore it";
#endif
  return nullptr;
}

namespace cosid::testing {

// The manual clocks' start in the in-memory tests: 2026-11-30T02:22:58.123Z.
constexpr std::int64_t kNow = 1796005378123;

// The whole file at `path`, or "" if it cannot be read.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Keeps every event a runtime or keeper reports, from any thread, to count them by kind.
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
  // The events of `kind`, oldest first.
  std::vector<Event> of(EventKind kind) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Event> kept;
    std::copy_if(events_.begin(), events_.end(), std::back_inserter(kept),
                 [kind](const Event& e) { return e.kind == kind; });
    return kept;
  }
  // The latest event of `kind`, or an empty one of that kind if there was none.
  Event last(EventKind kind) {
    const std::vector<Event> kept = of(kind);
    return kept.empty() ? Event{kind, {}, {}} : kept.back();
  }

 private:
  std::mutex mutex_;
  std::vector<Event> events_;
};

}  // namespace cosid::testing

#endif  // COSID_TESTS_SUPPORT_TEST_UTIL_H_
