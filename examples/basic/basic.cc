// SPDX-License-Identifier: Apache-2.0
// Issues five ids on one slot whose window is kept in a state file: basic STATE_FILE SLOT
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>

#include "cosid/codec.h"
#include "cosid/runtime.h"

int main(int argc, char** argv) {
  char* end = nullptr;
  const unsigned long slot = argc == 3 ? std::strtoul(argv[2], &end, 10) : 0;
  if (argc != 3 || *argv[2] == '\0' || *end != '\0' || slot > UINT32_MAX) {
    std::fprintf(stderr, "usage: %s STATE_FILE SLOT (a whole number)\n", argv[0]);
    return 2;
  }
  cosid::Options options;
  options.state_file = argv[1];  // one state file per slot; it keeps the window across restarts
  options.slot = static_cast<std::uint32_t>(slot);  // Runtime::open checks it against the layout

  cosid::Status status;
  auto runtime = cosid::Runtime::open(options, {}, status);
  if (!runtime) {
    std::fprintf(stderr, "basic: %s\n", status.message().c_str());
    return 1;
  }
  cosid::Generator* ids = runtime->generator("default", status);
  for (int i = 0; ids != nullptr && i < 5; ++i) {
    const std::uint64_t id = ids->next(status);
    if (!status.ok()) break;
    std::printf("%s %s\n", cosid::to_string(id).c_str(),
                cosid::to_string(id, cosid::IdFormat::kRadix62).c_str());
  }
  const bool failed = !status.ok();
  if (failed) std::fprintf(stderr, "basic: %s\n", status.message().c_str());
  // Writes the last timestamp, so the next start issues at once.
  if (!runtime->close(status)) std::fprintf(stderr, "basic: %s\n", status.message().c_str());
  return failed ? 1 : 0;
}
