// SPDX-License-Identifier: Apache-2.0
// The argument rules of the real `cosid` binary, held for every flag of every command: a malformed
// value of any flag, of a COSID_* variable or of the config file, a flag given twice, an unknown
// option or command exit 2 with a message naming what was wrong; runtime failures exit 1.
//
// The flags come from the tool itself (`cosid help --options`, made from the commands' option
// specs), so a new flag is held to the rule without a change here.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config/config_keys.h"
#include "cosid/layout.h"
#include "cosid/version.h"
#include "support/cli_process.h"
#include "support/cli_run.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace {

using cosid::testing::Cli;

using Outcome = cosid::testing::CliOutcome;

Outcome run(const TempDir& dir, const std::vector<std::string>& args,
            const std::vector<std::string>& env = {}) {
  return cosid::testing::run_cli(dir, args, env);
}

// One option of one command, as `cosid help --options` lists it.
struct Flag {
  std::string command;  // "state show"
  std::string name;     // "--slot"
  std::string short_name;
  std::string value;  // "N"; empty for a flag without a value
};

std::vector<Flag> all_flags(const TempDir& dir) {
  const Outcome listed = run(dir, {"help", "--options"});
  EXPECT_EQ(listed.code, 0) << listed.err;
  std::vector<Flag> flags;
  std::istringstream lines(listed.out);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '\t');) fields.push_back(cell);
    fields.resize(4);
    flags.push_back({fields[0], fields[1], fields[2], fields[3]});
  }
  return flags;
}

std::vector<std::string> words_of(const std::string& command) {
  std::vector<std::string> words;
  std::istringstream in(command);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// Values that are well-formed for no flag of their kind (the flag's VALUE name). A kind absent
// here takes any text, and is listed in kAnyText with the reason.
const std::map<std::string, std::string> kMalformed = {
    {"N", "-1"},
    {"COUNT", "-1"},
    {"K", "x1"},
    {"S", "x1"},
    {"MS", "x1"},
    {"DUR", "10sec"},
    {"TIME", "yesterday"},
    {"FORMAT", "hex"},
    {"MODE", "now"},
    {"NAME", "js"},
    {"UNIT", "min"},
    {"ID", "12#4"},
    {"NS", ""},
    {"KEY", ""},
    {"PATH", ""},
    {"STORE", "Bad Type!"},
    {"TYPE[:TARGET]", "Bad Type!"},
};
const std::map<std::string, std::string> kAnyText = {
    {"FILE",
     "any path is a well-formed --config; a file that cannot be read is a runtime failure (exit "
     "1), held below"},
};

// What a command needs besides the flag under test to get as far as checking it: arguments, and
// flags other than `flag` (a flag given twice is refused before its value is looked at).
std::vector<std::string> base_args(const TempDir& dir, const Flag& flag) {
  const std::string& c = flag.command;
  const cosid::detail::ConfigKey* row = cosid::detail::find_config_flag(flag.name.substr(2));
  const bool store_flag = row != nullptr && row->scope == cosid::detail::Scope::kStore;
  std::vector<std::string> args;
  const auto add = [&](const std::string& name, const std::string& value) {
    if (flag.name != name) args.insert(args.end(), {name, value});
  };
  if (c == "parse") args.push_back("1");
  if (c == "state show") args.push_back(dir.file("state"));
  // state check's FILE is a state file, which a store's flags exclude.
  if (c == "state init" || c == "state repair" || (c == "state check" && !store_flag)) {
    args.push_back(dir.file("new-state"));
  }
  if (c == "not-before") add("--from-id", "1");
  if (c == "segment next" || c == "segment show") {
    args.push_back("orders");
    add("--store", "memory");
  }
  if (c == "state init" || c == "state repair") add("--slot", "1");
  if (c == "state repair") add("--not-before", "0");
  if (c == "lease fence") add("--not-before", "2024-01-01T00:00:00Z");
  if (c == "next" || c == "config check" || c == "state check" || c == "lease list" ||
      c == "lease fence") {
    // A store's flags apply only with a store, the others only with a static slot.
    if (store_flag) {
      add("--store", "memory");
    } else if (flag.name != "--store" && flag.name != "--slot-from-hostname") {
      add("--slot", "1");
    }
  }
  return args;
}

TEST(CliExitCodes, EveryMalformedFlagValueExits2AndNamesTheFlag) {
  const TempDir dir("cli_exit_codes");
  const std::vector<Flag> flags = all_flags(dir);
  ASSERT_GT(flags.size(), 100u);
  std::set<std::string> commands;
  for (const Flag& flag : flags) {
    commands.insert(flag.command);
    if (flag.value.empty()) continue;
    SCOPED_TRACE(flag.command + " " + flag.name + " " + flag.value);
    if (kAnyText.count(flag.value) != 0) continue;
    const auto malformed = kMalformed.find(flag.value);
    ASSERT_NE(malformed, kMalformed.end())
        << "a new kind of value: add a malformed value to kMalformed, or to kAnyText with why";
    std::vector<std::string> args = words_of(flag.command);
    const std::vector<std::string> base = base_args(dir, flag);
    args.insert(args.end(), base.begin(), base.end());
    args.insert(args.end(), {flag.name, malformed->second});
    const Outcome result = run(dir, args);
    EXPECT_EQ(result.code, 2) << result.err;
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err.rfind("cosid: " + flag.command + ": ", 0), 0u) << result.err;
    EXPECT_NE(result.err.find(flag.name), std::string::npos) << result.err;
  }
  // Every command is listed, version and the subcommands included.
  for (const std::string command : {"next", "parse", "layout", "state show", "state check",
                                    "segment next", "bench", "version"}) {
    EXPECT_EQ(commands.count(command), 1u) << command;
  }
}

