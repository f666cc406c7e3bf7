// Internal: the one helper that reports a refusal on a cold path. `return fail(status, code,
// text)` sets the code and the sentence (what happened, the values, what to do) and returns false,
// so that it also ends a bool function.
//
// The four-argument fail() is the shape every call had before Status (a code in `ec`, the sentence in an
// optional `message`); it goes once no call takes that shape.
//
// Thread safety: pure functions of their arguments.
#ifndef COSID_SRC_FAIL_H_
#define COSID_SRC_FAIL_H_

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

inline bool fail(errc code, std::error_code& ec, std::string* message, const std::string& text) {
  ec = make_error_code(code);
  if (message != nullptr) *message = text;
  return false;
}

// The seam between the two shapes while both exist: hands `status` to a caller that still takes
// (ec, message). Returns status.ok(). It goes with the four-argument fail().
inline bool to_legacy(const Status& status, std::error_code& ec, std::string* message) {
  ec = status.code();
  if (message != nullptr && !status.ok()) *message = status.message();
  return status.ok();
}

}  // namespace detail
}  // namespace cosid

#endif  // COSID_SRC_FAIL_H_
