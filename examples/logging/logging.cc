// SPDX-License-Identifier: Apache-2.0
// Logs every runtime event with a level, issues a few ids, and prints the runtime's metrics in the
// Prometheus text format at the end: logging STATE_FILE SLOT [COUNT]
//
// An EventListener is called on the thread that caused the event, often the runtime's background
// thread, so it must be quick, must not throw and must not call back into the Runtime. Here it
// writes one line to standard error per event; stdio's own lock keeps the lines whole.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>

#include "cosid/codec.h"
#include "cosid/metrics.h"
#include "cosid/runtime.h"

namespace {

struct Described {
  const char* level;
  const char* name;
};

// The level says what an operator should do: debug, nothing; info, nothing but it is worth
// knowing; warning, look at it soon; error, ids will stop unless it is fixed.
Described describe(cosid::EventKind kind) {
  switch (kind) {
    case cosid::EventKind::kCeilingAdvanced:
      return {"debug", "ceiling_advanced"};  // every ahead/2: routine
    case cosid::EventKind::kWaitingForFloor:
      return {"info", "waiting_for_floor"};  // normal after a crash: waits at most about ahead
    case cosid::EventKind::kBorrowingAhead:
      return {"info", "borrowing_ahead"};  // start borrow after a crash: ids lead the clock a while
    case cosid::EventKind::kStateWriteRecovered:
      return {"info", "state_write_recovered"};
    case cosid::EventKind::kStateFileCreated:
      return {"warning", "state_file_created"};  // right on a first start, suspect on a restart
    case cosid::EventKind::kNoStateFile:
      return {"warning", "no_state_file"};
    case cosid::EventKind::kWaitingAtCeiling:
      return {"warning", "waiting_at_ceiling"};  // the disk is slower than the ids
    case cosid::EventKind::kStateWriteFailed:
      return {"error", "state_write_failed"};  // ids stop at the ceiling unless a retry succeeds
    case cosid::EventKind::kStateFileReplaced:
      return {"error", "state_file_replaced"};  // ids stop at once
    case cosid::EventKind::kStateFileDamaged:
      return {"warning", "state_file_damaged"};  // one block was bad; the other covers every id
    // A slot leased from a store (--store, cosid.machine.distributor.type).
    case cosid::EventKind::kLeaseAcquired:
      return {"info", "lease_acquired"};
    case cosid::EventKind::kLeaseReleased:
      return {"info", "lease_released"};
    case cosid::EventKind::kLeaseRenewalRecovered:
      return {"info", "lease_renewal_recovered"};
    case cosid::EventKind::kLeaseWaiting:
      return {"warning", "lease_waiting"};  // every slot is taken: start-up retries
    case cosid::EventKind::kDuplicateOwnerKey:
      return {"warning", "duplicate_owner_key"};  // two live runtimes claim one owner key
    case cosid::EventKind::kClockSkew:
      return {"warning", "clock_skew"};  // more than tolerance/2 off the store's clock
    case cosid::EventKind::kLeaseRenewalFailed:
      return {"error", "lease_renewal_failed"};  // ids stop at the ceiling unless a retry succeeds
    case cosid::EventKind::kLeaseLost:
      return {"error", "lease_lost"};  // generators fail with slot_lost; a new slot is leased
    case cosid::EventKind::kStoreLog:
      return {"warning", "store_log"};  // the store's client library warned (ZooKeeper's)
    case cosid::EventKind::kRangeKeyStarted:
      return {"warning", "range_key_started"};  // a new key began at its first value: a typo?
    case cosid::EventKind::kSlowSync:
      return {"warning", "slow_sync"};  // a sync took over ahead/4: raise ahead above 2x the worst
  }
  return {"warning", "unknown_event"};  // a kind added after this example was written
}

class LoggingListener final : public cosid::EventListener {
 public:
  void on_event(const cosid::Event& event) noexcept override {
    const Described described = describe(event.kind);
    if (event.code) {
      std::fprintf(stderr, "[%s] %s: %s (%s)\n", described.level, described.name,
                   event.message.c_str(), event.code.message().c_str());
    } else {
      std::fprintf(stderr, "[%s] %s: %s\n", described.level, described.name, event.message.c_str());
    }
  }
};

bool parse_number(const char* text, unsigned long max, unsigned long& value) {
  char* end = nullptr;
  value = std::strtoul(text, &end, 10);
  return *text >= '0' && *text <= '9' && *end == '\0' && value <= max;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long slot = 0;
  unsigned long count = 5;
  if (argc < 3 || argc > 4 || !parse_number(argv[2], UINT32_MAX, slot) ||
      (argc == 4 && !parse_number(argv[3], 1000000, count))) {
    std::fprintf(stderr, "usage: %s STATE_FILE SLOT [COUNT (default 5, at most 1000000)]\n",
                 argv[0]);
    return 2;
  }
  cosid::Options options;
  options.state_file = argv[1];
  options.slot = static_cast<std::uint32_t>(slot);

  LoggingListener listener;  // must outlive the runtime
  cosid::RuntimeEnvironment environment;
  environment.listener = &listener;

  cosid::Status status;
  auto runtime = cosid::Runtime::open(options, environment, status);
  if (!runtime) {
    std::fprintf(stderr, "[error] open: %s\n", status.message().c_str());
    return 1;
  }
  cosid::Generator* ids = runtime->generator("default", status);
  for (unsigned long i = 0; ids != nullptr && i < count; ++i) {
    const std::uint64_t id = ids->next(status);
    if (!status.ok()) break;
    std::printf("%s\n", cosid::to_string(id).c_str());
  }
  const bool failed = !status.ok();
  if (failed) std::fprintf(stderr, "[error] %s\n", status.message().c_str());
  if (!runtime->close(status)) {
    std::fprintf(stderr, "[warning] close: %s\n", status.message().c_str());
  }
  // After close() the counts are final. A service would serve this text on its /metrics page.
  std::fputs(cosid::to_prometheus(runtime->metrics()).c_str(), stdout);
  return failed ? 1 : 0;
}
