// SPDX-License-Identifier: Apache-2.0
// The ZooKeeper store's codec (src/zookeeper/nodes.h), without a server: the node paths, the
// escaping of owner keys into a path component, the text of the namespace, owner index and slot
// nodes (round trips, and every kind of malformed text refused), and record_of(), which derives a
// slot's times from its lower bounds and the time of the write.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cosid/error.h"
#include "cosid/lease/store.h"
#include "support/test_util.h"
#include "zookeeper/nodes.h"

namespace cosid::lease::zk {
namespace {

using std::chrono::milliseconds;

Incarnation fixed_incarnation() {
  Incarnation incarnation;
  for (std::size_t i = 0; i < 16; ++i) incarnation.bytes[i] = static_cast<std::uint8_t>(i * 17);
  return incarnation;
}

// A held slot node with every field distinct, so a field read into the wrong place shows.
SlotNode held_node() {
  SlotNode node;
  node.owner_key = "host-a:101";
  node.incarnation = fixed_incarnation();
  node.last_owner_key = "host-b:202";
  node.fence = 7;
  node.ttl_ms = 30000;
  node.tolerance_ms = 1000;
  node.floor = 1700000000000;
  node.expires_min = 1700000030000;
  node.ceiling_min = 1700000031000;
  node.next_floor = 1700000031000;
  return node;
}

const char kHeldText[] =
    "owner=host-a:101\n"
    "incarnation=00112233-4455-6677-8899-aabbccddeeff\n"
    "last_owner=host-b:202\n"
    "fence=7\n"
    "ttl_ms=30000\n"
    "tolerance_ms=1000\n"
    "floor=1700000000000\n"
    "expires_min=1700000030000\n"
    "ceiling_min=1700000031000\n"
    "next_floor=1700000031000\n";

void expect_same_node(const SlotNode& a, const SlotNode& b) {
  EXPECT_EQ(a.owner_key, b.owner_key);
  EXPECT_EQ(a.incarnation, b.incarnation);
  EXPECT_EQ(a.last_owner_key, b.last_owner_key);
  EXPECT_EQ(a.fence, b.fence);
  EXPECT_EQ(a.ttl_ms, b.ttl_ms);
  EXPECT_EQ(a.tolerance_ms, b.tolerance_ms);
  EXPECT_EQ(a.floor, b.floor);
  EXPECT_EQ(a.expires_min, b.expires_min);
  EXPECT_EQ(a.ceiling_min, b.ceiling_min);
  EXPECT_EQ(a.next_floor, b.next_floor);
  EXPECT_EQ(a.written, b.written);
  EXPECT_EQ(a.node, b.node);
}

// kHeldText with line `name`'s whole line replaced by `line` ("" drops it).
std::string held_text_with(const std::string& name, const std::string& line) {
  std::string text = kHeldText;
  const std::size_t start = text.find(name + "=");
  const std::size_t end = text.find('\n', start) + 1;
  return text.substr(0, start) + line + text.substr(end);
}

// --- Paths ---

TEST(ZkNodePaths, NameTheNodesOfANamespace) {
  EXPECT_EQ(namespace_path("orders"), "/cosid/slot/orders");
  EXPECT_EQ(slot_path("orders", 0), "/cosid/slot/orders/0");
  EXPECT_EQ(slot_path("orders", 4294967295u), "/cosid/slot/orders/4294967295");
  EXPECT_EQ(clock_path("orders"), "/cosid/slot/orders/.clock");
  EXPECT_EQ(owner_path("orders", "host-a:101"), "/cosid/owner/orders/host-a:101");
  EXPECT_EQ(owner_parent_path("orders"), "/cosid/owner/orders");
}

// The store's root, which only an init creates, outermost first; each store checks its part.
TEST(ZkNodePaths, NameTheStoresRoot) {
  EXPECT_EQ(store_paths(),
            (std::vector<std::string>{"/cosid", "/cosid/slot", "/cosid/owner", "/cosid/range"}));
  EXPECT_EQ(lease_root_paths(), (std::vector<std::string>{"/cosid/slot", "/cosid/owner"}));
  EXPECT_EQ(range_root_paths(), std::vector<std::string>{"/cosid/range"});
  EXPECT_EQ(range_path("orders"), "/cosid/range/orders");
}

TEST(ZkNodePaths, AnOwnerKeyWithASlashStaysOnePathComponent) {
  EXPECT_EQ(owner_path("orders", "rack/7/host"), "/cosid/owner/orders/rack%2F7%2Fhost");
  EXPECT_EQ(owner_path("orders", ".."), "/cosid/owner/orders/..");
}

TEST(ZkNodePaths, NamespacesThatCannotNameANodeAreRefused) {
  Status status;
  EXPECT_TRUE(check_namespace("orders", status));
  EXPECT_OK(status);
  EXPECT_TRUE(check_namespace(std::string(200, 'n'), status));
  EXPECT_OK(status);
  EXPECT_TRUE(check_namespace("a.b-c_d:e~!", status));
  EXPECT_OK(status);
  for (const std::string& bad :
       {std::string(), std::string("."), std::string(".."), std::string("a/b"),
        std::string("/orders"), std::string("a b"), std::string("tab\there"),
        std::string("line\nbreak"), std::string("caf\xc3\xa9"), std::string(201, 'n'),
        std::string("nul\0byte", 8), std::string("del\x7f")}) {
    status.clear();
    EXPECT_FALSE(check_namespace(bad, status)) << bad;
    EXPECT_STATUS(status, errc::invalid_argument);
  }
  EXPECT_NE(status.message().find("200 printable ASCII"), std::string::npos) << status.message();
}

// --- Owner keys ---

TEST(ZkOwnerKeys, PlainBytesStayAndOthersBecomePercentHex) {
  EXPECT_EQ(escape_key("Host-a_1.example:8080"), "Host-a_1.example:8080");
  EXPECT_EQ(escape_key("a/b"), "a%2Fb");
  EXPECT_EQ(escape_key("50%"), "50%25");
  EXPECT_EQ(escape_key("two\nlines"), "two%0Alines");
  EXPECT_EQ(escape_key("a b=c"), "a%20b%3Dc");
  // UTF-8 byte by byte, upper-case hex.
  EXPECT_EQ(escape_key("k\xc3\xbc\xe2\x82\xac"), "k%C3%BC%E2%82%AC");
  EXPECT_EQ(escape_key(std::string("\0\xff", 2)), "%00%FF");
  EXPECT_EQ(escape_key(""), "");
}

TEST(ZkOwnerKeys, EveryByteRoundTrips) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  const std::string escaped = escape_key(all);
  for (const char c : escaped) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '.' || c == '_' || c == ':' || c == '-' ||
                         c == '%';
    EXPECT_TRUE(allowed) << "escaped text holds byte " << static_cast<int>(c);
  }
  std::string back;
  ASSERT_TRUE(unescape_key(escaped, back));
  EXPECT_EQ(back, all);
  for (const std::string key : {"rack/7", "100%", "x\ny", "\xc3\xa9t\xc3\xa9", "%2F"}) {
    ASSERT_TRUE(unescape_key(escape_key(key), back)) << key;
    EXPECT_EQ(back, key);
  }
}

