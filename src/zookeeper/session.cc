// SPDX-License-Identifier: Apache-2.0
#include "zookeeper/session.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "base/fail.h"

namespace cosid {
namespace lease {
namespace zk {
namespace {

using detail::fail;

// The sessions whose listener receives the client's log lines (header comment).
std::mutex& log_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::vector<Session*>& log_sinks() {
  static std::vector<Session*> sinks;
  return sinks;
}

void route_log(const char* message) {
  std::lock_guard<std::mutex> lock(log_mutex());
  for (Session* session : log_sinks()) session->on_log(message);
}

void on_watch(zhandle_t* /*zh*/, int type, int state, const char* /*path*/, void* context) {
  if (type == ZOO_SESSION_EVENT) static_cast<Session*>(context)->on_state(state);
}

std::string code_text(int rc) { return std::string(zerror(rc)) + " (" + std::to_string(rc) + ")"; }

}  // namespace

bool is_transient(int rc) noexcept {
  return rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT || rc == ZSESSIONEXPIRED ||
         rc == ZSESSIONMOVED || rc == ZINVALIDSTATE || rc == ZCLOSING;
}

// One request in flight, shared by the caller (which may give up at its deadline) and the
// completion (which may run later): whichever lets go last frees it.
struct Request {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;  // guarded by mutex
  int rc = ZOK;
  std::vector<NodeRead> reads;     // get, get_many: one per path
  std::size_t reads_left = 0;      // get_many: completions still to come
  std::vector<std::string> names;  // children
  Stat stat{};                     // set
  // A multi's ops point into these, and the client writes into results and stats until the
  // completion ran.
  std::vector<std::string> paths;
  std::vector<std::string> datas;
  std::vector<zoo_op_t> ops;
  std::vector<zoo_op_result_t> results;
  std::vector<Stat> stats;
  // get_many: the index each completion fills.
  struct Slot {
    std::shared_ptr<Request> request;
    std::size_t index;
  };

