// SPDX-License-Identifier: Apache-2.0
// What a program that uses a static slot only links of the library: it opens a Runtime on a static
// slot with a state file in a fresh temporary directory (through Runtime::open_static(), which
// links no lease store), issues one id, prints it in both text forms and closes.
// tests/size/measure.sh links it and counts the library's bytes in it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cosid/codec.h"
#include "cosid/runtime.h"

int main() {
  char directory[] = "/tmp/cosid-size-XXXXXX";
  if (mkdtemp(directory) == nullptr) {
    std::perror("static_slot: mkdtemp");
    return 1;
  }
  cosid::Options options;
  options.state_file = std::string(directory) + "/slot-7.state";
  options.slot = 7;

  cosid::Status status;
  auto runtime = cosid::Runtime::open_static(options, {}, status);
  cosid::Generator* ids = runtime ? runtime->generator("default", status) : nullptr;
  const std::uint64_t id = ids ? ids->next(status) : 0;
  bool ok = status.ok();
  if (ok) {
    std::printf("%s %s\n", cosid::to_string(id).c_str(),
                cosid::to_string(id, cosid::IdFormat::kRadix62).c_str());
  } else {
    std::fprintf(stderr, "static_slot: %s\n", status.message().c_str());
  }
  if (runtime && !runtime->close(status)) {
    std::fprintf(stderr, "static_slot: %s\n", status.message().c_str());
    ok = false;
  }
  std::remove(options.state_file.c_str());
  std::remove(directory);
  return ok ? 0 : 1;
}
