// SPDX-License-Identifier: Apache-2.0
// Internal to the ZooKeeper store: the paths of its nodes and the text in them (NODES.md).
//
// Thread safety: pure functions of their arguments.
#ifndef COSID_SRC_ZOOKEEPER_NODES_H_
#define COSID_SRC_ZOOKEEPER_NODES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cosid/error.h"
#include "cosid/lease/store.h"

namespace cosid {
namespace lease {
namespace zk {

// Paths. A namespace must pass check_namespace(); an owner key is escaped.
std::string namespace_path(const std::string& name_space);  // /cosid/slot/{ns}
std::string slot_path(const std::string& name_space, std::uint32_t slot);
std::string clock_path(const std::string& name_space);  // /cosid/slot/{ns}/.clock
std::string owner_path(const std::string& name_space, const std::string& owner_key);
// The parent of a namespace's owner index nodes, /cosid/owner/{ns}: made on the namespace's first
// use, like /cosid/slot/{ns}.
std::string owner_parent_path(const std::string& name_space);
// A range key's node, /cosid/range/{key} (the key as segment::check_key() allows it, a path
// component as it is).
std::string range_path(const std::string& key);

// The store itself (NODES.md, "The store's root"), outermost first: /cosid and the parents of
// every namespace, owner index and range key. Only init_zookeeper_store() creates them.
std::vector<std::string> store_paths();
// The ones a lease store needs (/cosid/slot, /cosid/owner), and a range store (/cosid/range).
std::vector<std::string> lease_root_paths();
std::vector<std::string> range_root_paths();

// A namespace is 1 to 200 bytes of printable ASCII without '/', and not "." or "..".
bool check_namespace(const std::string& name_space, Status& status);

// The key with every byte outside [A-Za-z0-9._:-] as %XX: a path component, and a value that
// holds no line break.
std::string escape_key(const std::string& key);
bool unescape_key(const std::string& text, std::string& key);

// The namespace node: "limit=N\ntolerance_ms=N\n".
std::string encode_terms(const NamespaceTerms& terms);
bool decode_terms(const std::string& text, NamespaceTerms& terms);

// The owner index: "slots=1,5,7\n" (ascending).
std::string encode_index(const std::vector<std::uint32_t>& slots);
bool decode_index(const std::string& text, std::vector<std::uint32_t>& slots);

// A slot node as stored: the table's record in lower bounds, times derived at read (NODES.md).
struct SlotNode {
  std::string owner_key;  // empty: free
  Incarnation incarnation;
  std::string last_owner_key;
  std::uint64_t fence = 0;
  std::int64_t ttl_ms = 0;
  std::int64_t tolerance_ms = 0;
  std::int64_t floor = 0;
  std::int64_t expires_min = 0;
  std::int64_t ceiling_min = 0;
  std::int64_t next_floor = 0;
  // With a store clock: the clock's time of this write, used instead of the mtime; else -1.
  std::int64_t written = -1;
  // The czxid of the node this text was written to, once known (0: the first write).
  std::int64_t node = 0;
};

std::string encode_slot(const SlotNode& node);
bool decode_slot(const std::string& text, SlotNode& node);

// The record a node describes, its write at `write_time` (the mtime, or node.written):
// expires_at = max(expires_min, write_time + ttl), ceiling = max(ceiling_min, expires_at +
// tolerance, floor), next_floor = max(next_floor, ceiling) while held.
SlotRecord record_of(std::uint32_t slot, const SlotNode& node, std::int64_t write_time);

// The node to write for `record`, the result of a store rule: its times become the lower bounds
// (NODES.md: a renewal computed at the replaced write's time keeps that write's times, an acquire
// has its new term's own), so a later write's derived times never go below them.
SlotNode node_of(const SlotRecord& record, std::int64_t ttl_ms, std::int64_t tolerance_ms);

}  // namespace zk
}  // namespace lease
}  // namespace cosid

#endif  // COSID_SRC_ZOOKEEPER_NODES_H_
