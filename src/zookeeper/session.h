// SPDX-License-Identifier: Apache-2.0
// Internal to the ZooKeeper store: one ZooKeeper handle at a time, and the requests the store
// sends on it, each waited for until a deadline.
//
// The C client has no per-call timeout (its blocking calls give up only after 2/3 of the session
// timeout), so every request here is asynchronous: the caller waits on a condition variable until
// the completion ran or the deadline passed. A completion can run after its caller gave up, so the
// request's state (paths, data, multi ops and their results) lives in a reference-counted Request
// that the completion releases last. Completions run on the client's own thread: they only copy
// and notify, never block, never close the handle.
//
// The handle is replaced (a new session) when the server has expired the session, or when it has
// been without a connection for longer than connection_timeout; replacing happens on the caller's
// thread at the start of a request, never in a callback. Leases are plain nodes, so a new session
// loses nothing.
//
// The client's log lines (warnings and errors) go to the listener as EventKind::kStoreLog. The C
// client's log callback carries no context, so one process-wide table routes a line to the
// listener of every open Session (normally there is one).
//
// Thread safety: every method may be called from any thread; `mutex_` guards the handle and the
// connection state, `handle_use_` keeps a handle open while a request is handed to it.
#ifndef COSID_SRC_ZOOKEEPER_SESSION_H_
#define COSID_SRC_ZOOKEEPER_SESSION_H_

#include <zookeeper/zookeeper.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "cosid/error.h"
#include "cosid/events.h"
#include "cosid/zookeeper/lease_store.h"

namespace cosid {
namespace lease {
namespace zk {

using Deadline = std::chrono::steady_clock::time_point;

// One node read.
struct NodeRead {
  int rc = ZOK;  // ZOK or ZNONODE (other codes fail the request)
  std::string data;
  Stat stat{};
};

// One operation of a multi.
struct Op {
  enum Kind { kCreate, kSet, kCheck } kind = kSet;
  std::string path;
  std::string data;  // kCreate, kSet
  int version = -1;  // kSet, kCheck: the version compared; -1 none
};

// What a multi or a single write answered.
struct WriteResult {
  int rc = ZOK;               // ZOK, or the first failing op's code (ZBADVERSION, ZNODEEXISTS, ...)
  std::vector<int> op_rc;     // per op
  std::vector<Stat> op_stat;  // per op: the Stat of a kSet
};

// A request in flight (session.cc).
struct Request;

// Whether a code means "the request may or may not have been applied; try again later".
bool is_transient(int rc) noexcept;

class Session {
 public:
  // Checks the options (invalid_argument for one out of range) and connects, waiting up to
  // options.block_until_connected_wait for the first connection (store_unavailable then).
  static std::unique_ptr<Session> open(const ZooKeeperStoreOptions& options, Status& status);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Each request returns true when the server answered with a code the caller handles (the
  // codes named in the result types), and false with store_unavailable (transient: retry after a
  // back-off) or another error otherwise. `transient` tells which.
  bool get(const std::string& path, Deadline deadline, NodeRead& out, bool& transient,
           Status& status);
  // Reads every path at once (pipelined), in order.
  bool get_many(const std::vector<std::string>& paths, Deadline deadline,
                std::vector<NodeRead>& out, bool& transient, Status& status);
  bool children(const std::string& path, Deadline deadline, int& rc,
                std::vector<std::string>& names, bool& transient, Status& status);
  // A persistent node with the open ACL. `stat`, when not null, receives the new node's Stat
  // (when rc is ZOK).
  bool create(const std::string& path, const std::string& data, Deadline deadline, int& rc,
              bool& transient, Status& status, Stat* stat = nullptr);
  bool set(const std::string& path, const std::string& data, int version, Deadline deadline,
           int& rc, Stat& stat, bool& transient, Status& status);
  bool multi(const std::vector<Op>& ops, Deadline deadline, WriteResult& result, bool& transient,
             Status& status);

  std::chrono::milliseconds granted_timeout() const;
  bool session(ZooKeeperLeaseStore::Session& out) const;
  std::uint64_t sessions_opened() const { return sessions_opened_.load(std::memory_order_relaxed); }
  const std::string& connect_string() const { return options_.connect_string; }

  // Called by the client (watcher and log callback); public for the C trampolines only.
  void on_state(int state);
  void on_log(const char* message);

 private:
  explicit Session(const ZooKeeperStoreOptions& options);

  // Replaces an expired or long-disconnected handle, then waits for a connection until
  // `deadline`; false with `status` set (transient) when none came.
  bool ready(Deadline deadline, bool& transient, Status& status);
  zhandle_t* current_handle();  // null only after a failed start_handle()
  bool not_connected(bool& transient, Status& status);
  bool start_handle(Status& status);  // REQUIRES: mutex_ held
  // Hands `request` to the current handle with `submit` (given the handle, it returns the
  // client's code and owns the completion's reference) and waits for the completion until
  // `deadline`; false with store_unavailable when it was refused or did not complete in time.
  // `what` names the request in messages ("write of"), `path` its node.
  template <typename Submit>
  bool send(Request& request, Submit&& submit, const char* what, const std::string& path,
            Deadline deadline, bool& transient, Status& status);
  bool wait(Request& request, Deadline deadline, const char* what, const std::string& path,
            bool& transient, Status& status);
  bool submitted(int rc, const char* what, const std::string& path, bool& transient,
                 Status& status);
  // The code a completed request answered: true for ZOK or one of `handled` (the caller's to
  // act on), else false with store_unavailable ("ZooKeeper failed " + failure).
  bool answered(int rc, std::initializer_list<int> handled, const std::string& failure,
                bool& transient, Status& status);

  const ZooKeeperStoreOptions options_;
  // Shared while a request is handed to handle_, exclusive while handle_ is closed and replaced:
  // a thread never sends on a handle another thread is closing. Taken before mutex_.
  std::shared_mutex handle_use_;
  mutable std::mutex mutex_;         // guards handle_, connected_, disconnected_since_
  std::condition_variable changed_;  // a state change: connected, expired
  zhandle_t* handle_ = nullptr;
  bool connected_ = false;
  bool expired_ = false;
  std::chrono::steady_clock::time_point disconnected_since_;
  std::atomic<std::uint64_t> sessions_opened_{0};
  // Each log line's text (without the client's prefix) and when it last went to the listener;
  // guarded by the process-wide log mutex of session.cc, under which on_log() runs.
  std::map<std::string, std::chrono::steady_clock::time_point> logged_;
};

}  // namespace zk
}  // namespace lease
}  // namespace cosid

#endif  // COSID_SRC_ZOOKEEPER_SESSION_H_
