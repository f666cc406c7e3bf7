// SPDX-License-Identifier: Apache-2.0
// LeaseKeeper with MemoryLeaseStore and ManualClock: the renewal schedule, the back-off bounds, a
// loss turned into slot_lost and a new slot above the old ceiling, an exhausted start-up retried
// and then refused, the skew event, the release with the exact last timestamp, and a duplicate
// owner key. maintain() is called by the test, so no test depends on a thread's timing (one
// test runs the thread, and asserts only what it must eventually do).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cosid/clock.h"
#include "cosid/generator.h"
#include "cosid/layout.h"
#include "cosid/lease/memory_store.h"
#include "cosid/runtime.h"
#include "lease/keeper.h"
#include "support/gate.h"
#include "support/test_util.h"

namespace cosid::lease {
namespace {

using std::chrono::milliseconds;

constexpr std::int64_t kStart = 1700000000000;
constexpr milliseconds kTtl{30000};
constexpr milliseconds kTolerance{1000};

// Forwards to a MemoryLeaseStore, failing the next `fail_renewals` renewals with
// store_unavailable and recording what it was asked.
class FaultyStore final : public SlotLeaseStore {
 public:
  explicit FaultyStore(Clock& clock) : inner_(clock) {}

  bool scan(const std::string& name_space, const NamespaceTerms& terms,
            std::vector<SlotRecord>& records, std::int64_t& store_now, Status& status) override {
    return inner_.scan(name_space, terms, records, store_now, status);
  }
  bool acquire(const AcquireRequest& request, AcquireOutcome& outcome, SlotLease& lease,
               SlotRecord& record, Status& status) override {
    return inner_.acquire(request, outcome, lease, record, status);
  }
  bool renew(const SlotLease& held, const NamespaceTerms& terms, milliseconds ttl,
             SlotLease& renewed, Status& status) override {
    if (block_next_renewal.exchange(false)) gate.pass();
    std::lock_guard<std::mutex> lock(mutex_);
    ++renewals;
    if (fail_renewals > 0) {
      --fail_renewals;
      status = Status(errc::store_unavailable, "injected failure");
      return false;
    }
    return inner_.renew(held, terms, ttl, renewed, status);
  }
  bool release(const SlotLease& held, const NamespaceTerms& terms, std::int64_t last_issued,
               Status& status) override {
    released.push_back(last_issued);
    return inner_.release(held, terms, last_issued, status);
  }
  bool fence(const std::string& name_space, const NamespaceTerms& terms, std::uint32_t slot,
             std::int64_t not_before, FenceResult& result, Status& status) override {
    return inner_.fence(name_space, terms, slot, not_before, result, status);
  }

  SlotRecord record(std::uint32_t slot, const NamespaceTerms& terms) {
    std::vector<SlotRecord> records;
    std::int64_t now = 0;
    Status status;
    EXPECT_TRUE(inner_.scan("orders", terms, records, now, status)) << status.message();
    for (const SlotRecord& r : records) {
      if (r.slot == slot) return r;
    }
    return {};
  }

  std::mutex mutex_;
  // Set: the next renewal stops in `gate` until the test opens it (a slow store call).
  std::atomic<bool> block_next_renewal{false};
  testing::Gate gate;
  int renewals = 0;
  int fail_renewals = 0;
  std::vector<std::int64_t> released;

 private:
  MemoryLeaseStore inner_;
};

class KeeperTest : public ::testing::Test {
 protected:
  KeeperOptions options(const std::string& key = "orders-1") {
    KeeperOptions o;
    o.name_space = "orders";
    o.owner_key = key;
    o.terms.slot_limit = 4;
    o.terms.tolerance = kTolerance;
    o.ttl = kTtl;
    return o;
  }

  std::unique_ptr<LeaseKeeper> start(const KeeperOptions& o, Clock* clock = nullptr,
                                     SlotLeaseStore* store = nullptr,
                                     detail::KeeperLoop* loop = nullptr) {
    Status status;
    auto keeper = LeaseKeeper::open(store != nullptr ? *store : store_, o,
                                    clock != nullptr ? *clock : clock_, &events_, loop, status);
    EXPECT_NE(keeper, nullptr) << status.message();
    EXPECT_OK(status);
    return keeper;
  }

