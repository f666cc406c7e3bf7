// SPDX-License-Identifier: Apache-2.0
// Runs cosid's conformance kit against the example's KvLeaseStore. A store of your own does the
// same: link cosid::tck and GoogleTest's main, and register a factory.
#include <gtest/gtest.h>

#include <memory>

#include "cosid/lease/conformance.h"
#include "kv_lease_store.h"

namespace {

const bool kRegistered = cosid::lease::tck::register_conformance_tests({
    "KvExample",
    // Each store gets a back end of its own here; every case also uses a namespace of its own,
    // so sharing one back end would pass as well.
    [](cosid::Clock& store_clock) -> std::unique_ptr<cosid::lease::SlotLeaseStore> {
      return std::make_unique<example::KvLeaseStore>(std::make_shared<example::VersionedKv>(),
                                                     store_clock);
    },
    /*shared_across_processes=*/false,
    "the example's key-value back end lives in one process's memory",
});

}  // namespace
