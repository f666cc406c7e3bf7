#include "session.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "fail.h"

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
  std::vector<NodeRead> reads;       // get, get_many: one per path
  std::size_t reads_left = 0;        // get_many: completions still to come
  std::vector<std::string> names;    // children
  Stat stat{};                       // set
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
  std::unique_ptr<Request::Slot> slot(
      static_cast<Request::Slot*>(const_cast<void*>(data)));
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

void on_void(int rc, const void* data) {
  std::unique_ptr<RequestPtr> held(static_cast<RequestPtr*>(const_cast<void*>(data)));
  (*held)->finish(rc);
}

}  // namespace

Session::Session(const ZooKeeperStoreOptions& options) : options_(options) {}

std::unique_ptr<Session> Session::open(const ZooKeeperStoreOptions& options, Status& status) {
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
  if (options_.listener == nullptr || message == nullptr) return;
  Event event{EventKind::kStoreLog, {}, std::string("ZooKeeper client: ") + message};
  while (!event.message.empty() &&
         (event.message.back() == '\n' || event.message.back() == '\r')) {
    event.message.pop_back();
  }
  options_.listener->on_event(event);
}

zhandle_t* Session::handle(Deadline deadline, bool& transient, Status& status) {
  zhandle_t* retired = nullptr;
  zhandle_t* current = nullptr;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    const bool long_gone =
        !connected_ && now - disconnected_since_ > options_.connection_timeout;
    if (expired_ || long_gone) {
      // A session the server expired never comes back, and one that has found no server for
      // connection_timeout may be stuck on a dead address list: start afresh.
      retired = handle_;
      handle_ = nullptr;
      lock.unlock();
      // Closing outside mutex_ (the watcher takes it) and outside any callback.
      if (retired != nullptr) zookeeper_close(retired);
      lock.lock();
      if (handle_ == nullptr && !start_handle(status)) {
        transient = true;
        return nullptr;
      }
    }
    // Requests sent while connecting are queued by the client; wait a little for the connection
    // so that a new session does not fail its first request at once.
    if (!changed_.wait_until(lock, deadline, [&] { return connected_ || expired_; })) {
      transient = true;
      fail(status, errc::store_unavailable,
           "no server of ZooKeeper ensemble " + options_.connect_string +
               " is connected to this store (down, unreachable from this host, or without a "
               "quorum); the call gave up at its deadline");
      return nullptr;
    }
    current = handle_;
  }
  return current;
}

bool Session::submitted(int rc, const char* what, const std::string& path, bool& transient,
                        Status& status) {
  if (rc == ZOK) return true;
  transient = is_transient(rc);
  return fail(status, errc::store_unavailable,
              std::string("ZooKeeper refused to send ") + what + " " + path + ": " +
                  code_text(rc) + " (ensemble " + options_.connect_string + ")");
}

bool Session::wait(Request& request, Deadline deadline, const char* what, const std::string& path,
                   bool& transient, Status& status) {
  std::unique_lock<std::mutex> lock(request.mutex);
  if (!request.done_cv.wait_until(lock, deadline, [&] { return request.done; })) {
    transient = true;
    return fail(status, errc::store_unavailable,
                std::string("ZooKeeper did not answer ") + what + " " + path +
                    " in time (the store's timeout; ensemble " + options_.connect_string +
                    "): the outcome is unknown, and a retry is safe");
  }
  return true;
}

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
  zhandle_t* zh = handle(deadline, transient, status);
  if (zh == nullptr) return false;
  auto request = std::make_shared<Request>();
  request->reads.resize(paths.size());
  {
    std::lock_guard<std::mutex> lock(request->mutex);
    request->reads_left = paths.size();
  }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    auto* slot = new Request::Slot{request, i};
    const int rc = zoo_aget(zh, paths[i].c_str(), 0, on_data, slot);
    if (rc != ZOK) {
      delete slot;
      // The reads already sent complete on their own and drop their references.
      return submitted(rc, "a read of", paths[i], transient, status);
    }
  }
  if (!wait(*request, deadline, "the read of", paths.front(), transient, status)) return false;
  std::lock_guard<std::mutex> lock(request->mutex);
  if (request->rc != ZOK) {
    transient = is_transient(request->rc);
    return fail(status, errc::store_unavailable,
                "ZooKeeper failed a read under " + paths.front() + ": " + code_text(request->rc) +
                    " (ensemble " + options_.connect_string + ")");
  }
  out = std::move(request->reads);
  return true;
}