TEST(CliExitCodes, AFlagWithoutAValueGivenOneExits2) {
  const TempDir dir("cli_exit_codes");
  for (const Flag& flag : all_flags(dir)) {
    if (!flag.value.empty()) continue;
    SCOPED_TRACE(flag.command + " " + flag.name);
    std::vector<std::string> args = words_of(flag.command);
    args.push_back(flag.name + "=x");
    const Outcome result = run(dir, args);
    EXPECT_EQ(result.code, 2) << result.err;
    EXPECT_EQ(result.err, "cosid: " + flag.command + ": option " + flag.name +
                              " takes no value, but was given \"x\"\nTry 'cosid " + flag.command +
                              " --help'.\n");
  }
}

TEST(CliExitCodes, AFlagGivenTwiceExits2) {
  const TempDir dir("cli_exit_codes");
  const std::string state = dir.file("state");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"next", "--slot", "1", "--slot", "2", "--state-file", state}, "next: --slot given twice"},
      {{"next", "-n", "1", "-n", "2", "--slot", "1"}, "next: --count given twice"},
      {{"next", "-n", "1", "--count", "2", "--slot", "1"}, "next: --count given twice"},
      {{"parse", "--json", "--json", "1"}, "parse: --json given twice"},
      {{"layout", "--epoch=0", "--epoch", "0"}, "layout: --epoch given twice"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::PrintToString(c.args));
    const Outcome result = run(dir, c.args);
    EXPECT_EQ(result.code, 2);
    EXPECT_EQ(result.out, "");
    const std::string topic = c.message.substr(0, c.message.find(':'));
    EXPECT_EQ(result.err,
              "cosid: " + c.message + ": give it once\nTry 'cosid " + topic + " --help'.\n");
  }
  EXPECT_NE(access(state.c_str(), F_OK), 0) << "nothing may run";
}

TEST(CliExitCodes, MalformedEnvironmentAndConfigFileValuesExit2) {
  const TempDir dir("cli_exit_codes");
  const std::string config = dir.file("cosid.yaml");
  std::ofstream(config) << "cosid:\n  machine:\n    static:\n      slot: -1\n";
  std::ofstream(dir.file("unknown.yaml")) << "cosid:\n  machine:\n    static:\n      slto: 1\n";
  std::ofstream(dir.file("interpolated.yaml"))
      << "cosid:\n  machine:\n    static:\n      slot: ${COSID_TEST_UNSET_ORDINAL}\n";
  struct Case {
    std::vector<std::string> env;
    std::vector<std::string> args;
    std::string named;  // what the message must name
  };
  const std::vector<Case> cases = {
      {{"COSID_SLOT=-1"}, {"next"}, "COSID_SLOT"},
      {{"COSID_SLOT=99999"}, {"next"}, "COSID_SLOT"},
      {{"COSID_AHEAD=10sec"}, {"next", "--slot", "1"}, "COSID_AHEAD"},
      {{"COSID_NOT_BEFORE=yesterday"}, {"next", "--slot", "1"}, "COSID_NOT_BEFORE"},
      {{"COSID_NAMESPACE="}, {"next", "--slot", "1"}, "COSID_NAMESPACE"},
      {{"COSID_STATE_FILE="}, {"next", "--slot", "1"}, "COSID_STATE_FILE"},
      {{"COSID_PREFERRED_SLOT=x"}, {"next", "--store", "memory"}, "COSID_PREFERRED_SLOT"},
      {{"COSID_CONFIG="}, {"next", "--slot", "1"}, "COSID_CONFIG"},
      {{"COSID_SLOT=-1"}, {"config", "check"}, "COSID_SLOT"},
      {{"COSID_SLOT=-1"}, {"state", "check", dir.file("state")}, "COSID_SLOT"},
      {{"COSID_CONFIG=" + config}, {"next"}, config + ":4"},
      {{"COSID_CONFIG=" + config}, {"parse", "1"}, config + ":4"},
      {{}, {"layout", "--config", config}, config + ":4"},
      {{}, {"next", "--config", dir.file("unknown.yaml")}, "slto"},
      {{}, {"next", "--config", dir.file("interpolated.yaml")}, "COSID_TEST_UNSET_ORDINAL"},
      // A slot is required and none is given: a missing value.
      {{}, {"next"}, "--slot"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::PrintToString(c.env) + " " + testing::PrintToString(c.args));
    const Outcome result = run(dir, c.args, c.env);
    EXPECT_EQ(result.code, 2) << result.err;
    EXPECT_EQ(result.out, "");
    EXPECT_NE(result.err.find(c.named), std::string::npos) << result.err;
  }
}

