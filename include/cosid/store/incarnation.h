// SPDX-License-Identifier: Apache-2.0
// Incarnation: a 128-bit value new for every start of a runtime or store client, which lease
// stores record with an owner and range stores with a claim, so a record tells one start from
// another of the same key.
//
// Thread safety: a value type; random() may be called from any thread.
#ifndef COSID_STORE_INCARNATION_H_
#define COSID_STORE_INCARNATION_H_

#include <array>
#include <cstdint>
#include <string>

#include "cosid/error.h"
#include "cosid/export.h"

namespace cosid {

struct COSID_EXPORT Incarnation {
  std::array<std::uint8_t, 16> bytes{};

  // A random version-4 UUID from the kernel's random source (getrandom, else /dev/urandom).
  // Fails with store_unavailable only if no random source can be read.
  [[nodiscard]] static bool random(Incarnation& out, Status& status);
  // "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lower case.
  std::string to_string() const;
  // The inverse of to_string(); false for anything else.
  [[nodiscard]] static bool parse(const std::string& text, Incarnation& out) noexcept;

  bool is_nil() const noexcept;
  friend bool operator==(const Incarnation& a, const Incarnation& b) noexcept {
    return a.bytes == b.bytes;
  }
  friend bool operator!=(const Incarnation& a, const Incarnation& b) noexcept { return !(a == b); }
};

}  // namespace cosid

#endif  // COSID_STORE_INCARNATION_H_
