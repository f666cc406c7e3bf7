// SPDX-License-Identifier: Apache-2.0
// What every file store's tests check of a missing directory and of its init (the file lease
// store's and the file range store's share one directory rule: src/store/locked_record.h).
#ifndef COSID_TESTS_SUPPORT_STORE_INIT_CHECKS_H_
#define COSID_TESTS_SUPPORT_STORE_INIT_CHECKS_H_

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <string>

#include "cosid/error.h"

namespace cosid {
namespace testing_support {

inline bool path_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// An open of the missing `path` was refused as not initialized: the message names the path, says
// why (`records` start from zero) and gives the init command; and nothing was created.
inline void expect_missing_store_refused(const Status& status, const std::string& path,
                                         const std::string& records) {
  EXPECT_EQ(status.code(), errc::store_not_initialized) << status.message();
  const std::string& message = status.message();
  EXPECT_NE(message.find("directory " + path + " does not exist"), std::string::npos) << message;
  EXPECT_NE(message.find("starts every " + records + " from zero"), std::string::npos) << message;
  EXPECT_NE(message.find("moved or the path is mistyped"), std::string::npos) << message;
  EXPECT_NE(message.find("cosid store init --store file:" + path), std::string::npos) << message;
  EXPECT_FALSE(path_exists(path)) << path << " was created";
}

// `path` is a directory made by init: mode 0770 less the umask.
inline void expect_store_directory(const std::string& path) {
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0) << path;
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0770 & ~mask);
}

}  // namespace testing_support
}  // namespace cosid

#endif  // COSID_TESTS_SUPPORT_STORE_INIT_CHECKS_H_
