// SPDX-License-Identifier: Apache-2.0
// The C API (include/cosid/c.h) over the C++ one. Each entry point runs its body through
// guarded(), which turns every exception into a code and a message where exceptions exist, so
// none crosses into C; without exceptions the body runs as it is. Handles wrap the C++ objects;
// errors come back as c.h's int codes with the C++ messages copied into the caller's buffer.
#include "cosid/c.h"

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <system_error>

#include "base/fail.h"
#include "capi/c_support.h"
#include "cosid/codec.h"
#include "cosid/config.h"
#include "cosid/error.h"
#include "cosid/generator.h"
#include "cosid/layout.h"
#include "cosid/options.h"
#include "cosid/runtime.h"

struct cosid_options_t {
  cosid::Options options;
  // Options has no "unset" slot; the C API keeps one, so that forgetting the slot is an error
  // rather than slot 0, which another process may hold.
  bool has_slot = false;
  // Until set, the start waits ahead + 1 s, as resolve_options() makes it, whatever ahead becomes.
  bool has_start_wait = false;
};

struct cosid_runtime_t {
  std::unique_ptr<cosid::Runtime> runtime;
};

// cosid_generator_t is never defined: a handle is the runtime's Generator itself, which the
// runtime keeps for its whole life, so handing it out needs no allocation and no lock.
namespace {

// The reporting helpers every entry point shares (c_support.h).
using cosid::c_api::close_of;
using cosid::c_api::guarded;
using cosid::c_api::issue_batch;
using cosid::c_api::issue_next;
using cosid::c_api::null_argument;
using cosid::c_api::out_of_memory;
using cosid::c_api::report;
using cosid::c_api::sources_of;
using cosid::c_api::succeed;
using cosid::c_api::write_text;

cosid::Generator* to_generator(cosid_generator_t* handle) noexcept {
  return reinterpret_cast<cosid::Generator*>(handle);
}
cosid_generator_t* to_handle(cosid::Generator* generator) noexcept {
  return reinterpret_cast<cosid_generator_t*>(generator);
}

// Each C constant and the errc enumerator it stands for: checked equal at compile time below, and
// named by cosid_code_name().
#define COSID_C_ERRC_LIST(X)                                \
  X(COSID_E_LAYOUT_TOO_WIDE, layout_too_wide)               \
  X(COSID_E_LAYOUT_FIELD_EMPTY, layout_field_empty)         \
  X(COSID_E_LAYOUT_EPOCH_INVALID, layout_epoch_invalid)     \
  X(COSID_E_LAYOUT_EPOCH_IN_FUTURE, layout_epoch_in_future) \
  X(COSID_E_TIMESTAMP_OVERFLOW, timestamp_overflow)         \
  X(COSID_E_ID_EMPTY, id_empty)                             \
  X(COSID_E_ID_BAD_CHARACTER, id_bad_character)             \
  X(COSID_E_ID_BAD_LENGTH, id_bad_length)                   \
  X(COSID_E_ID_OVERFLOW, id_overflow)                       \
  X(COSID_E_ID_FIELD_OUT_OF_RANGE, id_field_out_of_range)   \
  X(COSID_E_UNKNOWN_LAYOUT, unknown_layout)                 \
  X(COSID_E_CLOCK_BACKWARDS, clock_backwards)               \
  X(COSID_E_CLOCK_STALLED, clock_stalled)                   \
  X(COSID_E_CLOCK_BEHIND_FLOOR, clock_behind_floor)         \
  X(COSID_E_CEILING_REACHED, ceiling_reached)               \
  X(COSID_E_CLOSED, closed)                                 \
  X(COSID_E_SLOT_OUT_OF_RANGE, slot_out_of_range)           \
  X(COSID_E_SLOT_LOST, slot_lost)                           \
  X(COSID_E_INVALID_ARGUMENT, invalid_argument)             \
  X(COSID_E_NO_SLOT_CONFIGURED, no_slot_configured)         \
  X(COSID_E_INVALID_SLOT, invalid_slot)                     \
  X(COSID_E_NO_HOSTNAME_ORDINAL, no_hostname_ordinal)       \
  X(COSID_E_UNSET_VARIABLE, unset_variable)                 \
  X(COSID_E_CONFIG_UNREADABLE, config_unreadable)           \
  X(COSID_E_CONFIG_SYNTAX, config_syntax)                   \
  X(COSID_E_CONFIG_UNKNOWN_KEY, config_unknown_key)         \
  X(COSID_E_CONFIG_DUPLICATE_KEY, config_duplicate_key)     \
  X(COSID_E_INVALID_VALUE, invalid_value)                   \
  X(COSID_E_STATE_FILE_MISSING, state_file_missing)         \
  X(COSID_E_STATE_FILE_CORRUPT, state_file_corrupt)         \
  X(COSID_E_STATE_FILE_MISMATCH, state_file_mismatch)       \
  X(COSID_E_STATE_FILE_LOCKED, state_file_locked)           \
  X(COSID_E_STATE_FILE_REPLACED, state_file_replaced)       \
  X(COSID_E_FORKED_PROCESS, forked_process)                 \
  X(COSID_E_LEASE_EXHAUSTED, lease_exhausted)               \
  X(COSID_E_LEASE_LOST, lease_lost)                         \
  X(COSID_E_LEASE_TERMS_MISMATCH, lease_terms_mismatch)     \
  X(COSID_E_STORE_UNAVAILABLE, store_unavailable)           \
  X(COSID_E_STORE_CORRUPT, store_corrupt)                   \
  X(COSID_E_UNKNOWN_STORE_TYPE, unknown_store_type)         \
  X(COSID_E_RANGE_SEALED, range_sealed)                     \
  X(COSID_E_RANGE_EXHAUSTED, range_exhausted)               \
  X(COSID_E_STORE_NOT_INITIALIZED, store_not_initialized)   \
  X(COSID_E_CANCELLED, cancelled)

#define COSID_C_CHECK_CODE(constant, enumerator)                       \
  static_assert(constant == static_cast<int>(cosid::errc::enumerator), \
                #constant " must equal cosid::errc::" #enumerator);
COSID_C_ERRC_LIST(COSID_C_CHECK_CODE)
#undef COSID_C_CHECK_CODE

static_assert(COSID_ENCODED_BUFFER_SIZE == cosid::kMaxEncodedChars + 1,
              "COSID_ENCODED_BUFFER_SIZE is kMaxEncodedChars and a NUL");
static_assert(COSID_FORMAT_DECIMAL == static_cast<int>(cosid::IdFormat::kDecimal) &&
                  COSID_FORMAT_RADIX62 == static_cast<int>(cosid::IdFormat::kRadix62) &&
                  COSID_FORMAT_RADIX36 == static_cast<int>(cosid::IdFormat::kRadix36) &&
                  COSID_FORMAT_FRIENDLY == static_cast<int>(cosid::IdFormat::kFriendly),
              "the C formats are cosid::IdFormat's values");

cosid_layout_t to_c(const cosid::Layout& layout) noexcept {
  cosid_layout_t out;
  out.epoch = layout.epoch;
  out.unit = layout.unit == cosid::TimeUnit::kSecond ? COSID_UNIT_SECOND : COSID_UNIT_MILLISECOND;
  out.timestamp_bits = layout.timestamp_bits;
  out.slot_bits = layout.slot_bits;
  out.sequence_bits = layout.sequence_bits;
  return out;
}

// The C++ layout for `in` (the default preset for NULL), checked: every Layout function that
// takes an id assumes a valid layout.
bool from_c(const cosid_layout_t* in, cosid::Layout& out, cosid::Status& status) {
  if (in == nullptr) {
    out = cosid::layouts::kDefault;
    status.clear();
    return true;
  }
  if (in->unit != COSID_UNIT_MILLISECOND && in->unit != COSID_UNIT_SECOND) {
    return cosid::detail::fail(
        status, cosid::errc::invalid_argument,
        "layout unit " + std::to_string(in->unit) +
            " is neither COSID_UNIT_MILLISECOND (0) nor COSID_UNIT_SECOND (1)");
  }
  cosid::Layout layout;
  layout.epoch = in->epoch;
  layout.unit =
      in->unit == COSID_UNIT_SECOND ? cosid::TimeUnit::kSecond : cosid::TimeUnit::kMillisecond;
  layout.timestamp_bits = in->timestamp_bits;
  layout.slot_bits = in->slot_bits;
  layout.sequence_bits = in->sequence_bits;
  if (!layout.validate(status)) return false;
  out = layout;
  return true;
}

// Refuses an id the layout cannot have produced, as `cosid parse` does.
int check_fits(std::uint64_t id, const cosid::Layout& layout, char* err, std::size_t len) {
  if (id > static_cast<std::uint64_t>(INT64_MAX)) {
    return report(
        cosid::Status(
            cosid::errc::id_overflow,
            "id " + std::to_string(id) +
                " is above 2^63 - 1 = 9223372036854775807: cosid ids are positive int64s"),
        err, len);
  }
  if (!layout.fits(id)) {
    return report(
        cosid::Status(cosid::errc::id_field_out_of_range,
                      "id " + std::to_string(id) + " is above " + std::to_string(layout.max_id()) +
                          ", the largest id of the " + std::to_string(layout.timestamp_bits) + "/" +
                          std::to_string(layout.slot_bits) + "/" +
                          std::to_string(layout.sequence_bits) +
                          "-bit layout given: pass the layout that issued it"),
        err, len);
  }
  return COSID_OK;
}

bool is_codec(int format) noexcept {
  return format == COSID_FORMAT_DECIMAL || format == COSID_FORMAT_RADIX62 ||
         format == COSID_FORMAT_RADIX36 || format == COSID_FORMAT_FRIENDLY;
}

// The options a runtime is opened with: start_wait follows ahead unless it was set.
cosid::Options effective(const cosid_options_t& handle) {
  cosid::Options options = handle.options;
  if (!handle.has_start_wait) options.start_wait = options.ahead + std::chrono::seconds(1);
  return options;
}

int check_options(const cosid_options_t& handle, const cosid::Options& options, char* err,
                  std::size_t len) {
  if (!handle.has_slot) {
    return report(
        cosid::Status(
            cosid::errc::no_slot_configured,
            "no slot is set, and cosid never picks one: call cosid_options_set_slot(), or "
            "resolve the options with cosid_options_resolve() (COSID_SLOT, a config file, or "
            "the StatefulSet ordinal of the host name)"),
        err, len);
  }
  cosid::Status status;
  if (!cosid::validate_options(options, status)) {
    return report(status, err, len);
  }
  return COSID_OK;
}

int set_string(std::string& field, const char* function, const char* value, char* err,
               std::size_t len) {
  if (value == nullptr) return null_argument(function, "the value", err, len);
  field = value;
  return succeed(err, len);
}

#define COSID_C_STRINGIFY2(x) #x
#define COSID_C_STRINGIFY(x) COSID_C_STRINGIFY2(x)
constexpr const char kVersion[] = COSID_C_STRINGIFY(COSID_VERSION_MAJOR) "." COSID_C_STRINGIFY(
    COSID_VERSION_MINOR) "." COSID_C_STRINGIFY(COSID_VERSION_PATCH);

}  // namespace

extern "C" {

// ---- Codes

const char* cosid_code_name(int code) noexcept {
#define COSID_C_NAME_CODE(constant, enumerator) \
  case constant:                                \
    return #constant;
  switch (code) {
    case COSID_OK:
      return "COSID_OK";
      COSID_C_ERRC_LIST(COSID_C_NAME_CODE)
    case COSID_E_INTERNAL:
      return "COSID_E_INTERNAL";
    default:
      // Kernel errno values lie below 4096 (Linux's MAX_ERRNO).
      return code < 0 && code > COSID_E_INTERNAL ? "COSID_E_SYSTEM" : "COSID_E_UNKNOWN";
  }
#undef COSID_C_NAME_CODE
}

char* cosid_code_describe(int code, char* buf, size_t len) noexcept {
  (void)guarded(buf, len, [&] {
    if (code == COSID_OK) {
      write_text("success", buf, len);
    } else if (code == COSID_E_INTERNAL) {
      write_text("unexpected C++ exception inside cosid", buf, len);
    } else if (code > 0) {
      write_text(std::error_code(code, cosid::error_category()).message(), buf, len);
    } else {
      write_text(std::generic_category().message(-code), buf, len);
    }
    return COSID_OK;
  });
  return buf;
}

// ---- Version

const char* cosid_version(void) noexcept { return kVersion; }
int cosid_version_major(void) noexcept { return COSID_VERSION_MAJOR; }
int cosid_version_minor(void) noexcept { return COSID_VERSION_MINOR; }
int cosid_version_patch(void) noexcept { return COSID_VERSION_PATCH; }

// ---- Layouts

int cosid_layout_preset(const char* name, cosid_layout_t* out, char* err, size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    if (name == nullptr) return null_argument("cosid_layout_preset", "name", err, err_len);
    if (out == nullptr) return null_argument("cosid_layout_preset", "out", err, err_len);
    cosid::Status status;
    const cosid::Layout layout = cosid::layout_preset(name, status);
    if (!status.ok()) return report(status, err, err_len);
    *out = to_c(layout);
    return succeed(err, err_len);
  });
}

