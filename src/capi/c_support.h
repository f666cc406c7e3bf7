// SPDX-License-Identifier: Apache-2.0
// Internal to the C API (src/capi/c.cc, src/capi/c_segment.cc): how an entry point reports, so that
// every one of them writes its message, maps its code and catches what C must never see alike.
//
// Thread safety: pure functions of their arguments; each writes only the caller's buffer.
#ifndef COSID_SRC_CAPI_C_SUPPORT_H_
#define COSID_SRC_CAPI_C_SUPPORT_H_

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <system_error>

#include "cosid/c.h"
#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/options.h"

namespace cosid {
namespace c_api {

// Copies `text` into the caller's buffer, if any: at most len - 1 bytes, cut before a UTF-8
// continuation byte so that no character is split (paths in messages may be UTF-8), then a NUL.
inline void write_text(std::string_view text, char* buf, std::size_t len) noexcept {
  if (buf == nullptr || len == 0) return;
  std::size_t n = text.size();
  if (n >= len) {
    n = len - 1;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  }
  std::memcpy(buf, text.data(), n);
  buf[n] = '\0';
}

#if COSID_HAS_EXCEPTIONS
// Writes `first` then `second`, cut as write_text() cuts. Allocates nothing: the catch blocks of
// guarded() use it.
inline void write_joined(std::string_view first, std::string_view second, char* buf,
                         std::size_t len) noexcept {
  write_text(first, buf, len);
  if (buf == nullptr || len == 0) return;
  const std::size_t used = std::strlen(buf);
  write_text(second, buf + used, len - used);
}
#endif

// The C code for `ec`: cosid's own values as they are, the operating system's negated.
inline int code_of(const std::error_code& ec) noexcept {
  if (!ec) return COSID_OK;
  if (ec.category() == error_category()) return ec.value();
  // On POSIX both categories carry errno values.
  if (ec.category() == std::generic_category() || ec.category() == std::system_category()) {
    return -ec.value();
  }
  return COSID_E_INTERNAL;
}

inline int succeed(char* err, std::size_t len) noexcept {
  write_text("", err, len);
  return COSID_OK;
}

// Reports a failed call: its message (the category's text when it gave none) into `err`, its
// code as the C code.
inline int report(const Status& status, char* err, std::size_t len) {
  write_text(status.message(), err, len);
  return code_of(status.code());
}

inline int out_of_memory(char* err, std::size_t len) noexcept {
  write_text("cosid: out of memory", err, len);
  return -ENOMEM;
}

// Runs `body` (which returns a code) so that no exception leaves it.
template <typename Body>
inline int guarded(char* err, std::size_t len, Body&& body) noexcept {
#if COSID_HAS_EXCEPTIONS
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return out_of_memory(err, len);
  } catch (const std::system_error& e) {
    write_joined("cosid: ", e.what(), err, len);
    const int code = code_of(e.code());
    return code != COSID_OK ? code : COSID_E_INTERNAL;
  } catch (const std::exception& e) {
    write_joined("cosid: unexpected exception: ", e.what(), err, len);
    return COSID_E_INTERNAL;
  } catch (...) {
    write_text("cosid: unexpected exception of an unknown type", err, len);
    return COSID_E_INTERNAL;
  }
#else
  (void)err;  // nothing can be thrown, so nothing is caught and reported
  (void)len;
  return body();
#endif
}

// A NULL where the caller must pass something.
inline int null_argument(const char* function, const char* parameter, char* err, std::size_t len) {
  return report(Status(errc::invalid_argument,
                       std::string(function) + ": " + parameter + " is NULL: pass a valid pointer"),
                err, len);
}

// Whether the caller has somewhere to put a message: when not, the hot path's calls take the
// std::error_code& overloads, so that a failure does not build a message nobody reads.
inline bool wants_message(const char* err, std::size_t len) noexcept {
  return err != nullptr && len > 0;
}

// The settings a C caller passes as `keys` and `values` (`count` of them), into `sources` with the
// config file: COSID_OK, or the code of a NULL where a pointer is needed.
inline int sources_of(const char* function, const char* config_file, const char* const* keys,
                      const char* const* values, std::size_t count, OptionSources& sources,
                      char* err, std::size_t len) {
  if (count > 0 && keys == nullptr) return null_argument(function, "keys", err, len);
  if (count > 0 && values == nullptr) return null_argument(function, "values", err, len);
  if (config_file != nullptr) sources.config_file = config_file;
  for (std::size_t i = 0; i < count; ++i) {
    if (keys[i] == nullptr || values[i] == nullptr) {
      const std::string which =
          (keys[i] == nullptr ? "keys[" : "values[") + std::to_string(i) + "]";
      return null_argument(function, which.c_str(), err, len);
    }
    sources.flags.emplace_back(keys[i], values[i]);
  }
  return COSID_OK;
}

// The body of a *_next() entry point over `issuer` (a Generator or a SegmentGenerator): the
// Status& overload when the caller has room for a message, else the std::error_code& one, so that
// a failure builds no message nobody reads.
template <typename Issuer, typename Id>
int issue_next(Issuer& issuer, Id* id, char* err, std::size_t len) {
  Id next = 0;
  if (wants_message(err, len)) {
    Status status;
    next = issuer.next(status);
    if (!status.ok()) return report(status, err, len);
  } else {
    std::error_code ec;
    next = issuer.next(ec);
    if (ec) return code_of(ec);
  }
  *id = next;
  return succeed(err, len);
}

// The body of a *_next_batch() entry point, as issue_next(); a count of 0 is refused.
template <typename Issuer, typename Id>
int issue_batch(const char* function, Issuer& issuer, Id* ids, std::size_t count,
                std::size_t* written, char* err, std::size_t len) {
  if (count == 0) {
    return report(Status(errc::invalid_argument,
                         std::string(function) + ": count is 0: ask for at least 1 id"),
                  err, len);
  }
  std::size_t got = 0;
  if (wants_message(err, len)) {
    Status status;
    got = issuer.next_batch(ids, count, status);
    if (!status.ok()) return report(status, err, len);
  } else {
    std::error_code ec;
    got = issuer.next_batch(ids, count, ec);
    if (ec) return code_of(ec);
  }
  *written = got;
  return succeed(err, len);
}

// The body of a *_close() entry point over `closable` (a Runtime or a SegmentGenerator).
template <typename Closable>
int close_of(Closable& closable, char* err, std::size_t len) {
  Status status;
  if (!closable.close(status)) return report(status, err, len);
  return succeed(err, len);
}

}  // namespace c_api
}  // namespace cosid

#endif  // COSID_SRC_CAPI_C_SUPPORT_H_
