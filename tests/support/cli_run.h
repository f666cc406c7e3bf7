// SPDX-License-Identifier: Apache-2.0
// One run of the `cosid` under test to its end (tests/support/cli_process.h's Cli): its exit status
// and what it wrote, for tests that only look at the outcome.
#ifndef COSID_TESTS_SUPPORT_CLI_RUN_H_
#define COSID_TESTS_SUPPORT_CLI_RUN_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_process.h"
#include "temp_dir.h"

namespace cosid {
namespace testing {

struct CliOutcome {
  int code = -1;  // the exit status, or 128 + signal
  std::string out;
  std::string err;
};

// Runs `cosid ARGS...` with `env` added to this process's environment, stdin /dev/null; its
// standard error goes to a file in `dir`.
inline CliOutcome run_cli(const TempDir& dir, const std::vector<std::string>& args,
                          const std::vector<std::string>& env = {}) {
  Cli cli(dir, args, env);
  CliOutcome result;
  for (const std::string& line : cli.rest()) result.out += line + '\n';
  result.out += cli.partial();
  result.code = cli.wait();
  result.err = cli.err();
  return result;
}

// `cosid store init --store STORE`: a test runs it before a store's first use, as a user must (no
// other command creates a store). Fails the test unless it exits 0.
inline void init_store(const TempDir& dir, const std::string& store) {
  const CliOutcome init = run_cli(dir, {"store", "init", "--store", store});
  ASSERT_EQ(init.code, 0) << init.err;
}

}  // namespace testing
}  // namespace cosid

#endif  // COSID_TESTS_SUPPORT_CLI_RUN_H_
