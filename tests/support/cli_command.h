// SPDX-License-Identifier: Apache-2.0
// The command line that starts the `cosid` under test: its path (COSID_CLI_PATH), behind the
// emulator in a cross build (COSID_CLI_LAUNCHER, both set by tests/CMakeLists.txt), so that a test
// can spawn it wherever the test itself runs.
#ifndef COSID_TESTS_SUPPORT_CLI_COMMAND_H_
#define COSID_TESTS_SUPPORT_CLI_COMMAND_H_

#include <string>
#include <vector>

// The launcher's words each end with a comma; a native build defines it empty.
inline std::vector<std::string> cosid_cli_command() { return {COSID_CLI_LAUNCHER COSID_CLI_PATH}; }

#endif  // COSID_TESTS_SUPPORT_CLI_COMMAND_H_
