// SPDX-License-Identifier: Apache-2.0
// A program that uses cosid the way an application does, built against an installed or vendored
// cosid by the consumer projects next to it (find_package, add_subdirectory, pkg-config). It
// issues ids through a Runtime on a state file in a fresh temporary directory, checks them, and
// exits 0 only if every check passed; each failed check prints one line and makes the exit 1.
//
// Besides "it links", it checks what a shared build can get wrong: the library calls back into a
// class the program defines (EventListener), and a cosid::Error thrown inside the library is
// caught here by its type with its code (typeinfo and error category shared across the boundary).
//
// It also includes a header that moved in 0.7 by its old name, as a program written for 0.6 does.
#include <cosid/codec.h>
#include <cosid/error.h>
#include <cosid/generator.h>
#include <cosid/layout.h>
#include <cosid/lease/store_registry.h>  // a 0.6 name, forwarding in 0.7 (CHANGES.md)
#include <cosid/runtime.h>
#include <cosid/version.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <system_error>

#include "consumer_check.h"

namespace {

// Counts the state-file-created events the runtime reports.
class CreatedCounter final : public cosid::EventListener {
 public:
  void on_event(const cosid::Event& event) noexcept override {
    if (event.kind == cosid::EventKind::kStateFileCreated) ++created;
  }
  int created = 0;
};

// Opens a runtime on `state_file` for `slot`, issues two ids, checks them against the window and
// the layout, closes the runtime, and returns the second id (0 on failure).
std::uint64_t issue_two(const std::string& state_file, std::uint32_t slot,
                        CreatedCounter& listener) {
  cosid::Options options;
  options.slot = slot;
  options.state_file = state_file;
  cosid::RuntimeEnvironment environment;
  environment.listener = &listener;
  cosid::Status status;
  std::unique_ptr<cosid::Runtime> runtime = cosid::Runtime::open(options, environment, status);
  if (!runtime) {
    std::fprintf(stderr, "consumer: Runtime::open failed: %s\n", status.message().c_str());
    ++failures;
    return 0;
  }
  cosid::Generator* ids = runtime->generator("default", status);
  check(ids != nullptr && status.ok(), "Runtime::generator returns a generator");
  if (ids == nullptr) return 0;
  const std::uint64_t first = ids->next(status);
  check(status.ok() && first != 0, "Generator::next issues an id");
  const std::uint64_t second = ids->next(status);
  check(status.ok() && second > first, "a second id is larger than the first");

  const cosid::Layout& layout = ids->layout();
  const cosid::IdParts parts = layout.parse(first);
  check(parts.slot == slot, "the id carries the configured slot");
  const std::int64_t issued_ms = layout.tick_start_ms(parts.timestamp);
  check(runtime->floor_ms() < issued_ms && issued_ms <= runtime->ceiling_ms(),
        "the id's timestamp lies inside the runtime's window");

  const std::string text = cosid::to_string(first, cosid::IdFormat::kRadix62, layout);
  check(cosid::decode(text, cosid::IdFormat::kRadix62, layout, status) == first && status.ok(),
        "radix62 text decodes to the same id");

  check(runtime->close(status), "Runtime::close succeeds");
#if COSID_HAS_EXCEPTIONS
  // Thrown inside the library (the throwing Generator::next is defined there), caught here.
  bool caught = false;
  try {
    (void)ids->next();
  } catch (const cosid::Error& error) {
    caught = error.code() == cosid::errc::closed;
  }
  check(caught, "next() after close throws cosid::Error with errc::closed");
#endif
  return second;
}

}  // namespace

int main() {
  char dir_template[] = "/tmp/cosid-consumer-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) {
    std::perror("consumer: mkdtemp");
    return 1;
  }
  const std::string state_file = std::string(dir) + "/cosid.state";

  CreatedCounter listener;
  const std::uint64_t last_of_first_run = issue_two(state_file, 7, listener);
  check(listener.created == 1, "the first run reports the new state file to the listener");
  // A restart on the same file continues after everything the first run issued.
  const std::uint64_t last_of_second_run = issue_two(state_file, 7, listener);
  check(last_of_second_run > last_of_first_run, "a restart issues ids after the first run's");
  check(listener.created == 1, "the restart reuses the state file");

  // A program written for 0.6 still builds: the old header and the old names of the registry.
  cosid::lease::StoreRegistry registry;
  check(registry.contains("file"), "the registry under its 0.6 name knows the file store");

  unlink(state_file.c_str());
  rmdir(dir);
  if (failures != 0) return 1;
  std::printf("consumer: cosid %d.%d.%d issued %s on slot 7; all checks passed\n",
              COSID_VERSION_MAJOR, COSID_VERSION_MINOR, COSID_VERSION_PATCH,
              cosid::to_string(last_of_second_run).c_str());
  return 0;
}
