// SPDX-License-Identifier: Apache-2.0
// RawClient: a ZooKeeper C client handle of the tests' own, beside the store under test (which
// the tests reach only through its public API): it joins a store's session by its id and password
// (so that closing it expires the session) and reads, writes, deletes and creates nodes behind
// the store. Its calls are the client's synchronous ones, each bounded by the client's own
// timeouts. expire_session() ends a store's session with it.
//
// Thread safety: one thread uses a RawClient; the client's thread only reports its state.
#ifndef COSID_TESTS_ZOOKEEPER_ZK_RAW_CLIENT_H_
#define COSID_TESTS_ZOOKEEPER_ZK_RAW_CLIENT_H_

#include <gtest/gtest.h>
// The client's synchronous calls (zoo_get, zoo_create, zoo_delete) are declared for the
// multi-threaded library only, which THREADED names.
#ifndef THREADED
#define THREADED
#endif
#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "cosid/zookeeper/lease_store.h"

namespace cosid::testing {

// A handle of the C client of the test's own, for what the stores' API cannot do: join a session
// by its id and password, and read and write nodes behind the store.
class RawClient {
 public:
  // Connects (to `session`, when given), waiting up to 10 s.
  RawClient(const std::string& connect_string, const lease::ZooKeeperLeaseStore::Session* session) {
    clientid_t id{};
    if (session != nullptr) {
      id.client_id = session->id;
      std::memcpy(id.passwd, session->password.data(),
                  std::min(sizeof id.passwd, session->password.size()));
    }
    handle_ = zookeeper_init(connect_string.c_str(), &RawClient::on_watch, 30000,
                             session != nullptr ? &id : nullptr, this, 0);
    EXPECT_NE(handle_, nullptr) << std::strerror(errno);
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, std::chrono::milliseconds(10000), [&] {
      return state_ == ZOO_CONNECTED_STATE || state_ == ZOO_EXPIRED_SESSION_STATE;
    });
    connected_ = state_ == ZOO_CONNECTED_STATE;
    expired_ = state_ == ZOO_EXPIRED_SESSION_STATE;
    EXPECT_TRUE(connected_ || expired_) << "the test's own ZooKeeper handle did not connect to "
                                        << connect_string << " (state " << state_ << ")";
  }
  ~RawClient() { close(); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return connected_; }
  // The server answered that the session it was given no longer exists.
  bool expired() const { return expired_; }
  // Closes the handle, which ends its session on the server (and with it any other handle on it).
  void close() {
    if (handle_ != nullptr) zookeeper_close(handle_);
    handle_ = nullptr;
  }

  // The node's data and stat; false (with the code in `rc`) if it cannot be read.
  bool get(const std::string& path, std::string& data, Stat& stat, int& rc) {
    std::vector<char> buffer(1 << 16);
    int length = static_cast<int>(buffer.size());
    rc = zoo_get(handle_, path.c_str(), 0, buffer.data(), &length, &stat);
    if (rc != ZOK) return false;
    data.assign(buffer.data(), length > 0 ? static_cast<std::size_t>(length) : 0);
    return true;
  }
  int remove(const std::string& path) { return zoo_delete(handle_, path.c_str(), -1); }
  int set(const std::string& path, const std::string& data) {
    return zoo_set(handle_, path.c_str(), data.data(), static_cast<int>(data.size()), -1);
  }
  int create(const std::string& path, const std::string& data) {
    return zoo_create(handle_, path.c_str(), data.data(), static_cast<int>(data.size()),
                      &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
  }

 private:
  static void on_watch(zhandle_t* /*zh*/, int type, int state, const char* /*path*/,
                       void* context) {
    if (type != ZOO_SESSION_EVENT) return;
    auto* self = static_cast<RawClient*>(context);
    std::lock_guard<std::mutex> lock(self->mutex_);
    self->state_ = state;
    self->changed_.notify_all();
  }

  std::mutex mutex_;  // guards state_, written by the client's thread
  std::condition_variable changed_;
  int state_ = 0;
  bool connected_ = false;
  bool expired_ = false;
  zhandle_t* handle_ = nullptr;
};

// Ends `session` on the server: a twin handle on it, closed. A twin closed ends the session, unless
// the store's client took the session back first (the server closes the connection a session
// leaves, and the client reconnects at once): then the twin's close is refused. So, until a twin
// hears that the session is gone, close another (20 at most). True once one heard it.
inline bool expire_session(const std::string& connect_string,
                           const lease::ZooKeeperLeaseStore::Session& session) {
  for (int twins = 0; twins < 20; ++twins) {
    RawClient twin(connect_string, &session);
    if (twin.expired()) return true;
    if (!twin.connected()) return false;
  }
  return false;
}

}  // namespace cosid::testing

#endif  // COSID_TESTS_ZOOKEEPER_ZK_RAW_CLIENT_H_
