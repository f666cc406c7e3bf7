// SPDX-License-Identifier: Apache-2.0
// Fuzzes a Runtime's whole life (F6, stateful): a byte stream of operations over a Runtime on a
// MemoryFs and a ManualClock, inline mode (no background thread), ahead 100 ms, small wait bounds.
//
// Oracle, over every id returned in the whole run (across crashes and restarts):
//  - ids strictly increase, so they are unique, and every id after a restart is greater than
//    every id before it (one slot: the floor of each term lies past every earlier timestamp);
//  - the auditor: when an id is returned, its timestamp is at or before the ceiling decoded from
//    the durable image of the state file (the valid record with the highest generation), and after
//    the floor of the runtime that issued it;
//  - every failure is a cosid or errno code, never a crash, hang or sanitizer report.
//
// Operations (one opcode byte, then argument bytes; a missing byte reads as 0):
//   0 n     next() 1 + n times                    5 o k   fail the k-th next call of FileSystem
//   1 d     clock steps forward by kSteps[d]               op o with EIO or ENOSPC (k's bit 7:
//   2 d     clock steps back by kSteps[d]                  persistent)
//   3 d     time passes (both clocks) by kSteps[d] 6       clear the faults
//   4       maintain()                             7       power loss: crash, then drop the runtime
//   8       clean close, then restart              9       toggle a frozen wall clock for sleeps
// The runtime is (re)opened lazily before next() and maintain(); an open may fail (clock behind
// the floor, injected faults), and is then tried again at the next such operation.
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "cosid/clock.h"
#include "cosid/error.h"
#include "cosid/generator.h"
#include "cosid/layout.h"
#include "cosid/options.h"
#include "cosid/runtime.h"
#include "fuzz_util.h"
#include "support/memory_fs.h"
#include "window/state_record.h"

namespace {

using cosid::testing::MemoryFs;
using std::chrono::milliseconds;

constexpr std::int64_t kStart = 1700000000000;
constexpr std::int64_t kAheadMs = 100;
const char kPath[] = "slot.state";
// Clock steps: 1 ms, ahead/2, ahead, 1 h, 1 day.
constexpr std::int64_t kSteps[] = {1, kAheadMs / 2, kAheadMs, 3600 * 1000, 24 * 3600 * 1000};
constexpr int kErrnos[] = {EIO, ENOSPC};
constexpr MemoryFs::Op kOps[] = {
    MemoryFs::Op::kOpenDirectory, MemoryFs::Op::kOpen,   MemoryFs::Op::kCreate,
    MemoryFs::Op::kRead,          MemoryFs::Op::kWrite,  MemoryFs::Op::kSync,
    MemoryFs::Op::kSyncData,      MemoryFs::Op::kRename, MemoryFs::Op::kUnlink,
    MemoryFs::Op::kStat,          MemoryFs::Op::kLock,
};

class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  std::uint8_t byte() {
    const std::uint8_t value = pos_ < size_ ? data_[pos_] : std::uint8_t{0};
    ++pos_;
    return value;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

class Harness {
 public:
  Harness() : clock_(kStart, cosid::ManualClock::OnSleep::kAdvanceBoth) {
    options_.slot = 5;
    options_.state_file = kPath;
    options_.ahead = milliseconds(kAheadMs);
    options_.start_wait = milliseconds(300);
    environment_.clock = &clock_;
    environment_.fs = &fs_;
    environment_.background_thread = false;
    environment_.generator.clock_backwards = milliseconds(20);
    environment_.generator.behind_floor = milliseconds(20);
    environment_.generator.ceiling = milliseconds(20);
  }

  ~Harness() { runtime_.reset(); }

