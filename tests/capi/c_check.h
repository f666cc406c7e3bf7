// SPDX-License-Identifier: Apache-2.0
/* A small assertion helper for the C tests: each failed check prints its place, the expression
 * and the values, and counts; a test case passes when it ends with no failure counted. Checks go
 * on after a failure, so one run shows every broken one. */
#ifndef COSID_TESTS_CAPI_C_CHECK_H_
#define COSID_TESTS_CAPI_C_CHECK_H_

#include <stdio.h>
#include <string.h>

#include "cosid/c.h"

/* Failed checks so far; defined once, in the test program. */
extern int c_check_failures;

#define CHECK(condition)                                                            \
  do {                                                                              \
    if (!(condition)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
      ++c_check_failures;                                                           \
    }                                                                               \
  } while (0)

/* A call's code must be `want`; prints both codes by name. */
#define CHECK_CODE(call, want)                                                                 \
  do {                                                                                         \
    const int c_check_got_ = (call);                                                           \
    const int c_check_want_ = (want);                                                          \
    if (c_check_got_ != c_check_want_) {                                                       \
      fprintf(stderr, "%s:%d: %s returned %d (%s), want %d (%s)\n", __FILE__, __LINE__, #call, \
              c_check_got_, cosid_code_name(c_check_got_), c_check_want_,                      \
              cosid_code_name(c_check_want_));                                                 \
      ++c_check_failures;                                                                      \
    }                                                                                          \
  } while (0)

#define CHECK_STR_EQ(actual, expected)                                                   \
  do {                                                                                   \
    const char* c_check_a_ = (actual);                                                   \
    const char* c_check_e_ = (expected);                                                 \
    if (c_check_a_ == NULL || strcmp(c_check_a_, c_check_e_) != 0) {                     \
      fprintf(stderr, "%s:%d: %s is \"%s\", want \"%s\"\n", __FILE__, __LINE__, #actual, \
              c_check_a_ == NULL ? "(null)" : c_check_a_, c_check_e_);                   \
      ++c_check_failures;                                                                \
    }                                                                                    \
  } while (0)

/* `haystack` must contain `needle`. */
#define CHECK_CONTAINS(haystack, needle)                                                          \
  do {                                                                                            \
    const char* c_check_h_ = (haystack);                                                          \
    if (strstr(c_check_h_, (needle)) == NULL) {                                                   \
      fprintf(stderr, "%s:%d: %s is \"%s\", which lacks \"%s\"\n", __FILE__, __LINE__, #haystack, \
              c_check_h_, (needle));                                                              \
      ++c_check_failures;                                                                         \
    }                                                                                             \
  } while (0)

#define CHECK_U64_EQ(actual, expected)                                                           \
  do {                                                                                           \
    const unsigned long long c_check_a_ = (unsigned long long)(actual);                          \
    const unsigned long long c_check_e_ = (unsigned long long)(expected);                        \
    if (c_check_a_ != c_check_e_) {                                                              \
      fprintf(stderr, "%s:%d: %s is %llu, want %llu\n", __FILE__, __LINE__, #actual, c_check_a_, \
              c_check_e_);                                                                       \
      ++c_check_failures;                                                                        \
    }                                                                                            \
  } while (0)

#define CHECK_I64_EQ(actual, expected)                                                           \
  do {                                                                                           \
    const long long c_check_a_ = (long long)(actual);                                            \
    const long long c_check_e_ = (long long)(expected);                                          \
    if (c_check_a_ != c_check_e_) {                                                              \
      fprintf(stderr, "%s:%d: %s is %lld, want %lld\n", __FILE__, __LINE__, #actual, c_check_a_, \
              c_check_e_);                                                                       \
      ++c_check_failures;                                                                        \
    }                                                                                            \
  } while (0)

#endif /* COSID_TESTS_CAPI_C_CHECK_H_ */
