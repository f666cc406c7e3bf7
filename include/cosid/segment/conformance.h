// SPDX-License-Identifier: Apache-2.0
// The conformance kit for RangeStore: the GoogleTest cases every range store must pass. Target
// cosid::tck, with the lease kit (lease/conformance.h).
//
// A store's test binary links cosid::tck and registers the kit once per store, before
// RUN_ALL_TESTS (or at static initialisation, with GTest::gtest_main):
//
//   #include "cosid/segment/conformance.h"
//
//   static const bool kRegistered = cosid::segment::tck::register_range_conformance_tests({
//       "MyStore", [] { return std::make_unique<MyRangeStore>(...); }});
//
// The cases run as the suite "RangeStoreConformance/<name>": every row of the table of
// segment/range_store.h, the argument checks, offsets and the 2^63 - 1 bound, many threads (and,
// for stores that declare it, many processes) claiming one key at once and getting disjoint
// ranges, a claim repeated as if its response were lost (never an overlap), give-backs that must
// and must not be taken, sealing, a next value that only grows, and, when the kit can recreate a
// record behind the store, a recreated record refused with errc::store_corrupt.
//
// Every case uses keys of its own with a random suffix, so the factory may return a fresh store or
// another handle on a shared one. When shared_across_processes is true, a child forked by the kit
// calls the factory again and must get a store that shares the parent's records; the parent
// destroys its own store before it forks and makes one again afterwards (a store whose client runs
// threads is never forked with them).
//
// Thread safety: register_range_conformance_tests() must be called before the tests run, from one
// thread; the cases call the store from many threads, as the RangeStore contract allows.
#ifndef COSID_SEGMENT_CONFORMANCE_H_
#define COSID_SEGMENT_CONFORMANCE_H_

#include <functional>
#include <memory>
#include <string>

#include "cosid/export.h"
#include "cosid/segment/range_store.h"

namespace cosid {
namespace segment {
namespace tck {

struct RangeStoreKit {
  // The suite name's suffix: letters, digits and '_' only.
  std::string name;
  std::function<std::unique_ptr<RangeStore>()> make_store;
  // Whether stores made in forked children share the parent's records (header comment).
  bool shared_across_processes = false;
  // Why not, printed when the process cases are skipped.
  std::string not_shared_reason;
  // Deletes the record of `key` behind the store and creates it anew with the next value 1, as an
  // operator's mistake or a restored backup would; false with the reason in `why` if it could not.
  // Empty: the recreated-record case is skipped (a memory store has no "behind").
  std::function<bool(const std::string& key, std::string& why)> recreate_record;
};

// Registers every case for `kit` with GoogleTest. Returns true, so that it can initialise a
// static. REQUIRES: called before RUN_ALL_TESTS; kit.make_store is not empty.
COSID_EXPORT bool register_range_conformance_tests(const RangeStoreKit& kit);

}  // namespace tck
}  // namespace segment
}  // namespace cosid

#endif  // COSID_SEGMENT_CONFORMANCE_H_