TEST(ZkOwnerKeys, MalformedEscapesAreRefused) {
  std::string key = "left alone";
  for (const char* bad :
       {"%", "%2", "ab%4", "%G0", "%0g", "%%41", "a/b", "a b", "x\ny", "a=b", "caf\xc3\xa9"}) {
    EXPECT_FALSE(unescape_key(bad, key)) << bad;
  }
}

// --- Namespace terms ---

TEST(ZkTermsText, RoundTrips) {
  NamespaceTerms terms;
  terms.slot_limit = 1024;
  terms.tolerance = milliseconds(1500);
  EXPECT_EQ(encode_terms(terms), "limit=1024\ntolerance_ms=1500\n");
  NamespaceTerms back;
  ASSERT_TRUE(decode_terms(encode_terms(terms), back));
  EXPECT_EQ(back.slot_limit, 1024u);
  EXPECT_EQ(back.tolerance, milliseconds(1500));
  terms.slot_limit = 4294967295u;
  terms.tolerance = milliseconds(0);
  ASSERT_TRUE(decode_terms(encode_terms(terms), back));
  EXPECT_EQ(back.slot_limit, 4294967295u);
  EXPECT_EQ(back.tolerance, milliseconds(0));
}

TEST(ZkTermsText, MalformedTextIsRefused) {
  NamespaceTerms terms;
  for (const char* bad :
       {"", "limit=1024\n", "tolerance_ms=1000\n", "tolerance_ms=1000\nlimit=1024\n",
        "limit=1024\ntolerance_ms=1000\nlimit=1024\n", "limit=-1\ntolerance_ms=1000\n",
        "limit=4294967296\ntolerance_ms=1000\n", "limit=1e3\ntolerance_ms=1000\n",
        "limit= 1024\ntolerance_ms=1000\n", "limit=1024\ntolerance_ms=1.5\n",
        "limit=1024\ntolerance_ms=\n", "limit=1024\ntolerance\n",
        "limit=1024\r\ntolerance_ms=1000\r\n", "limit=1024\ntolerance_ms=99999999999999999999\n"}) {
    EXPECT_FALSE(decode_terms(bad, terms)) << bad;
  }
}