int cosid_layout_validate(const cosid_layout_t* layout, char* err, size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    if (layout == nullptr) return null_argument("cosid_layout_validate", "layout", err, err_len);
    cosid::Status status;
    cosid::Layout checked;
    if (!from_c(layout, checked, status)) return report(status, err, err_len);
    return succeed(err, err_len);
  });
}

// ---- Options

cosid_options_t* cosid_options_create(void) noexcept {
  // nothrow: without exceptions a failed plain new would abort instead of returning NULL.
  return new (std::nothrow) cosid_options_t;
}

int cosid_options_resolve(const char* config_file, const char* const* keys,
                          const char* const* values, size_t count, cosid_options_t** out, char* err,
                          size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_options_resolve";
    if (out == nullptr) return null_argument(kName, "out", err, err_len);
    cosid::OptionSources sources;
    const int given = sources_of(kName, config_file, keys, values, count, sources, err, err_len);
    if (given != COSID_OK) return given;
    std::unique_ptr<cosid_options_t> handle(new (std::nothrow) cosid_options_t);
    if (handle == nullptr) return out_of_memory(err, err_len);
    cosid::Status status;
    handle->options = cosid::resolve_options(sources, status);
    if (!status.ok()) return report(status, err, err_len);
    handle->has_slot = true;  // resolve_options() fails rather than leave the slot unset
    *out = handle.release();
    return succeed(err, err_len);
  });
}

