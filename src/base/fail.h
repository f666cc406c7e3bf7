// SPDX-License-Identifier: Apache-2.0
// Internal: the one helper that reports a refusal on a cold path. `return fail(status, code,
// text)` sets the code and the sentence (what happened, the values, what to do) and returns false,
// so that it also ends a bool function.
//
// Thread safety: a pure function of its arguments.
#ifndef COSID_SRC_BASE_FAIL_H_
#define COSID_SRC_BASE_FAIL_H_

#include <string>
#include <system_error>
#include <utility>

#include "cosid/error.h"

namespace cosid {
namespace detail {

inline bool fail(Status& status, std::error_code code, std::string text) {
  status = Status(code, std::move(text));
  return false;
}

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_BASE_FAIL_H_
