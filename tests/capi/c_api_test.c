// SPDX-License-Identifier: Apache-2.0
/* The C API (cosid/c.h) from C: compiled as C99, run once per case by ctest ("c_api_test CASE").
 * Every check names the exact code or value it expects. Nothing here measures time. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "c_check.h"
#include "cosid/c.h"

int c_check_failures = 0;

/* ---- Helpers */

/* A fresh directory under TMPDIR (else /tmp), written to `dir`. */
static void make_temp_dir(char* dir, size_t len) {
  const char* base = getenv("TMPDIR");
  snprintf(dir, len, "%s/cosid_c_api_XXXXXX", base != NULL && *base != '\0' ? base : "/tmp");
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    exit(2);
  }
}

/* Removes `dir` and the files in it (the tests make no subdirectories). */
static void remove_temp_dir(const char* dir) {
  DIR* listing = opendir(dir);
  struct dirent* entry;
  char path[1024];
  if (listing == NULL) return;
  while ((entry = readdir(listing)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
    CHECK(unlink(path) == 0);
  }
  closedir(listing);
  CHECK(rmdir(dir) == 0);
}

static void write_file(const char* path, const char* text) {
  FILE* file = fopen(path, "w");
  if (file == NULL || fputs(text, file) < 0 || fclose(file) != 0) {
    perror(path);
    exit(2);
  }
}

/* So that resolve cases see only what they set. */
static void clear_cosid_environment(void) {
  static const char* const kNames[] = {"COSID_CONFIG",     "COSID_NAMESPACE", "COSID_SLOT",
                                       "COSID_STATE_FILE", "COSID_AHEAD",     "COSID_NOT_BEFORE"};
  size_t i;
  for (i = 0; i < sizeof kNames / sizeof kNames[0]; ++i) unsetenv(kNames[i]);
}

/* Options for slot `slot` and the state file `path` (NULL: none). */
static cosid_options_t* options_for(uint32_t slot, const char* path) {
  char err[256];
  cosid_options_t* options = cosid_options_create();
  CHECK(options != NULL);
  if (options == NULL) exit(2);
  cosid_options_set_slot(options, slot);
  if (path != NULL)
    CHECK_CODE(cosid_options_set_state_file(options, path, err, sizeof err), COSID_OK);
  return options;
}

static const cosid_layout_t kDefaultLayout = {1577203200000LL, COSID_UNIT_MILLISECOND, 41, 10, 12};

/* ---- Cases */

static void version(void) {
  char expected[32];
  snprintf(expected, sizeof expected, "%d.%d.%d", COSID_VERSION_MAJOR, COSID_VERSION_MINOR,
           COSID_VERSION_PATCH);
  CHECK_STR_EQ(cosid_version(), expected);
  CHECK(cosid_version_major() == COSID_VERSION_MAJOR);
  CHECK(cosid_version_minor() == COSID_VERSION_MINOR);
  CHECK(cosid_version_patch() == COSID_VERSION_PATCH);
}

static void codes(void) {
  char text[128];
  int code;
  CHECK_STR_EQ(cosid_code_name(COSID_OK), "COSID_OK");
  CHECK_STR_EQ(cosid_code_name(COSID_E_CLOSED), "COSID_E_CLOSED");
  CHECK_STR_EQ(cosid_code_name(COSID_E_INVALID_VALUE), "COSID_E_INVALID_VALUE");
  CHECK_STR_EQ(cosid_code_name(-ENOENT), "COSID_E_SYSTEM");
  CHECK_STR_EQ(cosid_code_name(COSID_E_INTERNAL), "COSID_E_INTERNAL");
  CHECK_STR_EQ(cosid_code_name(9999), "COSID_E_UNKNOWN");
  CHECK(COSID_E_CLOSED == 16); /* the numbers are part of the contract */
  /* Every code of the header has its own name and a description of its own from the library. */
  for (code = COSID_E_LAYOUT_TOO_WIDE; code <= COSID_E_CANCELLED; ++code) {
    CHECK(strncmp(cosid_code_name(code), "COSID_E_", 8) == 0);
    CHECK(strcmp(cosid_code_name(code), "COSID_E_UNKNOWN") != 0);
    CHECK(strcmp(cosid_code_name(code), cosid_code_name(code - 1)) != 0);
    CHECK(strstr(cosid_code_describe(code, text, sizeof text), "unknown cosid error") == NULL);
  }
  /* The library knows no code past the header's last: a code added to cosid::errc must be added
   * to c.h as well, and this check says so. */
  CHECK_CONTAINS(cosid_code_describe(COSID_E_CANCELLED + 1, text, sizeof text),
                 "unknown cosid error");
  CHECK_STR_EQ(cosid_code_describe(COSID_E_CLOSED, text, sizeof text), "generator is closed");
  CHECK_STR_EQ(cosid_code_describe(-ENOENT, text, sizeof text), strerror(ENOENT));
  CHECK_STR_EQ(cosid_code_describe(COSID_OK, text, sizeof text), "success");
}

static void happy_path(void) {
  char dir[512], path[600], err[512];
  cosid_options_t* options;
  cosid_runtime_t* runtime = NULL;
  cosid_generator_t* ids = NULL;
  cosid_generator_t* again = NULL;
  cosid_id_fields_t fields;
  cosid_layout_t layout;
  uint64_t id = 0, last = 0, batch[16];
  size_t written = 0, i;
  int64_t floor_ms, ceiling_ms, last_ms;

  make_temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/state", dir);
  options = options_for(5, path);
  CHECK_STR_EQ(cosid_options_state_file(options), path);
  CHECK_CODE(cosid_options_set_layout(options, &kDefaultLayout, err, sizeof err), COSID_OK);
  cosid_options_set_not_before_ms(options, 1700000000000LL); /* 2023: passed long ago */
  CHECK_I64_EQ(cosid_options_not_before_ms(options), 1700000000000LL);
  CHECK_CODE(cosid_options_validate(options, err, sizeof err), COSID_OK);
  CHECK_STR_EQ(err, "");

  CHECK_CODE(cosid_runtime_open(options, &runtime, err, sizeof err), COSID_OK);
  CHECK_STR_EQ(err, "");
  if (runtime == NULL) exit(1);
  CHECK(cosid_runtime_slot(runtime) == 5);
  cosid_runtime_layout(runtime, &layout);
  CHECK(memcmp(&layout, &kDefaultLayout, sizeof layout) == 0);
  CHECK_CODE(cosid_runtime_generator(runtime, "default", &ids, err, sizeof err), COSID_OK);
  /* Every name gives the same generator. */
  CHECK_CODE(cosid_runtime_generator(runtime, NULL, &again, err, sizeof err), COSID_OK);
  CHECK(ids != NULL && ids == again);

  floor_ms = cosid_runtime_floor_ms(runtime);
  CHECK_CODE(cosid_generator_next(ids, &id, err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_id_parse(id, NULL, &fields, err, sizeof err), COSID_OK);
  CHECK(fields.slot == 5);
  /* The window: floor < timestamp <= ceiling. */
  ceiling_ms = cosid_runtime_ceiling_ms(runtime);
  CHECK(fields.timestamp_ms > floor_ms);
  CHECK(fields.timestamp_ms <= ceiling_ms);

  CHECK_CODE(cosid_generator_next_batch(ids, batch, 16, &written, err, sizeof err), COSID_OK);
  CHECK(written >= 1 && written <= 16);
  last = id;
  for (i = 0; i < written; ++i) {
    CHECK(batch[i] > last); /* increasing, so never equal */
    CHECK_CODE(cosid_id_parse(batch[i], NULL, &fields, err, sizeof err), COSID_OK);
    CHECK(fields.slot == 5);
    if (i > 0) CHECK_U64_EQ(batch[i], batch[i - 1] + 1); /* one tick: consecutive */
    last = batch[i];
  }
  CHECK_CODE(cosid_id_parse(last, NULL, &fields, err, sizeof err), COSID_OK);
  last_ms = fields.timestamp_ms;

  CHECK_CODE(cosid_runtime_close(runtime, err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_runtime_close(runtime, err, sizeof err), COSID_OK); /* idempotent */
  cosid_runtime_destroy(runtime);

  /* A restart from the state file starts after every id of the first run. */
  runtime = NULL;
  CHECK_CODE(cosid_runtime_open(options, &runtime, err, sizeof err), COSID_OK);
  if (runtime == NULL) exit(1);
  CHECK(cosid_runtime_floor_ms(runtime) >= last_ms);
  CHECK_CODE(cosid_runtime_generator(runtime, "orders", &ids, err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_generator_next(ids, &id, err, sizeof err), COSID_OK);
  CHECK(id > last);
  /* A second runtime on the same file is refused while the first holds it. */
  {
    cosid_runtime_t* second = NULL;
    CHECK_CODE(cosid_runtime_open(options, &second, err, sizeof err), COSID_E_STATE_FILE_LOCKED);
    CHECK(second == NULL);
    CHECK(err[0] != '\0');
  }
  cosid_runtime_destroy(runtime); /* closes it */
  cosid_options_destroy(options);
  remove_temp_dir(dir);
}

static void invalid_options(void) {
  char dir[512], path[600], err[512];
  cosid_options_t* options = cosid_options_create();
  cosid_runtime_t* runtime = NULL;
  cosid_layout_t layout = kDefaultLayout;
  cosid_runtime_t* const untouched = (cosid_runtime_t*)&layout; /* any non-NULL sentinel */

  /* No slot: cosid never picks one. */
  CHECK(cosid_options_has_slot(options) == 0);
  runtime = untouched;
  CHECK_CODE(cosid_runtime_open(options, &runtime, err, sizeof err), COSID_E_NO_SLOT_CONFIGURED);
  CHECK_CONTAINS(err, "cosid_options_set_slot");
  CHECK(runtime == untouched); /* out-parameters are written on success only */

  /* A slot the default layout's 10 bits cannot hold. */
  cosid_options_set_slot(options, 1024);
  CHECK_CODE(cosid_options_validate(options, err, sizeof err), COSID_E_SLOT_OUT_OF_RANGE);
  CHECK_CONTAINS(err, "1024");
  CHECK_CODE(cosid_runtime_open(options, &runtime, err, sizeof err), COSID_E_SLOT_OUT_OF_RANGE);
  cosid_options_set_slot(options, 1023);
  CHECK_CODE(cosid_options_validate(options, err, sizeof err), COSID_OK);
  /* The same slot after a narrower layout: checked together, whatever the order. */
  CHECK_CODE(cosid_options_set_layout_preset(options, "js-safe", err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_options_validate(options, err, sizeof err), COSID_E_SLOT_OUT_OF_RANGE);
  cosid_options_set_slot(options, 7);
  CHECK_CODE(cosid_options_validate(options, err, sizeof err), COSID_OK);

  CHECK_CODE(cosid_options_set_layout_preset(options, "nope", err, sizeof err),
             COSID_E_UNKNOWN_LAYOUT);
  CHECK_CONTAINS(err, "js-safe-seconds"); /* the message lists the names */
  layout.unit = 7;
  CHECK_CODE(cosid_options_set_layout(options, &layout, err, sizeof err), COSID_E_INVALID_ARGUMENT);
  CHECK_CONTAINS(err, "unit 7");
  layout.unit = COSID_UNIT_MILLISECOND;
  layout.timestamp_bits = 40;
  layout.slot_bits = 20;
  layout.sequence_bits = 10;
  CHECK_CODE(cosid_options_set_layout(options, &layout, err, sizeof err), COSID_E_LAYOUT_TOO_WIDE);
  layout.slot_bits = 0;
  CHECK_CODE(cosid_options_set_layout(options, &layout, err, sizeof err),
             COSID_E_LAYOUT_FIELD_EMPTY);
  CHECK_CODE(cosid_layout_validate(&layout, err, sizeof err), COSID_E_LAYOUT_FIELD_EMPTY);
  /* The refused layouts left the preset in place. */
  cosid_options_layout(options, &layout);
  CHECK(layout.slot_bits == 3 && layout.sequence_bits == 9);

  cosid_options_set_ahead_ms(options, 5);
  CHECK_CODE(cosid_options_validate(options, err, sizeof err), COSID_E_INVALID_VALUE);
  CHECK_CONTAINS(err, "ahead");
  cosid_options_set_ahead_ms(options, 2000);
  CHECK(cosid_options_ahead_ms(options) == 2000);
  CHECK_CODE(cosid_options_validate(options, err, sizeof err), COSID_OK);

  CHECK_CODE(cosid_options_set_namespace(options, "two words", err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_options_validate(options, err, sizeof err), COSID_E_INVALID_VALUE);
  CHECK_CONTAINS(err, "cosid.namespace");
  CHECK_CODE(cosid_options_set_namespace(options, "orders", err, sizeof err), COSID_OK);
  CHECK_STR_EQ(cosid_options_namespace(options), "orders");
  CHECK_CODE(cosid_options_set_namespace(options, NULL, err, sizeof err), COSID_E_INVALID_ARGUMENT);

  cosid_options_set_not_before_ms(options, -1);
  CHECK_CODE(cosid_options_validate(options, err, sizeof err), COSID_E_INVALID_VALUE);
  cosid_options_set_not_before_ms(options, 0);

  cosid_options_set_start_wait_ms(options, -1);
  CHECK_CODE(cosid_options_validate(options, err, sizeof err), COSID_E_INVALID_VALUE);
  cosid_options_set_start_wait_ms(options, 0);

  /* Required state file: none set, then one that does not exist. */
  cosid_options_set_require_state_file(options, 1);
  CHECK_CODE(cosid_options_validate(options, err, sizeof err), COSID_E_INVALID_VALUE);
  make_temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/state", dir);
  CHECK_CODE(cosid_options_set_state_file(options, path, err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_options_validate(options, err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_runtime_open(options, &runtime, err, sizeof err), COSID_E_STATE_FILE_MISSING);
  CHECK_CONTAINS(err, path);
  cosid_options_set_require_state_file(options, 0);

  /* The operating system's error, negated: the state file's directory does not exist. */
  snprintf(path, sizeof path, "%s/missing/state", dir);
  CHECK_CODE(cosid_options_set_state_file(options, path, err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_runtime_open(options, &runtime, err, sizeof err), -ENOENT);
  CHECK(err[0] != '\0');
  CHECK(runtime == untouched);

  /* NULLs where a pointer is required. */
  CHECK_CODE(cosid_runtime_open(NULL, &runtime, err, sizeof err), COSID_E_INVALID_ARGUMENT);
  CHECK_CODE(cosid_runtime_open(options, NULL, err, sizeof err), COSID_E_INVALID_ARGUMENT);
  CHECK_CONTAINS(err, "out is NULL");
  CHECK_CODE(cosid_options_set_state_file(options, NULL, err, sizeof err),
             COSID_E_INVALID_ARGUMENT);

  cosid_options_destroy(options);
  cosid_options_destroy(NULL); /* ignored */
  remove_temp_dir(dir);
}

static void resolve(void) {
  char dir[512], path[600], state[600], err[512];
  cosid_options_t* options = NULL;
  cosid_layout_t layout;
  const char* keys[3];
  const char* values[3];

  clear_cosid_environment();
  make_temp_dir(dir, sizeof dir);
  snprintf(state, sizeof state, "%s/state", dir);

  /* Flags only. */
  keys[0] = "cosid.machine.static.slot";
  values[0] = "7";
  keys[1] = "cosid.machine.static.state-file";
  values[1] = state;
  keys[2] = "cosid.layout.preset";
  values[2] = "js-safe";
  CHECK_CODE(cosid_options_resolve(NULL, keys, values, 3, &options, err, sizeof err), COSID_OK);
  if (options == NULL) exit(1);
  CHECK(cosid_options_has_slot(options) == 1);
  CHECK(cosid_options_slot(options) == 7);
  CHECK_STR_EQ(cosid_options_state_file(options), state);
  CHECK_STR_EQ(cosid_options_namespace(options), "cosid");
  CHECK(cosid_options_ahead_ms(options) == 10000);
  cosid_options_layout(options, &layout);
  CHECK(layout.timestamp_bits == 41 && layout.slot_bits == 3 && layout.sequence_bits == 9);
  CHECK_CODE(cosid_options_validate(options, err, sizeof err), COSID_OK);
  cosid_options_destroy(options);
  options = NULL;

  /* The environment, and a flag above it. */
  setenv("COSID_SLOT", "3", 1);
  setenv("COSID_AHEAD", "2s", 1);
  CHECK_CODE(cosid_options_resolve(NULL, NULL, NULL, 0, &options, err, sizeof err), COSID_OK);
  if (options == NULL) exit(1);
  CHECK(cosid_options_slot(options) == 3);
  CHECK(cosid_options_ahead_ms(options) == 2000);
  cosid_options_destroy(options);
  options = NULL;
  CHECK_CODE(cosid_options_resolve(NULL, keys, values, 1, &options, err, sizeof err), COSID_OK);
  if (options == NULL) exit(1);
  CHECK(cosid_options_slot(options) == 7);
  cosid_options_destroy(options);
  options = NULL;

  /* A config file with ${VAR}, below the environment (COSID_AHEAD) and found through COSID_CONFIG.
   */
  unsetenv("COSID_SLOT");
  snprintf(path, sizeof path, "%s/cosid.yaml", dir);
  write_file(path,
             "cosid:\n"
             "  namespace: orders\n"
             "  machine:\n"
             "    static:\n"
             "      slot: ${C_API_TEST_ORDINAL}\n"
             "      ahead: 5s\n");
  setenv("C_API_TEST_ORDINAL", "6", 1);
  setenv("COSID_CONFIG", path, 1);
  CHECK_CODE(cosid_options_resolve(NULL, NULL, NULL, 0, &options, err, sizeof err), COSID_OK);
  if (options == NULL) exit(1);
  CHECK(cosid_options_slot(options) == 6);
  CHECK_STR_EQ(cosid_options_namespace(options), "orders");
  CHECK(cosid_options_ahead_ms(options) == 2000);
  cosid_options_destroy(options);
  options = NULL;
  unsetenv("COSID_CONFIG");
  unsetenv("COSID_AHEAD");
  CHECK_CODE(cosid_options_resolve(path, NULL, NULL, 0, &options, err, sizeof err), COSID_OK);
  if (options == NULL) exit(1);
  CHECK(cosid_options_ahead_ms(options) == 5000);
  cosid_options_destroy(options);
  options = NULL;

  /* Refusals, each with its code and a message; `options` stays NULL. */
  unsetenv("C_API_TEST_ORDINAL");
  CHECK_CODE(cosid_options_resolve(path, NULL, NULL, 0, &options, err, sizeof err),
             COSID_E_UNSET_VARIABLE);
  CHECK_CONTAINS(err, "C_API_TEST_ORDINAL");
  CHECK_CODE(cosid_options_resolve(NULL, NULL, NULL, 0, &options, err, sizeof err),
             COSID_E_NO_SLOT_CONFIGURED);
  CHECK(err[0] != '\0');
  keys[0] = "cosid.nope";
  CHECK_CODE(cosid_options_resolve(NULL, keys, values, 1, &options, err, sizeof err),
             COSID_E_CONFIG_UNKNOWN_KEY);
  CHECK_CONTAINS(err, "cosid.nope");
  keys[0] = "cosid.machine.static.ahead";
  values[0] = "5 s";
  CHECK_CODE(cosid_options_resolve(NULL, keys, values, 1, &options, err, sizeof err),
             COSID_E_INVALID_VALUE);
  CHECK_CONTAINS(err, "cosid.machine.static.ahead");
  snprintf(path, sizeof path, "%s/absent.yaml", dir);
  CHECK_CODE(cosid_options_resolve(path, NULL, NULL, 0, &options, err, sizeof err),
             COSID_E_CONFIG_UNREADABLE);
  CHECK_CONTAINS(err, "absent.yaml");
  snprintf(path, sizeof path, "%s/tab.yaml", dir);
  write_file(path, "cosid:\n\tnamespace: x\n");
  CHECK_CODE(cosid_options_resolve(path, NULL, NULL, 0, &options, err, sizeof err),
             COSID_E_CONFIG_SYNTAX);
  CHECK_CONTAINS(err, "tab.yaml:2");
  CHECK_CODE(cosid_options_resolve(NULL, NULL, values, 1, &options, err, sizeof err),
             COSID_E_INVALID_ARGUMENT);
  keys[0] = NULL;
  CHECK_CODE(cosid_options_resolve(NULL, keys, values, 1, &options, err, sizeof err),
             COSID_E_INVALID_ARGUMENT);
  CHECK_CONTAINS(err, "keys[0]");
  CHECK(options == NULL);

  remove_temp_dir(dir);
}

static void id_round_trips(void) {
  static const int kFormats[] = {COSID_FORMAT_DECIMAL, COSID_FORMAT_RADIX62, COSID_FORMAT_RADIX36,
                                 COSID_FORMAT_FRIENDLY};
  /* timestamp 123456789 ticks, slot 3, sequence 17 in the default 41/10/12 layout */
  const uint64_t known = ((uint64_t)123456789 << 22) | ((uint64_t)3 << 12) | 17u;
  const uint64_t samples[] = {0, 1, known, ((uint64_t)1 << 63) - 1};
  char text[COSID_ENCODED_BUFFER_SIZE], err[256];
  cosid_id_fields_t fields;
  cosid_layout_t seconds, js;
  uint64_t id = 0;
  size_t f, s;

  CHECK_CODE(cosid_id_parse(known, NULL, &fields, err, sizeof err), COSID_OK);
  CHECK_I64_EQ(fields.timestamp_ms, 1577203200000LL + 123456789);
  CHECK(fields.slot == 3);
  CHECK(fields.sequence == 17);
  CHECK_CODE(cosid_id_parse(known, &kDefaultLayout, &fields, err, sizeof err), COSID_OK);
  CHECK(fields.slot == 3 && fields.sequence == 17);

  CHECK_CODE(cosid_id_encode(known, COSID_FORMAT_DECIMAL, NULL, text, sizeof text, err, sizeof err),
             COSID_OK);
  CHECK_STR_EQ(text, "517815303942161");
  CHECK_CODE(
      cosid_id_encode(known, COSID_FORMAT_FRIENDLY, NULL, text, sizeof text, err, sizeof err),
      COSID_OK);
  CHECK_STR_EQ(text, "20191226021736789-3-17"); /* the epoch + 123456789 ms, UTC */
  CHECK_CODE(cosid_id_encode(0, COSID_FORMAT_RADIX62, NULL, text, sizeof text, err, sizeof err),
             COSID_OK);
  CHECK_STR_EQ(text, "00000000000");
  CHECK_CODE(cosid_id_encode(35, COSID_FORMAT_RADIX36, NULL, text, sizeof text, err, sizeof err),
             COSID_OK);
  CHECK_STR_EQ(text, "000000000000z");

  /* Every format, there and back, with the default layout (which holds every 63-bit id). */
  for (f = 0; f < sizeof kFormats / sizeof kFormats[0]; ++f) {
    for (s = 0; s < sizeof samples / sizeof samples[0]; ++s) {
      CHECK_CODE(cosid_id_encode(samples[s], kFormats[f], NULL, text, sizeof text, err, sizeof err),
                 COSID_OK);
      id = 12345;
      CHECK_CODE(cosid_id_decode(text, kFormats[f], NULL, &id, err, sizeof err), COSID_OK);
      CHECK_U64_EQ(id, samples[s]);
      /* AUTO reads what the encoders write, except radix62 that looks like digits. */
      if (kFormats[f] != COSID_FORMAT_RADIX62) {
        CHECK_CODE(cosid_id_decode(text, COSID_FORMAT_AUTO, NULL, &id, err, sizeof err), COSID_OK);
        CHECK_U64_EQ(id, samples[s]);
      }
    }
  }

  /* A seconds layout: the friendly form says 000 milliseconds. */
  CHECK_CODE(cosid_layout_preset("seconds", &seconds, err, sizeof err), COSID_OK);
  CHECK(seconds.unit == COSID_UNIT_SECOND && seconds.timestamp_bits == 31);
  id = ((uint64_t)86400 << 32) | ((uint64_t)9 << 22) | 4u; /* one day after the epoch */
  CHECK_CODE(
      cosid_id_encode(id, COSID_FORMAT_FRIENDLY, &seconds, text, sizeof text, err, sizeof err),
      COSID_OK);
  CHECK_STR_EQ(text, "20191225160000000-9-4");
  CHECK_CODE(cosid_id_parse(id, &seconds, &fields, err, sizeof err), COSID_OK);
  CHECK_I64_EQ(fields.timestamp_ms, 1577203200000LL + 86400000LL);
  CHECK(fields.slot == 9 && fields.sequence == 4);
  id = 0;
  CHECK_CODE(cosid_id_decode("20191225160000000-9-4", COSID_FORMAT_FRIENDLY, &seconds, &id, err,
                             sizeof err),
             COSID_OK);
  CHECK_U64_EQ(id, ((uint64_t)86400 << 32) | ((uint64_t)9 << 22) | 4u);

  /* An id the 53-bit layout cannot hold is refused, whichever way it comes. */
  CHECK_CODE(cosid_layout_preset("js-safe", &js, err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_id_parse((uint64_t)1 << 53, &js, &fields, err, sizeof err),
             COSID_E_ID_FIELD_OUT_OF_RANGE);
  CHECK_CONTAINS(err, "9007199254740991");
  CHECK_CODE(cosid_id_parse(((uint64_t)1 << 53) - 1, &js, &fields, err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_id_encode((uint64_t)1 << 53, COSID_FORMAT_DECIMAL, &js, text, sizeof text, err,
                             sizeof err),
             COSID_E_ID_FIELD_OUT_OF_RANGE);
  CHECK_CODE(cosid_id_decode("9007199254740992", COSID_FORMAT_DECIMAL, &js, &id, err, sizeof err),
             COSID_E_ID_FIELD_OUT_OF_RANGE);

  /* Decoder errors, one code each. */
  CHECK_CODE(cosid_id_decode("", COSID_FORMAT_DECIMAL, NULL, &id, err, sizeof err),
             COSID_E_ID_EMPTY);
  CHECK_CODE(cosid_id_decode("12a", COSID_FORMAT_DECIMAL, NULL, &id, err, sizeof err),
             COSID_E_ID_BAD_CHARACTER);
  CHECK_CONTAINS(err, "12a");
  CHECK_CODE(cosid_id_decode("abc", COSID_FORMAT_RADIX62, NULL, &id, err, sizeof err),
             COSID_E_ID_BAD_LENGTH);
  CHECK_CODE(
      cosid_id_decode("9223372036854775808", COSID_FORMAT_DECIMAL, NULL, &id, err, sizeof err),
      COSID_E_ID_OVERFLOW);
  CHECK_CODE(cosid_id_decode("1", 9, NULL, &id, err, sizeof err), COSID_E_INVALID_ARGUMENT);
  CHECK_CODE(cosid_id_decode(NULL, COSID_FORMAT_DECIMAL, NULL, &id, err, sizeof err),
             COSID_E_INVALID_ARGUMENT);

  /* Encoder refusals: above 2^63 - 1, AUTO, an unknown format. */
  CHECK_CODE(cosid_id_encode((uint64_t)1 << 63, COSID_FORMAT_DECIMAL, NULL, text, sizeof text, err,
                             sizeof err),
             COSID_E_ID_OVERFLOW);
  CHECK_STR_EQ(text, "");
  CHECK_CODE(cosid_id_encode(1, COSID_FORMAT_AUTO, NULL, text, sizeof text, err, sizeof err),
             COSID_E_INVALID_ARGUMENT);
  CHECK_CODE(cosid_id_encode(1, -1, NULL, text, sizeof text, err, sizeof err),
             COSID_E_INVALID_ARGUMENT);
}

static void buffer_truncation(void) {
  char full[512], small[16], text[COSID_ENCODED_BUFFER_SIZE];
  size_t cut;
  const char* lead;
  cosid_layout_t layout;

  /* The whole message, then the same call into smaller buffers: a prefix, always terminated,
   * and nothing written past the length given. */
  CHECK_CODE(cosid_layout_preset("nope", &layout, full, sizeof full), COSID_E_UNKNOWN_LAYOUT);
  CHECK(strlen(full) > 20);
  memset(small, 'X', sizeof small);
  CHECK_CODE(cosid_layout_preset("nope", &layout, small, 8), COSID_E_UNKNOWN_LAYOUT);
  CHECK(strlen(small) == 7);
  CHECK(strncmp(small, full, 7) == 0);
  CHECK(small[8] == 'X' && small[15] == 'X');
  memset(small, 'X', sizeof small);
  CHECK_CODE(cosid_layout_preset("nope", &layout, small, 1), COSID_E_UNKNOWN_LAYOUT);
  CHECK(small[0] == '\0' && small[1] == 'X');
  memset(small, 'X', sizeof small);
  CHECK_CODE(cosid_layout_preset("nope", &layout, small, 0), COSID_E_UNKNOWN_LAYOUT);
  CHECK(small[0] == 'X');
  CHECK_CODE(cosid_layout_preset("nope", &layout, NULL, 100), COSID_E_UNKNOWN_LAYOUT);

  /* Success leaves "". */
  strcpy(small, "stale");
  CHECK_CODE(cosid_layout_preset("default", &layout, small, sizeof small), COSID_OK);
  CHECK_STR_EQ(small, "");

  /* A cut that would split a UTF-8 character ("\xc3\xa9", e) drops the whole character. */
  CHECK_CODE(cosid_layout_preset("caf\xc3\xa9", &layout, full, sizeof full),
             COSID_E_UNKNOWN_LAYOUT);
  lead = strstr(full, "\xc3\xa9");
  CHECK(lead != NULL);
  if (lead != NULL) {
    char cut_buffer[512];
    cut = (size_t)(lead - full);
    /* Room for the lead byte but not its continuation byte. */
    CHECK_CODE(cosid_layout_preset("caf\xc3\xa9", &layout, cut_buffer, cut + 2),
               COSID_E_UNKNOWN_LAYOUT);
    CHECK(strlen(cut_buffer) == cut);
    CHECK(strncmp(cut_buffer, full, cut) == 0);
    /* With room for both, it stays. */
    CHECK_CODE(cosid_layout_preset("caf\xc3\xa9", &layout, cut_buffer, cut + 3),
               COSID_E_UNKNOWN_LAYOUT);
    CHECK(strlen(cut_buffer) == cut + 2);
  }

  /* cosid_code_describe cuts the same way. */
  CHECK_STR_EQ(cosid_code_describe(COSID_E_CLOSED, small, 10), "generator");

  /* An encoded id is never cut: too short a buffer is an error and holds "". */
  memset(text, 'X', sizeof text);
  CHECK_CODE(cosid_id_encode(123456789, COSID_FORMAT_DECIMAL, NULL, text, 9, full, sizeof full),
             COSID_E_INVALID_ARGUMENT);
  CHECK_STR_EQ(text, "");
  CHECK_CONTAINS(full, "COSID_ENCODED_BUFFER_SIZE");
  CHECK_CODE(cosid_id_encode(123456789, COSID_FORMAT_DECIMAL, NULL, text, 10, full, sizeof full),
             COSID_OK);
  CHECK_STR_EQ(text, "123456789");
  CHECK_CODE(cosid_id_encode(123456789, COSID_FORMAT_DECIMAL, NULL, NULL, 10, full, sizeof full),
             COSID_E_INVALID_ARGUMENT);
}

static void closed_runtime(void) {
  char err[256];
  cosid_options_t* options = options_for(2, NULL); /* no state file: nothing to clean up */
  cosid_runtime_t* runtime = NULL;
  cosid_generator_t* ids = NULL;
  cosid_generator_t* late = NULL;
  uint64_t id = 7, batch[4];
  size_t written = 99;

  CHECK_CODE(cosid_runtime_open(options, &runtime, err, sizeof err), COSID_OK);
  if (runtime == NULL) exit(1);
  CHECK_CODE(cosid_runtime_generator(runtime, "default", &ids, err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_generator_next(ids, &id, err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_generator_next_batch(ids, batch, 0, &written, err, sizeof err),
             COSID_E_INVALID_ARGUMENT);
  CHECK(written == 99);
  CHECK_CODE(cosid_generator_next_batch(ids, NULL, 4, &written, err, sizeof err),
             COSID_E_INVALID_ARGUMENT);

  CHECK_CODE(cosid_runtime_close(runtime, err, sizeof err), COSID_OK);
  id = 7;
  CHECK_CODE(cosid_generator_next(ids, &id, err, sizeof err), COSID_E_CLOSED);
  CHECK(err[0] != '\0');
  CHECK(id == 7);
  CHECK_CODE(cosid_generator_next(ids, &id, NULL, 0), COSID_E_CLOSED); /* no buffer: same code */
  CHECK_CODE(cosid_generator_next_batch(ids, batch, 4, &written, err, sizeof err), COSID_E_CLOSED);
  CHECK(written == 99);
  CHECK_CODE(cosid_runtime_generator(runtime, "default", &late, err, sizeof err), COSID_E_CLOSED);
  CHECK_CONTAINS(err, "closed");
  CHECK(late == NULL);
  CHECK_CODE(cosid_runtime_close(runtime, err, sizeof err), COSID_OK);
  cosid_runtime_destroy(runtime);
  cosid_runtime_destroy(NULL); /* ignored */

  /* Destroying an open runtime closes it (the sanitizer builds check nothing leaks). */
  runtime = NULL;
  CHECK_CODE(cosid_runtime_open(options, &runtime, err, sizeof err), COSID_OK);
  if (runtime == NULL) exit(1);
  CHECK_CODE(cosid_runtime_generator(runtime, "default", &ids, err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_generator_next(ids, &id, err, sizeof err), COSID_OK);
  cosid_runtime_destroy(runtime);
  cosid_options_destroy(options);
}

/* ---- Threads: one generator shared by several, every id distinct */

enum { kThreads = 4, kIdsPerThread = 2000 };

struct worker {
  cosid_generator_t* ids;
  uint64_t issued[kIdsPerThread];
  int failures;
};

static void* work(void* argument) {
  struct worker* worker = (struct worker*)argument;
  int i;
  for (i = 0; i < kIdsPerThread; ++i) {
    if (cosid_generator_next(worker->ids, &worker->issued[i], NULL, 0) != COSID_OK) {
      ++worker->failures;
    }
  }
  return NULL;
}

static int compare_ids(const void* a, const void* b) {
  const uint64_t x = *(const uint64_t*)a;
  const uint64_t y = *(const uint64_t*)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

static void threads(void) {
  static struct worker workers[kThreads];
  static uint64_t all[kThreads * kIdsPerThread];
  char err[256];
  cosid_options_t* options = options_for(1, NULL);
  cosid_runtime_t* runtime = NULL;
  cosid_generator_t* ids = NULL;
  pthread_t handles[kThreads];
  size_t i, n = 0;
  int t, j;

  CHECK_CODE(cosid_runtime_open(options, &runtime, err, sizeof err), COSID_OK);
  if (runtime == NULL) exit(1);
  CHECK_CODE(cosid_runtime_generator(runtime, "default", &ids, err, sizeof err), COSID_OK);
  for (t = 0; t < kThreads; ++t) {
    workers[t].ids = ids;
    workers[t].failures = 0;
    CHECK(pthread_create(&handles[t], NULL, work, &workers[t]) == 0);
  }
  for (t = 0; t < kThreads; ++t) {
    CHECK(pthread_join(handles[t], NULL) == 0);
    CHECK(workers[t].failures == 0);
    for (j = 0; j < kIdsPerThread; ++j) all[n++] = workers[t].issued[j];
  }
  qsort(all, n, sizeof all[0], compare_ids);
  for (i = 1; i < n; ++i) CHECK(all[i] != all[i - 1]);
  CHECK_CODE(cosid_runtime_close(runtime, err, sizeof err), COSID_OK);
  cosid_runtime_destroy(runtime);
  cosid_options_destroy(options);
}

/* ---- Segment ids */

/* Opens a generator of `key` on the file range store in `dir`, with `step`. */
static cosid_segment_t* open_segment(const char* dir, const char* key, const char* step) {
  const char* keys[] = {"cosid.segment.distributor.type",
                        "cosid.segment.distributor.file.directory", "cosid.segment.share.step"};
  const char* values[3];
  cosid_segment_t* segment = NULL;
  char err[512];
  values[0] = "file";
  values[1] = dir;
  values[2] = step;
  CHECK_CODE(cosid_segment_open(NULL, keys, values, 3, key, &segment, err, sizeof err), COSID_OK);
  if (segment == NULL) {
    fprintf(stderr, "cosid_segment_open: %s\n", err);
    exit(1);
  }
  return segment;
}

static void segments(void) {
  char dir[256];
  char err[512];
  int64_t id = 0, last = 0;
  int64_t batch[16];
  size_t written = 0, i;
  int n;
  cosid_segment_t* segment;
  const char* no_store_keys[] = {"cosid.segment.share.step"};
  const char* no_store_values[] = {"10"};
  cosid_segment_t* none = NULL;

  clear_cosid_environment();
  make_temp_dir(dir, sizeof dir);
  /* A new key starts at offset + 1 = 1, and ids increase across segments of 7 (by one, but for
   * the one id a call leaves when it finds none ready and waits for the next claim). */
  segment = open_segment(dir, "orders", "7");
  for (n = 1; n <= 30; ++n) {
    CHECK_CODE(cosid_segment_next(segment, &id, err, sizeof err), COSID_OK);
    if (n == 1) CHECK_I64_EQ(id, 1);
    CHECK(id > last);
    last = id;
  }
  CHECK_CODE(cosid_segment_next_batch(segment, batch, 16, &written, err, sizeof err), COSID_OK);
  CHECK(written >= 1 && written <= 16);
  CHECK(batch[0] > last);
  for (i = 1; i < written; ++i) CHECK_I64_EQ(batch[i], batch[0] + (int64_t)i);
  last = batch[written - 1];
  CHECK_CODE(cosid_segment_next_batch(segment, batch, 0, &written, err, sizeof err),
             COSID_E_INVALID_ARGUMENT);
  /* A clean close hands the rest back: the next generator of the key resumes right after. */
  CHECK_CODE(cosid_segment_close(segment, err, sizeof err), COSID_OK);
  CHECK_CODE(cosid_segment_next(segment, &id, err, sizeof err), COSID_E_CLOSED);
  CHECK_CODE(cosid_segment_close(segment, err, sizeof err), COSID_OK); /* idempotent */
  cosid_segment_destroy(segment);
  segment = open_segment(dir, "orders", "7");
  CHECK_CODE(cosid_segment_next(segment, &id, err, sizeof err), COSID_OK);
  CHECK_I64_EQ(id, last + 1);
  /* Without a message buffer the call still reports its code. */
  CHECK_CODE(cosid_segment_next(segment, &id, NULL, 0), COSID_OK);
  CHECK_I64_EQ(id, last + 2);
  cosid_segment_destroy(segment); /* closes it */

  /* No store configured, a bad key, NULL arguments. */
  CHECK_CODE(
      cosid_segment_open(NULL, no_store_keys, no_store_values, 1, "orders", &none, err, sizeof err),
      COSID_E_INVALID_ARGUMENT);
  CHECK_CONTAINS(err, "cosid.segment.distributor.type");
  CHECK(none == NULL);
  /* A store that does not exist is refused and not created: only `cosid store init` makes one. */
  {
    const char* missing_keys[] = {"cosid.segment.distributor.type",
                                  "cosid.segment.distributor.file.directory"};
    const char* missing_values[2];
    char missing[512];
    struct stat st;
    snprintf(missing, sizeof missing, "%s/missing", dir);
    missing_values[0] = "file";
    missing_values[1] = missing;
    CHECK_CODE(
        cosid_segment_open(NULL, missing_keys, missing_values, 2, "orders", &none, err, sizeof err),
        COSID_E_STORE_NOT_INITIALIZED);
    CHECK_CONTAINS(err, "cosid store init --store file:");
    CHECK(none == NULL);
    CHECK(stat(missing, &st) != 0);
  }
  CHECK_CODE(cosid_segment_open(NULL, NULL, NULL, 0, NULL, &none, err, sizeof err),
             COSID_E_INVALID_ARGUMENT);
  CHECK_CODE(cosid_segment_next(NULL, &id, err, sizeof err), COSID_E_INVALID_ARGUMENT);
  cosid_segment_destroy(NULL);
  remove_temp_dir(dir);
}

/* ---- Driver */

struct test_case {
  const char* name;
  void (*run)(void);
};

static const struct test_case kCases[] = {
    {"version", version},
    {"codes", codes},
    {"happy_path", happy_path},
    {"invalid_options", invalid_options},
    {"resolve", resolve},
    {"id_round_trips", id_round_trips},
    {"buffer_truncation", buffer_truncation},
    {"closed_runtime", closed_runtime},
    {"threads", threads},
    {"segments", segments},
};

int main(int argc, char** argv) {
  size_t i;
  int ran = 0;
  for (i = 0; i < sizeof kCases / sizeof kCases[0]; ++i) {
    if (argc > 1 && strcmp(argv[1], kCases[i].name) != 0) continue;
    kCases[i].run();
    ++ran;
  }
  if (ran == 0) {
    fprintf(stderr, "no test case named %s\n", argv[1]);
    return 2;
  }
  if (c_check_failures > 0) {
    fprintf(stderr, "%d check(s) failed\n", c_check_failures);
    return 1;
  }
  return 0;
}