TEST(CliExitCodes, RuntimeFailuresExit1) {
  const TempDir dir("cli_exit_codes");
  const std::string state = dir.file("state");
  // The state file in use by another process.
  Cli holder(dir, {"next", "-n", "0", "--slot", "1", "--state-file", state, "--not-before", "0"});
  ASSERT_EQ(holder.lines(1).size(), 1u) << holder.err();
  const Outcome in_use = run(dir, {"next", "--slot", "1", "--state-file", state});
  EXPECT_EQ(in_use.code, 1) << in_use.err;
  EXPECT_NE(in_use.err.find("in use"), std::string::npos) << in_use.err;
  holder.signal(SIGTERM);
  (void)holder.rest();  // the ids written meanwhile, so that no full pipe holds it up
  EXPECT_EQ(holder.wait(), 0) << holder.err();
  // A state file of another slot.
  const Outcome other = run(dir, {"next", "--slot", "2", "--state-file", state});
  EXPECT_EQ(other.code, 1) << other.err;
  EXPECT_NE(other.err.find("slot 1"), std::string::npos) << other.err;
  // A config file that cannot be read, a state file that does not exist, ids that do not decode.
  const Outcome missing = run(dir, {"next", "--config", dir.file("none.yaml"), "--slot", "1"});
  EXPECT_EQ(missing.code, 1) << missing.err;
  EXPECT_NE(missing.err.find(dir.file("none.yaml")), std::string::npos) << missing.err;
  EXPECT_EQ(run(dir, {"state", "show", dir.file("none")}).code, 1);
  const Outcome bad_id = run(dir, {"parse", "12#4"});
  EXPECT_EQ(bad_id.code, 1) << bad_id.err;
  EXPECT_EQ(bad_id.err.rfind("cosid: parse: \"12#4\": ", 0), 0u) << bad_id.err;
}

TEST(CliExitCodes, UnknownOptionsAndCommandsSuggestTheClosestName) {
  const TempDir dir("cli_exit_codes");
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"next", "--sate-file", "x"},
       "cosid: next: unknown option \"--sate-file\" (did you mean '--state-file'?)\n"
       "Try 'cosid next --help'.\n"},
      {{"next", "-state-file", "x"},
       "cosid: next: unknown option \"-s\" (did you mean '--state-file'?)\n"
       "Try 'cosid next --help'.\n"},
      {{"parse", "--jsno", "1"},
       "cosid: parse: unknown option \"--jsno\" (did you mean '--json'?)\nTry 'cosid parse "
       "--help'.\n"},
      {{"parse", "--bogus", "1"},
       "cosid: parse: unknown option \"--bogus\"\nTry 'cosid parse "
       "--help'.\n"},
      {{"nxet"},
       "cosid: unknown command \"nxet\" (did you mean 'next'?): see the list of commands\n"
       "Try 'cosid --help'.\n"},
      {{"frobnicate"},
       "cosid: unknown command \"frobnicate\": see the list of commands\nTry 'cosid --help'.\n"},
      {{"state", "shwo"},
       "cosid: 'state' needs one of the subcommands: show, init, repair, check (did you mean "
       "'show'?)\nTry 'cosid --help'.\n"},
      {{"--verison"},
       "cosid: unknown option \"--verison\" (did you mean '--version'?): give a command first\n"
       "Try 'cosid --help'.\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::PrintToString(c.args));
    const Outcome result = run(dir, c.args);
    EXPECT_EQ(result.code, 2);
    EXPECT_EQ(result.err, c.err);
  }
}

TEST(CliExitCodes, VersionCommandAndFlag) {
  const TempDir dir("cli_exit_codes");
  const std::string line = "cosid " + std::to_string(COSID_VERSION_MAJOR) + "." +
                           std::to_string(COSID_VERSION_MINOR) + "." +
                           std::to_string(COSID_VERSION_PATCH) + "\n";
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"version"}, {"--version"}}) {
    const Outcome result = run(dir, args);
    EXPECT_EQ(result.code, 0) << result.err;
    EXPECT_EQ(result.out, line);
    EXPECT_EQ(result.err, "");
  }
  EXPECT_EQ(run(dir, {"version", "x"}).code, 2);
}

}  // namespace
