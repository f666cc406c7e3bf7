// SPDX-License-Identifier: Apache-2.0
// Many threads and many processes acquiring at once, and a holder paused past its ceiling.
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <set>
#include <thread>

#include "cosid/binding.h"
#include "cosid/generator.h"
#include "cosid/layout.h"
#include "cosid/lease/slot_choice.h"
#include "lease/tck/harness.h"

namespace cosid {
namespace lease {
namespace tck {
namespace internal {
namespace {

using std::chrono::milliseconds;

constexpr int kContenders = 16;  // twice the slot limit: half of them must find none

SlotChoiceRequest choice_request(const Harness& h, const Owner& owner) {
  SlotChoiceRequest request;
  request.name_space = h.name_space();
  request.owner = owner;
  request.terms = h.terms;
  request.ttl = h.ttl;
  return request;
}

// Each slot went to exactly one contender, and the store's records agree with the winners.
void expect_one_owner_per_slot(Harness& h, const std::vector<int>& slots,
                               const std::vector<int>& errors) {
  std::set<int> distinct;
  int winners = 0;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i] >= 0) {
      ++winners;
      EXPECT_TRUE(distinct.insert(slots[i]).second) << "slot " << slots[i] << " granted twice";
    } else {
      EXPECT_EQ(errors[i], static_cast<int>(errc::lease_exhausted)) << "contender " << i;
    }
  }
  EXPECT_EQ(winners, static_cast<int>(h.terms.slot_limit));
  std::vector<SlotRecord> records;
  std::int64_t now = 0;
  Status status;
  TCK_ASSERT_OK(h.store().scan(h.name_space(), h.terms, records, now, status), status);
  EXPECT_EQ(records.size(), static_cast<std::size_t>(h.terms.slot_limit));
  for (const SlotRecord& record : records) {
    EXPECT_TRUE(record.held);
    EXPECT_EQ(record.fence, 1u) << "slot " << record.slot << " changed hands";
  }
}

void threads_acquiring_at_once_get_distinct_slots(Harness& h) {
  std::vector<int> slots(kContenders, -1);
  std::vector<int> errors(kContenders, 0);
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < kContenders; ++i) {
    threads.emplace_back([&, i] {
      const SlotChoiceRequest request = choice_request(h, Harness::owner("t" + std::to_string(i)));
      // Acquire pairs with the release store below; the threads only wait to start together.
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      SlotChoice choice;
      Status status;
      if (choose_slot(h.store(), request, choice, status)) {
        slots[static_cast<std::size_t>(i)] = static_cast<int>(choice.lease.slot);
      } else {
        errors[static_cast<std::size_t>(i)] = status.code().value();
      }
    });
  }
  go.store(true, std::memory_order_release);
  for (std::thread& thread : threads) thread.join();
  expect_one_owner_per_slot(h, slots, errors);
}

void processes_acquiring_at_once_get_distinct_slots(Harness& h) {
  if (!h.kit().shared_across_processes) {
    GTEST_SKIP() << h.kit().name
                 << " is not shared across processes: " << h.kit().not_shared_reason;
  }
  // Create the namespace first, so the children race on slots and not on its creation.
  h.record_of(0);
  // No store (and none of its threads) in the parent while it forks (Harness::close_store()).
  h.close_store();
  const std::string answers = tck_support::run_children(kContenders, [&h](int i, int out) {
    std::int32_t answer[2] = {-1, 0};
    std::unique_ptr<SlotLeaseStore> store = h.kit().make_store(h.clock());
    if (store != nullptr) {
      SlotChoice choice;
      Status status;
      if (choose_slot(*store, choice_request(h, Harness::owner("p" + std::to_string(i))), choice,
                      status)) {
        answer[0] = static_cast<std::int32_t>(choice.lease.slot);
      } else {
        answer[1] = status.code().value();
      }
    }
    store.reset();
    return ::write(out, answer, sizeof answer) == sizeof answer ? 0 : 3;
  });
  std::vector<int> slots;
  std::vector<int> errors;
  for (std::size_t at = 0; at + 2 * sizeof(std::int32_t) <= answers.size();
       at += 2 * sizeof(std::int32_t)) {
    std::int32_t answer[2];
    std::memcpy(answer, answers.data() + at, sizeof answer);
    slots.push_back(answer[0]);
    errors.push_back(answer[1]);
  }
  h.open_store();
  ASSERT_EQ(slots.size(), static_cast<std::size_t>(kContenders));
  expect_one_owner_per_slot(h, slots, errors);
}

void paused_holder_past_its_ceiling_cannot_issue(Harness& h) {
  const Layout layout;  // the default: millisecond ticks, 10 slot bits
  const SlotLease lease_a = h.acquire(2, Harness::owner("a"));
  Binding binding_a(lease_a.slot, lease_a.floor, lease_a.ceiling);
  // The holder's own clock is the store's here; every wait is bounded at 10 ms of it.
  const GeneratorOptions options{milliseconds(10), milliseconds(10), milliseconds(10)};
  Status status;
  auto generator_a = Generator::create(layout, binding_a, h.clock(), options, status);
  ASSERT_NE(generator_a, nullptr) << status.message();
  const std::uint64_t id_a = generator_a->next(status);
  ASSERT_NE(id_a, 0u) << status.message();
  const std::int64_t time_a = layout.parse(id_a).timestamp + layout.epoch;
  EXPECT_GT(time_a, lease_a.floor);
  EXPECT_LE(time_a, lease_a.ceiling);

  // The holder freezes (GC, a stopped VM) and wakes up well past its expiry and its ceiling;
  // meanwhile another owner took the slot.
  h.clock().set_ms(lease_a.ceiling + 5000);
  const SlotLease lease_b = h.acquire(2, Harness::owner("b"));
  EXPECT_EQ(lease_b.floor, lease_a.ceiling);
  // The old holder's next timestamps lie past its ceiling: refused, never issued.
  EXPECT_EQ(generator_a->next(status), 0u);
  TCK_EXPECT_ERRC(status, errc::ceiling_reached);
  SlotLease renewed;
  EXPECT_FALSE(h.store().renew(lease_a, h.terms, h.ttl, renewed, status));
  TCK_EXPECT_ERRC(status, errc::lease_lost);
  binding_a.invalidate();
  EXPECT_EQ(generator_a->next(status), 0u);
  TCK_EXPECT_ERRC(status, errc::slot_lost);

  Binding binding_b(lease_b.slot, lease_b.floor, lease_b.ceiling);
  auto generator_b = Generator::create(layout, binding_b, h.clock(), options, status);
  ASSERT_NE(generator_b, nullptr) << status.message();
  const std::uint64_t id_b = generator_b->next(status);
  ASSERT_NE(id_b, 0u) << status.message();
  EXPECT_GT(layout.parse(id_b).timestamp + layout.epoch, lease_a.ceiling);
  EXPECT_NE(id_b, id_a);
}

}  // namespace

std::vector<Case> concurrency_cases() {
  return {
      {"ThreadsAcquiringAtOnceGetDistinctSlots", threads_acquiring_at_once_get_distinct_slots},
      {"ProcessesAcquiringAtOnceGetDistinctSlots", processes_acquiring_at_once_get_distinct_slots},
      {"PausedHolderPastItsCeilingCannotIssue", paused_holder_past_its_ceiling_cannot_issue},
  };
}

}  // namespace internal
}  // namespace tck
}  // namespace lease
}  // namespace cosid
