// SPDX-License-Identifier: Apache-2.0
// ZooKeeperRangeStore: the table of segment/range_store.h as compare-and-sets on one ZooKeeper
// node per key (NODES.md next to this file, "Range nodes", argues each rule). The rules decide
// (segment/range_rules.h); this file reads the node, checks it is the node this store knew, and
// writes the rules' result on the version it read.
#include "cosid/zookeeper/range_store.h"

#include <atomic>
#include <climits>
#include <cstdio>

#include "base/fail.h"
#include "cosid/segment/range_rules.h"
#include "zookeeper/calls.h"
#include "zookeeper/nodes.h"
#include "zookeeper/session.h"
#include "zookeeper/store_root.h"

namespace cosid {
namespace segment {
namespace {

using detail::fail;
using lease::zk::after;
using lease::zk::Deadline;
using lease::zk::NodeRead;
using lease::zk::Step;

// A node's text for a message: at most 64 bytes, each byte outside printable ASCII as \xNN.
std::string shown(const std::string& text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < 64; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    }
  }
  if (text.size() > 64) out += "...";
  return out + "\"";
}

// A range node as read: the record, and the Stat its compare-and-set needs.
struct StoredRange {
  RangeState state;  // exists false: no node
  Stat stat{};
  std::string text;  // the node's data as read
};

}  // namespace

class ZooKeeperRangeStore::Impl {
 public:
  Impl(const lease::ZooKeeperStoreOptions& options, std::unique_ptr<lease::zk::Session> session)
      : options_(options), session_(std::move(session)) {}

  lease::zk::Session& session() { return *session_; }

  // A claim created `key`'s node, its first value `first`.
  void report_started(const std::string& key, std::int64_t first) {
    report_key_started(options_.listener, "ZooKeeper range store " + options_.connect_string, key,
                       first);
  }

  template <typename F>
  bool run(const char* what, F&& step, Status& status) {
    return lease::zk::run(options_, what, std::forward<F>(step), status);
  }

  // Reads the key's node and checks it (decode()).
  Step read(const std::string& path, Deadline deadline, StoredRange& out, Status& status) {
    bool transient = false;
    NodeRead read;
    const std::uint64_t sent_at = seen_.epoch();
    if (!session_->get(path, deadline, read, transient, status)) return after(transient);
    return decode(path, read, sent_at, out, status) ? Step::kDone : Step::kFailed;
  }

  // Checks that a node read is the node this store saw at `path` (if any), and parses its text.
  // A node missing that this store saw before the read was sent was deleted behind it; a node of
  // another czxid than the one it saw was recreated: both store_corrupt, and left as they are.
  bool decode(const std::string& path, const NodeRead& read, std::uint64_t sent_at,
              StoredRange& out, Status& status) {
    out = StoredRange{};
    if (read.rc == ZNONODE) {
      if (!seen_.deleted(path, sent_at)) return true;
      return fail(status, errc::store_corrupt,
                  "ZooKeeper range node " + path +
                      " was deleted behind the store: the key's next value is lost, and a new "
                      "node would hand its values out again, so this store will not use the key; "
                      "restore the node from a backup of the ensemble (with a next value above "
                      "every value handed out) and restart the processes using the key; never "
                      "delete a range node while any store uses its key");
    }
    if (!parse_range_value(read.data, out.state)) {
      return fail(status, errc::store_corrupt,
                  "ZooKeeper range node " + path + " holds " + shown(read.data) +
                      ", not a range record (the next value in decimal, \":sealed\" appended "
                      "once sealed): it was not written by cosid, and is left alone; restore it "
                      "from a backup of the ensemble, or use another key");
    }
    if (!identified(path, read.stat.czxid, read.data, status)) {
      out = StoredRange{};
      return false;
    }
    out.state.version = static_cast<std::uint64_t>(read.stat.version);
    out.stat = read.stat;
    out.text = read.data;
    return true;
  }

