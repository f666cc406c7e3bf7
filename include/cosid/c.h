// SPDX-License-Identifier: Apache-2.0
/* The C API of cosid: unique 64-bit Snowflake ids from C, and from any language that calls C.
 *
 * Opaque handles made and freed by explicit calls, plain functions, and no C++ in this header: it
 * compiles as C99 and as C++. Every handle a *_create, *_resolve or *_open call returns belongs to
 * the caller and is freed with the matching *_destroy. A generator belongs to its runtime and is
 * never freed on its own.
 *
 *   cosid_options_t* options = cosid_options_create();
 *   cosid_options_set_slot(options, 3);
 *   cosid_options_set_state_file(options, "/var/lib/cosid/state", NULL, 0);
 *   cosid_runtime_t* runtime = NULL;
 *   char err[256];
 *   if (cosid_runtime_open(options, &runtime, err, sizeof err) != COSID_OK) { ... err ... }
 *   cosid_generator_t* ids = NULL;
 *   cosid_runtime_generator(runtime, "default", &ids, err, sizeof err);
 *   uint64_t id;
 *   if (cosid_generator_next(ids, &id, err, sizeof err) != COSID_OK) { ... err ... }
 *   cosid_runtime_close(runtime, err, sizeof err);  (writes the last timestamp)
 *   cosid_runtime_destroy(runtime);
 *   cosid_options_destroy(options);
 *
 * Errors. Every function that can fail returns an int: COSID_OK (0) on success, else
 *   > 0   a cosid::errc value (error.h), one COSID_E_* constant below each, the same numbers the
 *         C++ API and the CLI's messages use;
 *   < 0   -errno for an operating-system failure (-ENOENT, -EACCES, -ENOSPC, -EIO, ...), and
 *         -ENOMEM when memory ran out;
 *   COSID_E_INTERNAL (-4096, below every errno): an unexpected C++ exception inside cosid, a bug.
 * cosid_code_name() names a code ("COSID_E_CLOSED"); cosid_code_describe() says it in words.
 * Such a function also takes `char* err, size_t err_len`: a buffer for a message that says what
 * happened, the values involved and what to do. It may be NULL (with any err_len), and is
 * otherwise always left NUL-terminated: "" on success, the message on failure, cut at err_len - 1
 * bytes (on a UTF-8 character boundary) when it is longer. No C++ exception ever leaves a
 * function of this header. Out-parameters are written on success only (but cosid_id_encode()
 * also leaves its text buffer "" on failure).
 * Passing NULL where a handle or an out-parameter is required fails with COSID_E_INVALID_ARGUMENT
 * in the functions that return a code; the others (setters, accessors) require a valid handle.
 *
 * Thread safety. Options handles are plain values: read one from several threads at once
 * (cosid_runtime_open), but change it from one thread only and not while it is being read.
 * cosid_options_resolve() reads the environment with getenv(): do not race it with setenv().
 * A runtime's functions and a generator's functions may be called from any number of threads at
 * once, except cosid_runtime_destroy(), which must run when no other call on the runtime or its
 * generators is running. The layout and id functions are pure: call them from any thread.
 *
 * Exported with COSID_EXPORT (cosid/export.h); link the cosid library and the C++ standard library
 * (linking with a C++ compiler, or CMake's cosid::cosid, does both). */
#ifndef COSID_C_H_
#define COSID_C_H_

#include <stddef.h>
#include <stdint.h>

#include "cosid/export.h"
#include "cosid/version.h"

/* Lets a C++ caller see that nothing here throws; C has no such thing. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define COSID_C_NOEXCEPT noexcept
#else
#define COSID_C_NOEXCEPT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Codes */

