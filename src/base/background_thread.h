// SPDX-License-Identifier: Apache-2.0
// Internal: the library's background thread (a runtime's KeeperLoop, window_keeper.h, which runs
// the state file's or the lease keeper's rounds), started with pthread_create so that a failed
// start is an error code the caller reports, not an exception. std::thread reports a failed start
// (EAGAIN under a process or thread limit) by throwing std::system_error: with -fno-exceptions that
// terminates the process, and with exceptions it reaches the caller of a non-throwing overload as
// an unexpected exception.
#ifndef COSID_SRC_BASE_BACKGROUND_THREAD_H_
#define COSID_SRC_BASE_BACKGROUND_THREAD_H_

#include <pthread.h>

#include <string>
#include <system_error>

namespace cosid {
namespace detail {

class BackgroundThread {
 public:
  BackgroundThread() = default;
  // Joins a thread that was started and not joined: its owner must have told it to stop.
  ~BackgroundThread() { join(); }
  BackgroundThread(const BackgroundThread&) = delete;
  BackgroundThread& operator=(const BackgroundThread&) = delete;

  // Runs `(object->*Run)()` on a new thread. On failure no thread exists and the error is
  // pthread_create's (generic category): EAGAIN when the process or thread limit is reached (a
  // low `ulimit -u`) or the thread's stack cannot be mapped.
  // REQUIRES: not started yet; `object` and this BackgroundThread outlive the thread.
  template <typename T, void (T::*Run)()>
  std::error_code start(T* object) noexcept {
    object_ = object;
    body_ = [](void* target) { (static_cast<T*>(target)->*Run)(); };
    const int error = pthread_create(&thread_, nullptr, &BackgroundThread::trampoline, this);
    started_ = error == 0;
    return error == 0 ? std::error_code() : std::error_code(error, std::generic_category());
  }

  void join() noexcept {
    if (!started_) return;
    started_ = false;
    (void)pthread_join(thread_, nullptr);
  }

 private:
  static void* trampoline(void* self) {
    auto* thread = static_cast<BackgroundThread*>(self);
    thread->body_(thread->object_);
    return nullptr;
  }

  pthread_t thread_{};
  bool started_ = false;
  void* object_ = nullptr;
  void (*body_)(void*) = nullptr;
};

// The message for a `whose` ("runtime's", "lease keeper's") background thread that could not
// start with `failed`: what happened and the two ways out.
inline std::string thread_start_failure(const char* whose, std::error_code failed) {
  return std::string("cannot start the ") + whose + " background thread: " + failed.message() +
         ": raise the limit on processes and threads (ulimit -u) or, in a program, set "
         "RuntimeEnvironment::background_thread = false and call maintain()";
}

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_BASE_BACKGROUND_THREAD_H_