  // The node `czxid` holding `text` is the one this store first saw at `path` (or the first it
  // sees there); else store_corrupt.
  bool identified(const std::string& path, std::int64_t czxid, const std::string& text,
                  Status& status) {
    std::int64_t first = 0;
    if (seen_.identify(path, czxid, first)) return true;
    return fail(status, errc::store_corrupt,
                "ZooKeeper range node " + path +
                    " was deleted and recreated behind the store (czxid " + std::to_string(czxid) +
                    ", this store saw " + std::to_string(first) + "; it holds " + shown(text) +
                    "): a recreated node starts the key over and would hand values out again, "
                    "so this store will not use the key; set the node to a next value above "
                    "every value handed out, then restart the processes using the key");
  }

  // A node's version is a 32-bit counter: a node written INT_MAX times cannot take one more
  // compare-and-set without its version wrapping (and at -1, ZooKeeper's "any version").
  static bool writable(const std::string& key, const StoredRange& stored, Status& status) {
    if (stored.stat.version < INT_MAX) return true;
    return fail(status, errc::range_exhausted,
                "segment key \"" + key + "\": its ZooKeeper node " + lease::zk::range_path(key) +
                    " has been written " + std::to_string(stored.stat.version) +
                    " times, the most its version counts, so it takes no more changes: move to a "
                    "new key, whose values start over");
  }

  // Writes `next` over `stored` (a set on the version read; a create when there is no node).
  // kDone with `version` the written node's version; kConflict when another writer came first
  // (nothing written).
  Step write(const std::string& path, const StoredRange& stored, const RangeState& next,
             Deadline deadline, std::uint64_t& version, Status& status) {
    const std::string text = format_range_value(next);
    bool transient = false;
    int rc = ZOK;
    Stat stat{};
    if (!stored.state.exists) {
      // A node this store saw and did not find was deleted, or the answer is older than the node
      // a concurrent call saw: read again (then deleted() decides), never create it anew.
      if (seen_.seen_any(path)) return Step::kConflict;
      // /cosid/range exists (checked at open) and is never made here: a create under one removed
      // since fails, with the parent named.
      if (!session_->create(path, text, deadline, rc, transient, status, &stat)) {
        return after(transient);
      }
      if (rc == ZNODEEXISTS) return Step::kConflict;  // another store created it: read it
      if (!identified(path, stat.czxid, text, status)) return Step::kFailed;
    } else {
      if (!session_->set(path, text, stored.stat.version, deadline, rc, stat, transient, status)) {
        return after(transient);
      }
      // ZNONODE: deleted since the read, which the next read reports.
      if (rc != ZOK) return Step::kConflict;
    }
    version = static_cast<std::uint64_t>(stat.version);
    return Step::kDone;
  }

  // A give_back's set, decided once: the version it compares and the text it writes. A retry
  // after a lost answer sends the same set again; a set refused then may be the first one's
  // doing, which a read tells (applied()).
  struct GiveBack {
    bool decided = false;
    int version = 0;
    std::string text;
    // Our set was applied: the node is at the next version with our exact text. Nothing else
    // writes that text there: a claim only raises the next value, a seal appends ":sealed", and
    // the values given back are the tail of one claim, given back once (range_store.h).
    bool applied(const StoredRange& stored) const {
      return stored.state.exists && stored.stat.version == version + 1 && stored.text == text;
    }
  };

  const lease::ZooKeeperStoreOptions options_;
  std::unique_ptr<lease::zk::Session> session_;
  lease::zk::SeenNodes seen_;  // the range nodes this store has read or created
};

ZooKeeperRangeStore::ZooKeeperRangeStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ZooKeeperRangeStore::~ZooKeeperRangeStore() = default;

std::unique_ptr<ZooKeeperRangeStore> ZooKeeperRangeStore::open(
    const lease::ZooKeeperStoreOptions& options, Status& status) {
  std::unique_ptr<lease::zk::Session> session = lease::zk::Session::open(options, status);
  if (session == nullptr ||
      !lease::zk::check_store_root(*session, options, lease::zk::range_root_paths(), status)) {
    return nullptr;
  }
  status.clear();
  return std::unique_ptr<ZooKeeperRangeStore>(
      new ZooKeeperRangeStore(std::make_unique<Impl>(options, std::move(session))));
}

#if COSID_HAS_EXCEPTIONS
std::unique_ptr<ZooKeeperRangeStore> ZooKeeperRangeStore::open(
    const lease::ZooKeeperStoreOptions& options) {
  Status status;
  std::unique_ptr<ZooKeeperRangeStore> store = open(options, status);
  detail::throw_if_failed(status);
  return store;
}
#endif

