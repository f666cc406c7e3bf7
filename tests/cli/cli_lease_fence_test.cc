// SPDX-License-Identifier: Apache-2.0
// The real `cosid lease fence` on a file lease store: every slot of the namespace fenced (records
// made for the slots without one), a held lease ended, a repeat that changes nothing, the next
// `cosid next` issuing above the fence, and the refusals.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cosid/lease/file_store.h"
#include "support/cli_run.h"
#include "support/temp_dir.h"

namespace cosid {
namespace {

using testing::CliOutcome;
using testing::init_store;
using testing::run_cli;

// 16 slots (the layout's 63 bits kept), so that fencing a namespace is quick.
const std::vector<std::string> kSmall = {"--slot-bits", "4", "--sequence-bits", "18"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

int count_lines(const std::string& text) {
  int lines = 0;
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  return lines;
}

// The integer after "\"NAME\":" on the line of `text` that holds `anchor`.
std::int64_t json_number(const std::string& text, const std::string& anchor,
                         const std::string& name) {
  const std::size_t found = text.find(anchor);
  if (found == std::string::npos) return -1;
  const std::size_t line = text.rfind('\n', found);
  const std::size_t at = text.find("\"" + name + "\":", line == std::string::npos ? 0 : line);
  if (at == std::string::npos) return -1;
  return std::stoll(text.substr(at + name.size() + 3));
}

TEST(CliLeaseFence, FencesEverySlotAndTheNextIdsLieAboveTheTime) {
  const TempDir dir("cli_lease_fence");
  const std::string store = "file:" + dir.file("leases");
  init_store(dir, store);
  const CliOutcome first = run_cli(dir, with({"next", "-n", "3", "--store", store, "--owner-key",
                                              "a", "--format", "json", "--ttl", "1s"},
                                             kSmall));
  ASSERT_EQ(first.code, 0) << first.err;
  const std::int64_t issued = json_number(first.out, "\"sequence\":2", "timestamp_ms");
  ASSERT_GT(issued, 0) << first.out;
  // A time past what `next` issued and past its ceiling (acquired at or before `issued`, ttl 1 s,
  // tolerance 1 s): what `cosid not-before --from-id` gives for a later id.
  const std::int64_t time = issued + 2100;
  const std::string time_text = std::to_string(time);

  const CliOutcome fenced = run_cli(
      dir, with({"lease", "fence", "--store", store, "--not-before", time_text, "--json"}, kSmall));
  ASSERT_EQ(fenced.code, 0) << fenced.err;
  EXPECT_EQ(count_lines(fenced.out), 16) << fenced.out;
  EXPECT_NE(
      fenced.out.find("{\"namespace\":\"cosid\",\"slot\":0,\"outcome\":\"raised\",\"fence\":2,"
                      "\"next_floor_ms\":" +
                      time_text + ",\"previous_next_floor_ms\":"),
      std::string::npos)
      << fenced.out;
  EXPECT_NE(
      fenced.out.find("{\"namespace\":\"cosid\",\"slot\":15,\"outcome\":\"created\",\"fence\":"
                      "0,\"next_floor_ms\":" +
                      time_text +
                      ",\"previous_next_floor_ms\":0,\"ended_owner_key\":null,"
                      "\"ended_incarnation\":null}\n"),
      std::string::npos)
      << fenced.out;
  // The warning for a time ahead of the clock.
  EXPECT_NE(fenced.err.find("cosid: warning: --not-before "), std::string::npos) << fenced.err;

  // Run again: nothing changes, and the summary says so.
  const CliOutcome again =
      run_cli(dir, with({"lease", "fence", "--store", store, "--not-before", time_text}, kSmall));
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("slot 0: unchanged, next floor "), std::string::npos) << again.out;
  EXPECT_NE(again.out.find(": 16 slots (leases ended 0, next floors raised 0, records made 0, "
                           "unchanged 16)\n"),
            std::string::npos)
      << again.out;

  // The next holder of slot 0 issues only above the time: it waits for its clock to pass it, at
  // most ttl + tolerance (2 s); half a second later the time lies less far ahead than that.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const CliOutcome next = run_cli(dir, with({"next", "-n", "1", "--store", store, "--owner-key",
                                             "a", "--format", "json", "--ttl", "1s"},
                                            kSmall));
  ASSERT_EQ(next.code, 0) << next.err;
  EXPECT_GT(json_number(next.out, "\"slot\":0", "timestamp_ms"), time) << next.out;
}

