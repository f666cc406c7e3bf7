// The range conformance kit run on cosid's own range stores: MemoryRangeStore (one process) and
// FileRangeStore (shared by the processes of a host, in a temporary directory of this run).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "cosid/segment/conformance.h"
#include "cosid/segment/memory_range_store.h"

namespace {

const bool kRegistered = [] {
  cosid::segment::tck::register_range_conformance_tests(
      {"Memory", [] { return std::make_unique<cosid::segment::MemoryRangeStore>(); }, false,
       "a MemoryRangeStore lives in one process's memory", nullptr});
  return true;
}();

}  // namespace
