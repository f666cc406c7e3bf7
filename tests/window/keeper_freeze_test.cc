// SPDX-License-Identifier: Apache-2.0
// The lock order of src/window/window_keeper.h, checked: while a keeper's I/O is frozen (a
// state-file sync or a store call stopped in a Gate, inside the background loop's round or inside
// an owner's maintain()), every public method of Runtime is called from another thread.
// generator(), next() (up to the ceiling, and at it, where it gives up at its own bound), metrics()
// and the accessors must return while the call stays frozen; maintain() and close(), which are
// documented to wait for a sync or a store call in progress, must finish once the gate opens. Each
// wait is bounded (kFreezeBound, generous) and only fails the test on a deadlock: nothing here
// times a call.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "cosid/clock.h"
#include "cosid/runtime.h"
#include "cosid/store_registry.h"
#include "support/frozen_calls.h"
#include "support/runtime_setup.h"
#include "support/test_util.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using testing::FrozenSyncFs;
using testing::Gate;
using testing::LatchedStore;
using testing::returns_without_waiting;

using testing::kNow;
// How long a call may take before the test calls it a deadlock.
constexpr std::chrono::seconds kFreezeBound{30};

// Runs `call` on a thread of its own; true if it returned within kFreezeBound while `gate` stays
// closed (the gate is opened on a hang, so the thread can end).
bool returns_while_frozen(Gate& gate, const std::function<void()>& call) {
  return returns_without_waiting(
      call, [&gate] { gate.open(); }, kFreezeBound);
}

// A call started on a thread of its own, which may wait for the frozen one: finished() waits for
// it, at most kFreezeBound.
class Pending {
 public:
  explicit Pending(std::function<void()> call)
      : future_(std::async(std::launch::async, std::move(call))) {}
  bool finished() { return future_.wait_for(kFreezeBound) == std::future_status::ready; }

 private:
  std::future<void> future_;
};

// An owner's maintain() on a thread of its own (one the test freezes, or one that waits for it).
std::unique_ptr<Pending> maintain_on_a_thread(Runtime& runtime) {
  return std::make_unique<Pending>([&runtime] {
    Status status;
    EXPECT_TRUE(runtime.maintain(status)) << status.message();
  });
}

// maintain() and close(), which wait for the frozen call alone (for the keeper's lock, for the
// loop's round), are started; then the gate opens, and each must finish, with `frozen` (the
// maintain() the test froze, if it froze one).
void expect_maintain_and_close_finish_once_open(Runtime& runtime, Gate& gate,
                                                Pending* frozen = nullptr) {
  const std::unique_ptr<Pending> maintain = maintain_on_a_thread(runtime);
  Pending closing([&runtime] {
    Status status;
    EXPECT_TRUE(runtime.close(status)) << status.message();
  });
  gate.open();
  if (frozen != nullptr) {
    EXPECT_TRUE(frozen->finished()) << "the frozen maintain() did not finish";
  }
  EXPECT_TRUE(maintain->finished()) << "maintain() did not finish after the frozen call";
  EXPECT_TRUE(closing.finished()) << "close() did not finish after the frozen call";
}

std::unique_ptr<Runtime> open(const Options& options, const RuntimeEnvironment& environment) {
  Status status;
  auto runtime = Runtime::open(options, environment, status);
  EXPECT_NE(runtime, nullptr) << status.message();
  return runtime;
}

// Every method that must not wait for the frozen call, from another thread: generator(), next()
// at every tick up to the ceiling and once past it (ceiling_reached within its bound, since the
// renewal is frozen), metrics() and the accessors.
void expect_nothing_waits_for_the_freeze(Runtime& runtime, ManualClock& clock, Gate& gate) {
  Generator* generator = nullptr;
  EXPECT_TRUE(returns_while_frozen(gate, [&] {
    Status status;
    generator = runtime.generator("default", status);
    EXPECT_TRUE(status.ok()) << status.message();
  })) << "generator() waited for the frozen call";
  ASSERT_NE(generator, nullptr);
  const std::int64_t ceiling = runtime.ceiling_ms();
  EXPECT_TRUE(returns_while_frozen(gate, [&] {
    std::error_code ec;
    std::uint64_t last = 0;
    while (clock.now_ms() < ceiling) {
      const std::uint64_t id = generator->next(ec);
      ASSERT_NO_ERROR(ec);
      EXPECT_GT(id, last);
      last = id;
      clock.advance(milliseconds(1));
    }
    clock.set_ms(ceiling + 1);
    (void)generator->next(ec);
    EXPECT_ERRC(ec, errc::ceiling_reached);
  })) << "next() waited for the frozen call";
  EXPECT_TRUE(returns_while_frozen(gate, [&] {
    const RuntimeMetrics metrics = runtime.metrics();
    EXPECT_GT(metrics.ids_issued, 0u);
    EXPECT_EQ(metrics.ceiling_ms, ceiling);
  })) << "metrics() waited for the frozen call";
  EXPECT_TRUE(returns_while_frozen(gate, [&] {
    (void)runtime.slot();
    (void)runtime.floor_ms();
    EXPECT_EQ(runtime.ceiling_ms(), ceiling);
    (void)runtime.options();
  })) << "an accessor waited for the frozen call";
}