/* The values of cosid::errc; comments as in error.h. The numbers are stable. */
enum {
  COSID_OK = 0,
  /* Layouts. */
  COSID_E_LAYOUT_TOO_WIDE = 1,        /* over 63 bits, or a slot or sequence over 32 */
  COSID_E_LAYOUT_FIELD_EMPTY = 2,     /* a field has fewer than 1 bit */
  COSID_E_LAYOUT_EPOCH_INVALID = 3,   /* epoch before 1970, or epoch + range overflows int64 ms */
  COSID_E_LAYOUT_EPOCH_IN_FUTURE = 4, /* the epoch lies after the clock's current time */
  COSID_E_TIMESTAMP_OVERFLOW = 5,     /* the clock is past the layout's last timestamp */
  /* Ids as text. */
  COSID_E_ID_EMPTY = 6,         /* an empty string where an id was expected */
  COSID_E_ID_BAD_CHARACTER = 7, /* a character outside the codec's alphabet */
  COSID_E_ID_BAD_LENGTH = 8,    /* a fixed-width codec got the wrong number of characters */
  COSID_E_ID_OVERFLOW = 9,      /* the value does not fit in 63 bits */
  COSID_E_ID_FIELD_OUT_OF_RANGE =
      10,                      /* the id (or a field of a friendly id) does not fit the layout */
  COSID_E_UNKNOWN_LAYOUT = 11, /* a layout preset name that does not exist */
  /* Issuing ids. */
  COSID_E_CLOCK_BACKWARDS = 12,    /* the clock went back and did not return within the bound */
  COSID_E_CLOCK_STALLED = 13,      /* the clock did not advance past a used-up tick */
  COSID_E_CLOCK_BEHIND_FLOOR = 14, /* the clock is at or before the window's floor */
  COSID_E_CEILING_REACHED = 15,    /* the clock passed the durable ceiling */
  COSID_E_CLOSED = 16,             /* the runtime or generator was closed */
  COSID_E_SLOT_OUT_OF_RANGE = 17,  /* the slot does not fit the layout's slot bits */
  COSID_E_SLOT_LOST = 18,          /* the binding that gave the window was invalidated */
  COSID_E_INVALID_ARGUMENT = 19,   /* a value given to a call is outside what it accepts */
  /* Options. */
  COSID_E_NO_SLOT_CONFIGURED = 20,   /* no slot set, nor from flag, environment, file, host name */
  COSID_E_INVALID_SLOT = 21,         /* a slot value that is not a non-negative integer */
  COSID_E_NO_HOSTNAME_ORDINAL = 22,  /* the host name does not end in a StatefulSet ordinal */
  COSID_E_UNSET_VARIABLE = 23,       /* ${VAR} in the config file names an unset variable */
  COSID_E_CONFIG_UNREADABLE = 24,    /* the config file cannot be opened or read */
  COSID_E_CONFIG_SYNTAX = 25,        /* the config file is outside the YAML subset cosid reads */
  COSID_E_CONFIG_UNKNOWN_KEY = 26,   /* a key cosid does not know */
  COSID_E_CONFIG_DUPLICATE_KEY = 27, /* a key given twice in one file */
  COSID_E_INVALID_VALUE = 28,        /* a value that does not parse or is out of range */
  /* The state file. */
  COSID_E_STATE_FILE_MISSING = 29,  /* no state file where one is required */
  COSID_E_STATE_FILE_CORRUPT = 30,  /* no valid record, wrong size, or not a regular file */
  COSID_E_STATE_FILE_MISMATCH = 31, /* written for another slot, layout or namespace */
  COSID_E_STATE_FILE_LOCKED = 32,   /* another process or runtime holds the file */
  COSID_E_STATE_FILE_REPLACED = 33, /* the file was removed, renamed or replaced while in use */
  COSID_E_FORKED_PROCESS = 34,      /* used from a child forked from the process that opened it */
  /* Store-backed leases (not reachable through the runtime functions yet; listed so every code
   * has a name) and the stores of segment ids. */
  COSID_E_LEASE_EXHAUSTED = 35,
  COSID_E_LEASE_LOST = 36,
  COSID_E_LEASE_TERMS_MISMATCH = 37,
  COSID_E_STORE_UNAVAILABLE = 38, /* a lease or range store could not be read or changed */
  COSID_E_STORE_CORRUPT = 39,     /* the store holds data cosid cannot read, or a recreated key */
  COSID_E_UNKNOWN_STORE_TYPE = 40,
  /* Segment ids. */
  COSID_E_RANGE_SEALED = 41,    /* the key is sealed: its store hands out no more ranges */
  COSID_E_RANGE_EXHAUSTED = 42, /* a claim would take the key's next value past 2^63 - 1 */
  /* Added in 0.7. */
  COSID_E_STORE_NOT_INITIALIZED = 43, /* a store's directory or root nodes were never created */
  COSID_E_CANCELLED = 44,             /* the caller asked the call to stop before it finished */
  /* Not an errc: an unexpected C++ exception inside cosid. Below every -errno. */
  COSID_E_INTERNAL = -4096
};

