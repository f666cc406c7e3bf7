// SPDX-License-Identifier: Apache-2.0
// Which sanitizer this test binary is built with, for the tests whose machine facts differ under
// one: COSID_TEST_ASAN and COSID_TEST_TSAN are 1 or 0. gcc says so with __SANITIZE_*__, clang with
// __has_feature.
#ifndef COSID_TESTS_SUPPORT_SANITIZERS_H_
#define COSID_TESTS_SUPPORT_SANITIZERS_H_

#if defined(__SANITIZE_ADDRESS__)
#define COSID_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COSID_TEST_ASAN 1
#endif
#endif
#ifndef COSID_TEST_ASAN
#define COSID_TEST_ASAN 0
#endif

#if defined(__SANITIZE_THREAD__)
#define COSID_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define COSID_TEST_TSAN 1
#endif
#endif
#ifndef COSID_TEST_TSAN
#define COSID_TEST_TSAN 0
#endif

#endif  // COSID_TESTS_SUPPORT_SANITIZERS_H_
