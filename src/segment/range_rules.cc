// SPDX-License-Identifier: Apache-2.0
// Range rules (segment/range_rules.h).
#include "cosid/segment/range_rules.h"

#include <charconv>
#include <limits>

#include "base/fail.h"
#include "base/parse_util.h"

namespace cosid {
namespace segment {
namespace {

using detail::fail;

constexpr std::int64_t kMaxValue = std::numeric_limits<std::int64_t>::max();
constexpr std::string_view kSealedSuffix = ":sealed";

bool is_key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

std::string key_text(const std::string& key) { return "segment key " + detail::quote(key); }

// The sentences of this file's refusals and notices, at its end, so that each rule reads without
// stepping over text. Each names the values and what to do.
std::string key_size_message(const std::string& key);
std::string key_character_message(const std::string& key, char c);
std::string key_path_component_message(const std::string& key);
std::string negative_offset_message(const RangeRequest& request);
std::string claim_size_message(const RangeRequest& request);
std::string bad_give_back_message(const std::string& key, const Range& unused);
std::string sealed_message(const std::string& key, const RangeState& state);
std::string exhausted_message(const RangeRequest& request, std::int64_t first);
std::string nothing_to_seal_message(const std::string& key);
std::string key_started_message(const std::string& store, const std::string& key,
                                std::int64_t first);

}  // namespace

bool check_key(const std::string& key, Status& status) {
  if (key.empty() || key.size() > kMaxKeyBytes) {
    return fail(status, errc::invalid_argument, key_size_message(key));
  }
  for (const char c : key) {
    if (!is_key_char(c)) {
      return fail(status, errc::invalid_argument, key_character_message(key, c));
    }
  }
  if (key == "." || key == "..") {
    return fail(status, errc::invalid_argument, key_path_component_message(key));
  }
  return true;
}

bool check_claim(const RangeRequest& request, Status& status) {
  if (!check_key(request.key, status)) return false;
  if (request.offset < 0) {
    return fail(status, errc::invalid_argument, negative_offset_message(request));
  }
  if (request.count < 1 || request.count > kMaxClaim) {
    return fail(status, errc::invalid_argument, claim_size_message(request));
  }
  return true;
}

bool check_give_back(const std::string& key, const Range& unused, Status& status) {
  if (!check_key(key, status)) return false;
  if (unused.first < 1 || unused.first >= unused.end) {
    return fail(status, errc::invalid_argument, bad_give_back_message(key, unused));
  }
  return true;
}

bool apply_claim(RangeState& state, const RangeRequest& request, Range& range, Status& status) {
  if (state.exists && state.sealed) {
    return fail(status, errc::range_sealed, sealed_message(request.key, state));
  }
  // offset + 1 overflows only for an offset of 2^63 - 1, which leaves no value to claim: start
  // there, and the bound below refuses the claim.
  const std::int64_t start = request.offset >= kMaxValue ? kMaxValue : request.offset + 1;
  const std::int64_t first = state.exists && state.next > start ? state.next : start;
  // count <= kMaxClaim, so kMaxValue - first is the only subtraction needed: no sum overflows.
  if (request.count > kMaxValue - first) {
    return fail(status, errc::range_exhausted, exhausted_message(request, first));
  }
  state.exists = true;
  state.next = first + request.count;
  state.version += 1;
  range.first = first;
  range.end = state.next;
  range.version = state.version;
  return true;
}

void apply_give_back(RangeState& state, const Range& unused, bool& returned) noexcept {
  returned =
      state.exists && !state.sealed && state.version == unused.version && state.next == unused.end;
  if (!returned) return;
  state.next = unused.first;
  state.version += 1;
}

bool apply_seal(RangeState& state, const std::string& key, Status& status) {
  if (!state.exists) {
    return fail(status, errc::invalid_argument, nothing_to_seal_message(key));
  }
  if (!state.sealed) {
    state.sealed = true;
    state.version += 1;
  }
  return true;
}

std::string format_range_value(const RangeState& state) {
  std::string text = std::to_string(state.next);
  if (state.sealed) text += kSealedSuffix;
  return text;
}

bool parse_range_value(std::string_view text, RangeState& state) noexcept {
  bool sealed = false;
  if (text.size() > kSealedSuffix.size() &&
      text.substr(text.size() - kSealedSuffix.size()) == kSealedSuffix) {
    sealed = true;
    text.remove_suffix(kSealedSuffix.size());
  }
  // Decimal digits only, no sign, no leading zero: exactly what std::to_string writes for a value
  // of 1 or more.
  if (text.empty() || text[0] < '1' || text[0] > '9') return false;
  std::int64_t next = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), next);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return false;
  state.exists = true;
  state.next = next;
  state.sealed = sealed;
  return true;
}

void report_key_started(EventListener* listener, const std::string& store, const std::string& key,
                        std::int64_t first) {
  if (listener == nullptr) return;
  Event event{EventKind::kRangeKeyStarted, {}, key_started_message(store, key, first)};
  listener->on_event(event);
}

// The sentences.
namespace {

std::string key_size_message(const std::string& key) {
  return key_text(key) + " is " + std::to_string(key.size()) + " bytes: give 1 to " +
         std::to_string(kMaxKeyBytes) + " bytes of A-Z a-z 0-9 _ . -";
}

std::string key_character_message(const std::string& key, char c) {
  return key_text(key) + " holds " + detail::quote(std::string(1, c)) +
         ": a key is made of A-Z a-z 0-9 _ . - only (it names a ZooKeeper node and a file as it "
         "is); use, say, orders.2026 instead of orders/2026";
}

std::string key_path_component_message(const std::string& key) {
  return key_text(key) + " is a path component, not a name: give another key";
}

std::string negative_offset_message(const RangeRequest& request) {
  return key_text(request.key) + ": offset " + std::to_string(request.offset) +
         " is negative; give 0 or more (the first value is offset + 1)";
}

std::string claim_size_message(const RangeRequest& request) {
  return key_text(request.key) + ": a claim of " + std::to_string(request.count) +
         " values; claim 1 to " + std::to_string(kMaxClaim) + " at once";
}

std::string bad_give_back_message(const std::string& key, const Range& unused) {
  return key_text(key) + ": cannot give back [" + std::to_string(unused.first) + ", " +
         std::to_string(unused.end) +
         "): give the unused tail of a claimed range, first >= 1 and first < end";
}

std::string sealed_message(const std::string& key, const RangeState& state) {
  return key_text(key) + " is sealed at " + std::to_string(state.next) +
         ": its store hands out no more ranges (it was sealed, as a migration to another store "
         "does); use the store it moved to, or another key";
}

std::string exhausted_message(const RangeRequest& request, std::int64_t first) {
  return key_text(request.key) + " has " + std::to_string(kMaxValue - first) +
         " values left before its next value would pass 2^63 - 1 (next " + std::to_string(first) +
         ", claim of " + std::to_string(request.count) +
         "): move to a new key, whose values start over";
}

std::string nothing_to_seal_message(const std::string& key) {
  return key_text(key) +
         " has no record, so there is nothing to seal: a key is created by its first claim";
}

std::string key_started_message(const std::string& store, const std::string& key,
                                std::int64_t first) {
  return key_text(key) + " had no record in the " + store + ", so it starts at " +
         std::to_string(first) +
         ". If the key is not new (a mistyped key, or a store moved, restored or given by another "
         "path), stop every process using it and find its record: its values are being handed "
         "out again from the start; seal this key (its record now exists) and go on with the "
         "right one";
}

}  // namespace

}  // namespace segment
}  // namespace cosid
