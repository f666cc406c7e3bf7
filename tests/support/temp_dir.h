// SPDX-License-Identifier: Apache-2.0
// TempDir: a fresh directory under the test's temporary directory, removed with what it holds.
#ifndef COSID_TESTS_SUPPORT_TEMP_DIR_H_
#define COSID_TESTS_SUPPORT_TEMP_DIR_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <string>

class TempDir {
 public:
  // `prefix` names the test that made it ("cli_kill"); path() is empty if mkdtemp failed (which
  // fails the test).
  explicit TempDir(const std::string& prefix) {
    std::string pattern = ::testing::TempDir() + prefix + "_XXXXXX";
    if (mkdtemp(&pattern[0]) != nullptr) {
      path_ = pattern;
    } else {
      ADD_FAILURE() << "mkdtemp failed in " << ::testing::TempDir();
    }
  }
  ~TempDir() {
    if (!path_.empty()) (void)std::system(("rm -rf '" + path_ + "'").c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // The path of `name` in the directory.
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

#endif  // COSID_TESTS_SUPPORT_TEMP_DIR_H_