// --- Owner index ---

TEST(ZkIndexText, RoundTrips) {
  EXPECT_EQ(encode_index({}), "slots=\n");
  EXPECT_EQ(encode_index({1, 5, 7}), "slots=1,5,7\n");
  for (const std::vector<std::uint32_t>& slots :
       {std::vector<std::uint32_t>{}, std::vector<std::uint32_t>{0},
        std::vector<std::uint32_t>{1, 5, 7}, std::vector<std::uint32_t>{0, 4294967295u}}) {
    std::vector<std::uint32_t> back = {99};
    ASSERT_TRUE(decode_index(encode_index(slots), back));
    EXPECT_EQ(back, slots);
  }
}

TEST(ZkIndexText, MalformedTextIsRefused) {
  std::vector<std::uint32_t> slots;
  for (const char* bad :
       {"", "slot=1\n", "slots=5,1\n", "slots=1,1\n", "slots=1,,2\n", "slots=,1\n", "slots=-1\n",
        "slots=4294967296\n", "slots=1\nslots=2\n", "slots=1\nother=2\n", "slots=a\n",
        "slots=1 ,2\n", "slots\n", "slots=1,\n"}) {
    EXPECT_FALSE(decode_index(bad, slots)) << bad;
  }
}

// --- Slot nodes ---

TEST(ZkSlotText, AHeldNodeRoundTripsInItsFixedOrder) {
  const SlotNode node = held_node();
  EXPECT_EQ(encode_slot(node), kHeldText);
  SlotNode back;
  ASSERT_TRUE(decode_slot(kHeldText, back));
  expect_same_node(back, node);
}

TEST(ZkSlotText, AFreeNodeHasNoIncarnation) {
  SlotNode node;
  node.last_owner_key = "host-a:101";
  node.incarnation = fixed_incarnation();  // not written for a free node
  node.fence = 3;
  node.floor = 10;
  node.expires_min = 20;
  node.ceiling_min = 30;
  node.next_floor = 25;
  const std::string text = encode_slot(node);
  EXPECT_EQ(text.rfind("owner=\nincarnation=\nlast_owner=host-a:101\nfence=3\n", 0), 0u) << text;
  SlotNode back;
  ASSERT_TRUE(decode_slot(text, back));
  EXPECT_TRUE(back.owner_key.empty());
  EXPECT_TRUE(back.incarnation.is_nil());
  EXPECT_EQ(back.fence, 3u);
  EXPECT_EQ(back.next_floor, 25);
  SlotNode empty;
  ASSERT_TRUE(decode_slot(encode_slot(SlotNode{}), back));
  expect_same_node(back, empty);
}