  void run(Reader& in) {
    int ops = 0;
    while (!in.done() && ++ops <= 256) {
      const std::uint8_t op = in.byte();
      switch (op % 10) {
        case 0:
          issue(1 + in.byte());
          break;
        case 1:
          clock_.step_ms(kSteps[in.byte() % 5]);
          break;
        case 2:
          clock_.step_ms(-kSteps[in.byte() % 5]);
          break;
        case 3:
          clock_.advance(milliseconds(kSteps[in.byte() % 5]));
          break;
        case 4:
          if (ensure_open()) {
            cosid::Status status;
            const bool ok = runtime_->maintain(status);
            CHECK_MSG(ok || !status.message().empty(), status.code().message());
          }
          break;
        case 5: {
          const std::uint8_t which = in.byte();
          const std::uint8_t nth = in.byte();
          fs_.fail(kOps[which % std::size(kOps)], kErrnos[(which >> 4) & 1], 1 + (nth & 3),
                   (nth & 0x80) != 0);
          break;
        }
        case 6:
          fs_.clear_faults();
          break;
        case 7:
          // Power loss: the descriptors vanish first, so the runtime's destructor (which would
          // close cleanly) can write nothing that survives.
          fs_.crash();
          runtime_.reset();
          generator_ = nullptr;
          break;
        case 8:
          if (runtime_) {
            cosid::Status status;
            (void)runtime_->close(status);
            runtime_.reset();
            generator_ = nullptr;
          }
          break;
        case 9:
          frozen_ = !frozen_;
          clock_.set_on_sleep(frozen_ ? cosid::ManualClock::OnSleep::kAdvanceMonotonic
                                      : cosid::ManualClock::OnSleep::kAdvanceBoth);
          break;
      }
    }
  }

 private:
  bool ensure_open() {
    if (runtime_) return true;
    cosid::Status status;
    runtime_ = cosid::Runtime::open(options_, environment_, status);
    if (!runtime_) {
      CHECK_MSG(!status.ok(), "open failed without a code");
      CHECK_MSG(!status.message().empty(), status.code().message());
      return false;
    }
    floor_ = runtime_->floor_ms();
    ++terms_;
    generator_ = runtime_->generator("default", status);
    CHECK_MSG(generator_ != nullptr, status.message());
    return true;
  }

  // The ceiling in the durable image: what a restart after a power loss now would read.
  std::int64_t durable_ceiling() {
    const int syncs = fs_.calls(MemoryFs::Op::kSyncData) + fs_.calls(MemoryFs::Op::kSync);
    if (syncs == audited_syncs_) return audited_ceiling_;
    const std::vector<unsigned char> image = fs_.durable(kPath);
    CHECK_MSG(image.size() == cosid::detail::kStateFileSize,
              "durable image of " + std::to_string(image.size()) + " bytes");
    const cosid::detail::StateImage decoded = cosid::detail::decode_image(image.data());
    CHECK_MSG(decoded.current >= 0, "no valid record in the durable image");
    audited_syncs_ = syncs;
    audited_ceiling_ = decoded.records[decoded.current].ceiling_ms;
    return audited_ceiling_;
  }

  void issue(int count) {
    if (!ensure_open()) return;
    const cosid::Layout& layout = options_.layout;
    for (int i = 0; i < count; ++i) {
      cosid::Status status;
      const std::uint64_t id = generator_->next(status);
      if (!status.ok()) {
        CHECK_MSG(id == 0, status.message());
        CHECK_MSG(!status.message().empty(), status.message());
        return;  // the rest of the batch would fail alike
      }
      CHECK_MSG(layout.fits(id) && id != 0, std::to_string(id));
      const cosid::IdParts parts = layout.parse(id);
      CHECK_MSG(parts.slot == options_.slot, std::to_string(id));
      const std::int64_t t = layout.tick_end_ms(parts.timestamp);
      CHECK_MSG(id > last_id_, "id " + std::to_string(id) + " not above the previous " +
                                   std::to_string(last_id_) + " (term " + std::to_string(terms_) +
                                   ")");
      last_id_ = id;
      CHECK_MSG(t > floor_, "timestamp " + std::to_string(t) + " at or before the floor " +
                                std::to_string(floor_));
      const std::int64_t ceiling = durable_ceiling();
      CHECK_MSG(t <= ceiling, "timestamp " + std::to_string(t) + " past the durable ceiling " +
                                  std::to_string(ceiling));
    }
  }

  MemoryFs fs_;
  cosid::ManualClock clock_;
  cosid::Options options_;
  cosid::RuntimeEnvironment environment_;
  std::unique_ptr<cosid::Runtime> runtime_;
  cosid::Generator* generator_ = nullptr;
  std::int64_t floor_ = 0;
  std::uint64_t last_id_ = 0;
  int terms_ = 0;
  bool frozen_ = false;
  int audited_syncs_ = -1;
  std::int64_t audited_ceiling_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  Reader in(data, size);
  Harness harness;
  harness.run(in);
  return 0;
}
