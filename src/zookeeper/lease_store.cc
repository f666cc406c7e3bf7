// SPDX-License-Identifier: Apache-2.0
// ZooKeeperLeaseStore: the store-side table of lease/store.h as compare-and-sets on ZooKeeper
// nodes (NODES.md next to this file has the nodes and argues each rule).
#include "cosid/zookeeper/lease_store.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "base/fail.h"
#include "cosid/lease/store_rules.h"
#include "zookeeper/calls.h"
#include "zookeeper/nodes.h"
#include "zookeeper/session.h"
#include "zookeeper/store_root.h"

namespace cosid {
namespace lease {
namespace {

using detail::fail;
using zk::after;
using zk::Deadline;
using zk::Step;

// A slot node as read, with what decides its times.
struct StoredSlot {
  bool exists = false;
  zk::SlotNode node;
  Stat stat{};
  SlotRecord record;
};

}  // namespace

class ZooKeeperLeaseStore::Impl {
 public:
  Impl(const ZooKeeperStoreOptions& options, std::unique_ptr<zk::Session> session)
      : options_(options), session_(std::move(session)) {}

  zk::Session& session() { return *session_; }

  // Runs `step` until it is done or fails for good (zk::run(): one deadline for the whole call,
  // transient failures retried with back-off, a lost compare-and-set read again at once).
  template <typename F>
  bool run(const char* what, F&& step, Status& status) {
    return zk::run(options_, what, std::forward<F>(step), status);
  }

  // The namespace's recorded terms, made on first use; refuses other terms (the namespace-terms
  // rule of PROTOCOL.md).
  Step ensure_namespace(const std::string& name_space, const NamespaceTerms& terms,
                        Deadline deadline, Status& status) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto known = terms_.find(name_space);
      if (known != terms_.end()) {
        return check_recorded_terms(name_space, known->second, terms, status) ? Step::kDone
                                                                              : Step::kFailed;
      }
    }
    const std::string path = zk::namespace_path(name_space);
    bool transient = false;
    zk::NodeRead read;
    if (!session_->get(path, deadline, read, transient, status)) return after(transient);
    if (read.rc == ZNONODE) {
      // A new namespace inside the store is made on first use; the store's root (checked at
      // open) never is: a create under a root removed since fails, with the parent named.
      int rc = ZOK;
      if (!session_->create(zk::owner_parent_path(name_space), std::string(), deadline, rc,
                            transient, status) ||
          !session_->create(path, zk::encode_terms(terms), deadline, rc, transient, status) ||
          !session_->get(path, deadline, read, transient, status)) {
        return after(transient);
      }
      if (read.rc == ZNONODE) return Step::kConflict;
    }
    NamespaceTerms recorded;
    if (!zk::decode_terms(read.data, recorded)) {
      fail(status, errc::store_corrupt,
           "ZooKeeper node " + path +
               " does not hold a namespace's terms (\"limit=N\", "
               "\"tolerance_ms=N\" lines): it was not written by cosid; remove it only if no cosid "
               "ever used namespace \"" +
               name_space + "\"");
      return Step::kFailed;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      terms_[name_space] = recorded;
    }
    return check_recorded_terms(name_space, recorded, terms, status) ? Step::kDone : Step::kFailed;
  }

  // The store's now: the mtime of a write to the namespace's clock node (or the store clock).
  Step read_clock(const std::string& name_space, Deadline deadline, std::int64_t& now,
                  Status& status) {
    const std::string path = zk::clock_path(name_space);
    bool transient = false;
    int rc = ZOK;
    Stat stat{};
    if (!session_->set(path, std::string(), -1, deadline, rc, stat, transient, status)) {
      return after(transient);
    }
    if (rc == ZNONODE) {
      if (!session_->create(path, std::string(), deadline, rc, transient, status)) {
        return after(transient);
      }
      return Step::kConflict;  // created: write it again for a fresh mtime
    }
    now = options_.clock != nullptr ? options_.clock->now_ms() : stat.mtime;
    return Step::kDone;
  }

  // The time a slot node's write happened (NODES.md, "Times").
  static std::int64_t write_time(const zk::SlotNode& node, const Stat& stat) {
    return node.written >= 0 ? node.written : stat.mtime;
  }

