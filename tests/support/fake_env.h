// SPDX-License-Identifier: Apache-2.0
// A fake environment for the code that reads COSID_* variables through an EnvLookup.
#ifndef COSID_TESTS_SUPPORT_FAKE_ENV_H_
#define COSID_TESTS_SUPPORT_FAKE_ENV_H_

#include <initializer_list>
#include <map>
#include <string>
#include <utility>

#include "cosid/options.h"

namespace cosid {

// An environment of its own for each test, so that nothing depends on the real one.
class FakeEnv {
 public:
  FakeEnv() = default;
  FakeEnv(std::initializer_list<std::pair<const std::string, std::string>> vars) : vars_(vars) {}
  void set(const std::string& name, const std::string& value) { vars_[name] = value; }
  void unset(const std::string& name) { vars_.erase(name); }
  EnvLookup lookup() const {
    return [this](const char* name) -> const char* {
      const auto it = vars_.find(name);
      return it == vars_.end() ? nullptr : it->second.c_str();
    };
  }

 private:
  std::map<std::string, std::string> vars_;
};

}  // namespace cosid

#endif  // COSID_TESTS_SUPPORT_FAKE_ENV_H_