/* The constant's name for `code`: "COSID_OK", "COSID_E_CLOSED", ...; "COSID_E_SYSTEM" for any
 * -errno, "COSID_E_UNKNOWN" for a value this header does not know. A static string. */
COSID_EXPORT const char* cosid_code_name(int code) COSID_C_NOEXCEPT;

/* Writes a short description of `code` to `buf` ("generator is closed", or strerror's text for a
 * -errno), cut and terminated as the err buffers are. Returns `buf`. */
COSID_EXPORT char* cosid_code_describe(int code, char* buf, size_t len) COSID_C_NOEXCEPT;

/* ---- Version */

/* The version of the library linked in, "MAJOR.MINOR.PATCH"; compare with the COSID_VERSION_*
 * macros (cosid/version.h) this header was compiled with. A static string. */
COSID_EXPORT const char* cosid_version(void) COSID_C_NOEXCEPT;
COSID_EXPORT int cosid_version_major(void) COSID_C_NOEXCEPT;
COSID_EXPORT int cosid_version_minor(void) COSID_C_NOEXCEPT;
COSID_EXPORT int cosid_version_patch(void) COSID_C_NOEXCEPT;

/* ---- Layouts (a plain value: see cosid/layout.h) */

/* The unit of the timestamp field. (Fields and parameters that take these constants are plain
 * ints, so that any value a caller passes can be checked and refused.) */
enum { COSID_UNIT_MILLISECOND = 0, COSID_UNIT_SECOND = 1 };

typedef struct cosid_layout_t {
  int64_t epoch;      /* the instant of timestamp 0, in `unit`s since 1970-01-01T00:00:00Z */
  int unit;           /* COSID_UNIT_MILLISECOND or COSID_UNIT_SECOND */
  int timestamp_bits; /* the three fields, highest first; at most 63 bits in all */
  int slot_bits;
  int sequence_bits;
} cosid_layout_t;

/* Fills `out` with the preset `name`: "default" (41/10/12 ms), "seconds" (31/10/22 s), "js-safe"
 * (41/3/9 ms) or "js-safe-seconds" (31/3/19 s). Fails with COSID_E_UNKNOWN_LAYOUT. */
COSID_EXPORT int cosid_layout_preset(const char* name, cosid_layout_t* out, char* err,
                                     size_t err_len) COSID_C_NOEXCEPT;

/* Checks a layout (Layout::validate): COSID_E_LAYOUT_FIELD_EMPTY, COSID_E_LAYOUT_TOO_WIDE,
 * COSID_E_LAYOUT_EPOCH_INVALID, or COSID_E_INVALID_ARGUMENT for a unit that is neither. */
COSID_EXPORT int cosid_layout_validate(const cosid_layout_t* layout, char* err,
                                       size_t err_len) COSID_C_NOEXCEPT;

/* ---- Options: what a runtime is opened with (see cosid/options.h for every rule) */

typedef struct cosid_options_t cosid_options_t;

/* Options at their defaults (namespace "cosid", the default layout, ahead 10 s, no state file, no
 * not-before) and no slot: cosid never picks one, so opening fails with
 * COSID_E_NO_SLOT_CONFIGURED until cosid_options_set_slot() is called. NULL when out of memory. */
