// SPDX-License-Identifier: Apache-2.0
// The range conformance kit run on cosid's own range stores: MemoryRangeStore (one process) and
// FileRangeStore (shared by the processes of a host, in a temporary directory of this run).
#include <gtest/gtest.h>
#include <stdio.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>

#include "cosid/segment/conformance.h"
#include "cosid/segment/file_range_store.h"
#include "cosid/segment/memory_range_store.h"
#include "segment/file_range_record.h"
#include "support/temp_dir.h"

namespace {

namespace internal = cosid::segment::internal;

// A directory for this run's file stores, removed at exit (forked children leave with _exit and
// never remove it).
const std::string& store_directory() {
  static const TempDir dir("range_tck");
  return dir.path();
}

// As an operator's mistake would: the key's record removed, and a valid one in its place that
// starts the key over (next value 1, a new identity), renamed into place as the store writes.
bool recreate_record(const std::string& key, std::string& why) {
  const std::string path = store_directory() + "/" + internal::record_file_name(key);
  if (::unlink(path.c_str()) != 0) {
    why = "cannot remove " + path;
    return false;
  }
  internal::RangeRecord record;
  record.key = key;
  record.state.exists = true;
  record.state.next = 1;
  record.state.version = 1;
  cosid::Status status;
  if (!cosid::Incarnation::random(record.identity, status)) {
    why = status.message();
    return false;
  }
  const std::string temp = path + ".recreated";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << internal::format_range_record(record);
    if (!out) {
      why = "cannot write " + temp;
      return false;
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    why = "cannot rename " + temp + " to " + path;
    return false;
  }
  return true;
}

const bool kRegistered = [] {
  cosid::segment::tck::register_range_conformance_tests(
      {"Memory", [] { return std::make_unique<cosid::segment::MemoryRangeStore>(); }, false,
       "a MemoryRangeStore lives in one process's memory", nullptr});
  cosid::segment::tck::register_range_conformance_tests(
      {"File",
       []() -> std::unique_ptr<cosid::segment::RangeStore> {
         cosid::segment::FileRangeStoreOptions options;
         // 8 threads queue for one key's lock, each claim with two fsyncs: on a loaded CI machine
         // a waiter may need more than the default 10 s.
         options.lock_timeout = std::chrono::milliseconds(60000);
         cosid::Status status;
         auto store = cosid::segment::FileRangeStore::open(store_directory(), options, status);
         if (store == nullptr) ADD_FAILURE() << status.message();
         return store;
       },
       true, "", recreate_record});
  return true;
}();

}  // namespace
