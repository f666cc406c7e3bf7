// SPDX-License-Identifier: Apache-2.0
// The conformance kit (TCK) for SlotLeaseStore: the GoogleTest cases every store must pass.
//
// A store's test binary links cosid::tck and registers the kit once per store, before
// RUN_ALL_TESTS (or at static initialisation, with GTest::gtest_main):
//
//   #include "cosid/lease/conformance.h"
//
//   static const bool kRegistered = cosid::lease::tck::register_conformance_tests({
//       "MyStore",
//       [](cosid::Clock& store_clock) { return std::make_unique<MyStore>(store_clock); },
//       /*shared_across_processes=*/false, "MyStore lives in one process's memory"});
//
// The cases run as the suite "SlotLeaseStoreConformance/<name>": every row of the store-side
// table (lease/store.h), argument checks, namespace terms, slot choice order, many threads and
// (for stores that declare it) many processes acquiring at once, replayed renewals and
// compare-and-sets whose response is lost, the exact hand-off on release, fence counters, the
// fence() row (a free, held, expired or never-used slot; retried; never lowering a next floor),
// store clock jumps, and a paused holder whose later ids lie past its ceiling.
//
// What the kit asks of the factory: each call returns a store whose clock is `store_clock`, a
// ManualClock the kit moves (set forward and back, advanced); time on the store must come from
// it alone. Every case uses a namespace of its own with a random suffix, so the factory may return
// a fresh store or another handle on a shared one. When shared_across_processes is true, a child
// forked by the kit calls the factory again (with its own clock at the same time) and the store it
// gets must be the one the parent's store sees; otherwise the process cases are skipped, with
// `not_shared_reason` as the reason. The parent destroys its own store before it forks and makes
// one again afterwards, so a store whose client runs threads is never forked with them.
//
// Thread safety: register_conformance_tests() must be called before the tests run, from one
// thread; the cases call the store from many threads, as the SlotLeaseStore contract allows.
#ifndef COSID_LEASE_CONFORMANCE_H_
#define COSID_LEASE_CONFORMANCE_H_

#include <functional>
#include <memory>
#include <string>

#include "cosid/clock.h"
#include "cosid/export.h"
#include "cosid/lease/store.h"

namespace cosid {
namespace lease {
namespace tck {

using StoreFactory = std::function<std::unique_ptr<SlotLeaseStore>(Clock& store_clock)>;

struct StoreKit {
  // The suite name's suffix: letters, digits and '_' only.
  std::string name;
  StoreFactory make_store;
  // Whether stores made in forked children share the parent's data (header comment).
  bool shared_across_processes = false;
  // Why not, printed when the process cases are skipped.
  std::string not_shared_reason;
};

// Registers every case for `kit` with GoogleTest. Returns true, so that it can initialise a
// static. REQUIRES: called before RUN_ALL_TESTS; kit.make_store is not empty.
COSID_EXPORT bool register_conformance_tests(const StoreKit& kit);

}  // namespace tck
}  // namespace lease
}  // namespace cosid

#endif  // COSID_LEASE_CONFORMANCE_H_