void cosid_options_destroy(cosid_options_t* options) noexcept { delete options; }

void cosid_options_set_slot(cosid_options_t* options, uint32_t slot) noexcept {
  options->options.slot = slot;
  options->has_slot = true;
}

void cosid_options_set_ahead_ms(cosid_options_t* options, int64_t ahead_ms) noexcept {
  options->options.ahead = std::chrono::milliseconds(ahead_ms);
}

void cosid_options_set_start_wait_ms(cosid_options_t* options, int64_t start_wait_ms) noexcept {
  options->options.start_wait = std::chrono::milliseconds(start_wait_ms);
  options->has_start_wait = true;
}

void cosid_options_set_not_before_ms(cosid_options_t* options, int64_t not_before_ms) noexcept {
  options->options.not_before_ms = not_before_ms;
}

void cosid_options_set_require_state_file(cosid_options_t* options, int require) noexcept {
  options->options.require_state_file = require != 0;
}

int cosid_options_set_state_file(cosid_options_t* options, const char* path, char* err,
                                 size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_options_set_state_file";
    if (options == nullptr) return null_argument(kName, "options", err, err_len);
    return set_string(options->options.state_file, kName, path, err, err_len);
  });
}

int cosid_options_set_namespace(cosid_options_t* options, const char* name, char* err,
                                size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_options_set_namespace";
    if (options == nullptr) return null_argument(kName, "options", err, err_len);
    return set_string(options->options.namespace_name, kName, name, err, err_len);
  });
}