  // The count of nodes seen so far, taken before a read is sent (decode()).
  std::uint64_t seen_epoch() const { return seen_.epoch(); }

  // Checks that a node read is the node this store (and the data) knew, then derives its record.
  // `sent_at` is seen_epoch() before the read was sent: a node first seen later may have been
  // created after this read was answered, so its absence here is no deletion. (Requests of one
  // session are answered in order, so a node seen before the read was sent must be in it.)
  bool decode(const std::string& name_space, std::uint32_t slot, const zk::NodeRead& read,
              std::uint64_t sent_at, StoredSlot& out, Status& status) {
    const std::string path = zk::slot_path(name_space, slot);
    out = StoredSlot{};
    if (read.rc == ZNONODE) {
      if (!seen_.deleted(path, sent_at)) return true;
      return fail(status, errc::store_corrupt,
                  "ZooKeeper slot node " + path +
                      " was deleted behind the store: its floor is "
                      "lost, so cosid will not use the slot; never delete slot nodes (restore the "
                      "node from a backup of the ensemble)");
    }
    if (!zk::decode_slot(read.data, out.node)) {
      return fail(status, errc::store_corrupt,
                  "ZooKeeper slot node " + path +
                      " does not hold a slot record written by "
                      "cosid; it is left alone and its slot is not used: restore it from a backup "
                      "of the ensemble");
    }
    const std::int64_t czxid = read.stat.czxid;
    // The text itself names another node, or was set (version above 0) without naming one: the
    // node is not the one it was written to, whatever this store saw.
    const bool moved_text = (out.node.node != 0 && out.node.node != czxid) ||
                            (out.node.node == 0 && read.stat.version > 0);
    std::int64_t first = 0;
    bool recreated = moved_text;
    if (moved_text) {
      first = seen_.seen(path);
    } else {
      recreated = !seen_.identify(path, czxid, first);
    }
    if (recreated) {
      return fail(status, errc::store_corrupt,
                  "ZooKeeper slot node " + path +
                      " was deleted and recreated behind the store "
                      "(czxid " +
                      std::to_string(czxid) + ", the record was written to " +
                      std::to_string(out.node.node != 0 ? out.node.node : first) +
                      "): its fence and floors cannot be trusted, so cosid will not use the slot");
    }
    out.exists = true;
    out.stat = read.stat;
    out.record = zk::record_of(slot, out.node, write_time(out.node, read.stat));
    return true;
  }

  // The owner index at `path` (NODES.md, "The owner index"): `listed` ascending, empty and
  // `read.rc` ZNONODE when the key has none yet; `read` keeps the Stat for a compare-and-set.
  Step read_index(const std::string& path, Deadline deadline, zk::NodeRead& read,
                  std::vector<std::uint32_t>& listed, Status& status) {
    bool transient = false;
    if (!session_->get(path, deadline, read, transient, status)) return after(transient);
    listed.clear();
    if (read.rc == ZOK && !zk::decode_index(read.data, listed)) {
      fail(status, errc::store_corrupt,
           "ZooKeeper owner index " + path +
               " does not hold \"slots=N,N,...\": it was not written by cosid; remove it (the "
               "index is rebuilt by the next acquires) only with every process of the namespace "
               "stopped");
      return Step::kFailed;
    }
    return Step::kDone;
  }

  Step read_slot(const std::string& name_space, std::uint32_t slot, Deadline deadline,
                 StoredSlot& out, Status& status) {
    bool transient = false;
    zk::NodeRead read;
    const std::uint64_t sent_at = seen_epoch();
    if (!session_->get(zk::slot_path(name_space, slot), deadline, read, transient, status)) {
      return after(transient);
    }
    return decode(name_space, slot, read, sent_at, out, status) ? Step::kDone : Step::kFailed;
  }

