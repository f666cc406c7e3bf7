// SPDX-License-Identifier: Apache-2.0
#include "cosid/error.h"

namespace cosid {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "cosid"; }

  std::string message(int value) const override {
    switch (static_cast<errc>(value)) {
      case errc::layout_too_wide:
        return "layout uses more than 63 bits";
      case errc::layout_field_empty:
        return "layout field has no bits";
      case errc::layout_epoch_invalid:
        return "layout epoch is out of range";
      case errc::layout_epoch_in_future:
        return "layout epoch lies in the future";
      case errc::timestamp_overflow:
        return "timestamp does not fit the layout";
      case errc::id_empty:
        return "id is empty";
      case errc::id_bad_character:
        return "id has a character outside its alphabet";
      case errc::id_bad_length:
        return "id has the wrong length";
      case errc::id_overflow:
        return "id does not fit in 63 bits";
      case errc::id_field_out_of_range:
        return "id field does not fit the layout";
      case errc::unknown_layout:
        return "unknown layout preset";
      case errc::clock_backwards:
        return "clock moved backwards";
      case errc::clock_stalled:
        return "clock did not advance";
      case errc::clock_behind_floor:
        return "clock is behind the window's floor";
      case errc::ceiling_reached:
        return "durable ceiling reached";
      case errc::closed:
        return "generator is closed";
      case errc::slot_out_of_range:
        return "slot does not fit the layout";
      case errc::slot_lost:
        return "slot was lost";
      case errc::invalid_argument:
        return "invalid argument";
      case errc::no_slot_configured:
        return "no slot configured";
      case errc::invalid_slot:
        return "slot is not a non-negative integer";
      case errc::no_hostname_ordinal:
        return "host name has no StatefulSet ordinal";
      case errc::unset_variable:
        return "variable is not set";
      case errc::config_unreadable:
        return "config file cannot be read";
      case errc::config_syntax:
        return "config file syntax not supported";
      case errc::config_unknown_key:
        return "unknown config key";
      case errc::config_duplicate_key:
        return "duplicate config key";
      case errc::invalid_value:
        return "invalid config value";
      case errc::state_file_missing:
        return "state file is missing";
      case errc::state_file_corrupt:
        return "state file is corrupt";
      case errc::state_file_mismatch:
        return "state file belongs to another slot, layout or namespace";
      case errc::state_file_locked:
        return "state file is in use";
      case errc::state_file_replaced:
        return "state file was replaced or removed";
      case errc::forked_process:
        return "used from a forked child process";
      case errc::lease_exhausted:
        return "every slot of the namespace is leased";
      case errc::lease_lost:
        return "the slot lease was lost";
      case errc::lease_terms_mismatch:
        return "the namespace records another slot limit or tolerance";
      case errc::store_unavailable:
        return "the store is unavailable";
      case errc::store_corrupt:
        return "the store holds unreadable data";
      case errc::unknown_store_type:
        return "unknown lease store type";
      case errc::range_sealed:
        return "the segment key is sealed";
      case errc::range_exhausted:
        return "the segment key has no values left below 2^63";
      case errc::store_not_initialized:
        return "the store was never created";
      case errc::cancelled:
        return "the call was cancelled";
    }
    return "unknown cosid error " + std::to_string(value);
  }
};

}  // namespace

const std::error_category& error_category() noexcept {
  // A function-local static: constructed on first use, thread-safe since C++11, and trivially
  // destructible in effect (no state), so no destruction-order hazard.
  static const Category category;
  return category;
}

std::string Status::message() const {
  if (ok() || !message_.empty()) return message_;
  return code_.message();
}

}  // namespace cosid
