#include "cosid/error.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

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
       value <= static_cast<int>(errc::unknown_store_type); ++value) {
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

}  // namespace
}  // namespace cosid
