// SPDX-License-Identifier: Apache-2.0
/* Issues five ids from C on one slot whose window is kept in a state file, and takes each apart:
 * basic_c STATE_FILE SLOT */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cosid/c.h"

int main(int argc, char** argv) {
  char err[512];
  char text[COSID_ENCODED_BUFFER_SIZE];
  char* end = NULL;
  unsigned long slot = argc == 3 ? strtoul(argv[2], &end, 10) : 0;
  cosid_options_t* options;
  cosid_runtime_t* runtime = NULL;
  cosid_generator_t* ids = NULL;
  cosid_id_fields_t fields;
  uint64_t id;
  int code = COSID_OK;
  int i;

  if (argc != 3 || *argv[2] == '\0' || *end != '\0' || slot > UINT32_MAX) {
    fprintf(stderr, "usage: %s STATE_FILE SLOT (a whole number)\n", argv[0]);
    return 2;
  }
  options = cosid_options_create();
  if (options == NULL) {
    fprintf(stderr, "basic_c: out of memory\n");
    return 1;
  }
  cosid_options_set_slot(options, (uint32_t)slot); /* checked against the layout on open */
  /* One state file per slot; it keeps the window across restarts. */
  code = cosid_options_set_state_file(options, argv[1], err, sizeof err);
  if (code == COSID_OK) code = cosid_runtime_open(options, &runtime, err, sizeof err);
  cosid_options_destroy(options); /* the runtime keeps its own copy */
  if (code != COSID_OK) {
    fprintf(stderr, "basic_c: %s (%s)\n", err, cosid_code_name(code));
    return 1;
  }

  code = cosid_runtime_generator(runtime, "default", &ids, err, sizeof err);
  for (i = 0; code == COSID_OK && i < 5; ++i) {
    code = cosid_generator_next(ids, &id, err, sizeof err);
    if (code == COSID_OK)
      code = cosid_id_encode(id, COSID_FORMAT_RADIX62, NULL, text, sizeof text, err, sizeof err);
    if (code == COSID_OK) code = cosid_id_parse(id, NULL, &fields, err, sizeof err);
    if (code == COSID_OK) {
      printf("%" PRIu64 " %s time=%" PRId64 " slot=%" PRIu32 " sequence=%" PRIu32 "\n", id, text,
             fields.timestamp_ms, fields.slot, fields.sequence);
    }
  }
  if (code != COSID_OK) fprintf(stderr, "basic_c: %s (%s)\n", err, cosid_code_name(code));

  /* Writes the last timestamp, so the next start issues at once. */
  if (cosid_runtime_close(runtime, err, sizeof err) != COSID_OK) {
    fprintf(stderr, "basic_c: %s\n", err);
  }
  cosid_runtime_destroy(runtime);
  return code == COSID_OK ? 0 : 1;
}