COSID_EXPORT cosid_options_t* cosid_options_create(void) COSID_C_NOEXCEPT;

/* Resolves options the way the `cosid` CLI does, key by key: `flags` > COSID_* environment
 * variable > config file > default. `config_file` names the file (NULL or "": the one COSID_CONFIG
 * names, else none). `keys` and `values` are `count` settings given like command-line flags, by
 * canonical key ("cosid.machine.static.slot", "3"); a later one wins; both may be NULL when count
 * is 0. The slot may also come from the host name ("cosid.machine.static.slot-source",
 * "stateful-set"). On success stores a new handle in `*out`. Fails with the codes of
 * resolve_options(): COSID_E_CONFIG_*, COSID_E_UNSET_VARIABLE, COSID_E_INVALID_VALUE,
 * COSID_E_UNKNOWN_LAYOUT, COSID_E_LAYOUT_*, COSID_E_NO_SLOT_CONFIGURED, COSID_E_INVALID_SLOT,
 * COSID_E_NO_HOSTNAME_ORDINAL, COSID_E_SLOT_OUT_OF_RANGE. */
COSID_EXPORT int cosid_options_resolve(const char* config_file, const char* const* keys,
                                       const char* const* values, size_t count,
                                       cosid_options_t** out, char* err,
                                       size_t err_len) COSID_C_NOEXCEPT;

/* Frees `options`; NULL is ignored. A runtime opened with them keeps its own copy. */
COSID_EXPORT void cosid_options_destroy(cosid_options_t* options) COSID_C_NOEXCEPT;

/* The setters store a value; cosid_options_validate() and cosid_runtime_open() check them all
 * together (so their order does not matter) and name the value that is wrong. */
COSID_EXPORT void cosid_options_set_slot(cosid_options_t* options, uint32_t slot) COSID_C_NOEXCEPT;
/* How far ahead of the clock the ceiling is written, in ms (10 ms to 24 h; at least 2 s for a
 * layout that counts seconds). Unless cosid_options_set_start_wait_ms() was called, the start
 * may wait up to ahead + 1 s for the clock to pass the floor. */
COSID_EXPORT void cosid_options_set_ahead_ms(cosid_options_t* options,
                                             int64_t ahead_ms) COSID_C_NOEXCEPT;
/* How long opening may wait for the clock to pass the floor, in ms (0 or more). */
COSID_EXPORT void cosid_options_set_start_wait_ms(cosid_options_t* options,
                                                  int64_t start_wait_ms) COSID_C_NOEXCEPT;
/* Issue no timestamp at or before this Unix millisecond; 0: none. */
COSID_EXPORT void cosid_options_set_not_before_ms(cosid_options_t* options,
                                                  int64_t not_before_ms) COSID_C_NOEXCEPT;
/* Non-zero: a state file must be set (else opening fails with COSID_E_INVALID_VALUE) and must
 * exist already (else COSID_E_STATE_FILE_MISSING) instead of being created. */
COSID_EXPORT void cosid_options_set_require_state_file(cosid_options_t* options,
                                                       int require) COSID_C_NOEXCEPT;

/* The setters that can fail on their own: COSID_E_INVALID_ARGUMENT for a NULL argument, -ENOMEM
 * when out of memory, and for the layout its own error (it is checked at once, as it depends on no
 * other option) or COSID_E_UNKNOWN_LAYOUT for a preset name. */
/* The file that keeps the window across restarts; "" for none. One file per slot. */
COSID_EXPORT int cosid_options_set_state_file(cosid_options_t* options, const char* path, char* err,
                                              size_t err_len) COSID_C_NOEXCEPT;
/* 1 to 255 bytes of printable ASCII without spaces; default "cosid". */
COSID_EXPORT int cosid_options_set_namespace(cosid_options_t* options, const char* name, char* err,
                                             size_t err_len) COSID_C_NOEXCEPT;
COSID_EXPORT int cosid_options_set_layout(cosid_options_t* options, const cosid_layout_t* layout,
                                          char* err, size_t err_len) COSID_C_NOEXCEPT;
