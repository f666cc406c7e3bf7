// Shared test helpers. Tests assert the specific error they expect: there is deliberately no
// "expect any error" helper.
#ifndef COSID_TESTS_TEST_UTIL_H_
#define COSID_TESTS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <system_error>

#include "cosid/error.h"

// Expects `ec` to hold exactly `code` of cosid's category.
#define EXPECT_ERRC(ec, code) EXPECT_EQ((ec), ::cosid::make_error_code(code)) << (ec).message()
#define ASSERT_ERRC(ec, code) ASSERT_EQ((ec), ::cosid::make_error_code(code)) << (ec).message()
// Expects success; prints the error otherwise.
#define EXPECT_NO_ERROR(ec) EXPECT_FALSE(ec) << (ec).message()
#define ASSERT_NO_ERROR(ec) ASSERT_FALSE(ec) << (ec).message()

#endif  // COSID_TESTS_TEST_UTIL_H_