int cosid_options_set_layout(cosid_options_t* options, const cosid_layout_t* layout, char* err,
                             size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_options_set_layout";
    if (options == nullptr) return null_argument(kName, "options", err, err_len);
    if (layout == nullptr) return null_argument(kName, "layout", err, err_len);
    cosid::Status status;
    if (!from_c(layout, options->options.layout, status)) return report(status, err, err_len);
    return succeed(err, err_len);
  });
}

int cosid_options_set_layout_preset(cosid_options_t* options, const char* name, char* err,
                                    size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_options_set_layout_preset";
    if (options == nullptr) return null_argument(kName, "options", err, err_len);
    if (name == nullptr) return null_argument(kName, "name", err, err_len);
    cosid::Status status;
    const cosid::Layout layout = cosid::layout_preset(name, status);
    if (!status.ok()) return report(status, err, err_len);
    options->options.layout = layout;
    return succeed(err, err_len);
  });
}

int cosid_options_has_slot(const cosid_options_t* options) noexcept {
  return options->has_slot ? 1 : 0;
}
uint32_t cosid_options_slot(const cosid_options_t* options) noexcept {
  return options->options.slot;
}
int64_t cosid_options_ahead_ms(const cosid_options_t* options) noexcept {
  return options->options.ahead.count();
}
int64_t cosid_options_not_before_ms(const cosid_options_t* options) noexcept {
  return options->options.not_before_ms;
}
const char* cosid_options_state_file(const cosid_options_t* options) noexcept {
  return options->options.state_file.c_str();
}
const char* cosid_options_namespace(const cosid_options_t* options) noexcept {
  return options->options.namespace_name.c_str();
}
void cosid_options_layout(const cosid_options_t* options, cosid_layout_t* out) noexcept {
  *out = to_c(options->options.layout);
}