  void finish(int code) {
    std::lock_guard<std::mutex> lock(mutex);
    rc = code;
    done = true;
    done_cv.notify_all();
  }
};

namespace {

using RequestPtr = std::shared_ptr<Request>;

// The completions: each takes the reference the submitter handed it and drops it on return.
void on_data(int rc, const char* value, int length, const Stat* stat, const void* data) {
  std::unique_ptr<Request::Slot> slot(static_cast<Request::Slot*>(const_cast<void*>(data)));
  Request& request = *slot->request;
  std::lock_guard<std::mutex> lock(request.mutex);
  NodeRead& read = request.reads[slot->index];
  read.rc = rc;
  if (rc == ZOK) {
    if (value != nullptr && length > 0) read.data.assign(value, static_cast<std::size_t>(length));
    if (stat != nullptr) read.stat = *stat;
  }
  // The first code that is neither ZOK nor ZNONODE decides the whole request.
  if (rc != ZOK && rc != ZNONODE && request.rc == ZOK) request.rc = rc;
  if (--request.reads_left == 0) {
    request.done = true;
    request.done_cv.notify_all();
  }
}

void on_children(int rc, const String_vector* strings, const void* data) {
  std::unique_ptr<RequestPtr> held(static_cast<RequestPtr*>(const_cast<void*>(data)));
  Request& request = **held;
  {
    std::lock_guard<std::mutex> lock(request.mutex);
    if (rc == ZOK && strings != nullptr) {
      for (int i = 0; i < strings->count; ++i) request.names.emplace_back(strings->data[i]);
    }
  }
  request.finish(rc);
}

void on_stat(int rc, const Stat* stat, const void* data) {
  std::unique_ptr<RequestPtr> held(static_cast<RequestPtr*>(const_cast<void*>(data)));
  Request& request = **held;
  {
    std::lock_guard<std::mutex> lock(request.mutex);
    if (rc == ZOK && stat != nullptr) request.stat = *stat;
  }
  request.finish(rc);
}

void on_string(int rc, const char* /*name*/, const void* data) {
  std::unique_ptr<RequestPtr> held(static_cast<RequestPtr*>(const_cast<void*>(data)));
  (*held)->finish(rc);
}

void on_string_stat(int rc, const char* /*name*/, const Stat* stat, const void* data) {
  std::unique_ptr<RequestPtr> held(static_cast<RequestPtr*>(const_cast<void*>(data)));
  Request& request = **held;
  {
    std::lock_guard<std::mutex> lock(request.mutex);
    if (rc == ZOK && stat != nullptr) request.stat = *stat;
  }
  request.finish(rc);
}

void on_void(int rc, const void* data) {
  std::unique_ptr<RequestPtr> held(static_cast<RequestPtr*>(const_cast<void*>(data)));
  (*held)->finish(rc);
}

}  // namespace

Session::Session(const ZooKeeperStoreOptions& options) : options_(options) {}

std::unique_ptr<Session> Session::open(const ZooKeeperStoreOptions& options, Status& status) {
  const auto positive = [](std::chrono::milliseconds d) { return d.count() > 0; };
  if (options.connect_string.empty() || !positive(options.session_timeout) ||
      !positive(options.connection_timeout) || options.block_until_connected_wait.count() < 0 ||
      !positive(options.retry_base_sleep) || options.retry_max_retries < 0 ||
      options.retry_max_sleep < options.retry_base_sleep || !positive(options.timeout)) {
    fail(status, errc::invalid_argument,
         "ZooKeeper store options out of range: connect string \"" + options.connect_string +
             "\" must not be empty; sessionTimeout, connectionTimeout, timeout and "
             "retry.baseSleepTime must be positive, blockUntilConnectedWait and "
             "retry.maxRetries not negative, retry.maxSleep at least retry.baseSleepTime");
    return nullptr;
  }
  // The client's own level: warnings and errors reach the log callback, debug chatter does not.
  // Process-wide in the C client; every session sets the same.
  zoo_set_debug_level(ZOO_LOG_LEVEL_WARN);
  std::unique_ptr<Session> session(new Session(options));
  {
    std::lock_guard<std::mutex> lock(log_mutex());
    log_sinks().push_back(session.get());
  }
  {
    std::lock_guard<std::mutex> lock(session->mutex_);
    if (!session->start_handle(status)) return nullptr;
  }
  // The first connection: up to block_until_connected_wait.
  const Deadline deadline = std::chrono::steady_clock::now() + options.block_until_connected_wait;
  std::unique_lock<std::mutex> lock(session->mutex_);
  if (!session->changed_.wait_until(lock, deadline, [&] { return session->connected_; })) {
    fail(status, errc::store_unavailable,
         "no ZooKeeper server of " + options.connect_string + " answered within " +
             std::to_string(options.block_until_connected_wait.count()) +
             " ms (options.blockUntilConnectedWait): check that the ensemble runs and that this "
             "host reaches it");
    return nullptr;
  }
  status.clear();
  return session;
}

Session::~Session() {
  std::unique_lock<std::shared_mutex> exclusive(handle_use_);
  zhandle_t* handle = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    handle = handle_;
    handle_ = nullptr;
  }
  // Outside mutex_: closing runs the pending completions and may call the watcher, which takes it.
  if (handle != nullptr) zookeeper_close(handle);
  std::lock_guard<std::mutex> lock(log_mutex());
  auto& sinks = log_sinks();
  sinks.erase(std::remove(sinks.begin(), sinks.end(), this), sinks.end());
}

bool Session::start_handle(Status& status) {
  connected_ = false;
  expired_ = false;
  disconnected_since_ = std::chrono::steady_clock::now();
  const int timeout = static_cast<int>(options_.session_timeout.count());
  handle_ = zookeeper_init2(options_.connect_string.c_str(), on_watch, timeout, nullptr, this, 0,
                            route_log);
  if (handle_ == nullptr) {
    const int error = errno;
    return fail(status, errc::store_unavailable,
                "cannot start a ZooKeeper client for " + options_.connect_string + ": " +
                    std::strerror(error) +
                    " (a connect string is HOST:PORT[,HOST:PORT...][/CHROOT])");
  }
  sessions_opened_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void Session::on_state(int state) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state == ZOO_CONNECTED_STATE) {
    connected_ = true;
  } else {
    if (connected_) disconnected_since_ = std::chrono::steady_clock::now();
    connected_ = false;
    if (state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE) expired_ = true;
  }
  changed_.notify_all();
}

void Session::on_log(const char* message) {
  // Called under log_mutex(), which guards logged_.
  if (options_.listener == nullptr || message == nullptr) return;
  // The client's own prefix (date, pid, thread) goes: the listener stamps its lines itself.
  std::string text = message;
  const std::size_t level = text.find("):ZOO_");
  if (level != std::string::npos) text.erase(0, level + 2);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  // A server that is down makes the client say the same two lines every second: each line once
  // a minute is enough to see why, and the call's own error says what it came to.
  const auto now = std::chrono::steady_clock::now();
  const auto last = logged_.find(text);
  if (last != logged_.end() && now - last->second < std::chrono::minutes(1)) return;
  logged_[text] = now;
  options_.listener->on_event(Event{EventKind::kStoreLog, {}, "ZooKeeper client: " + text});
}

bool Session::ready(Deadline deadline, bool& transient, Status& status) {
  bool replace = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    // A session the server expired never comes back, and one that has found no server for
    // connection_timeout may be stuck on a dead address list: start afresh.
    replace = expired_ || (!connected_ && now - disconnected_since_ > options_.connection_timeout);
  }
  if (replace) {
    // Exclusive: no other thread is handing a request to the old handle while it is closed.
    std::unique_lock<std::shared_mutex> exclusive(handle_use_);
    zhandle_t* retired = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto now = std::chrono::steady_clock::now();
      // Another thread may have replaced it while this one waited for the lock.
      if (expired_ || (!connected_ && now - disconnected_since_ > options_.connection_timeout)) {
        retired = handle_;
        handle_ = nullptr;
      }
    }
    // Outside mutex_ (closing runs the watcher, which takes it) and outside any callback.
    if (retired != nullptr) zookeeper_close(retired);
    std::lock_guard<std::mutex> lock(mutex_);
    if (handle_ == nullptr && !start_handle(status)) {
      transient = true;
      return false;
    }
  }
  // Requests sent while connecting are queued by the client; wait for the connection so that a
  // new session does not fail its first request at once.
  std::unique_lock<std::mutex> lock(mutex_);
  if (!changed_.wait_until(lock, deadline, [&] { return connected_ || expired_; })) {
    return not_connected(transient, status);
  }
  return true;
}