  // Reads `slots` in one pipelined batch; slots without a node are left out.
  Step read_many(const std::string& name_space, const std::vector<std::uint32_t>& slots,
                 Deadline deadline, std::vector<SlotRecord>& records, Status& status) {
    std::vector<std::string> paths;
    paths.reserve(slots.size());
    for (const std::uint32_t slot : slots) paths.push_back(zk::slot_path(name_space, slot));
    bool transient = false;
    std::vector<zk::NodeRead> reads;
    const std::uint64_t sent_at = seen_epoch();
    if (!session_->get_many(paths, deadline, reads, transient, status)) return after(transient);
    records.clear();
    for (std::size_t i = 0; i < slots.size(); ++i) {
      StoredSlot stored;
      if (!decode(name_space, slots[i], reads[i], sent_at, stored, status)) return Step::kFailed;
      if (stored.exists) records.push_back(stored.record);
    }
    return Step::kDone;
  }

  // A never-used slot gets its node (a free record) first, so that every change is a set with a
  // version and its Stat gives the mtime the lease times come from. `created`, if given, is set
  // when this call's create made the node.
  Step create_slot(const std::string& name_space, std::uint32_t slot, Deadline deadline,
                   Status& status, bool* created = nullptr) {
    bool transient = false;
    int rc = ZOK;
    if (!session_->create(zk::slot_path(name_space, slot), zk::encode_slot(zk::SlotNode{}),
                          deadline, rc, transient, status)) {
      return after(transient);
    }
    if (created != nullptr && rc == ZOK) *created = true;
    return Step::kConflict;  // read it again, whoever created it
  }

  // The node text to write over `stored` for `record`, the result of a store rule.
  std::string next_text(const StoredSlot& stored, const SlotRecord& record, std::int64_t ttl_ms,
                        std::int64_t tolerance_ms) const {
    zk::SlotNode node = zk::node_of(record, ttl_ms, tolerance_ms);
    node.node = stored.stat.czxid;
    if (options_.clock != nullptr) node.written = options_.clock->now_ms();
    return zk::encode_slot(node);
  }

  // Writes `text` over the slot node `stored` was read from, compared on its version: kDone with
  // the write's Stat, kConflict when the node changed since the read.
  Step set_slot(const std::string& path, const std::string& text, const StoredSlot& stored,
                Deadline deadline, Stat& stat, Status& status) {
    bool transient = false;
    int rc = ZOK;
    if (!session_->set(path, text, stored.stat.version, deadline, rc, stat, transient, status)) {
      return after(transient);
    }
    return rc == ZOK ? Step::kDone : Step::kConflict;
  }

  // The record a successful write of `text` produced, its times from the write (`at`).
  static SlotRecord written_record(std::uint32_t slot, const std::string& text, const Stat& stat,
                                   std::int64_t& at) {
    zk::SlotNode node;
    (void)zk::decode_slot(text, node);  // encoded by next_text(): always decodes
    at = write_time(node, stat);
    return zk::record_of(slot, node, at);
  }

  // A set whose answer was lost may have been applied: the next read shows our exact text at the
  // version after the one we compared. Release depends on it (a replay would see lease_lost).
  struct UnknownWrite {
    bool pending = false;
    int version = 0;
    std::string text;
    bool applied(const StoredSlot& stored, const zk::NodeRead& read) const {
      return pending && stored.exists && stored.stat.version == version + 1 && read.data == text;
    }
  };

  const ZooKeeperStoreOptions options_;
  std::unique_ptr<zk::Session> session_;
  std::mutex mutex_;                             // guards terms_
  std::map<std::string, NamespaceTerms> terms_;  // namespaces whose node was read
  zk::SeenNodes seen_;                           // the slot nodes this store has read
};

ZooKeeperLeaseStore::ZooKeeperLeaseStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ZooKeeperLeaseStore::~ZooKeeperLeaseStore() = default;

std::unique_ptr<ZooKeeperLeaseStore> ZooKeeperLeaseStore::open(const ZooKeeperStoreOptions& options,
                                                               Status& status) {
  std::unique_ptr<zk::Session> session = zk::Session::open(options, status);
  if (session == nullptr ||
      !zk::check_store_root(*session, options, zk::lease_root_paths(), status)) {
    return nullptr;
  }
  status.clear();
  return std::unique_ptr<ZooKeeperLeaseStore>(
      new ZooKeeperLeaseStore(std::make_unique<Impl>(options, std::move(session))));
}

#if COSID_HAS_EXCEPTIONS
std::unique_ptr<ZooKeeperLeaseStore> ZooKeeperLeaseStore::open(
    const ZooKeeperStoreOptions& options) {
  Status status;
  std::unique_ptr<ZooKeeperLeaseStore> store = open(options, status);
  detail::throw_if_failed(status);
  return store;
}
#endif

