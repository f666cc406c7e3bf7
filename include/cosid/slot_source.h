// SPDX-License-Identifier: Apache-2.0
// Slot sources: where a static slot comes from, and the checks every slot value passes.
//
// A static slot is either given explicitly (--slot N, COSID_SLOT=N, or `slot: N` in the config
// file, which may say `slot: ${POD_ORDINAL}`), or, only when asked for, taken from the StatefulSet
// ordinal at the end of the host name (`order-service-3` is slot 3). There is never a default slot:
// two instances that both fell back to one would issue the same ids.
//
// A slot value is a whole number in ASCII digits that fits the layout's slot bits. Anything else
// is refused, never repaired: " 3", "3\n", "-1", "03", "3.0" and a value too large for the slot
// bits would otherwise turn into some other valid slot, possibly one already in use.
//
// Thread safety: all functions are pure except local_hostname(), which calls gethostname(); any
// of them may be called from any thread.
#ifndef COSID_SLOT_SOURCE_H_
#define COSID_SLOT_SOURCE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/export.h"

namespace cosid {

enum class SlotSource : std::uint8_t {
  kExplicit,     // cosid.machine.static.slot (flag, COSID_SLOT or the config file)
  kStatefulSet,  // the ordinal at the end of the host name
};

// "explicit" or "stateful-set", the values of cosid.machine.static.slot-source.
COSID_EXPORT const char* to_string(SlotSource source) noexcept;
// The inverse of to_string(SlotSource). Returns false for any other text.
[[nodiscard]] COSID_EXPORT bool parse_slot_source(std::string_view text,
                                                  SlotSource& source) noexcept;

// Reads a slot value: ASCII digits without a leading zero, below 2^slot_bits (and at most
// 2^32 - 1). `origin` says where the text came from ("flag --slot", "env COSID_SLOT") for the
// message. Fails with invalid_slot for text that is not such a number (a number beyond 64 bits
// included) and with slot_out_of_range for a number the slot bits cannot hold; the message names
// the value, its origin, the slot bits and the range.
[[nodiscard]] COSID_EXPORT bool parse_slot(std::string_view text, std::string_view origin,
                                           int slot_bits, std::uint32_t& slot,
                                           Status& status) noexcept;

// Checks a slot number against the slot bits: slot_out_of_range unless slot < 2^slot_bits.
[[nodiscard]] COSID_EXPORT bool check_slot(std::uint64_t slot, std::string_view origin,
                                           int slot_bits, Status& status) noexcept;

// The StatefulSet ordinal at the end of `hostname`: the digits after its last '-' in the part
// before the first '.' (so "order-service-3.order-service.ns.svc" works too). The ordinal is
// ASCII digits without a leading zero ("0" itself is fine), as Kubernetes writes it.
// "order-service-", "web", "order-service-03" and "order-service-3-canary" fail with
// no_hostname_ordinal, as does a name longer than a DNS label (63 bytes): Kubernetes cuts such
// pod names, and a cut name may end in another pod's ordinal. An ordinal that does not fit the
// slot bits fails with slot_out_of_range. `origin` says where the name came from ("env
// HOSTNAME", "gethostname()").
[[nodiscard]] COSID_EXPORT bool slot_from_hostname(std::string_view hostname,
                                                   std::string_view origin, int slot_bits,
                                                   std::uint32_t& slot, Status& status) noexcept;

// This machine's host name from gethostname(). Fails with no_hostname_ordinal when the call fails
// or returns an empty name.
[[nodiscard]] COSID_EXPORT bool local_hostname(std::string& name, Status& status) noexcept;

#if COSID_HAS_EXCEPTIONS
// Throwing overloads: throw cosid::Error with the message of the Status& overload.
inline std::uint32_t parse_slot(std::string_view text, std::string_view origin, int slot_bits) {
  Status status;
  std::uint32_t slot = 0;
  (void)parse_slot(text, origin, slot_bits, slot, status);
  detail::throw_if_failed(status);
  return slot;
}
inline std::uint32_t slot_from_hostname(std::string_view hostname, std::string_view origin,
                                        int slot_bits) {
  Status status;
  std::uint32_t slot = 0;
  (void)slot_from_hostname(hostname, origin, slot_bits, slot, status);
  detail::throw_if_failed(status);
  return slot;
}
#endif

}  // namespace cosid

#endif  // COSID_SLOT_SOURCE_H_
