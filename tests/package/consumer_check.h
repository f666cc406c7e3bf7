// SPDX-License-Identifier: Apache-2.0
// check(): the one assertion of the consumer programs beside this file, which are built against an
// installed or vendored cosid, without GoogleTest. A failed check prints one line and counts in
// `failures`; the program exits 1 if any did.
#ifndef COSID_TESTS_PACKAGE_CONSUMER_CHECK_H_
#define COSID_TESTS_PACKAGE_CONSUMER_CHECK_H_

#include <cstdio>

inline int failures = 0;

inline void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "consumer: FAILED: %s\n", what);
    ++failures;
  }
}

#endif  // COSID_TESTS_PACKAGE_CONSUMER_CHECK_H_
