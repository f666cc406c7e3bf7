// SPDX-License-Identifier: Apache-2.0
#include "zookeeper/nodes.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "base/fail.h"

namespace cosid {
namespace lease {
namespace zk {
namespace {

constexpr std::size_t kMaxNamespaceBytes = 200;

bool plain_key_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == ':' || c == '-';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// "name=value" lines into (name, value) pairs; false for a line without '='.
bool split_lines(const std::string& text, std::vector<std::pair<std::string, std::string>>& out) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    const std::size_t equals = line.find('=');
    if (equals == std::string::npos) return false;
    out.emplace_back(line.substr(0, equals), line.substr(equals + 1));
  }
  return true;
}

bool parse_int(const std::string& text, std::int64_t& value) {
  if (text.empty() || text.size() > 20) return false;
  std::size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return false;
  for (std::size_t j = i; j < text.size(); ++j) {
    if (text[j] < '0' || text[j] > '9') return false;
  }
  errno = 0;
  char* end = nullptr;
  const long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end != text.c_str() + text.size()) return false;
  value = parsed;
  return true;
}

bool parse_count(const std::string& text, std::uint64_t& value) {
  std::int64_t parsed = 0;
  if (!parse_int(text, parsed) || parsed < 0) return false;
  value = static_cast<std::uint64_t>(parsed);
  return true;
}

}  // namespace

std::string namespace_path(const std::string& name_space) { return "/cosid/slot/" + name_space; }

std::string slot_path(const std::string& name_space, std::uint32_t slot) {
  return namespace_path(name_space) + "/" + std::to_string(slot);
}

std::string clock_path(const std::string& name_space) {
  return namespace_path(name_space) + "/.clock";
}

std::string owner_path(const std::string& name_space, const std::string& owner_key) {
  return owner_parent_path(name_space) + "/" + escape_key(owner_key);
}

std::string owner_parent_path(const std::string& name_space) {
  return "/cosid/owner/" + name_space;
}

std::string range_path(const std::string& key) { return "/cosid/range/" + key; }

std::vector<std::string> store_paths() {
  return {"/cosid", "/cosid/slot", "/cosid/owner", "/cosid/range"};
}

std::vector<std::string> lease_root_paths() { return {"/cosid/slot", "/cosid/owner"}; }

std::vector<std::string> range_root_paths() { return {"/cosid/range"}; }

bool check_namespace(const std::string& name_space, Status& status) {
  bool printable = !name_space.empty() && name_space.size() <= kMaxNamespaceBytes &&
                   name_space != "." && name_space != "..";
  for (const char c : name_space) printable = printable && c > 0x20 && c < 0x7f && c != '/';
  if (printable) return true;
  return detail::fail(status, errc::invalid_argument,
                      "namespace \"" + name_space +
                          "\" cannot name ZooKeeper nodes: give 1 to 200 printable ASCII "
                          "characters without '/' or spaces, and not \".\" or \"..\"");
}

std::string escape_key(const std::string& key) {
  std::string out;
  for (const char c : key) {
    if (plain_key_byte(c)) {
      out += c;
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(c));
      out += hex;
    }
  }
  return out;
}

bool unescape_key(const std::string& text, std::string& key) {
  key.clear();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      if (!plain_key_byte(text[i])) return false;
      key += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return false;
    const int high = hex_value(text[i + 1]);
    const int low = hex_value(text[i + 2]);
    if (high < 0 || low < 0) return false;
    key += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return true;
}

std::string encode_terms(const NamespaceTerms& terms) {
  return "limit=" + std::to_string(terms.slot_limit) +
         "\ntolerance_ms=" + std::to_string(terms.tolerance.count()) + "\n";
}

bool decode_terms(const std::string& text, NamespaceTerms& terms) {
  std::vector<std::pair<std::string, std::string>> lines;
  if (!split_lines(text, lines) || lines.size() != 2) return false;
  std::uint64_t limit = 0;
  std::int64_t tolerance = 0;
  if (lines[0].first != "limit" || !parse_count(lines[0].second, limit) || limit > 0xffffffffu ||
      lines[1].first != "tolerance_ms" || !parse_int(lines[1].second, tolerance)) {
    return false;
  }
  terms.slot_limit = static_cast<std::uint32_t>(limit);
  terms.tolerance = std::chrono::milliseconds(tolerance);
  return true;
}

std::string encode_index(const std::vector<std::uint32_t>& slots) {
  std::string text = "slots=";
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (i > 0) text += ',';
    text += std::to_string(slots[i]);
  }
  return text + "\n";
}

bool decode_index(const std::string& text, std::vector<std::uint32_t>& slots) {
  std::vector<std::pair<std::string, std::string>> lines;
  if (!split_lines(text, lines) || lines.size() != 1 || lines[0].first != "slots") return false;
  slots.clear();
  const std::string& list = lines[0].second;
  if (!list.empty() && list.back() == ',') return false;  // never written so
  std::size_t start = 0;
  while (start < list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::uint64_t slot = 0;
    if (!parse_count(list.substr(start, end - start), slot) || slot > 0xffffffffu) return false;
    if (!slots.empty() && slot <= slots.back()) return false;
    slots.push_back(static_cast<std::uint32_t>(slot));
    start = end + 1;
  }
  return true;
}