TEST(ZkSlotText, OwnerKeysAreEscapedInTheText) {
  SlotNode node = held_node();
  node.owner_key = "rack/7\nfence=99";
  node.last_owner_key = "100%\xc3\xa9";
  const std::string text = encode_slot(node);
  EXPECT_NE(text.find("owner=rack%2F7%0Afence%3D99\n"), std::string::npos) << text;
  EXPECT_NE(text.find("last_owner=100%25%C3%A9\n"), std::string::npos) << text;
  SlotNode back;
  ASSERT_TRUE(decode_slot(text, back));
  EXPECT_EQ(back.owner_key, node.owner_key);
  EXPECT_EQ(back.last_owner_key, node.last_owner_key);
  EXPECT_EQ(back.fence, 7u);
}

TEST(ZkSlotText, TheOptionalWrittenAndNodeLinesRoundTrip) {
  SlotNode node = held_node();
  node.written = 1700000000500;
  SlotNode back;
  ASSERT_TRUE(decode_slot(encode_slot(node), back));
  expect_same_node(back, node);
  EXPECT_EQ(encode_slot(node), std::string(kHeldText) + "written=1700000000500\n");
  node.node = 4294967299;
  EXPECT_EQ(encode_slot(node), std::string(kHeldText) + "written=1700000000500\nnode=4294967299\n");
  ASSERT_TRUE(decode_slot(encode_slot(node), back));
  expect_same_node(back, node);
  node.written = -1;
  ASSERT_TRUE(decode_slot(encode_slot(node), back));
  EXPECT_EQ(back.written, -1);
  EXPECT_EQ(back.node, 4294967299);
}

TEST(ZkSlotText, MalformedTextIsRefusedAndLeavesTheNodeAlone) {
  const std::string held = kHeldText;
  const std::vector<std::string> bad = {
      "",
      "\n\n",
      held_text_with("fence", ""),                         // a field missing
      held_text_with("owner", "") + "owner=host-a:101\n",  // out of order
      held + "colour=blue\n",                              // a field of no store
      held + "node=5\nnode=5\n",                           // node twice
      held + "written=5\nwritten=5\n",                     // written twice
      held + "node=5\nwritten=5\n",                        // written after node
      held + "node=0\n",                                   // node 0 is "none"
      held + "written=-5\n",                               // a negative time
      held + "node=x\n",
      held_text_with("fence", "fence=-1\n"),  // a negative fence
      held_text_with("fence", "fence=7.0\n"),
      held_text_with("floor", "floor=\n"),
      held_text_with("floor", "floor=12a\n"),
      held_text_with("ttl_ms", "ttl_ms=99999999999999999999\n"),  // beyond int64
      held_text_with("next_floor", "next_floor 5\n"),             // no '='
      held_text_with("incarnation", "incarnation=\n"),            // held without incarnation
      held_text_with("incarnation", "incarnation=not-a-uuid\n"),
      held_text_with("owner", "owner=\n"),                 // free with an incarnation
      held_text_with("owner", "owner=rack/7\n"),           // a raw '/' in a key
      held_text_with("last_owner", "last_owner=%4\n"),     // a broken escape
      held_text_with("floor", "floor=1700000000000\r\n"),  // CRLF
  };
  for (const std::string& text : bad) {
    SlotNode node = held_node();
    node.written = 11;
    node.node = 12;
    EXPECT_FALSE(decode_slot(text, node)) << text;
    EXPECT_EQ(node.fence, 7u) << text;
    EXPECT_EQ(node.written, 11) << text;
    EXPECT_EQ(node.node, 12) << text;
  }
}

// --- Records ---

TEST(ZkRecordOf, CopiesTheIdentityFields) {
  const SlotRecord record = record_of(5, held_node(), 1700000000000);
  EXPECT_EQ(record.slot, 5u);
  EXPECT_TRUE(record.held);
  EXPECT_EQ(record.owner.key, "host-a:101");
  EXPECT_EQ(record.owner.incarnation, fixed_incarnation());
  EXPECT_EQ(record.last_owner_key, "host-b:202");
  EXPECT_EQ(record.fence, 7u);
  EXPECT_EQ(record.floor, 1700000000000);
}