zhandle_t* Session::current_handle() {
  std::lock_guard<std::mutex> lock(mutex_);
  return handle_;
}

bool Session::not_connected(bool& transient, Status& status) {
  transient = true;
  return fail(status, errc::store_unavailable,
              "no server of ZooKeeper ensemble " + options_.connect_string +
                  " is connected to this store (down, unreachable from this host, or without a "
                  "quorum); the call gave up at its deadline");
}

bool Session::submitted(int rc, const char* what, const std::string& path, bool& transient,
                        Status& status) {
  if (rc == ZOK) return true;
  transient = is_transient(rc);
  return fail(status, errc::store_unavailable,
              std::string("ZooKeeper refused to send the ") + what + " " + path + ": " +
                  code_text(rc) + " (ensemble " + options_.connect_string + ")");
}

bool Session::wait(Request& request, Deadline deadline, const char* what, const std::string& path,
                   bool& transient, Status& status) {
  std::unique_lock<std::mutex> lock(request.mutex);
  if (!request.done_cv.wait_until(lock, deadline, [&] { return request.done; })) {
    transient = true;
    return fail(status, errc::store_unavailable,
                std::string("ZooKeeper did not answer the ") + what + " " + path +
                    " in time (the store's timeout; ensemble " + options_.connect_string +
                    "): the outcome is unknown, and a retry is safe");
  }
  return true;
}

