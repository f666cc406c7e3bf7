// SPDX-License-Identifier: Apache-2.0
#include "cosid/slot_source.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "base/fail.h"
#include "base/parse_util.h"

namespace cosid {
namespace {

// A DNS label, and so a Kubernetes pod's host name, has at most 63 bytes.
constexpr std::size_t kMaxLabelBytes = 63;
constexpr std::uint64_t kMaxSlot = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t kHostNameBuffer = 256;

using detail::fail;

std::string with_origin(std::string_view origin) {
  return origin.empty() ? std::string() : " (" + std::string(origin) + ")";
}

// One more than the largest slot the bits allow, capped at 2^32 (a slot is 32 bits).
std::uint64_t slot_limit(int slot_bits) noexcept {
  if (slot_bits <= 0) return 1;
  if (slot_bits >= 32) return kMaxSlot + 1;
  return std::uint64_t{1} << slot_bits;
}

bool all_digits(std::string_view text) noexcept {
  if (text.empty()) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

const char* to_string(SlotSource source) noexcept {
  return source == SlotSource::kStatefulSet ? "stateful-set" : "explicit";
}

bool parse_slot_source(std::string_view text, SlotSource& source) noexcept {
  if (text == "explicit") {
    source = SlotSource::kExplicit;
  } else if (text == "stateful-set") {
    source = SlotSource::kStatefulSet;
  } else {
    return false;
  }
  return true;
}

bool check_slot(std::uint64_t slot, std::string_view origin, int slot_bits,
                Status& status) noexcept {
  const std::uint64_t limit = slot_limit(slot_bits);
  if (slot >= limit) {
    return fail(status, errc::slot_out_of_range,
                "slot " + std::to_string(slot) + with_origin(origin) + " does not fit the " +
                    "layout's " + std::to_string(slot_bits) + " slot bits, which hold slots 0 to " +
                    std::to_string(limit - 1) +
                    ": give a slot in that range, or a layout with more slot bits");
  }
  status.clear();
  return true;
}

bool parse_slot(std::string_view text, std::string_view origin, int slot_bits, std::uint32_t& slot,
                Status& status) noexcept {
  std::uint64_t value = 0;
  Status why;
  if (!all_digits(text)) {
    return fail(status, errc::invalid_slot,
                "slot " + detail::quote(text) + with_origin(origin) +
                    " is not a whole number: give ASCII digits only, without sign or spaces, "
                    "such as 3");
  }
  if (!detail::parse_uint(text, std::numeric_limits<std::uint64_t>::max(), value, why)) {
    // Only digits here: a leading zero, or too many digits for any number.
    return fail(status, errc::invalid_slot,
                "slot " + detail::quote(text) + with_origin(origin) + ": " +
                    (text[0] == '0' ? why.message() : "too many digits for a slot") +
                    "; give a slot from 0 to " + std::to_string(slot_limit(slot_bits) - 1));
  }
  if (!check_slot(value, origin, slot_bits, status)) return false;
  slot = static_cast<std::uint32_t>(value);
  return true;
}

bool slot_from_hostname(std::string_view hostname, std::string_view origin, int slot_bits,
                        std::uint32_t& slot, Status& status) noexcept {
  const std::string_view name = hostname.substr(0, hostname.find('.'));
  const std::string shown = "host name " + detail::quote(hostname) + with_origin(origin);
  if (name.size() > kMaxLabelBytes) {
    return fail(status, errc::no_hostname_ordinal,
                shown + " is " + std::to_string(name.size()) +
                    " bytes, longer than a DNS label (63): Kubernetes cuts such pod names, and "
                    "the ordinal at the end may be another pod's; give the slot with --slot or "
                    "COSID_SLOT instead (for example from the pod's ordinal label)");
  }
  const std::size_t dash = name.rfind('-');
  const std::string_view ordinal =
      dash == std::string_view::npos ? std::string_view() : name.substr(dash + 1);
  if (!all_digits(ordinal) || (ordinal.size() > 1 && ordinal[0] == '0')) {
    return fail(status, errc::no_hostname_ordinal,
                shown +
                    " does not end in a StatefulSet ordinal such as \"-3\" (digits after the "
                    "last '-', no leading zero): run as a StatefulSet pod, or give the slot with "
                    "--slot, COSID_SLOT or the config file");
  }
  std::uint64_t value = 0;
  Status too_large;  // only digits here: the one refusal is a number past every slot
  if (!detail::parse_uint(ordinal, kMaxSlot, value, too_large)) value = kMaxSlot + 1;
  if (value >= slot_limit(slot_bits)) {
    return fail(status, errc::slot_out_of_range,
                "the ordinal " + std::string(ordinal.substr(0, 20)) + " of the " + shown +
                    " does not fit the layout's " + std::to_string(slot_bits) +
                    " slot bits, which hold slots 0 to " +
                    std::to_string(slot_limit(slot_bits) - 1) +
                    ": use a layout with more slot bits, or fewer replicas");
  }
  slot = static_cast<std::uint32_t>(value);
  status.clear();
  return true;
}

bool local_hostname(std::string& name, Status& status) noexcept {
  char buf[kHostNameBuffer] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) {
    const int error = errno;
    return fail(status, errc::no_hostname_ordinal,
                std::string("gethostname() failed: ") + std::strerror(error) +
                    ": set HOSTNAME, or give the slot with --slot or COSID_SLOT");
  }
  buf[sizeof buf - 1] = '\0';
  name = buf;
  if (name.empty()) {
    return fail(status, errc::no_hostname_ordinal,
                "gethostname() returned an empty name: set HOSTNAME, or give the slot with --slot "
                "or COSID_SLOT");
  }
  status.clear();
  return true;
}

}  // namespace cosid