int cosid_options_validate(const cosid_options_t* options, char* err, size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    if (options == nullptr) return null_argument("cosid_options_validate", "options", err, err_len);
    const int code = check_options(*options, effective(*options), err, err_len);
    return code != COSID_OK ? code : succeed(err, err_len);
  });
}

// ---- Runtime

int cosid_runtime_open(const cosid_options_t* options, cosid_runtime_t** out, char* err,
                       size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_runtime_open";
    if (options == nullptr) return null_argument(kName, "options", err, err_len);
    if (out == nullptr) return null_argument(kName, "out", err, err_len);
    const cosid::Options resolved = effective(*options);
    const int invalid = check_options(*options, resolved, err, err_len);
    if (invalid != COSID_OK) return invalid;
    std::unique_ptr<cosid_runtime_t> handle(new (std::nothrow) cosid_runtime_t);
    if (handle == nullptr) return out_of_memory(err, err_len);
    cosid::Status status;
    handle->runtime = cosid::Runtime::open(resolved, {}, status);
    if (handle->runtime == nullptr) return report(status, err, err_len);
    *out = handle.release();
    return succeed(err, err_len);
  });
}

int cosid_runtime_generator(cosid_runtime_t* runtime, const char* name, cosid_generator_t** out,
                            char* err, size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_runtime_generator";
    if (runtime == nullptr) return null_argument(kName, "runtime", err, err_len);
    if (out == nullptr) return null_argument(kName, "out", err, err_len);
    cosid::Status status;
    cosid::Generator* generator =
        runtime->runtime->generator(name != nullptr ? name : "default", status);
    if (generator == nullptr) {
      return report(status.code() == cosid::errc::closed
                        ? cosid::Status(status.code(),
                                        "the runtime is closed: open a new one with "
                                        "cosid_runtime_open()")
                        : status,
                    err, err_len);
    }
    *out = to_handle(generator);
    return succeed(err, err_len);
  });
}

int cosid_runtime_close(cosid_runtime_t* runtime, char* err, size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    if (runtime == nullptr) return null_argument("cosid_runtime_close", "runtime", err, err_len);
    return close_of(*runtime->runtime, err, err_len);
  });
}

void cosid_runtime_destroy(cosid_runtime_t* runtime) noexcept {
  // ~Runtime closes it first; a destructor does not throw.
  delete runtime;
}

uint32_t cosid_runtime_slot(const cosid_runtime_t* runtime) noexcept {
  return runtime->runtime->slot();
}
int64_t cosid_runtime_floor_ms(const cosid_runtime_t* runtime) noexcept {
  return runtime->runtime->floor_ms();
}
int64_t cosid_runtime_ceiling_ms(const cosid_runtime_t* runtime) noexcept {
  return runtime->runtime->ceiling_ms();
}
void cosid_runtime_layout(const cosid_runtime_t* runtime, cosid_layout_t* out) noexcept {
  *out = to_c(runtime->runtime->options().layout);
}

// ---- Generator