std::string encode_slot(const SlotNode& node) {
  std::string text;
  text += "owner=" + escape_key(node.owner_key) + "\n";
  text += "incarnation=" + (node.owner_key.empty() ? std::string() : node.incarnation.to_string()) +
          "\n";
  text += "last_owner=" + escape_key(node.last_owner_key) + "\n";
  text += "fence=" + std::to_string(node.fence) + "\n";
  text += "ttl_ms=" + std::to_string(node.ttl_ms) + "\n";
  text += "tolerance_ms=" + std::to_string(node.tolerance_ms) + "\n";
  text += "floor=" + std::to_string(node.floor) + "\n";
  text += "expires_min=" + std::to_string(node.expires_min) + "\n";
  text += "ceiling_min=" + std::to_string(node.ceiling_min) + "\n";
  text += "next_floor=" + std::to_string(node.next_floor) + "\n";
  if (node.written >= 0) text += "written=" + std::to_string(node.written) + "\n";
  if (node.node != 0) text += "node=" + std::to_string(node.node) + "\n";
  return text;
}

bool decode_slot(const std::string& text, SlotNode& node) {
  std::vector<std::pair<std::string, std::string>> lines;
  if (!split_lines(text, lines)) return false;
  static const char* const kRequired[] = {
      "owner",        "incarnation", "last_owner",  "fence",       "ttl_ms",
      "tolerance_ms", "floor",       "expires_min", "ceiling_min", "next_floor"};
  constexpr std::size_t kRequiredCount = sizeof kRequired / sizeof kRequired[0];
  // The required fields in this order, then the optional ones: anything else was not written by
  // this store.
  if (lines.size() < kRequiredCount || lines.size() > kRequiredCount + 2) return false;
  for (std::size_t i = 0; i < kRequiredCount; ++i) {
    if (lines[i].first != kRequired[i]) return false;
  }
  SlotNode parsed;
  std::int64_t fence = 0;
  if (!unescape_key(lines[0].second, parsed.owner_key) ||
      !unescape_key(lines[2].second, parsed.last_owner_key) || !parse_int(lines[3].second, fence) ||
      fence < 0 || !parse_int(lines[4].second, parsed.ttl_ms) ||
      !parse_int(lines[5].second, parsed.tolerance_ms) ||
      !parse_int(lines[6].second, parsed.floor) ||
      !parse_int(lines[7].second, parsed.expires_min) ||
      !parse_int(lines[8].second, parsed.ceiling_min) ||
      !parse_int(lines[9].second, parsed.next_floor)) {
    return false;
  }
  parsed.fence = static_cast<std::uint64_t>(fence);
  if (parsed.owner_key.empty() != lines[1].second.empty()) return false;
  if (!parsed.owner_key.empty() && !Incarnation::parse(lines[1].second, parsed.incarnation)) {
    return false;
  }
  for (std::size_t i = kRequiredCount; i < lines.size(); ++i) {
    std::int64_t value = 0;
    if (!parse_int(lines[i].second, value) || value < 0) return false;
    if (lines[i].first == "written" && parsed.written < 0 && parsed.node == 0) {
      parsed.written = value;
    } else if (lines[i].first == "node" && parsed.node == 0 && value != 0) {
      parsed.node = value;
    } else {
      return false;
    }
  }
  node = parsed;
  return true;
}

SlotRecord record_of(std::uint32_t slot, const SlotNode& node, std::int64_t write_time) {
  SlotRecord record;
  record.slot = slot;
  record.held = !node.owner_key.empty();
  record.owner.key = node.owner_key;
  record.owner.incarnation = node.incarnation;
  record.last_owner_key = node.last_owner_key;
  record.fence = node.fence;
  record.floor = node.floor;
  record.expires_at = node.expires_min;
  record.ceiling = node.ceiling_min;
  record.next_floor = node.next_floor;
  if (record.held) {
    // The write's own time, bounded below by the replaced write's: neither goes back within a
    // term, whatever the server clocks did between the writes.
    record.expires_at = std::max(node.expires_min, write_time + node.ttl_ms);
    record.ceiling =
        std::max({node.ceiling_min, record.expires_at + node.tolerance_ms, node.floor});
    record.next_floor = std::max(node.next_floor, record.ceiling);
  }
  return record;
}

SlotNode node_of(const SlotRecord& record, std::int64_t ttl_ms, std::int64_t tolerance_ms) {
  SlotNode node;
  node.owner_key = record.held ? record.owner.key : std::string();
  node.incarnation = record.owner.incarnation;
  node.last_owner_key = record.last_owner_key;
  node.fence = record.fence;
  node.ttl_ms = ttl_ms;
  node.tolerance_ms = tolerance_ms;
  node.floor = record.floor;
  node.expires_min = record.expires_at;
  node.ceiling_min = record.ceiling;
  node.next_floor = record.next_floor;
  return node;
}

}  // namespace zk
}  // namespace lease
}  // namespace cosid
