// SPDX-License-Identifier: Apache-2.0
// Shared by the options tests: a fake environment, the sources of one resolution, and its result.
#ifndef COSID_TESTS_SUPPORT_OPTIONS_FIXTURE_H_
#define COSID_TESTS_SUPPORT_OPTIONS_FIXTURE_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config_keys.h"
#include "cosid/options.h"
#include "fake_env.h"
#include "test_util.h"

namespace cosid {
namespace testing_options {

// A test's sources: a fake environment, a fixed host name and, when set, a config text.
struct Fixture {
  FakeEnv env;
  OptionSources sources;
  Status store_flag;  // a --store that split_store_flag() refused: resolve() reports it

  Fixture() { sources.env = env.lookup(); }
  void config(const std::string& text) {
    sources.config_file = "cosid.yaml";
    sources.config_text = text;
  }
  // A command-line flag as option_sources_from_args() passes it: --store TYPE[:TARGET] split
  // into its keys, a switch with its implied value.
  void flag(const char* name, const std::string& value = "") {
    if (std::string(name) == "store") {
      (void)detail::split_store_flag(value, sources.flags, store_flag);
      return;
    }
    const detail::ConfigKey* entry = detail::find_config_flag(name);
    ASSERT_NE(entry, nullptr) << name;
    sources.flags.emplace_back(entry->key, entry->implied ? entry->implied : value);
  }
};

// A resolution's outcome: the options (Options, or segment::SegmentOptions) and the settings.
template <typename Resolved>
struct ResultOf {
  bool ok = false;
  Resolved options;
  std::vector<Setting> settings;
  std::error_code ec;
  std::string message;

  const Setting& setting(const std::string& key) const {
    for (const Setting& s : settings) {
      if (s.key == key) return s;
    }
    static const Setting kNone{"", "<missing>", "<missing>"};
    return kNone;
  }
};
using Result = ResultOf<Options>;

inline Result resolve(const Fixture& f) {
  Result r;
  Status status = f.store_flag;
  if (status.ok()) r.options = resolve_options(f.sources, r.settings, status);
  r.ok = status.ok();
  r.ec = status.code();
  r.message = status.message();
  EXPECT_EQ(r.ok, !r.ec) << r.message;
  return r;
}

// The error and message of a refused resolution.
inline std::string refused(const Fixture& f, errc code) {
  const Result r = resolve(f);
  EXPECT_ERRC(r.ec, code) << r.message;
  EXPECT_FALSE(r.message.empty());
  return r.message;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace testing_options
}  // namespace cosid

#endif  // COSID_TESTS_SUPPORT_OPTIONS_FIXTURE_H_
