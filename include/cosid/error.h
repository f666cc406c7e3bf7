// SPDX-License-Identifier: Apache-2.0
// Errors: cosid::errc, its std::error_category, cosid::Status and cosid::Error.
//
// One shape reports every failure. A fallible call takes `Status& status` as its last parameter
// and returns its result (a pointer, a value, or a bool that is true on success when it has no
// other result). On success it leaves `status` ok; on failure it sets the code, to compare with
// the enumerators below (`status.code() == cosid::errc::clock_backwards`), and a message that
// names what happened, the values involved and what to do. The one exception is the hot path:
// Generator::next() and next_batch() take a bare std::error_code& and never allocate; their
// Status& overloads give the same failure with its message. Where exceptions are enabled, each
// call also has a throwing overload that throws cosid::Error, a std::system_error carrying the
// same code and message.
//
// Thread safety: the category is a stateless object and may be used from any thread at any time.
// A Status is a plain value: one thread at a time may change it.
#ifndef COSID_ERROR_H_
#define COSID_ERROR_H_

#include <string>
#include <system_error>
#include <utility>

#include "cosid/config.h"
#include "cosid/export.h"

namespace cosid {

// The conditions cosid reports. Values are stable: they appear in logs and in the CLI's messages.
enum class errc {
  // Layout (layout.h).
  layout_too_wide = 1,     // timestamp + slot + sequence bits exceed 63
  layout_field_empty,      // a field has fewer than 1 bit
  layout_epoch_invalid,    // epoch before 1970, or epoch + range does not fit in 64-bit ms
  layout_epoch_in_future,  // epoch lies after the clock's current time
  timestamp_overflow,      // the clock is past the last timestamp the layout can hold
  // Id strings (codec.h).
  id_empty,               // an empty string where an id was expected
  id_bad_character,       // a character outside the codec's alphabet
  id_bad_length,          // a fixed-width codec got the wrong number of characters
  id_overflow,            // the value does not fit in 63 bits
  id_field_out_of_range,  // a field of a friendly id does not fit the layout
  unknown_layout,         // a preset name that does not exist
  // The generator (generator.h).
  clock_backwards,     // the clock went back while running and did not return within the bound
  clock_stalled,       // the clock did not advance past a used-up tick within the bound
  clock_behind_floor,  // the clock is at or before the window's floor
  ceiling_reached,     // the clock passed the durable ceiling and it was not raised in time
  closed,              // the generator was closed
  slot_out_of_range,   // the slot does not fit the layout's slot bits
  slot_lost,           // the binding that gave the window was invalidated
  invalid_argument,    // a value given to a call is outside what it accepts
  // Configuration and slot resolution (options.h).
  no_slot_configured,    // no slot from flag, environment, config file or hostname
  invalid_slot,          // a slot value that is not a non-negative integer
  no_hostname_ordinal,   // the host name does not end in a StatefulSet ordinal ("-3")
  unset_variable,        // ${VAR} in the config names an unset variable with no default
  config_unreadable,     // the config file cannot be opened or read
  config_syntax,         // the config file is outside the YAML subset cosid reads
  config_unknown_key,    // a key cosid does not know
  config_duplicate_key,  // a key given twice in one file
  invalid_value,         // a value that does not parse as its key's type or is out of range
  // The state file (state_file.h).
  state_file_missing,   // no state file where one is required
  state_file_corrupt,   // no valid record, wrong size, or not a regular file
  state_file_mismatch,  // written for another slot, layout or namespace
  state_file_locked,    // another process or runtime holds the file
  state_file_replaced,  // the file was removed, renamed or replaced while in use
  forked_process,       // used from a child forked from the process that opened it
  // Store-backed leases (lease/store.h).
  lease_exhausted,       // every slot of the namespace is held by a live lease
  lease_lost,            // the lease is gone: expired and taken, or its fence/incarnation differ
  lease_terms_mismatch,  // the namespace records another slot limit or tolerance (PROTOCOL.md)
  store_unavailable,     // a lease or range store could not be read or changed (I/O, timeout)
  store_corrupt,         // the store holds data cosid cannot read
  unknown_store_type,    // no store is registered under the configured type name
  // Segment ids (segment/range_store.h).
  range_sealed,     // the key is sealed: its store hands out no more ranges
  range_exhausted,  // a claim would take the key's next value past 2^63 - 1
  // Added in 0.7, after the values above so that they stay what they were.
  store_not_initialized,  // a store's directory or root nodes do not exist: create them explicitly
  cancelled,              // the caller asked the call to stop (a signal) before it finished
};

// The category of every errc value. Its name() is "cosid".
COSID_EXPORT const std::error_category& error_category() noexcept;

inline std::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), error_category()};
}

// What a call reports: ok, or a code with a message. Cheap when ok (no allocation); a failure
// allocates its message, which is fine on the cold paths that use it.
class COSID_EXPORT Status {
 public:
  Status() noexcept = default;
  Status(std::error_code code, std::string message) noexcept
      : code_(code), message_(std::move(message)) {}

  bool ok() const noexcept { return !code_; }
  const std::error_code& code() const noexcept { return code_; }
  // The message the failing call gave, else the category's text for the code; empty when ok().
  std::string message() const;

  // Back to ok, for a Status reused across calls.
  void clear() noexcept {
    code_.clear();
    message_.clear();
  }

 private:
  std::error_code code_;
  std::string message_;
};

#if COSID_HAS_EXCEPTIONS
// The exception thrown by cosid's throwing overloads. what() is the actionable message when one
// was produced, else the category's text for the code.
class COSID_EXPORT Error : public std::system_error {
 public:
  Error(std::error_code code, const std::string& message) : std::system_error(code, message) {}
  explicit Error(std::error_code code) : std::system_error(code) {}
  explicit Error(const Status& status) : std::system_error(status.code(), status.message()) {}
};

namespace detail {
// Throws Error(code, message); the throwing overloads of every header funnel through it.
[[noreturn]] inline void throw_error(std::error_code code, const std::string& message) {
  if (message.empty()) throw Error(code);
  throw Error(code, message);
}

// Throws Error(status) unless it is ok: the tail of every throwing overload.
inline void throw_if_failed(const Status& status) {
  if (!status.ok()) throw Error(status);
}
}  // namespace detail
#endif

}  // namespace cosid

namespace std {
template <>
struct is_error_code_enum<cosid::errc> : true_type {};
}  // namespace std

#endif  // COSID_ERROR_H_
