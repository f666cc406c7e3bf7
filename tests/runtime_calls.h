// The Runtime's Status-shaped calls in the shape the runtime tests assert on: the code as a
// std::error_code, and the message into `message` when one is given (left alone on success).
#ifndef COSID_TESTS_RUNTIME_CALLS_H_
#define COSID_TESTS_RUNTIME_CALLS_H_

#include <memory>
#include <string>
#include <string_view>
#include <system_error>

#include "cosid/error.h"
#include "cosid/runtime.h"

namespace cosid::testing {

inline std::error_code code_of(const Status& status, std::string* message) {
  if (message != nullptr && !status.ok()) *message = status.message();
  return status.code();
}

inline std::unique_ptr<Runtime> open_runtime(const Options& options,
                                             const RuntimeEnvironment& environment,
                                             std::error_code& ec, std::string* message = nullptr) {
  Status status;
  std::unique_ptr<Runtime> runtime = Runtime::open(options, environment, status);
  ec = code_of(status, message);
  return runtime;
}

inline Generator* generator_of(Runtime& runtime, std::string_view name, std::error_code& ec) {
  Status status;
  Generator* generator = runtime.generator(name, status);
  ec = status.code();
  return generator;
}

inline std::error_code maintain_runtime(Runtime& runtime, std::string* message = nullptr) {
  Status status;
  (void)runtime.maintain(status);
  return code_of(status, message);
}

inline std::error_code close_runtime(Runtime& runtime, std::string* message = nullptr) {
  Status status;
  (void)runtime.close(status);
  return code_of(status, message);
}

}  // namespace cosid::testing

#endif  // COSID_TESTS_RUNTIME_CALLS_H_
