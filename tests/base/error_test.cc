// SPDX-License-Identifier: Apache-2.0
#include "cosid/error.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "base/fail.h"

namespace cosid {
namespace {

TEST(Error, CategoryIsCosid) { EXPECT_STREQ(error_category().name(), "cosid"); }

TEST(Error, EnumConvertsToErrorCodeOfTheCategory) {
  const std::error_code ec = errc::clock_backwards;
  EXPECT_EQ(&ec.category(), &error_category());
  EXPECT_EQ(ec.value(), static_cast<int>(errc::clock_backwards));
  EXPECT_TRUE(ec == errc::clock_backwards);
  EXPECT_FALSE(ec == errc::clock_stalled);
}

TEST(Error, EveryCodeHasItsOwnMessage) {
  std::set<std::string> messages;
  for (int value = static_cast<int>(errc::layout_too_wide);
       value <= static_cast<int>(errc::cancelled); ++value) {
    const std::string text = make_error_code(static_cast<errc>(value)).message();
    EXPECT_EQ(text.find("unknown cosid error"), std::string::npos) << value;
    EXPECT_TRUE(messages.insert(text).second) << "duplicate message: " << text;
  }
}

TEST(Error, UnknownValueSaysSo) {
  EXPECT_EQ(std::error_code(9999, error_category()).message(), "unknown cosid error 9999");
}

TEST(Error, ThrownErrorCarriesCodeAndMessage) {
  try {
    detail::throw_error(errc::closed, "generator is closed: get a new one");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(errc::closed));
    EXPECT_NE(std::string(e.what()).find("generator is closed: get a new one"), std::string::npos);
  }
}

TEST(Error, IsASystemError) {
  EXPECT_THROW(detail::throw_error(errc::slot_lost, ""), std::system_error);
}

TEST(Status, DefaultIsOkWithNoMessage) {
  const Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_FALSE(status.code());
  EXPECT_EQ(status.message(), "");
}

TEST(Status, CarriesTheCodeAndTheCallsMessage) {
  const Status status(errc::ceiling_reached, "ceiling 1000 reached: raise ahead");
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.code(), errc::ceiling_reached);
  EXPECT_EQ(status.message(), "ceiling 1000 reached: raise ahead");
}

TEST(Status, WithoutAMessageSaysTheCategorysText) {
  const Status status(errc::closed, "");
  EXPECT_EQ(status.message(), "generator is closed");
}

TEST(Status, ClearMakesItOkAgain) {
  Status status(errc::closed, "closed");
  status.clear();
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.message(), "");
}

TEST(Status, FailSetsBothAndReturnsFalse) {
  Status status;
  EXPECT_FALSE(detail::fail(status, errc::invalid_value, "ahead: 0s is below 1s"));
  EXPECT_EQ(status.code(), errc::invalid_value);
  EXPECT_EQ(status.message(), "ahead: 0s is below 1s");
}

#if COSID_HAS_EXCEPTIONS
TEST(Status, ThrownErrorCarriesTheStatus) {
  try {
    detail::throw_if_failed(Status(errc::slot_lost, "slot 3 lost: call generator() again"));
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::slot_lost);
    EXPECT_NE(std::string(e.what()).find("slot 3 lost: call generator() again"), std::string::npos);
  }
  EXPECT_NO_THROW(detail::throw_if_failed(Status()));
}
#endif

}  // namespace
}  // namespace cosid