bool ZooKeeperLeaseStore::scan(const std::string& name_space, const NamespaceTerms& terms,
                               std::vector<SlotRecord>& records, std::int64_t& store_now,
                               Status& status) {
  if (!check_scan(name_space, terms, status) || !zk::check_namespace(name_space, status)) {
    return false;
  }
  return impl_->run(
      "scan",
      [&](Deadline deadline, Status& s) {
        Step step = impl_->ensure_namespace(name_space, terms, deadline, s);
        if (step != Step::kDone || !s.ok()) return step;
        step = impl_->read_clock(name_space, deadline, store_now, s);
        if (step != Step::kDone) return step;
        bool transient = false;
        int rc = ZOK;
        std::vector<std::string> names;
        if (!impl_->session().children(zk::namespace_path(name_space), deadline, rc, names,
                                       transient, s)) {
          return after(transient);
        }
        std::vector<std::uint32_t> slots;
        for (const std::string& name : names) {
          if (name == ".clock") continue;
          std::uint64_t slot = 0;
          bool numeric = !name.empty() && name.size() <= 10 && (name == "0" || name[0] != '0');
          for (const char c : name) numeric = numeric && c >= '0' && c <= '9';
          if (numeric) slot = std::stoull(name);
          if (!numeric || slot >= terms.slot_limit) {
            fail(s, errc::store_corrupt,
                 "ZooKeeper node " + zk::namespace_path(name_space) + "/" + name +
                     " is not a slot of the namespace (slot limit " +
                     std::to_string(terms.slot_limit) + "): it was not written by cosid");
            return Step::kFailed;
          }
          slots.push_back(static_cast<std::uint32_t>(slot));
        }
        std::sort(slots.begin(), slots.end());
        return impl_->read_many(name_space, slots, deadline, records, s);
      },
      status);
}

bool ZooKeeperLeaseStore::read_owner_index(const std::string& name_space,
                                           const NamespaceTerms& terms,
                                           const std::string& owner_key,
                                           std::vector<std::uint32_t>& slots,
                                           std::int64_t& store_now, Status& status) {
  if (!check_scan(name_space, terms, status) || !zk::check_namespace(name_space, status)) {
    return false;
  }
  return impl_->run(
      "owner index read",
      [&](Deadline deadline, Status& s) {
        Step step = impl_->ensure_namespace(name_space, terms, deadline, s);
        if (step != Step::kDone || !s.ok()) return step;
        step = impl_->read_clock(name_space, deadline, store_now, s);
        if (step != Step::kDone) return step;
        zk::NodeRead read;
        std::vector<std::uint32_t> listed;
        step = impl_->read_index(zk::owner_path(name_space, owner_key), deadline, read, listed, s);
        if (step != Step::kDone) return step;
        slots.clear();
        for (const std::uint32_t slot : listed) {
          if (slot < terms.slot_limit) slots.push_back(slot);
        }
        return Step::kDone;
      },
      status);
}

bool ZooKeeperLeaseStore::read_slots(const std::string& name_space, const NamespaceTerms& terms,
                                     const std::vector<std::uint32_t>& slots,
                                     std::vector<SlotRecord>& records, Status& status) {
  if (!check_scan(name_space, terms, status) || !zk::check_namespace(name_space, status)) {
    return false;
  }
  for (const std::uint32_t slot : slots) {
    if (slot >= terms.slot_limit) {
      return fail(status, errc::invalid_argument,
                  "slot " + std::to_string(slot) + " of namespace \"" + name_space +
                      "\" is at or above the slot limit " + std::to_string(terms.slot_limit));
    }
  }
  return impl_->run(
      "slot read",
      [&](Deadline deadline, Status& s) {
        const Step step = impl_->ensure_namespace(name_space, terms, deadline, s);
        if (step != Step::kDone || !s.ok()) return step;
        return impl_->read_many(name_space, slots, deadline, records, s);
      },
      status);
}