TEST(CliLeaseFence, EndsAHeldLeaseOnOneSlot) {
  const TempDir dir("cli_lease_fence");
  const std::string directory = dir.file("leases");
  init_store(dir, "file:" + directory);
  Status status;
  const std::unique_ptr<lease::FileLeaseStore> store =
      lease::FileLeaseStore::open(directory, {}, status);
  ASSERT_NE(store, nullptr) << status.message();
  lease::AcquireRequest request;
  request.name_space = "orders";
  request.slot = 3;
  request.owner.key = "holder";
  ASSERT_TRUE(lease::Incarnation::random(request.owner.incarnation, status));
  request.terms.slot_limit = 16;
  lease::AcquireOutcome outcome = lease::AcquireOutcome::kTaken;
  lease::SlotLease held;
  lease::SlotRecord record;
  ASSERT_TRUE(store->acquire(request, outcome, held, record, status)) << status.message();
  ASSERT_EQ(outcome, lease::AcquireOutcome::kAcquired);

  const CliOutcome fenced =
      run_cli(dir, with({"lease", "fence", "--store", "file:" + directory, "--namespace", "orders",
                         "--slot", "3", "--not-before", "2024-01-01T00:00:00Z"},
                        kSmall));
  ASSERT_EQ(fenced.code, 0) << fenced.err;
  EXPECT_NE(
      fenced.out.find("slot 3: ended the lease of \"holder\" (incarnation " +
                      held.owner.incarnation.to_string() + ", fence 1); fence 2, next floor "),
      std::string::npos)
      << fenced.out;
  EXPECT_NE(fenced.out.find(": 1 slot (leases ended 1, next floors raised 0, records made 0, "
                            "unchanged 0)\n"),
            std::string::npos)
      << fenced.out;
  EXPECT_EQ(count_lines(fenced.out), 3) << fenced.out;  // the slot, the summary, the note
  // The holder's lease is gone; the next floor covers its ceiling, not only the earlier time.
  lease::SlotLease renewed;
  EXPECT_FALSE(store->renew(held, request.terms, request.ttl, renewed, status));
  EXPECT_EQ(status.code(), make_error_code(errc::lease_lost)) << status.message();
  std::vector<lease::SlotRecord> records;
  std::int64_t now = 0;
  ASSERT_TRUE(store->scan("orders", request.terms, records, now, status)) << status.message();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_FALSE(records[0].held);
  EXPECT_EQ(records[0].next_floor, held.ceiling);
}

TEST(CliLeaseFence, RefusalsNameWhatIsWrong) {
  const TempDir dir("cli_lease_fence");
  const std::string store = "file:" + dir.file("leases");  // never made: refused below
  const CliOutcome no_time = run_cli(dir, {"lease", "fence", "--store", store});
  EXPECT_EQ(no_time.code, 2);
  EXPECT_NE(no_time.err.find("cosid: lease fence: no --not-before given: give a time after the "
                             "largest id the namespace issued (`cosid not-before --from-id ID`)"),
            std::string::npos)
      << no_time.err;
  const CliOutcome no_store =
      run_cli(dir, {"lease", "fence", "--not-before", "2024-01-01T00:00:00Z"});
  EXPECT_EQ(no_store.code, 2);
  EXPECT_NE(no_store.err.find("cosid: lease fence: no lease store is configured"),
            std::string::npos)
      << no_store.err;
  const CliOutcome missing =
      run_cli(dir, {"lease", "fence", "--store", store, "--not-before", "2024-01-01T00:00:00Z"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << missing.err;
  EXPECT_EQ(missing.out, "");
  const CliOutcome zero =
      run_cli(dir, {"lease", "fence", "--store", "memory", "--not-before", "0"});
  EXPECT_EQ(zero.code, 2);
  EXPECT_NE(zero.err.find("--not-before 0 protects nothing"), std::string::npos) << zero.err;
  const CliOutcome bad_slot = run_cli(dir, {"lease", "fence", "--store", "memory", "--not-before",
                                            "2024-01-01T00:00:00Z", "--slot", "1024"});
  EXPECT_EQ(bad_slot.code, 2);
  EXPECT_NE(bad_slot.err.find("slot 1024 was not fenced: slot 1024 in namespace \"cosid\" is at "
                              "or above the slot limit 1024"),
            std::string::npos)
      << bad_slot.err;
}

TEST(CliLeaseFence, AStoreFailureNamesTheSlotAndExits1) {
  const TempDir dir("cli_lease_fence");
  const std::string directory = dir.file("leases");
  init_store(dir, "file:" + directory);
  const CliOutcome first =
      run_cli(dir, with({"next", "-n", "1", "--store", "file:" + directory}, kSmall));
  ASSERT_EQ(first.code, 0) << first.err;
  std::ofstream(directory + "/ns.cosid.lease", std::ios::trunc) << "not a record\n";
  const CliOutcome fenced = run_cli(dir, with({"lease", "fence", "--store", "file:" + directory,
                                               "--not-before", "2024-01-01T00:00:00Z"},
                                              kSmall));
  EXPECT_EQ(fenced.code, 1);
  EXPECT_EQ(fenced.out, "");
  EXPECT_EQ(
      fenced.err.rfind("cosid: lease fence: slot 0 was not fenced: file lease store record ", 0),
      0u)
      << fenced.err;
  EXPECT_NE(fenced.err.find("is corrupt"), std::string::npos) << fenced.err;
}

}  // namespace
}  // namespace cosid