template <typename Submit>
bool Session::send(Request& request, Submit&& submit, const char* what, const std::string& path,
                   Deadline deadline, bool& transient, Status& status) {
  transient = false;
  if (!ready(deadline, transient, status)) return false;
  {
    // Shared: the handle is not closed while a request is handed to it (ready() replaces one
    // under the exclusive lock). Released before the wait, which needs no handle.
    std::shared_lock<std::shared_mutex> in_use(handle_use_);
    zhandle_t* const zh = current_handle();
    if (zh == nullptr) return not_connected(transient, status);
    if (!submitted(submit(zh), what, path, transient, status)) return false;
  }
  return wait(request, deadline, what, path, transient, status);
}

bool Session::answered(int rc, std::initializer_list<int> handled, const std::string& failure,
                       bool& transient, Status& status) {
  if (rc == ZOK) return true;
  for (const int code : handled) {
    if (rc == code) return true;
  }
  transient = is_transient(rc);
  return fail(status, errc::store_unavailable,
              "ZooKeeper failed " + failure + ": " + code_text(rc) + " (ensemble " +
                  options_.connect_string + ")");
}

namespace {

// Calls `call` with a new reference to `request` for the completion to drop, and drops it here
// when the client refused the request (no completion will run).
template <typename Call>
int with_reference(const RequestPtr& request, Call&& call) {
  auto* held = new RequestPtr(request);
  const int rc = call(static_cast<const void*>(held));
  if (rc != ZOK) delete held;
  return rc;
}

}  // namespace

bool Session::get(const std::string& path, Deadline deadline, NodeRead& out, bool& transient,
                  Status& status) {
  std::vector<NodeRead> reads;
  if (!get_many({path}, deadline, reads, transient, status)) return false;
  out = std::move(reads.front());
  return true;
}

bool Session::get_many(const std::vector<std::string>& paths, Deadline deadline,
                       std::vector<NodeRead>& out, bool& transient, Status& status) {
  transient = false;
  out.clear();
  if (paths.empty()) return true;
  auto request = std::make_shared<Request>();
  request->reads.resize(paths.size());
  {
    std::lock_guard<std::mutex> lock(request->mutex);
    request->reads_left = paths.size();
  }
  const auto submit = [&](zhandle_t* zh) -> int {
    for (std::size_t i = 0; i < paths.size(); ++i) {
      auto* slot = new Request::Slot{request, i};
      const int rc = zoo_aget(zh, paths[i].c_str(), 0, on_data, slot);
      if (rc != ZOK) {
        // The reads already sent complete on their own and drop their references.
        delete slot;
        return rc;
      }
    }
    return ZOK;
  };
  if (!send(*request, submit, "read of", paths.front(), deadline, transient, status)) {
    return false;
  }
  std::lock_guard<std::mutex> lock(request->mutex);
  if (!answered(request->rc, {}, "a read under " + paths.front(), transient, status)) {
    return false;
  }
  out = std::move(request->reads);
  return true;
}

bool Session::children(const std::string& path, Deadline deadline, int& rc,
                       std::vector<std::string>& names, bool& transient, Status& status) {
  auto request = std::make_shared<Request>();
  const auto submit = [&](zhandle_t* zh) {
    return with_reference(request, [&](const void* ref) {
      return zoo_aget_children(zh, path.c_str(), 0, on_children, ref);
    });
  };
  if (!send(*request, submit, "listing of", path, deadline, transient, status)) return false;
  std::lock_guard<std::mutex> lock(request->mutex);
  rc = request->rc;
  if (!answered(rc, {ZNONODE}, "to list " + path, transient, status)) return false;
  names = std::move(request->names);
  return true;
}

bool Session::create(const std::string& path, const std::string& data, Deadline deadline, int& rc,
                     bool& transient, Status& status, Stat* stat) {
  auto request = std::make_shared<Request>();
  // The client copies path and data into its send buffer before zoo_acreate returns. With a
  // `stat` the request is a create2, whose answer carries the new node's Stat.
  const auto submit = [&](zhandle_t* zh) {
    return with_reference(request, [&](const void* ref) {
      if (stat != nullptr) {
        return zoo_acreate2(zh, path.c_str(), data.data(), static_cast<int>(data.size()),
                            &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, on_string_stat, ref);
      }
      return zoo_acreate(zh, path.c_str(), data.data(), static_cast<int>(data.size()),
                         &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, on_string, ref);
    });
  };
  if (!send(*request, submit, "create of", path, deadline, transient, status)) return false;
  std::lock_guard<std::mutex> lock(request->mutex);
  rc = request->rc;
  const std::string failure =
      "to create " + path +
      (rc != ZNONODE ? ""
       : path.find('/', 1) == std::string::npos
           ? " (the chroot of " + options_.connect_string +
                 " does not exist: create it, or drop it from the connect string)"
           : " (its parent is missing)");
  if (!answered(rc, {ZNODEEXISTS}, failure, transient, status)) return false;
  if (stat != nullptr && rc == ZOK) *stat = request->stat;
  return true;
}

