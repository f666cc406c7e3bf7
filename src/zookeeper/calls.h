// SPDX-License-Identifier: Apache-2.0
// Internal to the ZooKeeper stores (the lease store and the range store): one store call as a
// series of tries under one deadline, and the identity of the nodes a store has seen.
//
// A call's try reads, decides with the store's rules and writes; it ends in one of four ways
// (Step). run() repeats tries until one is done or fails for good: a transient failure (the
// ensemble did not answer) after a back-off that starts at options.retry_base_sleep and doubles to
// options.retry_max_sleep, at most options.retry_max_retries times; a lost compare-and-set at once.
// Both within options.timeout from the call's start, past which the call fails with
// store_unavailable.
//
// SeenNodes keeps, for the store's life, the czxid (the zxid of the create) of every node a
// store has read, so that a node deleted behind the store, or deleted and created again, is told
// from the node the store knew.
//
// Thread safety: run() is a function of its arguments; SeenNodes may be used from any thread (its
// mutex guards its maps).
#ifndef COSID_SRC_ZOOKEEPER_CALLS_H_
#define COSID_SRC_ZOOKEEPER_CALLS_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "cosid/error.h"
#include "cosid/zookeeper/lease_store.h"
#include "zookeeper/session.h"

namespace cosid {
namespace lease {
namespace zk {

// What one try of a call came to.
enum class Step {
  kDone,       // finished; `status` ok or holding a final answer (lease_lost, ...)
  kFailed,     // failed for good; `status` says why
  kTransient,  // the ensemble did not answer: retry after the back-off
  kConflict,   // lost a compare-and-set to another writer: read again at once
};

// The step after a request that failed: `transient` as the Session set it.
inline Step after(bool transient) { return transient ? Step::kTransient : Step::kFailed; }

// The failures of run() (calls.cc): `status` set with store_unavailable.
bool kept_conflicting(const ZooKeeperStoreOptions& options, const char* what, Status& status);
bool gave_up(const ZooKeeperStoreOptions& options, const char* what, int retries, Status& status);

// Runs `step` (Step(Deadline, Status&)) until it is done or fails for good (header comment): true
// when the last try was done with `status` ok.
template <typename F>
bool run(const ZooKeeperStoreOptions& options, const char* what, F&& step, Status& status) {
  const Deadline deadline = std::chrono::steady_clock::now() + options.timeout;
  std::chrono::milliseconds sleep = options.retry_base_sleep;
  int retries = 0;
  for (;;) {
    status.clear();
    const Step result = step(deadline, status);
    if (result == Step::kDone) return status.ok();
    if (result == Step::kFailed) return false;
    const auto now = std::chrono::steady_clock::now();
    if (result == Step::kConflict) {
      if (now < deadline) continue;
      return kept_conflicting(options, what, status);
    }
    if (retries >= options.retry_max_retries || now + sleep >= deadline) {
      return gave_up(options, what, retries, status);
    }
    std::this_thread::sleep_for(sleep);
    sleep = std::min(sleep * 2, options.retry_max_sleep);
    ++retries;
  }
}

class SeenNodes {
 public:
  // The count of nodes seen so far: taken before a read is sent, and given to deleted().
  std::uint64_t epoch() const;

  // A read sent at `sent_at` (epoch() before it was sent) found no node at `path`: true when the
  // store had seen a node there before, which the read would have found had it not been deleted.
  // (Requests of one session are answered in order, so a node seen before the read was sent must
  // be in its answer; one first seen later, by a concurrent call, may have been created after the
  // read was answered.)
  bool deleted(const std::string& path, std::uint64_t sent_at) const;

  // The czxid first seen at `path`; 0 when none was.
  std::int64_t seen(const std::string& path) const;
  bool seen_any(const std::string& path) const { return seen(path) != 0; }

  // A read found the node `czxid` at `path`: true when it is the node first seen there (which it
  // now is, if none was); false when another was, whose czxid `first` receives (the node was
  // deleted and created again behind the store).
  bool identify(const std::string& path, std::int64_t czxid, std::int64_t& first);

 private:
  struct Seen {
    std::int64_t czxid;
    std::uint64_t epoch;  // epoch_ when it was first seen
  };
  mutable std::mutex mutex_;           // guards nodes_ and epoch_
  std::map<std::string, Seen> nodes_;  // path -> the node first seen there
  std::uint64_t epoch_ = 0;            // how many nodes were seen
};

}  // namespace zk
}  // namespace lease
}  // namespace cosid

#endif  // COSID_SRC_ZOOKEEPER_CALLS_H_
