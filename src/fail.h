// Internal: how a cold path reports a refusal: the code in `ec` and, when the caller asked for
// one, the sentence in `message`. Returns false, so that `return fail(...)` ends a bool function.
//
// Thread safety: a pure function of its arguments.
#ifndef COSID_SRC_FAIL_H_
#define COSID_SRC_FAIL_H_

#include <string>
#include <system_error>

#include "cosid/error.h"

namespace cosid {
namespace detail {

inline bool fail(errc code, std::error_code& ec, std::string* message, const std::string& text) {
  ec = make_error_code(code);
  if (message != nullptr) *message = text;
  return false;
}

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_FAIL_H_