COSID_EXPORT int cosid_options_set_layout_preset(cosid_options_t* options, const char* name,
                                                 char* err, size_t err_len) COSID_C_NOEXCEPT;

/* Reads the options back. cosid_options_state_file() and cosid_options_namespace() point into
 * `options`: valid until it is changed or destroyed. */
COSID_EXPORT int cosid_options_has_slot(const cosid_options_t* options) COSID_C_NOEXCEPT;
COSID_EXPORT uint32_t cosid_options_slot(const cosid_options_t* options) COSID_C_NOEXCEPT;
COSID_EXPORT int64_t cosid_options_ahead_ms(const cosid_options_t* options) COSID_C_NOEXCEPT;
COSID_EXPORT int64_t cosid_options_not_before_ms(const cosid_options_t* options) COSID_C_NOEXCEPT;
COSID_EXPORT const char* cosid_options_state_file(const cosid_options_t* options) COSID_C_NOEXCEPT;
COSID_EXPORT const char* cosid_options_namespace(const cosid_options_t* options) COSID_C_NOEXCEPT;
COSID_EXPORT void cosid_options_layout(const cosid_options_t* options,
                                       cosid_layout_t* out) COSID_C_NOEXCEPT;

/* Checks the options as cosid_runtime_open() does before it touches any file:
 * COSID_E_NO_SLOT_CONFIGURED, COSID_E_SLOT_OUT_OF_RANGE, COSID_E_INVALID_VALUE, COSID_E_LAYOUT_*.
 */
COSID_EXPORT int cosid_options_validate(const cosid_options_t* options, char* err,
                                        size_t err_len) COSID_C_NOEXCEPT;

/* ---- Runtime: a process's hold on one slot (see cosid/runtime.h) */

typedef struct cosid_runtime_t cosid_runtime_t;
typedef struct cosid_generator_t cosid_generator_t;

/* Opens the slot's window: with a state file, floor = max(ceiling in the file, not-before), waits
 * for the clock to pass it, makes the first ceiling durable, and starts the background thread
 * that writes the next ones. On success stores a new handle in `*out`. Fails with the codes of
 * cosid_options_validate(), COSID_E_STATE_FILE_*, COSID_E_CLOCK_BEHIND_FLOOR,
 * COSID_E_LAYOUT_EPOCH_IN_FUTURE, or a -errno (the state file's directory is missing, ...). */
COSID_EXPORT int cosid_runtime_open(const cosid_options_t* options, cosid_runtime_t** out,
                                    char* err, size_t err_len) COSID_C_NOEXCEPT;

/* The runtime's generator, in `*out`. Every name gets the same generator (ids are unique across
 * the runtime whatever the name); it stays valid until cosid_runtime_destroy() and is not freed on
 * its own. NULL `name` means "default". Fails with COSID_E_CLOSED after cosid_runtime_close(). */
COSID_EXPORT int cosid_runtime_generator(cosid_runtime_t* runtime, const char* name,
                                         cosid_generator_t** out, char* err,
                                         size_t err_len) COSID_C_NOEXCEPT;

/* The ordered shutdown: closes the generators (their next calls fail with COSID_E_CLOSED), writes
 * the last timestamp issued so a clean restart issues at once, stops the thread and
 * releases the state file. Idempotent. An error here is reported but harmless: the durable ceiling
 * on disk covers every id issued. */
COSID_EXPORT int cosid_runtime_close(cosid_runtime_t* runtime, char* err,
                                     size_t err_len) COSID_C_NOEXCEPT;

/* Closes the runtime if needed (ignoring an error; call cosid_runtime_close() first to see it)
 * and frees it with its generators. NULL is ignored. */
COSID_EXPORT void cosid_runtime_destroy(cosid_runtime_t* runtime) COSID_C_NOEXCEPT;

COSID_EXPORT uint32_t cosid_runtime_slot(const cosid_runtime_t* runtime) COSID_C_NOEXCEPT;
/* The window, in Unix ms: ids have floor < timestamp <= ceiling. The ceiling grows while running.
 */