bool ZooKeeperLeaseStore::acquire(const AcquireRequest& request, AcquireOutcome& outcome,
                                  SlotLease& lease, SlotRecord& record, Status& status) {
  if (!check_acquire(request, status) || !zk::check_namespace(request.name_space, status)) {
    return false;
  }
  const std::string& ns = request.name_space;
  const std::string slot_path = zk::slot_path(ns, request.slot);
  const std::string index_path = zk::owner_path(ns, request.owner.key);
  return impl_->run(
      "acquire",
      [&](Deadline deadline, Status& s) {
        Step step = impl_->ensure_namespace(ns, request.terms, deadline, s);
        if (step != Step::kDone || !s.ok()) return step;
        std::int64_t now = 0;
        step = impl_->read_clock(ns, deadline, now, s);
        if (step != Step::kDone) return step;
        StoredSlot stored;
        step = impl_->read_slot(ns, request.slot, deadline, stored, s);
        if (step != Step::kDone) return step;
        if (!stored.exists) return impl_->create_slot(ns, request.slot, deadline, s);

        SlotRecord next = stored.record;
        outcome = apply_acquire(next, request, now, lease);
        if (outcome == AcquireOutcome::kTaken) {
          record = stored.record;
          return Step::kDone;
        }
        if (next.fence == stored.record.fence) return Step::kDone;  // a retry: the lease it holds

        // The owner index gains the slot in the same multi, so it is never behind the slots.
        zk::NodeRead index;
        std::vector<std::uint32_t> listed;
        step = impl_->read_index(index_path, deadline, index, listed, s);
        if (step != Step::kDone) return step;
        if (!std::binary_search(listed.begin(), listed.end(), request.slot)) {
          listed.insert(std::upper_bound(listed.begin(), listed.end(), request.slot), request.slot);
        }
        const std::string text =
            impl_->next_text(stored, next, request.ttl.count(), request.terms.tolerance.count());
        std::vector<zk::Op> ops(2);
        ops[0] = zk::Op{zk::Op::kSet, slot_path, text, stored.stat.version};
        ops[1] =
            index.rc == ZOK
                ? zk::Op{zk::Op::kSet, index_path, zk::encode_index(listed), index.stat.version}
                : zk::Op{zk::Op::kCreate, index_path, zk::encode_index(listed), -1};
        zk::WriteResult result;
        bool transient = false;
        if (!impl_->session().multi(ops, deadline, result, transient, s)) return after(transient);
        if (result.rc != ZOK) return Step::kConflict;  // nothing applied: read again
        std::int64_t at = 0;
        lease = lease_of(ns, Impl::written_record(request.slot, text, result.op_stat[0], at), now);
        return Step::kDone;
      },
      status);
}

bool ZooKeeperLeaseStore::renew(const SlotLease& held, const NamespaceTerms& terms,
                                std::chrono::milliseconds ttl, SlotLease& renewed, Status& status) {
  if (!check_held(held, terms, ttl, status) || !zk::check_namespace(held.name_space, status)) {
    return false;
  }
  const std::string path = zk::slot_path(held.name_space, held.slot);
  return impl_->run(
      "renewal",
      [&](Deadline deadline, Status& s) {
        Step step = impl_->ensure_namespace(held.name_space, terms, deadline, s);
        if (step != Step::kDone || !s.ok()) return step;
        StoredSlot stored;
        step = impl_->read_slot(held.name_space, held.slot, deadline, stored, s);
        if (step != Step::kDone) return step;
        SlotRecord next = stored.record;
        // At the replaced write's own time the rule keeps that write's times: they become the lower
        // bounds, and the new write's mtime moves them up (NODES.md, "Times").
        const std::int64_t then = Impl::write_time(stored.node, stored.stat);
        if (!stored.exists || !apply_renew(next, held, terms, ttl, then, renewed, s)) {
          if (!stored.exists) {
            fail(s, errc::lease_lost,
                 "slot " + std::to_string(held.slot) + " of namespace \"" + held.name_space +
                     "\" has no record in ZooKeeper: the lease is gone");
          }
          return Step::kFailed;
        }
        const std::string text =
            impl_->next_text(stored, next, ttl.count(), terms.tolerance.count());
        Stat stat{};
        step = impl_->set_slot(path, text, stored, deadline, stat, s);
        if (step != Step::kDone) return step;
        std::int64_t at = 0;
        const SlotRecord written = Impl::written_record(held.slot, text, stat, at);
        renewed = lease_of(held.name_space, written, at);
        return Step::kDone;
      },
      status);
}

