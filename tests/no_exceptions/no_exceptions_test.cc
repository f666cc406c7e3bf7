// SPDX-License-Identifier: Apache-2.0
// The library without exceptions and RTTI: built with -fno-exceptions -fno-rtti, this program uses
// the error_code overloads of each part and checks that failures come back as the right codes.
// A plain main with a CHECK macro, because GoogleTest needs exceptions.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

#include "cosid/binding.h"
#include "cosid/c.h"
#include "cosid/clock.h"
#include "cosid/codec.h"
#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/generator.h"
#include "cosid/layout.h"

// The headers must see that exceptions are off, or the throwing overloads would be declared.
static_assert(COSID_HAS_EXCEPTIONS == 0, "this test must be compiled with -fno-exceptions");
#if defined(__cpp_rtti) || defined(__GXX_RTTI)
#error "this test must be compiled with -fno-rtti"
#endif

namespace {
int failures = 0;
}  // namespace

// Records a failure with its place and keeps going, so one run reports every broken check.
#define CHECK(condition)                                                                 \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                                        \
    }                                                                                    \
  } while (false)

namespace {

void layout_errors() {
  cosid::Layout wide = cosid::layouts::kDefault;
  wide.timestamp_bits = 40;
  wide.slot_bits = 20;
  wide.sequence_bits = 10;
  cosid::Status status;
  CHECK(!wide.validate(status));
  CHECK(status.code() == cosid::errc::layout_too_wide);
  CHECK(!status.message().empty());

  status.clear();
  CHECK(cosid::layouts::kDefault.validate(status));
  CHECK(!status.code());

  const cosid::Layout preset = cosid::layout_preset("nope", status);
  CHECK(status.code() == cosid::errc::unknown_layout);
  CHECK(preset == cosid::layouts::kDefault);

  const cosid::Layout js = cosid::layout_preset("js-safe", status);
  CHECK(!status.code());
  CHECK(js == cosid::layouts::kJsSafe);
}

void codec_errors() {
  cosid::Status status;
  const std::uint64_t id = cosid::decode_radix62("!!!!!!!!!!!", status);
  CHECK(id == 0);
  CHECK(status.code() == cosid::errc::id_bad_character);
  CHECK(!status.message().empty());

  // And a round trip, so the success path runs too.
  char buffer[cosid::kMaxEncodedChars];
  const std::size_t length = cosid::encode_radix62(123456789, buffer);
  CHECK(cosid::decode_radix62(std::string_view(buffer, length), status) == 123456789);
  CHECK(!status.code());
}

void generator_issues_and_closes() {
  const cosid::Layout& layout = cosid::layouts::kDefault;
  const std::int64_t now_ms = 1700000000000;
  // OnSleep::kAdvanceBoth (the default): when a tick's sequence is used up, the generator's wait
  // moves the clock on.
  cosid::ManualClock clock(now_ms);
  cosid::Binding binding(1, now_ms - 1000, now_ms + 3600 * 1000);
  cosid::Status status;
  const std::unique_ptr<cosid::Generator> generator =
      cosid::Generator::create(layout, binding, clock, cosid::GeneratorOptions{}, status);
  if (generator == nullptr) {
    std::fprintf(stderr, "Generator::create failed: %s: %s\n", status.code().message().c_str(),
                 status.message().c_str());
    ++failures;
    return;
  }

  // More ids than one tick's sequence holds, so the generator must move to later ticks.
  constexpr int kIds = 10000;
  std::uint64_t last = 0;
  for (int i = 0; i < kIds; ++i) {
    const std::uint64_t id = generator->next(status);
    if (!status.ok()) {
      std::fprintf(stderr, "next() #%d failed: %s: %s\n", i, status.code().message().c_str(),
                   status.message().c_str());
      ++failures;
      return;
    }
    if (id <= last) {
      std::fprintf(stderr, "next() #%d returned %llu after %llu\n", i,
                   static_cast<unsigned long long>(id), static_cast<unsigned long long>(last));
      ++failures;
      return;
    }
    last = id;
  }
  const cosid::IdParts parts = layout.parse(last);
  CHECK(parts.slot == 1);
  CHECK(layout.tick_start_ms(parts.timestamp) > binding.floor_ms());
  CHECK(layout.tick_end_ms(parts.timestamp) <= binding.ceiling_ms());

  // close() reports the last timestamp issued; after it every next() fails with closed.
  CHECK(generator->close() == layout.tick_end_ms(parts.timestamp));
  std::error_code ec;
  CHECK(generator->next(ec) == 0);
  CHECK(ec == cosid::errc::closed);
}

// The C API's entry points are guarded with try/catch only where exceptions exist; here they must
// compile without it and still return codes and messages.
void c_api_codes() {
  char err[256];
  cosid_layout_t layout;
  CHECK(cosid_layout_preset("nope", &layout, err, sizeof err) == COSID_E_UNKNOWN_LAYOUT);
  CHECK(err[0] != '\0');
  std::uint64_t id = 0;
  CHECK(cosid_id_decode("42", COSID_FORMAT_DECIMAL, nullptr, &id, err, sizeof err) == COSID_OK);
  CHECK(id == 42);
  cosid_options_t* options = cosid_options_create();
  CHECK(options != nullptr);
  cosid_runtime_t* runtime = nullptr;
  CHECK(cosid_runtime_open(options, &runtime, err, sizeof err) == COSID_E_NO_SLOT_CONFIGURED);
  CHECK(runtime == nullptr);
  cosid_options_destroy(options);
}

}  // namespace

int main() {
  layout_errors();
  codec_errors();
  generator_issues_and_closes();
  c_api_codes();
  if (failures != 0) {
    std::fprintf(stderr, "no_exceptions: %d check(s) failed\n", failures);
    return 1;
  }
  std::printf("no_exceptions: all checks passed\n");
  return 0;
}