// A runtime on a state file in fs_ (runtime_setup.h), or, after use_lease_store(), on a slot
// leased from store_.
class KeeperFreezeTest : public ::testing::Test {
 protected:
  KeeperFreezeTest() {
    options_ = testing::small_runtime_options("var/state");
    environment_ = testing::inline_environment(clock_, fs_);
  }

  void use_lease_store() {
    options_ = Options();
    options_.namespace_name = "orders";
    options_.store_type = "latched";
    options_.start_wait = milliseconds(31000);
    environment_.stores = &stores_;
    EXPECT_TRUE(testing::add_latched_store(stores_, store_));
  }

  ManualClock clock_{kNow};
  FrozenSyncFs fs_;
  std::shared_ptr<LatchedStore> store_ = std::make_shared<LatchedStore>(clock_);
  StoreRegistry stores_;
  Options options_;
  RuntimeEnvironment environment_;
};

// The loop's round is inside the fdatasync of the next ceiling, holding the state file keeper's
// lock. close() stops the loop, so it waits for that round: it returns once the sync does.
TEST_F(KeeperFreezeTest, StateFileSyncFrozenInTheLoop) {
  environment_.background_thread = true;
  auto runtime = open(options_, environment_);
  ASSERT_NE(runtime, nullptr);
  fs_.freeze_next_sync();
  clock_.advance(milliseconds(60));  // less than ahead/2 left: the next round writes
  ASSERT_TRUE(fs_.gate.wait_entered()) << "the loop did not write";
  expect_nothing_waits_for_the_freeze(*runtime, clock_, fs_.gate);
  expect_maintain_and_close_finish_once_open(*runtime, fs_.gate);
}

// No loop: an owner's maintain() is inside the sync. A generator at the ceiling only tries the
// keeper's lock, so it gives up at its own bound; close() waits for the maintain() alone.
TEST_F(KeeperFreezeTest, StateFileSyncFrozenInMaintain) {
  auto runtime = open(options_, environment_);
  ASSERT_NE(runtime, nullptr);
  fs_.freeze_next_sync();
  clock_.advance(milliseconds(60));
  const std::unique_ptr<Pending> frozen = maintain_on_a_thread(*runtime);
  ASSERT_TRUE(fs_.gate.wait_entered()) << "maintain() did not write";
  expect_nothing_waits_for_the_freeze(*runtime, clock_, fs_.gate);
  expect_maintain_and_close_finish_once_open(*runtime, fs_.gate, frozen.get());
}

// The loop's round is inside a renewal, holding the lease keeper's lock. close() stops the loop,
// so it waits for that round, then releases the lease.
TEST_F(KeeperFreezeTest, StoreCallFrozenInTheLoop) {
  use_lease_store();
  environment_.background_thread = true;
  auto runtime = open(options_, environment_);
  ASSERT_NE(runtime, nullptr);
  store_->block_next_renewal();
  clock_.advance(options_.ttl / 3);  // the renewal is due
  ASSERT_TRUE(store_->gate.wait_entered()) << "the loop did not renew";
  expect_nothing_waits_for_the_freeze(*runtime, clock_, store_->gate);
  expect_maintain_and_close_finish_once_open(*runtime, store_->gate);
}

// No loop: an owner's maintain() is inside the renewal. A generator at the ceiling makes no store
// call (lease/keeper.h), so it gives up at its own bound; close() waits for the maintain() alone.
TEST_F(KeeperFreezeTest, StoreCallFrozenInMaintain) {
  use_lease_store();
  auto runtime = open(options_, environment_);
  ASSERT_NE(runtime, nullptr);
  store_->block_next_renewal();
  clock_.advance(options_.ttl / 3);
  const std::unique_ptr<Pending> frozen = maintain_on_a_thread(*runtime);
  ASSERT_TRUE(store_->gate.wait_entered()) << "maintain() did not renew";
  expect_nothing_waits_for_the_freeze(*runtime, clock_, store_->gate);
  expect_maintain_and_close_finish_once_open(*runtime, store_->gate, frozen.get());
}

}  // namespace
}  // namespace cosid
