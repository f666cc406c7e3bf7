// SPDX-License-Identifier: Apache-2.0
// Shared helpers for the fuzz targets.
#ifndef COSID_FUZZ_FUZZ_UTIL_H_
#define COSID_FUZZ_FUZZ_UTIL_H_

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace cosid::fuzz {

// Prints where and what failed, with `detail` (escaped, may be empty), and aborts: libFuzzer then
// saves the input as a crash, and the replay driver stops on it.
[[noreturn]] inline void check_failed(const char* file, int line, const char* condition,
                                      std::string_view detail) {
  std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, condition);
  if (!detail.empty()) {
    std::fputs("  detail: \"", stderr);
    for (const char c : detail) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 0x20 && byte < 0x7f) {
        std::fputc(c, stderr);
      } else {
        std::fprintf(stderr, "\\x%02x", byte);
      }
    }
    std::fputs("\"\n", stderr);
  }
  std::abort();
}

}  // namespace cosid::fuzz

// Unlike assert(), active in every build type.
#define CHECK(condition) CHECK_MSG(condition, std::string_view())
// As CHECK, and prints `detail` (anything convertible to std::string_view) on failure.
#define CHECK_MSG(condition, detail)                                                       \
  do {                                                                                     \
    if (!(condition)) ::cosid::fuzz::check_failed(__FILE__, __LINE__, #condition, detail); \
  } while (false)

#endif  // COSID_FUZZ_FUZZ_UTIL_H_