int cosid_generator_next(cosid_generator_t* generator, uint64_t* id, char* err,
                         size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_generator_next";
    if (generator == nullptr) return null_argument(kName, "generator", err, err_len);
    if (id == nullptr) return null_argument(kName, "id", err, err_len);
    return issue_next(*to_generator(generator), id, err, err_len);
  });
}

int cosid_generator_next_batch(cosid_generator_t* generator, uint64_t* ids, size_t count,
                               size_t* written, char* err, size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_generator_next_batch";
    if (generator == nullptr) return null_argument(kName, "generator", err, err_len);
    if (ids == nullptr) return null_argument(kName, "ids", err, err_len);
    if (written == nullptr) return null_argument(kName, "written", err, err_len);
    return issue_batch(kName, *to_generator(generator), ids, count, written, err, err_len);
  });
}

// ---- Ids

int cosid_id_parse(uint64_t id, const cosid_layout_t* layout, cosid_id_fields_t* out, char* err,
                   size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    if (out == nullptr) return null_argument("cosid_id_parse", "out", err, err_len);
    cosid::Status status;
    cosid::Layout checked;
    if (!from_c(layout, checked, status)) return report(status, err, err_len);
    const int unfit = check_fits(id, checked, err, err_len);
    if (unfit != COSID_OK) return unfit;
    const cosid::IdParts parts = checked.parse(id);
    out->timestamp_ms = checked.tick_start_ms(parts.timestamp);
    out->slot = parts.slot;
    out->sequence = parts.sequence;
    return succeed(err, err_len);
  });
}

int cosid_id_encode(uint64_t id, int format, const cosid_layout_t* layout, char* out,
                    size_t out_len, char* err, size_t err_len) noexcept {
  if (out != nullptr && out_len > 0) out[0] = '\0';  // never a stale or partial id on failure
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_id_encode";
    if (out == nullptr) return null_argument(kName, "out", err, err_len);
    if (!is_codec(format)) {
      return report(
          cosid::Status(cosid::errc::invalid_argument,
                        std::string(kName) + ": format " + std::to_string(format) +
                            " is not COSID_FORMAT_DECIMAL, _RADIX62, _RADIX36 or _FRIENDLY"),
          err, err_len);
    }
    cosid::Status status;
    cosid::Layout checked;
    if (!from_c(layout, checked, status)) return report(status, err, err_len);
    const int unfit = check_fits(id, checked, err, err_len);
    if (unfit != COSID_OK) return unfit;
    char text[cosid::kMaxEncodedChars];
    const std::size_t length =
        cosid::encode(id, static_cast<cosid::IdFormat>(format), checked, text);
    if (length >= out_len) {
      return report(
          cosid::Status(cosid::errc::invalid_argument,
                        std::string(kName) + ": the id needs " + std::to_string(length + 1) +
                            " chars with its NUL, the buffer holds " + std::to_string(out_len) +
                            ": pass COSID_ENCODED_BUFFER_SIZE chars"),
          err, err_len);
    }
    std::memcpy(out, text, length);
    out[length] = '\0';
    return succeed(err, err_len);
  });
}

int cosid_id_decode(const char* text, int format, const cosid_layout_t* layout, uint64_t* id,
                    char* err, size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_id_decode";
    if (text == nullptr) return null_argument(kName, "text", err, err_len);
    if (id == nullptr) return null_argument(kName, "id", err, err_len);
    if (format != COSID_FORMAT_AUTO && !is_codec(format)) {
      return report(cosid::Status(cosid::errc::invalid_argument,
                                  std::string(kName) + ": format " + std::to_string(format) +
                                      " is not a COSID_FORMAT_* constant"),
                    err, err_len);
    }
    cosid::Status status;
    cosid::Layout checked;
    if (!from_c(layout, checked, status)) return report(status, err, err_len);
    const std::string_view view(text);
    const cosid::IdFormat codec = format == COSID_FORMAT_AUTO
                                      ? cosid::detect_format(view)
                                      : static_cast<cosid::IdFormat>(format);
    const std::uint64_t value = cosid::decode(view, codec, checked, status);
    if (!status.ok()) return report(status, err, err_len);
    const int unfit = check_fits(value, checked, err, err_len);
    if (unfit != COSID_OK) return unfit;
    *id = value;
    return succeed(err, err_len);
  });
}

}  // extern "C"