COSID_EXPORT int64_t cosid_runtime_floor_ms(const cosid_runtime_t* runtime) COSID_C_NOEXCEPT;
COSID_EXPORT int64_t cosid_runtime_ceiling_ms(const cosid_runtime_t* runtime) COSID_C_NOEXCEPT;
COSID_EXPORT void cosid_runtime_layout(const cosid_runtime_t* runtime,
                                       cosid_layout_t* out) COSID_C_NOEXCEPT;

/* ---- Generator: the hot path (see cosid/generator.h) */

/* The next id, in `*id`. Lock-free; allocates nothing unless it fails. Fails with
 * COSID_E_CLOCK_BACKWARDS, COSID_E_CLOCK_STALLED, COSID_E_CLOCK_BEHIND_FLOOR,
 * COSID_E_CEILING_REACHED, COSID_E_TIMESTAMP_OVERFLOW, COSID_E_CLOSED, COSID_E_FORKED_PROCESS. */
COSID_EXPORT int cosid_generator_next(cosid_generator_t* generator, uint64_t* id, char* err,
                                      size_t err_len) COSID_C_NOEXCEPT;

/* Up to `count` (at least 1) consecutive ids of one tick, reserved at once and written to `ids`;
 * `*written` receives how many (at least 1 on success; fewer than `count` when the tick has fewer
 * left: call again for the rest). Fails as cosid_generator_next(), and with
 * COSID_E_INVALID_ARGUMENT for a count of 0. */
COSID_EXPORT int cosid_generator_next_batch(cosid_generator_t* generator, uint64_t* ids,
                                            size_t count, size_t* written, char* err,
                                            size_t err_len) COSID_C_NOEXCEPT;

/* ---- Segment ids: dense, increasing ids of one key from a range store (see
 * cosid/segment/generator.h and src/segment/SEGMENTS.md) */

typedef struct cosid_segment_t cosid_segment_t;

/* Opens a segment generator for `key`, resolving the segment options as the `cosid segment`
 * commands do: `keys`/`values` (`count` canonical keys, such as "cosid.segment.distributor.type"
 * = "file" and "cosid.segment.distributor.file.directory" = "/var/lib/cosid/ranges") > COSID_*
 * variables > config file (`config_file`, NULL or "": the one COSID_CONFIG names, else none) >
 * defaults; the key's offset and step come from its cosid.segment.provider entry, else
 * cosid.segment.share. It claims the first range before it returns, and starts the thread that
 * claims the next ones. Fails with the codes of the options (COSID_E_CONFIG_*,
 * COSID_E_INVALID_VALUE, ...), COSID_E_INVALID_ARGUMENT (no store configured, a bad key),
 * COSID_E_UNKNOWN_STORE_TYPE, or the store's (COSID_E_STORE_UNAVAILABLE, COSID_E_STORE_CORRUPT,
 * COSID_E_RANGE_SEALED, COSID_E_RANGE_EXHAUSTED). */
COSID_EXPORT int cosid_segment_open(const char* config_file, const char* const* keys,
                                    const char* const* values, size_t count, const char* key,
                                    cosid_segment_t** out, char* err,
                                    size_t err_len) COSID_C_NOEXCEPT;

/* The next id of the key, in `*id` (1 or more). Lock-free; allocates nothing unless it fails.
 * When no value is ready it waits for the background claim (at most 10 s), then fails with the
 * store's code; also COSID_E_CLOSED, COSID_E_FORKED_PROCESS. */
COSID_EXPORT int cosid_segment_next(cosid_segment_t* segment, int64_t* id, char* err,
                                    size_t err_len) COSID_C_NOEXCEPT;

/* Up to `count` (at least 1) consecutive ids written to `ids`; `*written` receives how many (at
 * least 1 on success). Fails as cosid_segment_next(), and with COSID_E_INVALID_ARGUMENT for a
 * count of 0. */
