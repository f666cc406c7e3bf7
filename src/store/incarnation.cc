// SPDX-License-Identifier: Apache-2.0
// Incarnation: a random version-4 UUID per runtime start (RFC 9562, section 5.4).
#include "cosid/store/incarnation.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "base/fail.h"

namespace cosid {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";
// Where the dashes of the text form go: 8-4-4-4-12 hex digits.
constexpr std::size_t kTextSize = 36;

bool is_dash_position(std::size_t i) noexcept { return i == 8 || i == 13 || i == 18 || i == 23; }

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // upper case is refused: to_string() never writes it, and parse is its inverse
}

// Fills `data` from getrandom(2); falls back to /dev/urandom where the system call is missing
// (ENOSYS: old kernels, some sandboxes). getrandom blocks only until the kernel's pool is first
// initialised at boot, which is what an identity that must not repeat wants. Returns 0, or the
// errno of the call that failed (EIO for a /dev/urandom that ends early).
int fill_random(std::uint8_t* data, std::size_t size) noexcept {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::getrandom(data + done, size - done, 0);
    if (got > 0) {
      done += static_cast<std::size_t>(got);
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && errno == ENOSYS) break;
    return got < 0 ? errno : EIO;
  }
  if (done == size) return 0;
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  int error = 0;
  while (done < size) {
    const ssize_t got = ::read(fd, data + done, size - done);
    if (got > 0) {
      done += static_cast<std::size_t>(got);
    } else if (got == 0 || errno != EINTR) {
      error = got == 0 ? EIO : errno;
      break;
    }
  }
  ::close(fd);
  return error;
}

}  // namespace

bool Incarnation::random(Incarnation& out, Status& status) {
  Incarnation fresh;
  const int error = fill_random(fresh.bytes.data(), fresh.bytes.size());
  if (error != 0) {
    return detail::fail(status, errc::store_unavailable,
                        std::string("no random incarnation: the kernel's random source (getrandom, "
                                    "then /dev/urandom) cannot be read: ") +
                            std::strerror(error) +
                            "; check that /dev/urandom exists and is readable in this sandbox");
  }
  // Version 4 (random) in the high nibble of byte 6, variant 10xx in the top bits of byte 8.
  fresh.bytes[6] = static_cast<std::uint8_t>((fresh.bytes[6] & 0x0f) | 0x40);
  fresh.bytes[8] = static_cast<std::uint8_t>((fresh.bytes[8] & 0x3f) | 0x80);
  out = fresh;
  status.clear();
  return true;
}

std::string Incarnation::to_string() const {
  std::string text;
  text.reserve(kTextSize);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
    text.push_back(kHexDigits[bytes[i] >> 4]);
    text.push_back(kHexDigits[bytes[i] & 0x0f]);
  }
  return text;
}

bool Incarnation::parse(const std::string& text, Incarnation& out) noexcept {
  if (text.size() != kTextSize) return false;
  Incarnation parsed;
  std::size_t byte = 0;
  for (std::size_t i = 0; i < kTextSize;) {
    if (is_dash_position(i)) {
      if (text[i] != '-') return false;
      ++i;
      continue;
    }
    const int high = hex_value(text[i]);
    const int low = hex_value(text[i + 1]);
    if (high < 0 || low < 0) return false;
    parsed.bytes[byte++] = static_cast<std::uint8_t>(high << 4 | low);
    i += 2;
  }
  out = parsed;
  return true;
}

bool Incarnation::is_nil() const noexcept {
  for (const std::uint8_t b : bytes) {
    if (b != 0) return false;
  }
  return true;
}

}  // namespace cosid