bool Session::children(const std::string& path, Deadline deadline, int& rc,
                       std::vector<std::string>& names, bool& transient, Status& status) {
  transient = false;
  zhandle_t* zh = handle(deadline, transient, status);
  if (zh == nullptr) return false;
  auto request = std::make_shared<Request>();
  auto* held = new RequestPtr(request);
  if (!submitted(zoo_aget_children(zh, path.c_str(), 0, on_children, held), "a listing of", path,
                 transient, status)) {
    delete held;
    return false;
  }
  if (!wait(*request, deadline, "the listing of", path, transient, status)) return false;
  std::lock_guard<std::mutex> lock(request->mutex);
  rc = request->rc;
  if (rc != ZOK && rc != ZNONODE) {
    transient = is_transient(rc);
    return fail(status, errc::store_unavailable,
                "ZooKeeper failed to list " + path + ": " + code_text(rc));
  }
  names = std::move(request->names);
  return true;
}

bool Session::create(const std::string& path, const std::string& data, Deadline deadline, int& rc,
                     bool& transient, Status& status) {
  transient = false;
  zhandle_t* zh = handle(deadline, transient, status);
  if (zh == nullptr) return false;
  auto request = std::make_shared<Request>();
  auto* held = new RequestPtr(request);
  // The client copies path and data into its send buffer before zoo_acreate returns.
  if (!submitted(zoo_acreate(zh, path.c_str(), data.data(), static_cast<int>(data.size()),
                             &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, on_string, held),
                 "a create of", path, transient, status)) {
    delete held;
    return false;
  }
  if (!wait(*request, deadline, "the create of", path, transient, status)) return false;
  std::lock_guard<std::mutex> lock(request->mutex);
  rc = request->rc;
  if (rc != ZOK && rc != ZNODEEXISTS) {
    transient = is_transient(rc);
    return fail(status, errc::store_unavailable,
                "ZooKeeper failed to create " + path + ": " + code_text(rc) +
                    (rc == ZNONODE ? " (its parent is missing)" : ""));
  }
  return true;
}

bool Session::set(const std::string& path, const std::string& data, int version,
                  Deadline deadline, int& rc, Stat& stat, bool& transient, Status& status) {
  transient = false;
  zhandle_t* zh = handle(deadline, transient, status);
  if (zh == nullptr) return false;
  auto request = std::make_shared<Request>();
  auto* held = new RequestPtr(request);
  if (!submitted(zoo_aset(zh, path.c_str(), data.data(), static_cast<int>(data.size()), version,
                          on_stat, held),
                 "a write of", path, transient, status)) {
    delete held;
    return false;
  }
  if (!wait(*request, deadline, "the write of", path, transient, status)) return false;
  std::lock_guard<std::mutex> lock(request->mutex);
  rc = request->rc;
  if (rc != ZOK && rc != ZBADVERSION && rc != ZNONODE) {
    transient = is_transient(rc);
    return fail(status, errc::store_unavailable,
                "ZooKeeper failed to write " + path + ": " + code_text(rc));
  }
  stat = request->stat;
  return true;
}

bool Session::multi(const std::vector<Op>& ops, Deadline deadline, WriteResult& result,
                    bool& transient, Status& status) {
  transient = false;
  zhandle_t* zh = handle(deadline, transient, status);
  if (zh == nullptr) return false;
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
  auto* held = new RequestPtr(request);
  if (!submitted(zoo_amulti(zh, static_cast<int>(n), request->ops.data(),
                            request->results.data(), on_void, held),
                 "a multi on", ops.front().path, transient, status)) {
    delete held;
    return false;
  }
  if (!wait(*request, deadline, "the multi on", ops.front().path, transient, status)) {
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
  if (result.rc != ZOK && result.rc != ZBADVERSION && result.rc != ZNODEEXISTS &&
      result.rc != ZNONODE) {
    transient = is_transient(result.rc);
    return fail(status, errc::store_unavailable,
                "ZooKeeper failed the multi on " + ops.front().path + ": " +
                    code_text(result.rc));
  }
  return true;
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
