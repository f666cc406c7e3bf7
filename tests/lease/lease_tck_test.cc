// SPDX-License-Identifier: Apache-2.0
// The conformance kit run on cosid's own stores: MemoryLeaseStore (one process) and
// FileLeaseStore (shared by the processes of a host, in a temporary directory of this run).
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "cosid/lease/conformance.h"
#include "cosid/lease/file_store.h"
#include "cosid/lease/memory_store.h"
#include "support/temp_dir.h"

namespace {

using cosid::lease::tck::StoreKit;

// A directory for this run's file stores, removed at exit (forked children leave with _exit and
// never remove it).
const std::string& store_directory() {
  static const TempDir dir("lease_tck");
  return dir.path();
}

const bool kRegistered = [] {
  cosid::lease::tck::register_conformance_tests(
      {"Memory",
       [](cosid::Clock& clock) { return std::make_unique<cosid::lease::MemoryLeaseStore>(clock); },
       false, "a MemoryLeaseStore lives in one process's memory"});
  cosid::lease::tck::register_conformance_tests(
      {"File",
       [](cosid::Clock& clock) -> std::unique_ptr<cosid::lease::SlotLeaseStore> {
         cosid::lease::FileLeaseStoreOptions options;
         options.clock = &clock;
         // 16 threads or processes queue for one namespace lock, each change with two fsyncs:
         // on a loaded CI machine a waiter may need more than the default 10 s.
         options.lock_timeout = std::chrono::milliseconds(60000);
         cosid::Status status;
         auto store = cosid::lease::FileLeaseStore::open(store_directory(), options, status);
         if (store == nullptr) ADD_FAILURE() << status.message();
         return store;
       },
       true, ""});
  return true;
}();

}  // namespace
