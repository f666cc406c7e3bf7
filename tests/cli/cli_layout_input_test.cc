// SPDX-License-Identifier: Apache-2.0
// The real `cosid` binary: the commands that read ids (parse, not-before) and layout resolve the
// layout as `next` does, from the config file too; parse reads ids from a pipe; the bash
// completion completes the tool's commands and options; the man page has its date and SEE ALSO.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "cosid/layout.h"
#include "cosid/version.h"
#include "support/cli_process.h"
#include "support/cli_run.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace {

using cosid::testing::Cli;
using cosid::testing::read_file;

using Outcome = cosid::testing::CliOutcome;

Outcome run(const TempDir& dir, const std::vector<std::string>& args,
            const std::vector<std::string>& env = {}) {
  return cosid::testing::run_cli(dir, args, env);
}

// `word` quoted for sh.
std::string sh_quote(const std::string& word) {
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The command line that runs `cosid` in a shell: the tool behind the emulator of a cross build.
std::string cosid_in_sh() {
  std::string words;
  for (const std::string& word : cosid_cli_command()) words += sh_quote(word) + " ";
  return words;
}

// Runs `script` with sh: standard output and error into files, whose text it returns.
Outcome run_sh(const TempDir& dir, const std::string& script) {
  const std::string out = dir.file("sh-out");
  const std::string err = dir.file("sh-err");
  const int status = std::system(("sh -c " + sh_quote(script) + " >" + out + " 2>" + err).c_str());
  Outcome result;
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_file(out);
  result.err = read_file(err);
  return result;
}

// A layout no preset has: 39 bits of seconds, 12 of slot, 12 of sequence, its epoch at
// 2021-01-01T00:00:00Z.
cosid::Layout custom_layout() {
  cosid::Layout layout;
  layout.timestamp_bits = 39;
  layout.slot_bits = 12;
  layout.sequence_bits = 12;
  layout.unit = cosid::TimeUnit::kSecond;
  layout.epoch = 1609459200;
  return layout;
}

const char kCustomConfig[] =
    "cosid:\n"
    "  layout:\n"
    "    timestamp-bits: 39\n"
    "    slot-bits: 12\n"
    "    sequence-bits: 12\n"
    "    unit: s\n"
    "    epoch: 1609459200000\n";

// 2026-11-30T02:22:58Z, slot 3001, sequence 4000 in the custom layout.
constexpr std::int64_t kExampleMs = 1796005378000;

TEST(CliLayoutResolution, ParseNotBeforeAndLayoutReadTheConfigFileAsNextDoes) {
  const TempDir dir("cli_layout_input");
  const std::string config = dir.file("cosid.yaml");
  std::ofstream(config) << kCustomConfig;
  const cosid::Layout layout = custom_layout();
  const std::uint64_t id = layout.compose(layout.tick_of(kExampleMs), 3001, 4000);
  const std::string expected =
      std::to_string(id) + "\t2026-11-30T02:22:58.000Z\tslot=3001\tsequence=4000\n";
  for (const bool by_flag : {true, false}) {
    SCOPED_TRACE(by_flag ? "--config" : "COSID_CONFIG");
    const std::vector<std::string> config_args =
        by_flag ? std::vector<std::string>{"--config", config} : std::vector<std::string>{};
    const std::vector<std::string> env =
        by_flag ? std::vector<std::string>{} : std::vector<std::string>{"COSID_CONFIG=" + config};
    std::vector<std::string> parse = {"parse", std::to_string(id)};
    parse.insert(parse.end(), config_args.begin(), config_args.end());
    const Outcome parsed = run(dir, parse, env);
    EXPECT_EQ(parsed.code, 0) << parsed.err;
    EXPECT_EQ(parsed.out, expected);

    std::vector<std::string> not_before = {"not-before", "--from-id", std::to_string(id)};
    not_before.insert(not_before.end(), config_args.begin(), config_args.end());
    const Outcome after = run(dir, not_before, env);
    EXPECT_EQ(after.code, 0) << after.err;
    EXPECT_EQ(after.out, "1796005378999\n");  // the last millisecond of the second

    std::vector<std::string> shown = {"layout"};
    shown.insert(shown.end(), config_args.begin(), config_args.end());
    const Outcome described = run(dir, shown, env);
    EXPECT_EQ(described.code, 0) << described.err;
    EXPECT_NE(described.out.find("timestamp_bits: 39\nslot_bits: 12\nsequence_bits: 12\nunit: s\n"
                                 "epoch: 1609459200\nepoch_ms: 1609459200000\n"),
              std::string::npos)
        << described.out;
  }
  // A layout flag overrides the file's key, as for next.
  const Outcome flag = run(dir, {"layout", "--config", config, "--slot-bits", "10", "--json"});
  EXPECT_EQ(flag.code, 0) << flag.err;
  EXPECT_NE(flag.out.find("\"timestamp_bits\":39,\"slot_bits\":10,"), std::string::npos)
      << flag.out;
  // Without the config the same id is read with the default layout: other fields.
  const Outcome plain = run(dir, {"parse", std::to_string(id)});
  EXPECT_NE(plain.out, expected);
}

TEST(CliLayoutResolution, IdsThatNextIssuedWithTheConfigDecodeWithIt) {
  const TempDir dir("cli_layout_input");
  const std::string config = dir.file("cosid.yaml");
  // Slot 4000: above the 1023 slots of the default layout, so only the file's layout holds it.
  std::ofstream(config) << kCustomConfig << "  machine:\n    static:\n      slot: 4000\n";
  const Outcome issued = run_sh(dir, cosid_in_sh() + "next -n 3 --not-before 0 --config " + config +
                                         " --state-file " + dir.file("state") + " | " +
                                         cosid_in_sh() + "parse --json --config " + config);
  ASSERT_EQ(issued.code, 0) << issued.err;
  int lines = 0;
  for (std::size_t at = 0; (at = issued.out.find("\"slot\":4000,", at)) != std::string::npos;
       ++at) {
    ++lines;
  }
  EXPECT_EQ(lines, 3) << issued.out;
}

TEST(CliParseInput, ReadsIdsFromAPipe) {
  const TempDir dir("cli_layout_input");
  const std::string state = dir.file("state");
  // next | parse: three ids of slot 7, each decoded.
  const Outcome piped =
      run_sh(dir, cosid_in_sh() + "next -n 3 --slot 7 --not-before 0 --state-file " + state +
                      " | " + cosid_in_sh() + "parse");
  ASSERT_EQ(piped.code, 0) << piped.err;
  int lines = 0;
  for (std::size_t at = 0; (at = piped.out.find("\tslot=7\t", at)) != std::string::npos; ++at) {
    ++lines;
  }
  EXPECT_EQ(lines, 3) << piped.out;
  // `-` is standard input, among other ids; spaces around an id and blank lines are dropped.
  const Outcome dash = run_sh(
      dir, "printf '  0 \\n\\n\\t917722850910023697\\r\\n' | " + cosid_in_sh() + "parse 0 - 0");
  EXPECT_EQ(dash.code, 0) << dash.err;
  const std::string zero = "0\t2019-12-24T16:00:00.000Z\tslot=0\tsequence=0\n";
  EXPECT_EQ(
      dash.out,
      zero + zero + "917722850910023697\t2026-11-30T02:22:58.123Z\tslot=3\tsequence=17\n" + zero);
  // A bad line is reported, the others still printed, and the status is 1.
  const Outcome bad = run_sh(dir, "printf '0\\nx#y\\n0\\n' | " + cosid_in_sh() + "parse");
  EXPECT_EQ(bad.code, 1);
  EXPECT_EQ(bad.out, zero + zero);
  EXPECT_EQ(bad.err.rfind("cosid: parse: \"x#y\": ", 0), 0u) << bad.err;
  // Nothing on standard input (not a terminal): nothing to print, not an error.
  const Outcome empty = run(dir, {"parse"});
  EXPECT_EQ(empty.code, 0) << empty.err;
  EXPECT_EQ(empty.out, "");
}

// Where `program` is on PATH, or "".
std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string candidate = dirs.substr(start, end - start) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

TEST(CliCompletion, CompletesCommandsAndTheOptionsOfTheCommand) {
  if (find_on_path("bash").empty()) GTEST_SKIP() << "bash is not installed";
  const TempDir dir("cli_layout_input");
  // The script calls the tool it completes (COMP_WORDS[0]); a wrapper stands for it, so that a
  // cross build's emulator runs it.
  const std::string tool = dir.file("cosid");
  std::ofstream(tool) << "#!/bin/sh\nexec " << cosid_in_sh() << "\"$@\"\n";
  ASSERT_EQ(chmod(tool.c_str(), 0700), 0);
  const auto complete = [&](const std::string& words) {
    const Outcome result =
        run_sh(dir, "bash -c " + sh_quote(". " + sh_quote(COSID_BASH_COMPLETION) +
                                          "; COMP_WORDS=(" + sh_quote(tool) + " " + words +
                                          "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
                                          "_cosid; printf '%s\\n' \"${COMPREPLY[@]}\""));
    EXPECT_EQ(result.code, 0) << result.err;
    return result.out;
  };
  EXPECT_EQ(complete("sta"), "state\n");
  EXPECT_EQ(complete("ver"), "version\n");
  EXPECT_EQ(complete("next --sl"), "--slot\n--slot-from-hostname\n--slot-bits\n");
  EXPECT_EQ(complete("state ''"), "check\ninit\nrepair\nshow\n");
  EXPECT_EQ(complete("state show --j"), "--json\n");
  EXPECT_EQ(complete("store i"), "init\n");
  // A store's kinds after --store (an option without a short name: its value is still found).
  EXPECT_EQ(complete("store init --store fi"), "file:\n");
  EXPECT_EQ(complete("segment next orders --store z"), "zookeeper:\n");
  EXPECT_EQ(complete("next --store m"), "memory\n");
  const std::string installed = read_file(COSID_BASH_COMPLETION);
  EXPECT_NE(installed.find("complete -F _cosid cosid"), std::string::npos);
}

TEST(CliManPageDate, HasTheReleaseDateAndSeeAlso) {
  const TempDir dir("cli_layout_input");
  const Outcome man = run(dir, {"help", "--man"});
  ASSERT_EQ(man.code, 0) << man.err;
  EXPECT_NE(man.out.find(std::string(".TH COSID 1 \"") + COSID_RELEASE_DATE + "\" \"cosid "),
            std::string::npos)
      << man.out.substr(0, 200);
  const std::size_t see_also = man.out.find("\n.SH \"SEE ALSO\"\n");
  ASSERT_NE(see_also, std::string::npos);
  EXPECT_NE(man.out.find("README.md", see_also), std::string::npos);
  EXPECT_NE(man.out.find("examples/systemd", see_also), std::string::npos);
  // The date is a constant of the release: YYYY-MM-DD.
  const std::string date = COSID_RELEASE_DATE;
  ASSERT_EQ(date.size(), 10u);
  EXPECT_EQ(date[4], '-');
  EXPECT_EQ(date[7], '-');
}

}  // namespace