  static Binding* binding(LeaseKeeper& keeper, std::uint64_t* generation = nullptr) {
    std::uint64_t g = 0;
    std::error_code ec;
    Binding* b = keeper.binding(g, ec);
    if (generation != nullptr) *generation = g;
    return b;
  }

  ManualClock clock_{kStart};
  FaultyStore store_{clock_};
  testing::RecordingListener events_;
};

TEST_F(KeeperTest, StartLeasesTheLowestFreeSlotWithTheStoresWindow) {
  auto keeper = start(options());
  ASSERT_NE(keeper, nullptr);
  Binding* b = binding(*keeper);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->slot(), 0u);
  EXPECT_EQ(b->floor_ms(), 0);
  EXPECT_EQ(b->ceiling_ms(), kStart + kTtl.count() + kTolerance.count());
  EXPECT_EQ(keeper->owner().key, "orders-1");
  EXPECT_FALSE(keeper->owner().incarnation.is_nil());
  EXPECT_EQ(events_.count(EventKind::kLeaseAcquired), 1);
}

TEST_F(KeeperTest, DefaultOwnerKeyIsHostColonPid) {
  auto keeper = start(options(""));
  ASSERT_NE(keeper, nullptr);
  std::string expected;
  Status status;
  ASSERT_TRUE(default_owner_key(expected, status));
  EXPECT_EQ(keeper->owner().key, expected);
  EXPECT_NE(expected.find(':' + std::to_string(getpid())), std::string::npos) << expected;
}

TEST_F(KeeperTest, RenewsEveryThirdOfTheTtlAndRaisesTheCeiling) {
  auto keeper = start(options());
  Binding* b = binding(*keeper);
  const std::int64_t first = b->ceiling_ms();
  EXPECT_EQ(keeper->round().wait, kTtl / 3);  // nothing due yet: the whole interval remains
  clock_.advance(kTtl / 3 - milliseconds(1));
  EXPECT_EQ(keeper->round().wait, milliseconds(1));
  EXPECT_EQ(store_.renewals, 0);
  clock_.advance(milliseconds(1));
  EXPECT_EQ(keeper->round().wait, kTtl / 3);
  EXPECT_EQ(store_.renewals, 1);
  EXPECT_EQ(b->ceiling_ms(), first + (kTtl / 3).count());
  EXPECT_EQ(keeper->lease().ceiling, b->ceiling_ms());
}

TEST_F(KeeperTest, FailedRenewalsBackOffFrom100msToASixthOfTheTtlAndKeepTheCeiling) {
  auto keeper = start(options());
  Binding* b = binding(*keeper);
  const std::int64_t ceiling = b->ceiling_ms();
  store_.fail_renewals = 9;
  clock_.advance(kTtl / 3);
  const std::int64_t expected[] = {100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000};
  for (const std::int64_t backoff : expected) {
    EXPECT_EQ(keeper->round().wait, milliseconds(backoff));
    EXPECT_EQ(b->ceiling_ms(), ceiling);  // never raised by a failure
    clock_.advance(milliseconds(backoff));
  }
  EXPECT_EQ(events_.count(EventKind::kLeaseRenewalFailed), 9);
  EXPECT_ERRC(events_.last(EventKind::kLeaseRenewalFailed).code, errc::store_unavailable);
  // The store works again: the next retry renews, and the ceiling follows the store's clock.
  EXPECT_EQ(keeper->round().wait, kTtl / 3);
  EXPECT_EQ(store_.renewals, 10);
  EXPECT_EQ(b->ceiling_ms(), clock_.now_ms() + kTtl.count() + kTolerance.count());
  EXPECT_EQ(events_.count(EventKind::kLeaseRenewalRecovered), 1);
  EXPECT_TRUE(b->valid());
  const detail::KeeperStats stats = keeper->stats();
  EXPECT_EQ(stats.renewals, 1u);
  EXPECT_EQ(stats.renewal_failures, 9u);
  EXPECT_EQ(stats.losses, 0u);
  EXPECT_EQ(stats.acquisitions, 1u);
}

TEST_F(KeeperTest, GeneratorsIssueUpToTheCeilingWhileRenewalsFail) {
  auto keeper = start(options());
  Binding* b = binding(*keeper);
  GeneratorOptions bounds;
  bounds.ceiling = milliseconds(50);
  auto generator = Generator::create(layouts::kDefault, *b, clock_, bounds);
  store_.fail_renewals = 1000;
  std::error_code ec;
  (void)generator->next(ec);
  ASSERT_NO_ERROR(ec);
  clock_.set_ms(b->ceiling_ms());  // the last millisecond of the window still issues
  (void)generator->next(ec);
  EXPECT_NO_ERROR(ec);
  clock_.set_ms(b->ceiling_ms() + 1);
  (void)generator->next(ec);
  EXPECT_ERRC(ec, errc::ceiling_reached);
}

TEST_F(KeeperTest, LossGivesSlotLostAndANewSlotAboveTheOldCeiling) {
  auto keeper = start(options("a"));
  std::uint64_t generation = 0;
  Binding* old_binding = binding(*keeper, &generation);
  EXPECT_EQ(generation, 1u);
  auto old_generator = Generator::create(layouts::kDefault, *old_binding, clock_);
  const std::int64_t old_ceiling = old_binding->ceiling_ms();
  // The holder pauses past its expiry (no renewal), and another runtime takes its slot.
  clock_.advance(kTtl + kTolerance + milliseconds(1));
  auto other = start(options("b"));
  ASSERT_EQ(binding(*other)->slot(), 0u);
  EXPECT_GE(binding(*other)->floor_ms(), old_ceiling);
  // The paused holder's next renewal finds the lease gone.
  (void)keeper->round().wait;
  EXPECT_FALSE(old_binding->valid());
  std::error_code ec;
  (void)old_generator->next(ec);
  EXPECT_ERRC(ec, errc::slot_lost);
  EXPECT_EQ(events_.count(EventKind::kLeaseLost), 1);
  EXPECT_ERRC(events_.last(EventKind::kLeaseLost).code, errc::lease_lost);
  Binding* fresh = binding(*keeper, &generation);
  ASSERT_NE(fresh, nullptr);
  EXPECT_EQ(generation, 2u);
  EXPECT_EQ(fresh->slot(), 1u);
  EXPECT_GE(fresh->floor_ms(), old_ceiling);
  EXPECT_TRUE(fresh->valid());
  auto generator = Generator::create(layouts::kDefault, *fresh, clock_);
  clock_.set_ms(fresh->floor_ms() + 1);
  (void)generator->next(ec);
  EXPECT_NO_ERROR(ec);
  EXPECT_EQ(keeper->stats().losses, 1u);
  EXPECT_EQ(keeper->stats().acquisitions, 2u);
}

TEST_F(KeeperTest, LossWithEveryOtherSlotTakenRetriesUntilOneIsFree) {
  KeeperOptions o = options("a");
  o.terms.slot_limit = 2;
  auto keeper = start(o);
  clock_.advance(kTtl + kTolerance + milliseconds(1));
  auto b = start([&] {
    KeeperOptions x = o;
    x.owner_key = "b";
    return x;
  }());
  auto c = start([&] {
    KeeperOptions x = o;
    x.owner_key = "c";
    return x;
  }());
  std::uint64_t generation = 0;
  (void)keeper->round().wait;  // lost, and nothing is free
  std::error_code ec;
  EXPECT_EQ(keeper->binding(generation, ec), nullptr);
  EXPECT_ERRC(ec, errc::slot_lost);
  EXPECT_EQ(keeper->round().wait, milliseconds(100));  // back-off before the next try
  // One holder shuts down cleanly: the next try gets its slot.
  Status status;
  EXPECT_TRUE(c->close([](const Binding& binding) { return binding.floor_ms(); }, status));
  clock_.advance(milliseconds(100));
  (void)keeper->round().wait;
  Binding* fresh = keeper->binding(generation, ec);
  ASSERT_NE(fresh, nullptr) << ec.message();
  EXPECT_EQ(generation, 2u);
}

TEST_F(KeeperTest, ExhaustedStartIsRetriedForTheTtlThenFailsNamingTheEarliestExpiry) {
  KeeperOptions o = options("a");
  o.terms.slot_limit = 1;
  auto holder = start(o);
  // The store's clock stands still, so the holder never expires while the newcomer waits.
  ManualClock newcomer_clock{kStart, ManualClock::OnSleep::kAdvanceBoth};
  o.owner_key = "b";
  std::error_code ec;
  std::string message;
  Status status;
  auto keeper = LeaseKeeper::open(store_, o, newcomer_clock, &events_, nullptr, status);
  ec = status.code();
  message = status.message();
  EXPECT_EQ(keeper, nullptr);
  EXPECT_ERRC(ec, errc::lease_exhausted);
  EXPECT_NE(message.find("the earliest expires at 2023-11-14T22:13:50.000Z"), std::string::npos)
      << message;
  EXPECT_NE(message.find("acquire timeout of 30s"), std::string::npos) << message;
  EXPECT_GT(newcomer_clock.sleeps(), 1);  // it retried
  EXPECT_GE(newcomer_clock.monotonic_ns(), std::chrono::nanoseconds(kTtl).count());
  EXPECT_EQ(events_.count(EventKind::kLeaseWaiting), 1);
}

TEST_F(KeeperTest, ExhaustedStartSucceedsOnceASlotIsReleased) {
  KeeperOptions o = options("a");
  o.terms.slot_limit = 1;
  auto holder = start(o);
  // A listener that shuts the holder down when the newcomer reports that it waits.
  class ReleaseOnWait final : public EventListener {
   public:
    explicit ReleaseOnWait(LeaseKeeper& holder) : holder_(holder) {}
    void on_event(const Event& event) noexcept override {
      if (event.kind == EventKind::kLeaseWaiting) {
        Status ignored;
        (void)holder_.close([](const Binding& binding) { return binding.floor_ms() + 5; }, ignored);
      }
    }

   private:
    LeaseKeeper& holder_;
  } listener(*holder);
  ManualClock newcomer_clock{kStart, ManualClock::OnSleep::kAdvanceMonotonic};
  o.owner_key = "b";
  Status status;
  auto keeper = LeaseKeeper::open(store_, o, newcomer_clock, &listener, nullptr, status);
  ASSERT_NE(keeper, nullptr) << status.message();
  EXPECT_EQ(binding(*keeper)->slot(), 0u);
  EXPECT_EQ(binding(*keeper)->floor_ms(), 5);  // the released holder's last timestamp
}

TEST_F(KeeperTest, SkewAboveHalfTheToleranceRaisesAnEvent) {
  ManualClock local{kStart + 501};  // 501 ms ahead of the store's clock
  auto keeper = start(options(), &local);
  EXPECT_EQ(events_.count(EventKind::kClockSkew), 1);
  EXPECT_EQ(events_.last(EventKind::kClockSkew).skew_ms, -501);
  // The gaps in the units a reader thinks in (format_gap), as every message gives them.
  const std::string message = events_.last(EventKind::kClockSkew).message;
  EXPECT_NE(message.find(" is at least 501 ms behind the local clock (the call took 0 ms), more "
                         "than half the tolerance (1 s): "),
            std::string::npos)
      << message;
  local.set_ms(clock_.now_ms() + 500);  // exactly half: no event
  local.advance(kTtl / 3);
  clock_.advance(kTtl / 3);
  (void)keeper->round().wait;
  EXPECT_EQ(store_.renewals, 1);
  EXPECT_EQ(events_.count(EventKind::kClockSkew), 1);
}

TEST_F(KeeperTest, CloseReleasesWithTheExactLastTimestampForTheNextHolder) {
  auto keeper = start(options("a"));
  Binding* b = binding(*keeper);
  auto generator = Generator::create(layouts::kDefault, *b, clock_);
  std::error_code ec;
  for (int i = 0; i < 3; ++i) {
    (void)generator->next(ec);
    ASSERT_NO_ERROR(ec);
    clock_.advance(milliseconds(7));
  }
  const std::int64_t last = generator->close();
  EXPECT_EQ(last, kStart + 14);
  Status status;
  EXPECT_TRUE(keeper->close(
      [&](const Binding& binding) {
        EXPECT_EQ(&binding, b);
        return last;
      },
      status));
  ASSERT_EQ(store_.released.size(), 1u);
  EXPECT_EQ(store_.released[0], last);
  EXPECT_FALSE(b->valid());  // nothing more is issued on a window handed on
  EXPECT_EQ(events_.count(EventKind::kLeaseReleased), 1);
  std::uint64_t generation = 0;
  EXPECT_EQ(keeper->binding(generation, ec), nullptr);
  EXPECT_ERRC(ec, errc::closed);
  // The next holder starts right after the last id, not after the ceiling.
  auto next = start(options("b"));
  EXPECT_EQ(binding(*next)->slot(), 0u);
  EXPECT_EQ(binding(*next)->floor_ms(), last);
  EXPECT_TRUE(keeper->close([](const Binding&) { return 0; }, status));  // idempotent
  EXPECT_EQ(store_.released.size(), 1u);
}

TEST_F(KeeperTest, DuplicateOwnerKeyGetsAnotherSlotAndAnEvent) {
  auto first = start(options("same"));
  auto second = start(options("same"));
  EXPECT_EQ(binding(*first)->slot(), 0u);
  EXPECT_EQ(binding(*second)->slot(), 1u);
  EXPECT_EQ(events_.count(EventKind::kDuplicateOwnerKey), 1);
  EXPECT_EQ(events_.last(EventKind::kDuplicateOwnerKey).slot, 0u);
  EXPECT_TRUE(binding(*first)->valid());
}

// Without a thread, a generator at the ceiling makes no store call inside next() (none has a bound
// its wait could cover): it waits its bound and fails, and its wish makes the owner's next
// maintain() renew at once, although the schedule has no renewal due.
TEST_F(KeeperTest, AGeneratorAtTheCeilingLeavesTheRenewalToMaintainWithoutAThread) {
  KeeperOptions o = options();
  auto keeper = start(o);
  Binding* b = binding(*keeper);
  GeneratorOptions wait;
  wait.ceiling = milliseconds(20);
  auto generator = Generator::create(layouts::kDefault, *b, clock_, wait);
  clock_.advance(milliseconds(200));  // the schedule's renewal is ttl/3 away
  clock_.set_ms(b->ceiling_ms() + 1);
  std::error_code ec;
  (void)generator->next(ec);
  EXPECT_ERRC(ec, errc::ceiling_reached);
  EXPECT_EQ(store_.renewals, 0);
  (void)keeper->round().wait;
  EXPECT_EQ(store_.renewals, 1);
  (void)generator->next(ec);
  EXPECT_NO_ERROR(ec);
}

// binding(), lease() and stats() never wait for a store call in progress: the keeper's lock is
// held across the whole call, and they used to take it (binding() in every generator() and
// accessor of the runtime, in a forked child too).
TEST_F(KeeperTest, ReadsDoNotWaitForAStoreCallInProgress) {
  auto keeper = start(options());
  const std::int64_t ceiling = binding(*keeper)->ceiling_ms();
  clock_.advance(milliseconds(10001));  // past ttl/3: a renewal is due
  store_.block_next_renewal = true;
  std::thread renewer([&] { (void)keeper->round().wait; });
  ASSERT_TRUE(store_.gate.wait_entered());
  std::mutex mutex;
  std::condition_variable changed;
  bool done = false;
  Binding* read = nullptr;
  SlotLease lease;
  std::thread reader([&] {
    read = binding(*keeper);
    lease = keeper->lease();
    (void)keeper->stats();
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    changed.notify_all();
  });
  bool in_time = false;
  {
    std::unique_lock<std::mutex> lock(mutex);
    in_time = changed.wait_for(lock, testing::kHangBound, [&] { return done; });
  }
  store_.gate.open();
  reader.join();
  renewer.join();
  EXPECT_TRUE(in_time) << "a read waited for the store call";
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(lease.ceiling, ceiling);       // the lease as it was before the renewal
  EXPECT_GT(read->ceiling_ms(), ceiling);  // and the renewal landed
}

TEST_F(KeeperTest, TheThreadRenewsOnItsOwn) {
  SystemClock system;
  MemoryLeaseStore store(system);
  KeeperOptions o = options();
  o.ttl = milliseconds(300);
  detail::KeeperLoop loop;
  auto keeper = start(o, &system, &store, &loop);
  Status status;
  ASSERT_TRUE(loop.start(*keeper, "lease keeper's", status)) << status.message();
  Binding* b = binding(*keeper);
  const std::int64_t first = b->ceiling_ms();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (b->ceiling_ms() == first && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_GT(b->ceiling_ms(), first);
  loop.stop();
  EXPECT_TRUE(keeper->close([](const Binding& binding) { return binding.floor_ms(); }, status));
}

TEST_F(KeeperTest, TermsOfAnotherToleranceAreRefused) {
  auto keeper = start(options("a"));
  KeeperOptions o = options("b");
  o.terms.tolerance = milliseconds(2000);
  Status status;
  EXPECT_EQ(LeaseKeeper::open(store_, o, clock_, &events_, nullptr, status), nullptr);
  EXPECT_STATUS(status, errc::lease_terms_mismatch);
}

}  // namespace
}  // namespace cosid::lease