COSID_EXPORT int cosid_segment_next_batch(cosid_segment_t* segment, int64_t* ids, size_t count,
                                          size_t* written, char* err,
                                          size_t err_len) COSID_C_NOEXCEPT;

/* Stops the background thread, makes later calls fail with COSID_E_CLOSED, and hands the unused
 * values back to the store, so that a clean restart resumes from the first of them (if nobody
 * claimed the key meanwhile; otherwise they are skipped, never reused). An error here means the
 * values were skipped: harmless for uniqueness. Idempotent. */
COSID_EXPORT int cosid_segment_close(cosid_segment_t* segment, char* err,
                                     size_t err_len) COSID_C_NOEXCEPT;

/* Closes the generator if needed (ignoring an error; call cosid_segment_close() first to see it)
 * and frees it. NULL is ignored. */
COSID_EXPORT void cosid_segment_destroy(cosid_segment_t* segment) COSID_C_NOEXCEPT;

/* ---- Ids: fields and text (see cosid/layout.h, cosid/codec.h) */

/* In every function below, a NULL layout means the "default" preset. */

typedef struct cosid_id_fields_t {
  int64_t timestamp_ms; /* the first Unix millisecond of the id's tick */
  uint32_t slot;
  uint32_t sequence;
} cosid_id_fields_t;

/* Takes `id` apart. Fails with COSID_E_ID_FIELD_OUT_OF_RANGE when the id has bits above the
 * layout's fields (it was issued with another layout), and the layout's own error for an invalid
 * layout. */
COSID_EXPORT int cosid_id_parse(uint64_t id, const cosid_layout_t* layout, cosid_id_fields_t* out,
                                char* err, size_t err_len) COSID_C_NOEXCEPT;

/* The text forms of an id (an int parameter `format` takes one of them). */
enum {
  COSID_FORMAT_DECIMAL = 0,  /* "123456789012345678": 1 to 19 digits */
  COSID_FORMAT_RADIX62 = 1,  /* 11 characters of 0-9A-Za-z, order-preserving */
  COSID_FORMAT_RADIX36 = 2,  /* 13 characters of 0-9a-z, order-preserving */
  COSID_FORMAT_FRIENDLY = 3, /* "20261130022258123-3-17": UTC time, slot, sequence */
  COSID_FORMAT_AUTO = 4      /* decoding only: guess from the text, as `cosid parse` does */
};

/* A buffer of this many chars holds any encoded id and its terminating NUL. */
#define COSID_ENCODED_BUFFER_SIZE 49

/* Writes `id` as text in `format` to `out` (`out_len` chars, terminated; COSID_ENCODED_BUFFER_SIZE
 * always suffices). The layout gives the friendly form its fields, and the id must fit it whatever
 * the format (as in cosid_id_decode). Fails with COSID_E_ID_OVERFLOW for an id above 2^63 - 1,
 * COSID_E_ID_FIELD_OUT_OF_RANGE for an id that does not fit the layout, the layout's own error,
 * and COSID_E_INVALID_ARGUMENT for COSID_FORMAT_AUTO, an unknown format, or an `out` too short
 * (then `out` is left "" when out_len > 0: an id is never cut). */
COSID_EXPORT int cosid_id_encode(uint64_t id, int format, const cosid_layout_t* layout, char* out,
                                 size_t out_len, char* err, size_t err_len) COSID_C_NOEXCEPT;

/* Reads the NUL-terminated `text` as an id in `format` into `*id`, and checks that it fits the
 * layout. Fails with COSID_E_ID_EMPTY, COSID_E_ID_BAD_CHARACTER, COSID_E_ID_BAD_LENGTH,
 * COSID_E_ID_OVERFLOW, COSID_E_ID_FIELD_OUT_OF_RANGE, COSID_E_INVALID_ARGUMENT (a format that is
 * none of the above), or the layout's own error. */
COSID_EXPORT int cosid_id_decode(const char* text, int format, const cosid_layout_t* layout,
                                 uint64_t* id, char* err, size_t err_len) COSID_C_NOEXCEPT;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* COSID_C_H_ */