TEST(ZkRecordOf, AHeldNodesTimesFollowTheWriteAboveTheLowerBounds) {
  SlotNode node = held_node();  // expires_min ...030000, ceiling_min ...031000, floor ...000000
  // A write later than the bounds: expires_at = write + ttl, ceiling = expires_at + tolerance,
  // next_floor follows the ceiling.
  SlotRecord record = record_of(0, node, 1700000010000);
  EXPECT_EQ(record.expires_at, 1700000040000);
  EXPECT_EQ(record.ceiling, 1700000041000);
  EXPECT_EQ(record.next_floor, 1700000041000);
  // A write whose time lies behind the bounds (a server clock set back): the bounds hold.
  record = record_of(0, node, 1690000000000);
  EXPECT_EQ(record.expires_at, 1700000030000);
  EXPECT_EQ(record.ceiling, 1700000031000);
  EXPECT_EQ(record.next_floor, 1700000031000);
  // ceiling_min above expires_at + tolerance wins.
  node.ceiling_min = 1700000050000;
  record = record_of(0, node, 1700000010000);
  EXPECT_EQ(record.expires_at, 1700000040000);
  EXPECT_EQ(record.ceiling, 1700000050000);
  EXPECT_EQ(record.next_floor, 1700000050000);
  // The floor above both wins (a holder never gets a window below its floor).
  node.floor = 1700000060000;
  record = record_of(0, node, 1700000010000);
  EXPECT_EQ(record.ceiling, 1700000060000);
  EXPECT_EQ(record.next_floor, 1700000060000);
  // A recorded next_floor above the ceiling stays.
  node.next_floor = 1700000070000;
  record = record_of(0, node, 1700000010000);
  EXPECT_EQ(record.ceiling, 1700000060000);
  EXPECT_EQ(record.next_floor, 1700000070000);
}

TEST(ZkRecordOf, AFreeNodesTimesAreExactWhateverTheWriteTime) {
  SlotNode node;
  node.last_owner_key = "host-a:101";
  node.fence = 8;
  node.ttl_ms = 30000;
  node.tolerance_ms = 1000;
  node.floor = 100;
  node.expires_min = 200;
  node.ceiling_min = 300;
  node.next_floor = 150;  // a release's exact last timestamp, below the ceiling
  for (const std::int64_t write_time : {std::int64_t{0}, std::int64_t{1700000000000}}) {
    const SlotRecord record = record_of(2, node, write_time);
    EXPECT_FALSE(record.held);
    EXPECT_TRUE(record.owner.key.empty());
    EXPECT_EQ(record.last_owner_key, "host-a:101");
    EXPECT_EQ(record.fence, 8u);
    EXPECT_EQ(record.floor, 100);
    EXPECT_EQ(record.expires_at, 200);
    EXPECT_EQ(record.ceiling, 300);
    EXPECT_EQ(record.next_floor, 150);
  }
}

TEST(ZkNodeOf, ARecordsTimesBecomeTheLowerBounds) {
  const SlotRecord record = record_of(3, held_node(), 1700000010000);
  const SlotNode node = node_of(record, 20000, 500);
  EXPECT_EQ(node.owner_key, "host-a:101");
  EXPECT_EQ(node.incarnation, fixed_incarnation());
  EXPECT_EQ(node.last_owner_key, "host-b:202");
  EXPECT_EQ(node.fence, 7u);
  EXPECT_EQ(node.ttl_ms, 20000);
  EXPECT_EQ(node.tolerance_ms, 500);
  EXPECT_EQ(node.floor, record.floor);
  EXPECT_EQ(node.expires_min, 1700000040000);
  EXPECT_EQ(node.ceiling_min, 1700000041000);
  EXPECT_EQ(node.next_floor, 1700000041000);
  EXPECT_EQ(node.written, -1);
  EXPECT_EQ(node.node, 0);
  // Read back at an earlier write time, the record is the same: nothing went down.
  const SlotRecord again = record_of(3, node, 1690000000000);
  EXPECT_EQ(again.expires_at, record.expires_at);
  EXPECT_EQ(again.ceiling, record.ceiling);
  EXPECT_EQ(again.next_floor, record.next_floor);
  // A free record drops the owner, whatever it held.
  SlotRecord free = record;
  free.held = false;
  EXPECT_TRUE(node_of(free, 20000, 500).owner_key.empty());
}

}  // namespace
}  // namespace cosid::lease::zk
