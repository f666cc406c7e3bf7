// SPDX-License-Identifier: Apache-2.0
// Internal to the conformance kits (lease/conformance.h, segment/conformance.h): the assertions
// every case uses, the registration of a kit's cases, and the forked children of process cases.
#ifndef COSID_SRC_STORE_TCK_KIT_SUPPORT_H_
#define COSID_SRC_STORE_TCK_KIT_SUPPORT_H_

#include <gtest/gtest.h>

#include <functional>
#include <list>
#include <string>
#include <vector>

#include "cosid/error.h"

// Expects `status` to hold exactly `expected` of cosid's category: a case asserts the specific
// error.
#define TCK_EXPECT_ERRC(status, expected) \
  EXPECT_EQ((status).code(), ::cosid::make_error_code(expected)) << (status).message()
// Expects the store to have given a message of its own, not only the category's text for the code.
#define TCK_EXPECT_MESSAGE(status) EXPECT_NE((status).message(), (status).code().message())
#define TCK_ASSERT_OK(call, status) ASSERT_TRUE(call) << (status).message()
#define TCK_EXPECT_OK(call, status) EXPECT_TRUE(call) << (status).message()

namespace cosid {
namespace tck_support {

// One registered case: makes the kit's Harness and runs the case on it.
template <typename Kit, typename Harness>
class KitTest : public ::testing::Test {
 public:
  using Run = void (*)(Harness&);
  KitTest(const Kit& kit, Run run) : kit_(kit), run_(run) {}
  void TestBody() override {
    Harness harness(kit_);
    if (::testing::Test::HasFailure()) return;  // no store to test
    run_(harness);
  }

 private:
  const Kit& kit_;
  const Run run_;
};

// Registers every case of `lists` (each case with a `name` and a `run(Harness&)`) as the suite
// `suite`, run on a copy of `kit`. Returns true.
template <typename Harness, typename Kit, typename Case>
bool register_kit(const std::string& suite, const Kit& kit,
                  std::initializer_list<std::vector<Case>> lists) {
  // Kept for the life of the program: the registered tests refer to it. A list never moves its
  // elements, and a function-local static is destroyed only after the tests ran.
  static std::list<Kit> kits;
  kits.push_back(kit);
  const Kit* kept = &kits.back();
  for (const std::vector<Case>& cases : lists) {
    for (const Case& test_case : cases) {
      const auto run = test_case.run;
      ::testing::RegisterTest(
          suite.c_str(), test_case.name, nullptr, nullptr, __FILE__, __LINE__,
          [kept, run]() -> ::testing::Test* { return new KitTest<Kit, Harness>(*kept, run); });
    }
  }
  return true;
}

// Forks `count` children that start together. Child `index` runs child(index, out), writes its
// answers to the descriptor `out` (each write below PIPE_BUF, so that the answers of the children
// never interleave) and leaves with _exit(what child returned), running no destructor of the
// parent's and no GoogleTest. The parent gets every byte the children wrote, and expects each to
// have exited with 0. The caller makes sure no thread of its own runs while it forks.
std::string run_children(int count, const std::function<int(int index, int out)>& child);

}  // namespace tck_support
}  // namespace cosid

#endif  // COSID_SRC_STORE_TCK_KIT_SUPPORT_H_