bool ZooKeeperLeaseStore::release(const SlotLease& held, const NamespaceTerms& terms,
                                  std::int64_t last_issued, Status& status) {
  if (!check_held(held, terms, std::chrono::milliseconds(1), status) ||
      !zk::check_namespace(held.name_space, status)) {
    return false;
  }
  const std::string path = zk::slot_path(held.name_space, held.slot);
  Impl::UnknownWrite unknown;
  return impl_->run(
      "release",
      [&](Deadline deadline, Status& s) {
        Step step = impl_->ensure_namespace(held.name_space, terms, deadline, s);
        if (step != Step::kDone || !s.ok()) return step;
        bool transient = false;
        zk::NodeRead read;
        const std::uint64_t sent_at = impl_->seen_epoch();
        if (!impl_->session().get(path, deadline, read, transient, s)) return after(transient);
        StoredSlot stored;
        if (!impl_->decode(held.name_space, held.slot, read, sent_at, stored, s)) {
          return Step::kFailed;
        }
        if (unknown.applied(stored, read)) return Step::kDone;  // our release, its answer lost
        SlotRecord next = stored.record;
        if (!stored.exists || !apply_release(next, held, last_issued, s)) {
          if (!stored.exists) {
            fail(s, errc::lease_lost,
                 "slot " + std::to_string(held.slot) + " of namespace \"" + held.name_space +
                     "\" has no record in ZooKeeper: the lease is gone");
          }
          return Step::kFailed;
        }
        const std::string text =
            impl_->next_text(stored, next, stored.node.ttl_ms, terms.tolerance.count());
        int rc = ZOK;
        Stat stat{};
        unknown = Impl::UnknownWrite{true, stored.stat.version, text};
        if (!impl_->session().set(path, text, stored.stat.version, deadline, rc, stat, transient,
                                  s)) {
          return after(transient);
        }
        unknown.pending = false;
        return rc == ZOK ? Step::kDone : Step::kConflict;
      },
      status);
}

bool ZooKeeperLeaseStore::fence(const std::string& name_space, const NamespaceTerms& terms,
                                std::uint32_t slot, std::int64_t not_before, FenceResult& result,
                                Status& status) {
  if (!check_fence(name_space, terms, slot, not_before, status) ||
      !zk::check_namespace(name_space, status)) {
    return false;
  }
  const std::string path = zk::slot_path(name_space, slot);
  bool created = false;  // this call made the slot's node: the slot had no record
  return impl_->run(
      "fence",
      [&](Deadline deadline, Status& s) {
        Step step = impl_->ensure_namespace(name_space, terms, deadline, s);
        if (step != Step::kDone || !s.ok()) return step;
        StoredSlot stored;
        step = impl_->read_slot(name_space, slot, deadline, stored, s);
        if (step != Step::kDone) return step;
        if (!stored.exists) return impl_->create_slot(name_space, slot, deadline, s, &created);
        SlotRecord next = stored.record;  // its times derived from its write (NODES.md, "Times")
        // A node this call created stands for a slot that had no record.
        const FenceResult fenced = apply_fence(next, !created, not_before);
        // Nothing to change (a retry whose first set was applied, or a second fence): the record
        // read is committed, hence logged by a quorum (NODES.md, "Durability").
        if (fenced.after.next_floor == stored.record.next_floor && !stored.record.held) {
          result = fenced;
          return Step::kDone;
        }
        const std::string text =
            impl_->next_text(stored, next, stored.node.ttl_ms, terms.tolerance.count());
        Stat stat{};
        step = impl_->set_slot(path, text, stored, deadline, stat, s);
        if (step == Step::kDone) result = fenced;
        return step;
      },
      status);
}

std::chrono::milliseconds ZooKeeperLeaseStore::session_timeout_granted() const {
  return impl_->session().granted_timeout();
}

bool ZooKeeperLeaseStore::session(Session& out) const { return impl_->session().session(out); }

std::uint64_t ZooKeeperLeaseStore::sessions_opened() const {
  return impl_->session().sessions_opened();
}

}  // namespace lease
}  // namespace cosid