bool ZooKeeperRangeStore::claim(const RangeRequest& request, Range& range, Status& status) {
  if (!check_claim(request, status)) return false;
  const std::string path = lease::zk::range_path(request.key);
  // Every try reads the node and decides anew: a try whose write's answer was lost leaves that
  // range unused (a gap), and the next try claims above it (never an overlap).
  return impl_->run(
      "claim",
      [&](Deadline deadline, Status& s) {
        StoredRange stored;
        Step step = impl_->read(path, deadline, stored, s);
        if (step != Step::kDone) return step;
        RangeState next = stored.state;
        Range claimed;
        if (!apply_claim(next, request, claimed, s) || !Impl::writable(request.key, stored, s)) {
          return Step::kFailed;
        }
        step = impl_->write(path, stored, next, deadline, claimed.version, s);
        if (step != Step::kDone) return step;
        // The ensemble acknowledged the create: the key's record is durable, and new.
        if (!stored.state.exists) impl_->report_started(request.key, claimed.first);
        range = claimed;
        return step;
      },
      status);
}

bool ZooKeeperRangeStore::give_back(const std::string& key, const Range& unused, bool& returned,
                                    Status& status) {
  if (!check_give_back(key, unused, status)) return false;
  const std::string path = lease::zk::range_path(key);
  Impl::GiveBack decision;
  return impl_->run(
      "give-back",
      [&](Deadline deadline, Status& s) {
        if (!decision.decided) {
          StoredRange stored;
          const Step step = impl_->read(path, deadline, stored, s);
          if (step != Step::kDone) return step;
          RangeState next = stored.state;
          bool taken = false;
          apply_give_back(next, unused, taken);
          if (!taken) {
            returned = false;
            return Step::kDone;
          }
          // From here on the call only ever sends this set (GiveBack).
          decision = Impl::GiveBack{true, stored.stat.version, format_range_value(next)};
        }
        bool transient = false;
        int rc = ZOK;
        Stat stat{};
        if (!impl_->session().set(path, decision.text, decision.version, deadline, rc, stat,
                                  transient, s)) {
          return after(transient);
        }
        if (rc == ZOK) {
          returned = true;
          return Step::kDone;
        }
        // Refused: the node changed since the read, maybe by this very set, applied on a try
        // whose answer was lost. Read it to tell (and to report a node deleted or recreated).
        StoredRange now;
        const Step step = impl_->read(path, deadline, now, s);
        if (step != Step::kDone) return step;
        returned = decision.applied(now);
        return Step::kDone;
      },
      status);
}

bool ZooKeeperRangeStore::seal(const std::string& key, RangeState& state, Status& status) {
  if (!check_key(key, status)) return false;
  const std::string path = lease::zk::range_path(key);
  return impl_->run(
      "seal",
      [&](Deadline deadline, Status& s) {
        StoredRange stored;
        Step step = impl_->read(path, deadline, stored, s);
        if (step != Step::kDone) return step;
        RangeState next = stored.state;
        if (!apply_seal(next, key, s)) return Step::kFailed;
        if (next.version == stored.state.version) {  // sealed already: nothing to write
          state = stored.state;
          return Step::kDone;
        }
        if (!Impl::writable(key, stored, s)) return Step::kFailed;
        step = impl_->write(path, stored, next, deadline, next.version, s);
        if (step == Step::kDone) state = next;
        return step;
      },
      status);
}

bool ZooKeeperRangeStore::read(const std::string& key, RangeState& state, Status& status) {
  if (!check_key(key, status)) return false;
  const std::string path = lease::zk::range_path(key);
  return impl_->run(
      "read",
      [&](Deadline deadline, Status& s) {
        StoredRange stored;
        const Step step = impl_->read(path, deadline, stored, s);
        if (step == Step::kDone) state = stored.state;
        return step;
      },
      status);
}

bool ZooKeeperRangeStore::session(lease::ZooKeeperLeaseStore::Session& out) const {
  return impl_->session().session(out);
}

std::uint64_t ZooKeeperRangeStore::sessions_opened() const {
  return impl_->session().sessions_opened();
}

}  // namespace segment
}  // namespace cosid
