// SPDX-License-Identifier: Apache-2.0
// The lease store conformance kit from an installed cosid, run against MemoryLeaseStore the way a
// project runs it against a store of its own (tests/package/tck/CMakeLists.txt).
#include <memory>

#include "cosid/lease/conformance.h"
#include "cosid/lease/memory_store.h"

namespace {

const bool kRegistered = cosid::lease::tck::register_conformance_tests(
    {"InstalledMemory",
     [](cosid::Clock& clock) { return std::make_unique<cosid::lease::MemoryLeaseStore>(clock); },
     false, "a MemoryLeaseStore lives in one process's memory"});

}  // namespace