bool Session::set(const std::string& path, const std::string& data, int version, Deadline deadline,
                  int& rc, Stat& stat, bool& transient, Status& status) {
  auto request = std::make_shared<Request>();
  const auto submit = [&](zhandle_t* zh) {
    return with_reference(request, [&](const void* ref) {
      return zoo_aset(zh, path.c_str(), data.data(), static_cast<int>(data.size()), version,
                      on_stat, ref);
    });
  };
  if (!send(*request, submit, "write of", path, deadline, transient, status)) return false;
  std::lock_guard<std::mutex> lock(request->mutex);
  rc = request->rc;
  if (!answered(rc, {ZBADVERSION, ZNONODE}, "to write " + path, transient, status)) return false;
  stat = request->stat;
  return true;
}

bool Session::multi(const std::vector<Op>& ops, Deadline deadline, WriteResult& result,
                    bool& transient, Status& status) {
  auto request = std::make_shared<Request>();
  const std::size_t n = ops.size();
  request->paths.reserve(n);
  request->datas.reserve(n);
  for (const Op& op : ops) {
    request->paths.push_back(op.path);
    request->datas.push_back(op.data);
  }
  request->ops.resize(n);
  request->results.resize(n);
  request->stats.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const char* path = request->paths[i].c_str();
    const std::string& data = request->datas[i];
    switch (ops[i].kind) {
      case Op::kCreate:
        zoo_create_op_init(&request->ops[i], path, data.data(), static_cast<int>(data.size()),
                           &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, nullptr, 0);
        break;
      case Op::kSet:
        zoo_set_op_init(&request->ops[i], path, data.data(), static_cast<int>(data.size()),
                        ops[i].version, &request->stats[i]);
        break;
      case Op::kCheck:
        zoo_check_op_init(&request->ops[i], path, ops[i].version);
        break;
    }
  }
  const auto submit = [&](zhandle_t* zh) {
    return with_reference(request, [&](const void* ref) {
      return zoo_amulti(zh, static_cast<int>(n), request->ops.data(), request->results.data(),
                        on_void, ref);
    });
  };
  if (!send(*request, submit, "multi on", ops.front().path, deadline, transient, status)) {
    return false;
  }
  std::lock_guard<std::mutex> lock(request->mutex);
  result.rc = request->rc;
  result.op_rc.assign(n, ZOK);
  result.op_stat.assign(n, Stat{});
  for (std::size_t i = 0; i < n; ++i) {
    result.op_rc[i] = request->results[i].err;
    result.op_stat[i] = request->stats[i];
  }
  if (result.rc != ZOK) {
    // A failed multi applies nothing; its code is the first failing op's, or a transport error.
    for (const int rc : result.op_rc) {
      if (rc != ZOK && rc != ZRUNTIMEINCONSISTENCY) {
        result.rc = rc;
        break;
      }
    }
  }
  return answered(result.rc, {ZBADVERSION, ZNODEEXISTS, ZNONODE},
                  "the multi on " + ops.front().path, transient, status);
}

std::chrono::milliseconds Session::granted_timeout() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (handle_ == nullptr || !connected_) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(zoo_recv_timeout(handle_));
}

bool Session::session(ZooKeeperLeaseStore::Session& out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (handle_ == nullptr || !connected_) return false;
  const clientid_t* id = zoo_client_id(handle_);
  if (id == nullptr) return false;
  out.id = id->client_id;
  out.password.assign(id->passwd, sizeof(id->passwd));
  return true;
}

}  // namespace zk
}  // namespace lease
}  // namespace cosid
