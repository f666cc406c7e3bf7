// Internal to the conformance kits (lease and range): the assertions every case uses.
#ifndef COSID_SRC_LEASE_TCK_TCK_EXPECT_H_
#define COSID_SRC_LEASE_TCK_TCK_EXPECT_H_

#include <gtest/gtest.h>

#include "cosid/error.h"

// Expects `status` to hold exactly `expected` of cosid's category: a case asserts the specific
// error.
#define TCK_EXPECT_ERRC(status, expected) \
  EXPECT_EQ((status).code(), ::cosid::make_error_code(expected)) << (status).message()
// Expects the store to have given a message of its own, not only the category's text for the code.
#define TCK_EXPECT_MESSAGE(status) EXPECT_NE((status).message(), (status).code().message())
#define TCK_ASSERT_OK(call, status) ASSERT_TRUE(call) << (status).message()
#define TCK_EXPECT_OK(call, status) EXPECT_TRUE(call) << (status).message()

#endif  // COSID_SRC_LEASE_TCK_TCK_EXPECT_H_
