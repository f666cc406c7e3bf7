// SPDX-License-Identifier: Apache-2.0
// Runs the real `cosid` binary and checks its exact output and exit status.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/time_format.h"
#include "config/config_keys.h"
#include "cosid/clock.h"
#include "cosid/codec.h"
#include "cosid/fs.h"
#include "cosid/layout.h"
#include "cosid/options.h"
#include "cosid/runtime.h"
#include "cosid/state_file.h"
#include "cosid/version.h"
#include "support/cli_command.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

extern char** environ;

namespace {

struct RunResult {
  int exit_code = -1;  // 128 + signal if the process was killed
  std::string out;
  std::string err;
};

using cosid::testing::read_file;

// A file under the test's temporary directory, removed when the object goes away.
class TempFile {
 public:
  TempFile() : path_(testing::TempDir() + "cli_test_XXXXXX") { fd_ = mkstemp(&path_[0]); }
  ~TempFile() {
    if (fd_ >= 0) close(fd_);
    unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  int fd() const { return fd_; }
  std::string contents() const { return read_file(path_); }

 private:
  std::string path_;
  int fd_ = -1;
};

// Runs the program `words[0]` (found through PATH if it has no '/') with the arguments that follow,
// stdin from /dev/null; stdout and stderr go to files (no pipe to fill). `envp` is the
// environment.
RunResult run_program(std::vector<std::string> words, char* const* envp) {
  TempFile out;
  TempFile err;
  RunResult result;
  if (out.fd() < 0 || err.fd() < 0) {
    ADD_FAILURE() << "cannot create temporary files in " << testing::TempDir();
    return result;
  }
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(&word[0]);
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd(), 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd(), 2);
  pid_t pid = 0;
  const int spawn_error = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) {
    ADD_FAILURE() << "cannot run " << words[0] << ": error " << spawn_error;
    return result;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = out.contents();
  result.err = err.contents();
  return result;
}

// Runs `cosid ARGS...` as run_program does; `envp` is the environment (this process's by default).
RunResult run_cosid(const std::vector<std::string>& args, char* const* envp = environ) {
  std::vector<std::string> words = cosid_cli_command();
  words.insert(words.end(), args.begin(), args.end());
  return run_program(std::move(words), envp);
}

std::string usage_hint(const std::string& topic) {
  return "Try 'cosid " + (topic.empty() ? std::string() : topic + " ") + "--help'.\n";
}

int count_lines(const std::string& text) {
  int lines = 0;
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  return lines;
}

// The id of the examples: 2026-11-30T02:22:58.123Z, slot 3, sequence 17, default layout.
constexpr std::int64_t kExampleMs = 1796005378123;
const std::uint64_t kExampleId =
    cosid::layouts::kDefault.compose(cosid::layouts::kDefault.tick_of(kExampleMs), 3, 17);
const std::string kExampleJson =
    "{\"id\":\"917722850910023697\",\"timestamp_ms\":1796005378123,"
    "\"time\":\"2026-11-30T02:22:58.123Z\",\"slot\":3,\"sequence\":17}\n";
const std::string kExampleText =
    "917722850910023697\t2026-11-30T02:22:58.123Z\tslot=3\tsequence=17\n";

TEST(CliParse, ExampleIdIsWhatTheDocsSay) {
  cosid::detail::CivilTime civil;
  civil.year = 2026;
  civil.month = 11;
  civil.day = 30;
  civil.hour = 2;
  civil.minute = 22;
  civil.second = 58;
  civil.millisecond = 123;
  EXPECT_EQ(cosid::detail::unix_ms_from_civil(civil), kExampleMs);
  EXPECT_EQ(kExampleId, 917722850910023697u);
}

TEST(CliParse, EveryFormatAutoAndNamed) {
  for (const cosid::IdFormat format : {cosid::IdFormat::kDecimal, cosid::IdFormat::kRadix62,
                                       cosid::IdFormat::kRadix36, cosid::IdFormat::kFriendly}) {
    const std::string text = cosid::to_string(kExampleId, format);
    SCOPED_TRACE(text);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"parse", "--json", text},
          std::vector<std::string>{"parse", "--json", "--format", cosid::to_string(format), text},
          std::vector<std::string>{
              "parse", text, "--format=" + std::string(cosid::to_string(format)), "--json"}}) {
      const RunResult result = run_cosid(args);
      EXPECT_EQ(result.exit_code, 0);
      EXPECT_EQ(result.out, kExampleJson);
      EXPECT_EQ(result.err, "");
    }
    const RunResult plain = run_cosid({"parse", text});
    EXPECT_EQ(plain.exit_code, 0);
    EXPECT_EQ(plain.out, kExampleText);
    EXPECT_EQ(plain.err, "");
  }
}

TEST(CliParse, SeveralIdsOneLineEachInOrder) {
  const cosid::Layout& layout = cosid::layouts::kDefault;
  const std::uint64_t first = layout.compose(0, 0, 0);
  const std::uint64_t last = layout.max_id();
  const RunResult result = run_cosid(
      {"parse", "--json", std::to_string(first), std::to_string(kExampleId), std::to_string(last)});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(result.out,
            "{\"id\":\"0\",\"timestamp_ms\":1577203200000,\"time\":\"2019-12-24T16:00:00.000Z\","
            "\"slot\":0,\"sequence\":0}\n" +
                kExampleJson +
                "{\"id\":\"9223372036854775807\",\"timestamp_ms\":3776226455551,"
                "\"time\":\"2089-08-30T07:47:35.551Z\",\"slot\":1023,\"sequence\":4095}\n");
}

TEST(CliParse, SecondLayout) {
  const cosid::Layout& layout = cosid::layouts::kSeconds;
  const std::uint64_t id = layout.compose(layout.tick_of(kExampleMs), 5, 1000);
  const RunResult result = run_cosid({"parse", "--layout", "seconds", std::to_string(id)});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, std::to_string(id) + "\t2026-11-30T02:22:58.000Z\tslot=5\tsequence=1000\n");
}

TEST(CliParse, BadIdIsReportedAndFails) {
  const RunResult result = run_cosid({"parse", "12#4"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err.rfind("cosid: parse: \"12#4\": ", 0), 0u) << result.err;
  EXPECT_EQ(count_lines(result.err), 1) << result.err;
}

TEST(CliParse, MixedGoodAndBadPrintsTheGoodOnes) {
  const RunResult result =
      run_cosid({"parse", std::to_string(kExampleId), "99999999999999999999", "", "0"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, kExampleText + "0\t2019-12-24T16:00:00.000Z\tslot=0\tsequence=0\n");
  EXPECT_NE(result.err.find("cosid: parse: \"99999999999999999999\": "), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("cosid: parse: \"\": "), std::string::npos) << result.err;
  EXPECT_EQ(count_lines(result.err), 2) << result.err;
}

TEST(CliParse, IdAboveTheLayoutIsBad) {
  const RunResult result = run_cosid({"parse", "--layout", "js-safe", std::to_string(kExampleId)});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err.rfind("cosid: parse: \"917722850910023697\": ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find("9007199254740991"), std::string::npos) << result.err;
}

TEST(CliParse, FormatNamedWrongIsARuntimeError) {
  const RunResult result = run_cosid({"parse", "--format", "radix36", std::to_string(kExampleId)});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "");
}

TEST(CliParse, DoubleDashEndsOptions) {
  const RunResult result = run_cosid({"parse", "--", "--json"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err.rfind("cosid: parse: \"--json\": ", 0), 0u) << result.err;
}

void expect_usage_error(const std::vector<std::string>& args, const std::string& message,
                        const std::string& topic) {
  SCOPED_TRACE(testing::PrintToString(args));
  const RunResult result = run_cosid(args);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "cosid: " + message + "\n" + usage_hint(topic));
}

TEST(CliUsage, ExactMessages) {
  const std::string id = std::to_string(kExampleId);
  expect_usage_error({"parse", "--bogus", id}, "parse: unknown option \"--bogus\"", "parse");
  expect_usage_error({"parse", id, "-x"}, "parse: unknown option \"-x\"", "parse");
  expect_usage_error({"parse", id, "--format"}, "parse: option --format needs a value (FORMAT)",
                     "parse");
  expect_usage_error({"parse", "--json=yes", id},
                     "parse: option --json takes no value, but was given \"yes\"", "parse");
  expect_usage_error({"parse", "--format", "hex", id},
                     "parse: --format: unknown format \"hex\": use one of auto, decimal, "
                     "radix62, radix36, friendly",
                     "parse");
  expect_usage_error({"bogus"}, "unknown command \"bogus\": see the list of commands", "");
  expect_usage_error({}, "no command given", "");
  expect_usage_error({"--bogus"}, "unknown option \"--bogus\": give a command first", "");
  expect_usage_error({"help", "bogus"}, "help: unknown command \"bogus\": see the list of commands",
                     "");
  expect_usage_error({"layout", "extra"},
                     "layout: unexpected argument \"extra\": the layout comes from the layout "
                     "flags and the config file only",
                     "layout");
  // The commands that take only config flags share their start (resolve_command_options).
  expect_usage_error({"next", "extra"}, "next: unexpected argument \"extra\"", "next");
  expect_usage_error({"config", "check", "extra"}, "config check: unexpected argument \"extra\"",
                     "config check");
  expect_usage_error({"lease", "list", "extra"}, "lease list: unexpected argument \"extra\"",
                     "lease list");
  expect_usage_error({"layout", "--layout", "huge"},
                     "layout: cosid.layout.preset = \"huge\" (flag --layout): not a layout: use "
                     "one of default, seconds, js-safe, js-safe-seconds",
                     "layout");
  expect_usage_error({"layout", "--unit", "min"},
                     "layout: cosid.layout.unit = \"min\" (flag --unit): not a unit: use ms or s",
                     "layout");
}

// The layout flags are checked by cosid::layout_from_settings(), as a config file's layout keys:
// the message names the key, the value, the flag and the rule.
TEST(CliUsage, NumbersAreStrict) {
  for (const std::string bad : {"12abc", " 12", "12 ", "+5", "-1", "0x10", "", "1.5"}) {
    SCOPED_TRACE(bad);
    const std::string why = bad.empty() ? "empty: give a whole number, such as 10"
                                        : "not a whole number: give ASCII digits only, without "
                                          "sign, space, \"0x\", fraction or exponent, such as 10";
    expect_usage_error({"layout", "--slot-bits", bad},
                       "layout: cosid.layout.slot-bits = \"" + bad +
                           "\" (flag --slot-bits): " + why + " (an id has 63 bits)",
                       "layout");
    const RunResult epoch = run_cosid({"parse", "--epoch=" + bad, "1"});
    EXPECT_EQ(epoch.exit_code, 2);
    EXPECT_EQ(epoch.err.rfind("cosid: parse: cosid.layout.epoch = \"" + bad +
                                  "\" (flag --epoch): " + why +
                                  "; the epoch is given in Unix milliseconds\n",
                              0),
              0u)
        << epoch.err;
  }
  expect_usage_error({"layout", "--slot-bits", "010"},
                     "layout: cosid.layout.slot-bits = \"010\" (flag --slot-bits): a leading zero "
                     "is refused (YAML reads 010 as octal): write 10 (an id has 63 bits)",
                     "layout");
  expect_usage_error({"layout", "--slot-bits", "64"},
                     "layout: cosid.layout.slot-bits = \"64\" (flag --slot-bits): larger than the "
                     "maximum, 63 (an id has 63 bits)",
                     "layout");
  expect_usage_error({"layout", "--epoch", "9223372036854775808"},
                     "layout: cosid.layout.epoch = \"9223372036854775808\" (flag --epoch): larger "
                     "than the maximum, 9223372036854775807; the epoch is given in Unix "
                     "milliseconds",
                     "layout");
  expect_usage_error({"layout", "--sequence-bits", "99999999999999999999999"},
                     "layout: cosid.layout.sequence-bits = \"99999999999999999999999\" (flag "
                     "--sequence-bits): larger than the maximum, 63 (an id has 63 bits)",
                     "layout");
}

TEST(CliHelp, EveryHelpExitsZeroAndNamesEveryOption) {
  const std::vector<std::string> common = {"--help", "-h", "Exit status:", "0  ", "1  ", "2  "};
  const std::vector<std::string> layout_flags = {
      "--layout", "--epoch", "--unit", "--timestamp-bits", "--slot-bits", "--sequence-bits"};
  struct Case {
    std::vector<std::string> args;
    std::string usage;
    std::vector<std::string> mentions;
  };
  std::vector<std::string> parse_mentions = {"--format", "--json",  "auto",
                                             "radix62",  "radix36", "friendly"};
  parse_mentions.insert(parse_mentions.end(), layout_flags.begin(), layout_flags.end());
  std::vector<std::string> layout_mentions = {"--json", "runs_out", "js_safe", "limit_per_second"};
  layout_mentions.insert(layout_mentions.end(), layout_flags.begin(), layout_flags.end());
  const std::vector<std::string> tool_mentions = {"next",         "parse",      "layout",
                                                  "state show",   "state init", "not-before",
                                                  "config check", "help",       "--version"};
  std::vector<std::string> next_mentions = {"--count",      "--format",
                                            "json",         "--config",
                                            "--slot",       "--slot-from-hostname",
                                            "--state-file", "--ahead",
                                            "--not-before", "--require-state-file",
                                            "--namespace",  "SIGTERM",
                                            "--metrics"};
  next_mentions.insert(next_mentions.end(), layout_flags.begin(), layout_flags.end());
  std::vector<std::string> not_before_mentions = {"--from-id", "--format", "--json",
                                                  "cosid state init FILE --slot N --not-before"};
  not_before_mentions.insert(not_before_mentions.end(), layout_flags.begin(), layout_flags.end());
  const std::vector<Case> cases = {
      {{"--help"}, "Usage: cosid COMMAND", tool_mentions},
      {{"-h"}, "Usage: cosid COMMAND", tool_mentions},
      {{"help"}, "Usage: cosid COMMAND", tool_mentions},
      {{"parse", "--help"}, "Usage: cosid parse ", parse_mentions},
      {{"parse", "1", "--bogus", "-h"}, "Usage: cosid parse ", parse_mentions},
      {{"help", "parse"}, "Usage: cosid parse ", parse_mentions},
      {{"layout", "--help"}, "Usage: cosid layout ", layout_mentions},
      {{"help", "layout"}, "Usage: cosid layout ", layout_mentions},
      {{"next", "--help"}, "Usage: cosid next ", next_mentions},
      {{"help", "state", "show"}, "Usage: cosid state show FILE", {"--json", "clean_shutdown"}},
      {{"state", "init", "-h"}, "Usage: cosid state init FILE", {"--slot", "--not-before"}},
      {{"not-before", "--help"}, "Usage: cosid not-before ", not_before_mentions},
      {{"config", "check", "--help"}, "Usage: cosid config check", {"--config", "--slot"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::PrintToString(c.args));
    const RunResult result = run_cosid(c.args);
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.err, "");
    EXPECT_EQ(result.out.rfind(c.usage, 0), 0u) << result.out;
    for (const std::vector<std::string>* words : {&common, &c.mentions}) {
      for (const std::string& word : *words) {
        EXPECT_NE(result.out.find(word), std::string::npos) << word << " in\n" << result.out;
      }
    }
  }
}

// A command group's first word with --help ("cosid state --help") prints the help of each of its
// subcommands and exits 0, as `cosid help state` does; it is not a usage error.
TEST(CliHelp, GroupHelpListsEachSubcommand) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> groups = {
      {"state", {"show", "init", "repair", "check"}},
      {"config", {"check"}},
      {"lease", {"list", "check", "fence"}},
      {"segment", {"next", "show"}},
      {"store", {"init"}},
  };
  for (const auto& [group, subcommands] : groups) {
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{group, "--help"}, {group, "-h"}, {"help", group}}) {
      SCOPED_TRACE(testing::PrintToString(args));
      const RunResult result = run_cosid(args);
      EXPECT_EQ(result.exit_code, 0);
      EXPECT_EQ(result.err, "");
      EXPECT_EQ(result.out.rfind("Usage: cosid " + group + " " + subcommands.front(), 0), 0u)
          << result.out;
      for (const std::string& subcommand : subcommands) {
        const std::string usage = "Usage: cosid " + group + " " + subcommand;
        EXPECT_NE(result.out.find(usage), std::string::npos) << usage << " in\n" << result.out;
      }
    }
  }
  // Anything else after the group's word is still a usage error.
  EXPECT_EQ(run_cosid({"state", "--bogus"}).exit_code, 2);
  EXPECT_EQ(run_cosid({"state", "--help", "x"}).exit_code, 2);
}

TEST(CliHelp, Version) {
  const RunResult result = run_cosid({"--version"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(result.out, "cosid " + std::to_string(COSID_VERSION_MAJOR) + "." +
                            std::to_string(COSID_VERSION_MINOR) + "." +
                            std::to_string(COSID_VERSION_PATCH) + "\n");
  EXPECT_EQ(run_cosid({"--version", "x"}).exit_code, 2);
}

// The value of `name: value` line `name` in text output, or "(missing)".
std::string field(const std::string& text, const std::string& name) {
  const std::string prefix = "\n" + name + ": ";
  const std::size_t at = ("\n" + text).find(prefix);
  if (at == std::string::npos) return "(missing)";
  const std::size_t start = at + prefix.size() - 1;
  return text.substr(start, text.find('\n', start) - start);
}

TEST(CliLayout, DefaultExactly) {
  const RunResult result = run_cosid({"layout"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(result.out,
            "timestamp_bits: 41\nslot_bits: 10\nsequence_bits: 12\nunit: ms\n"
            "epoch: 1577203200000\nepoch_ms: 1577203200000\n"
            "epoch_time: 2019-12-24T16:00:00.000Z\nslots: 1024\nids_per_tick: 4096\n"
            "limit_per_second: 4096000\nruns_out: 2089-08-30T07:47:35.552Z\njs_safe: false\n");
  const RunResult json = run_cosid({"layout", "--json", "--layout", "default"});
  EXPECT_EQ(json.exit_code, 0);
  EXPECT_EQ(json.out,
            "{\"timestamp_bits\":41,\"slot_bits\":10,\"sequence_bits\":12,\"unit\":\"ms\","
            "\"epoch\":1577203200000,\"epoch_ms\":1577203200000,"
            "\"epoch_time\":\"2019-12-24T16:00:00.000Z\",\"slots\":1024,\"ids_per_tick\":4096,"
            "\"limit_per_second\":4096000,\"runs_out\":\"2089-08-30T07:47:35.552Z\","
            "\"js_safe\":false}\n");
}

TEST(CliLayout, Presets) {
  struct Case {
    const char* name;
    const char* unit;
    const char* epoch;
    const char* slots;
    const char* ids_per_tick;
    const char* limit_per_second;
    const char* runs_out;
    const char* js_safe;
  };
  const Case cases[] = {
      {"seconds", "s", "1577203200", "1024", "4194304", "4194304", "2088-01-11T19:14:08.000Z",
       "false"},
      {"js-safe", "ms", "1577203200000", "8", "512", "512000", "2089-08-30T07:47:35.552Z", "true"},
      {"js-safe-seconds", "s", "1577203200", "8", "524288", "524288", "2088-01-11T19:14:08.000Z",
       "true"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const RunResult result = run_cosid({"layout", "--layout", c.name});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(field(result.out, "unit"), c.unit);
    EXPECT_EQ(field(result.out, "epoch"), c.epoch);
    EXPECT_EQ(field(result.out, "epoch_ms"), "1577203200000");
    EXPECT_EQ(field(result.out, "slots"), c.slots);
    EXPECT_EQ(field(result.out, "ids_per_tick"), c.ids_per_tick);
    EXPECT_EQ(field(result.out, "limit_per_second"), c.limit_per_second);
    EXPECT_EQ(field(result.out, "runs_out"), c.runs_out);
    EXPECT_EQ(field(result.out, "js_safe"), c.js_safe);
  }
}

TEST(CliLayout, Overrides) {
  const RunResult bits = run_cosid({"layout", "--slot-bits", "11", "--sequence-bits=11"});
  EXPECT_EQ(bits.exit_code, 0);
  EXPECT_EQ(field(bits.out, "timestamp_bits"), "41");
  EXPECT_EQ(field(bits.out, "slots"), "2048");
  EXPECT_EQ(field(bits.out, "ids_per_tick"), "2048");
  EXPECT_EQ(field(bits.out, "limit_per_second"), "2048000");

  const RunResult to_seconds = run_cosid({"layout", "--unit", "s"});
  EXPECT_EQ(field(to_seconds.out, "epoch"), "1577203200");
  EXPECT_EQ(field(to_seconds.out, "epoch_ms"), "1577203200000");
  const RunResult to_ms = run_cosid({"layout", "--layout", "seconds", "--unit", "ms"});
  EXPECT_EQ(field(to_ms.out, "epoch"), "1577203200000");
  EXPECT_EQ(field(to_ms.out, "limit_per_second"), "4194304000");

  const RunResult epoch = run_cosid({"layout", "--layout=seconds", "--epoch", "1700000000000"});
  EXPECT_EQ(epoch.exit_code, 0);
  EXPECT_EQ(field(epoch.out, "epoch"), "1700000000");
  EXPECT_EQ(field(epoch.out, "epoch_time"), "2023-11-14T22:13:20.000Z");

  // The widest timestamp runs out in the year 73071276, which RFC 3339 cannot write: Unix ms.
  const RunResult wide =
      run_cosid({"layout", "--timestamp-bits", "61", "--slot-bits", "1", "--sequence-bits", "1"});
  EXPECT_EQ(wide.exit_code, 0);
  EXPECT_EQ(field(wide.out, "runs_out"), "2305844586416893952");
  EXPECT_EQ(field(wide.out, "limit_per_second"), "2000");
  // The widest sequence, 32 bits, in seconds: the limit is written exactly.
  const RunResult widest_sequence = run_cosid({"layout", "--unit", "s", "--timestamp-bits", "30",
                                               "--slot-bits", "1", "--sequence-bits", "32"});
  EXPECT_EQ(widest_sequence.exit_code, 0) << widest_sequence.err;
  EXPECT_EQ(field(widest_sequence.out, "limit_per_second"), "4294967296");
  const RunResult too_wide =
      run_cosid({"layout", "--timestamp-bits", "1", "--slot-bits", "1", "--sequence-bits", "61"});
  EXPECT_EQ(too_wide.exit_code, 2);
  EXPECT_NE(too_wide.err.find("more than 32 bits"), std::string::npos) << too_wide.err;
}

TEST(CliLayout, InvalidLayoutsAreUsageErrors) {
  const RunResult wide = run_cosid({"layout", "--slot-bits", "30", "--sequence-bits", "30"});
  EXPECT_EQ(wide.exit_code, 2);
  EXPECT_EQ(wide.out, "");
  EXPECT_NE(wide.err.find("63"), std::string::npos) << wide.err;
  EXPECT_EQ(wide.err.rfind("cosid: layout: ", 0), 0u) << wide.err;

  const RunResult empty = run_cosid({"parse", "--slot-bits", "0", "1"});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("slot"), std::string::npos) << empty.err;

  expect_usage_error({"layout", "--unit", "s", "--epoch", "1577203200123"},
                     "layout: cosid.layout.epoch = \"1577203200123\" (flag --epoch): not a whole "
                     "second, but the layout counts seconds: give Unix milliseconds that are a "
                     "multiple of 1000, such as 1577203200000, or unit ms",
                     "layout");
  const RunResult seconds = run_cosid({"parse", "--layout", "seconds", "--epoch", "1", "1"});
  EXPECT_EQ(seconds.exit_code, 2);
  EXPECT_NE(seconds.err.find("whole second"), std::string::npos) << seconds.err;
}

// An environment without COSID_* variables, plus `extra` ("NAME=VALUE"), for posix_spawn.
class Environment {
 public:
  explicit Environment(std::vector<std::string> extra = {}) : words_(std::move(extra)) {
    words_.push_back("PATH=/usr/bin:/bin");
    for (std::string& word : words_) pointers_.push_back(&word[0]);
    pointers_.push_back(nullptr);
  }
  char* const* envp() const { return pointers_.data(); }

 private:
  std::vector<std::string> words_;
  std::vector<char*> pointers_;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::uint64_t> ids_of(const std::string& text) {
  std::vector<std::uint64_t> ids;
  for (const std::string& line : lines_of(text)) ids.push_back(std::stoull(line));
  return ids;
}

TEST(CliNext, IssuesIncreasingIdsOnTheSlotAndAfterARestart) {
  const TempDir dir("cli_test");
  const Environment env;
  const std::vector<std::string> args = {"next",           "-n", "5", "--slot", "3", "--state-file",
                                         dir.file("state")};
  const RunResult first = run_cosid(args, env.envp());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.err.find("cosid: warning: "), std::string::npos) << first.err;  // file created
  const std::vector<std::uint64_t> ids = ids_of(first.out);
  ASSERT_EQ(ids.size(), 5u) << first.out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(cosid::layouts::kDefault.parse(ids[i]).slot, 3u);
    if (i > 0) {
      EXPECT_GT(ids[i], ids[i - 1]);
    }
  }

  const RunResult second = run_cosid(args, env.envp());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.err, "");
  const std::vector<std::uint64_t> later = ids_of(second.out);
  ASSERT_EQ(later.size(), 5u);
  EXPECT_GT(later.front(), ids.back());
}

TEST(CliNext, MetricsGoToStandardErrorAtExit) {
  const TempDir dir("cli_test");
  const Environment env;
  const RunResult result = run_cosid({"next", "-n", "3", "--slot", "4", "--namespace", "x\"y",
                                      "--state-file", dir.file("state"), "--metrics"},
                                     env.envp());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(count_lines(result.out), 3) << result.out;  // the ids alone
  // After the warning that the file was created, the Prometheus text; the namespace's quote is
  // escaped in the label.
  const std::size_t text = result.err.find("# HELP cosid_ids_issued_total ");
  ASSERT_NE(text, std::string::npos) << result.err;
  EXPECT_EQ(result.err.rfind("cosid: warning: created state file ", 0), 0u) << result.err;
  for (const char* line :
       {"# TYPE cosid_ids_issued_total counter\n",
        "\ncosid_ids_issued_total{namespace=\"x\\\"y\",slot=\"4\"} 3\n",
        "\ncosid_state_write_failures_total{namespace=\"x\\\"y\",slot=\"4\"} 0\n",
        "\ncosid_lease_losses_total{namespace=\"x\\\"y\",slot=\"4\"} 0\n",
        "# TYPE cosid_ceiling_timestamp_seconds gauge\n"}) {
    EXPECT_NE(result.err.find(line, text), std::string::npos) << line << " in\n" << result.err;
  }
  // 15 metrics of three lines each, and nothing after them.
  EXPECT_EQ(count_lines(result.err.substr(text)), 45) << result.err;
  EXPECT_EQ(result.err.back(), '\n');
}

// The value of the sample `name{labels} VALUE` in a Prometheus text, or "" if there is none.
std::string sample_value(const std::string& text, const std::string& sample) {
  const std::size_t at = text.find("\n" + sample + " ");
  if (at == std::string::npos) return "";
  const std::size_t begin = at + 1 + sample.size() + 1;
  return text.substr(begin, text.find('\n', begin) - begin);
}

// The state file's sync times, from a real process on the real disk: the gauge of the longest
// write and fdatasync of a ceiling in the last minute, in seconds with six decimals, and the
// count of those over ahead/4, each of which (one ceiling in so short a run) came with its warning.
TEST(CliNext, MetricsShowTheStateFilesSyncTimes) {
  const TempDir dir("cli_test");
  const Environment env;
  const RunResult result =
      run_cosid({"next", "-n", "3", "--slot", "4", "--state-file", dir.file("state"), "--metrics"},
                env.envp());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* line :
       {"# HELP cosid_state_slow_syncs_total Attempts to make a ceiling durable in the state file "
        "that took longer than ahead/4.\n",
        "# TYPE cosid_state_slow_syncs_total counter\n",
        "# HELP cosid_state_sync_max_seconds The longest attempt to make a ceiling durable in the "
        "state file in the last minute: ids stop when one outlasts about ahead/2.\n",
        "# TYPE cosid_state_sync_max_seconds gauge\n"}) {
    EXPECT_NE(result.err.find(line), std::string::npos) << line << " in\n" << result.err;
  }
  const std::string labels = "{namespace=\"cosid\",slot=\"4\"}";  // the default namespace
  const std::string longest = sample_value(result.err, "cosid_state_sync_max_seconds" + labels);
  ASSERT_GE(longest.size(), 8u) << result.err;  // "S.UUUUUU"
  const std::size_t point = longest.size() - 7;
  EXPECT_EQ(longest[point], '.') << longest;
  EXPECT_TRUE(std::all_of(longest.begin(), longest.end(), [](char c) {
    return c == '.' || (c >= '0' && c <= '9');
  })) << longest;
  const std::string slow = sample_value(result.err, "cosid_state_slow_syncs_total" + labels);
  ASSERT_FALSE(slow.empty()) << result.err;
  std::size_t warnings = 0;
  for (std::size_t at = 0;
       (at = result.err.find("writing and syncing a ceiling took", at)) != std::string::npos;
       ++at) {
    ++warnings;
  }
  EXPECT_EQ(slow, std::to_string(warnings)) << result.err;
}

// A missing slot is a missing value: a usage error.
TEST(CliNext, WithoutASlotSaysHowToGiveOne) {
  const Environment env;
  const RunResult result = run_cosid({"next"}, env.envp());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err.rfind("cosid: next: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find("--slot"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("COSID_SLOT"), std::string::npos) << result.err;
  EXPECT_EQ(count_lines(result.err), 2);
  EXPECT_NE(result.err.find("\n" + usage_hint("next")), std::string::npos) << result.err;
}

TEST(CliNext, UsageErrors) {
  const Environment env;
  EXPECT_EQ(run_cosid({"next", "--slot", "1", "--format", "hex"}, env.envp()).exit_code, 2);
  EXPECT_EQ(run_cosid({"next", "--slot", "1", "-n", "x"}, env.envp()).exit_code, 2);
  EXPECT_EQ(run_cosid({"next", "--slot", "1", "extra"}, env.envp()).exit_code, 2);
}

TEST(CliNext, JsonLinesAndOtherFormats) {
  const Environment env;
  const RunResult json =
      run_cosid({"next", "-n", "2", "--slot", "5", "--format", "json"}, env.envp());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const std::vector<std::string> lines = lines_of(json.out);
  ASSERT_EQ(lines.size(), 2u);
  for (const std::string& line : lines) {
    SCOPED_TRACE(line);
    ASSERT_EQ(line.rfind("{\"id\":\"", 0), 0u);
    const std::size_t end = line.find('"', 7);
    const std::uint64_t id = std::stoull(line.substr(7, end - 7));
    const RunResult parsed = run_cosid({"parse", "--json", std::to_string(id)});
    EXPECT_EQ(parsed.out, line + "\n");  // the same fields as parse --json
    EXPECT_NE(line.find(",\"slot\":5,\"sequence\":"), std::string::npos);
  }
  for (const std::string format : {"radix62", "radix36", "friendly"}) {
    SCOPED_TRACE(format);
    const RunResult result = run_cosid({"next", "--slot", "5", "--format", format}, env.envp());
    ASSERT_EQ(result.exit_code, 0) << result.err;
    ASSERT_EQ(count_lines(result.out), 1);
    const RunResult parsed = run_cosid({"parse", "--format", format, lines_of(result.out)[0]});
    EXPECT_EQ(parsed.exit_code, 0) << parsed.err;
    EXPECT_NE(parsed.out.find("\tslot=5\t"), std::string::npos) << parsed.out;
  }
}

// `cosid next -n 0 ARGS...` running with its standard output on a pipe (standard error to
// /dev/null), in an environment without COSID_* variables.
class StreamingNext {
 public:
  explicit StreamingNext(const std::vector<std::string>& args) {
    std::vector<std::string> words = cosid_cli_command();
    words.insert(words.end(), {"next", "-n", "0"});
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(&word[0]);
    argv.push_back(nullptr);
    int fds[2];
    if (pipe(fds) != 0) {
      ADD_FAILURE() << "pipe failed";
      return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    const Environment env;
    const int spawn_error = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), env.envp());
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    read_fd_ = fds[0];
    if (spawn_error != 0) {
      ADD_FAILURE() << "cannot run " << words[0] << ": error " << spawn_error;
      pid_ = -1;
    }
  }
  ~StreamingNext() {
    if (pid_ > 0) (void)stop();
    if (read_fd_ >= 0) close(read_fd_);
  }
  StreamingNext(const StreamingNext&) = delete;
  StreamingNext& operator=(const StreamingNext&) = delete;

  // Reads until `lines` whole lines have arrived (or the output ends).
  void read_lines(int lines) {
    char buffer[4096];
    while (count_lines(out_) < lines) {
      const ssize_t got = read(read_fd_, buffer, sizeof buffer);
      if (got <= 0) break;
      out_.append(buffer, static_cast<std::size_t>(got));
    }
  }
  // Sends SIGTERM, reads the rest of the output and returns the wait status.
  int stop() {
    kill(pid_, SIGTERM);
    char buffer[4096];
    for (ssize_t got; (got = read(read_fd_, buffer, sizeof buffer)) != 0;) {
      if (got > 0) out_.append(buffer, static_cast<std::size_t>(got));
    }
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0) {
    }
    pid_ = -1;
    return status;
  }
  const std::string& out() const { return out_; }

 private:
  pid_t pid_ = -1;
  int read_fd_ = -1;
  std::string out_;
};

TEST(CliNext, StreamsUntilSigtermThenShutsDownCleanly) {
  const TempDir dir("cli_test");
  StreamingNext next({"--slot", "9", "--state-file", dir.file("state")});
  // Read until three whole lines have arrived, then stop it and read the rest.
  next.read_lines(3);
  const int status = next.stop();
  const std::string& out = next.out();
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  ASSERT_GE(count_lines(out), 3);
  EXPECT_EQ(out.back(), '\n');  // whole lines only
  const std::vector<std::uint64_t> ids = ids_of(out);
  for (std::size_t i = 1; i < ids.size(); ++i) ASSERT_GT(ids[i], ids[i - 1]);

  const RunResult show = run_cosid({"state", "show", dir.file("state"), "--json"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  const std::size_t current = show.out.find("\"current\":\"");
  ASSERT_NE(current, std::string::npos) << show.out;
  const std::string block = show.out.substr(current + 11, 1);
  const std::size_t record = show.out.find("{\"block\":\"" + block + "\"");
  ASSERT_NE(record, std::string::npos) << show.out;
  const std::string fields = show.out.substr(record, show.out.find('}', record) - record);
  EXPECT_NE(fields.find("\"valid\":true"), std::string::npos) << fields;
  EXPECT_NE(fields.find("\"clean_shutdown\":true"), std::string::npos) << fields;
  // The clean shutdown records the exact last timestamp issued.
  const std::int64_t last_ms =
      cosid::layouts::kDefault.tick_start_ms(cosid::layouts::kDefault.parse(ids.back()).timestamp);
  EXPECT_NE(fields.find("\"ceiling_ms\":" + std::to_string(last_ms) + ","), std::string::npos)
      << fields;
}

TEST(CliState, InitThenShow) {
  const TempDir dir("cli_test");
  const std::string path = dir.file("migrated");
  const RunResult init =
      run_cosid({"state", "init", path, "--slot", "7", "--not-before", "2026-11-30T02:22:58.123Z"});
  ASSERT_EQ(init.exit_code, 0) << init.err;
  EXPECT_EQ(init.err, "");
  EXPECT_EQ(init.out,
            "created " + path + " for slot 7 with floor 2026-11-30T02:22:58.123Z (not-before)\n");

  const RunResult show = run_cosid({"state", "show", path});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("ceiling: 1796005378123 (2026-11-30T02:22:58.123Z)"), std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("slot: 7"), std::string::npos) << show.out;
  const RunResult json = run_cosid({"state", "show", path, "--json"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(count_lines(json.out), 1);
  EXPECT_EQ(json.out.rfind("{\"file\":\"" + path + "\",\"current\":\"", 0), 0u) << json.out;
  EXPECT_NE(json.out.find("\"ceiling_ms\":1796005378123,\"ceiling\":\"2026-11-30T02:22:58.123Z\","
                          "\"slot\":7,\"clean_shutdown\":false,"),
            std::string::npos)
      << json.out;

  // `next` on the migrated file issues after the floor.
  const RunResult next = run_cosid(
      {"next", "--slot", "7", "--state-file", path, "--format", "json"}, Environment().envp());
  ASSERT_EQ(next.exit_code, 0) << next.err;
  const std::size_t at = next.out.find("\"timestamp_ms\":");
  ASSERT_NE(at, std::string::npos);
  EXPECT_GT(std::stoll(next.out.substr(at + 15)), 1796005378123);
}

TEST(CliState, InitRefusesAnExistingFileAndABadSlot) {
  const TempDir dir("cli_test");
  const std::string path = dir.file("migrated");
  ASSERT_EQ(run_cosid({"state", "init", path, "--slot", "1"}).exit_code, 0);
  const std::string before = read_file(path);
  const RunResult again = run_cosid({"state", "init", path, "--slot", "1"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err.rfind("cosid: state init: ", 0), 0u) << again.err;
  EXPECT_EQ(read_file(path), before);

  const RunResult wide = run_cosid({"state", "init", dir.file("other"), "--slot", "1024"});
  EXPECT_EQ(wide.exit_code, 2);
  EXPECT_NE(wide.err.find("1024"), std::string::npos) << wide.err;
  EXPECT_EQ(run_cosid({"state", "init", dir.file("other")}).exit_code, 2);  // no --slot
  EXPECT_EQ(run_cosid({"state", "show", dir.file("other")}).exit_code, 1);  // never created
}

// Flips one bit of the byte at `offset` of the file at `path`, in place.
void flip_bit(const std::string& path, std::size_t offset) {
  std::string bytes = read_file(path);
  ASSERT_LT(offset, bytes.size());
  bytes[offset] = static_cast<char>(bytes[offset] ^ 0x08);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::int64_t first_timestamp_ms(const std::string& json) {
  const std::size_t at = json.find("\"timestamp_ms\":");
  return at == std::string::npos ? -1 : std::stoll(json.substr(at + 15));
}

TEST(CliState, ADamagedBlockIsReportedAndRepairGivesAFloor) {
  const TempDir dir("cli_test");
  const std::string path = dir.file("state");
  const std::vector<std::string> next = {"next", "--slot",   "5",   "--state-file",
                                         path,   "--format", "json"};
  ASSERT_EQ(run_cosid(next).exit_code, 0);

  // One damaged block: the start goes on, and says so. (Block A: the clean close wrote B, so the
  // start need not wait out the ceiling A holds.)
  flip_bit(path, 20);
  const RunResult one = run_cosid(next);
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.err.find("cosid: warning: block A of state file " + path + " is damaged"),
            std::string::npos)
      << one.err;

  // Both damaged: refused, with the way out.
  flip_bit(path, 20);
  flip_bit(path, 4096 + 20);
  const RunResult both = run_cosid(next);
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_NE(both.err.find("has no valid record"), std::string::npos) << both.err;
  EXPECT_NE(both.err.find("cosid state repair " + path), std::string::npos) << both.err;
  const RunResult shown = run_cosid({"state", "show", path, "--json"});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(shown.out.rfind("{\"file\":\"" + path + "\",\"current\":null,\"provable\":false,", 0),
            0u)
      << shown.out;

  const RunResult no_time = run_cosid({"state", "repair", path, "--slot", "5"});
  EXPECT_EQ(no_time.exit_code, 2);
  EXPECT_NE(no_time.err.find("no --not-before given"), std::string::npos) << no_time.err;
  const std::string past = std::to_string(kExampleMs);
  EXPECT_EQ(run_cosid({"state", "repair", path, "--slot", "6", "--not-before", past}).exit_code,
            0);  // no valid block tells the slot: the flags do
  ASSERT_EQ(run_cosid({"state", "init", dir.file("other"), "--slot", "6"}).exit_code, 0);
  const RunResult other =
      run_cosid({"state", "repair", dir.file("other"), "--slot", "5", "--not-before", past});
  EXPECT_EQ(other.exit_code, 1);  // a valid block of slot 6 is not repaired into slot 5's
  EXPECT_NE(other.err.find("was written for slot 6"), std::string::npos) << other.err;

  // The repair above gave the file to slot 6; repair it again for slot 5 from scratch.
  flip_bit(path, 20);
  flip_bit(path, 4096 + 20);
  const std::int64_t floor = cosid::SystemClock().now_ms() + 1500;
  const RunResult repaired =
      run_cosid({"state", "repair", path, "--slot", "5", "--not-before", std::to_string(floor)});
  ASSERT_EQ(repaired.exit_code, 0) << repaired.err;
  EXPECT_EQ(repaired.out, "repaired " + path + " for slot 5: floor " +
                              cosid::detail::format_instant(floor) + "\n");
  const RunResult after = run_cosid(next);
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_GT(first_timestamp_ms(after.out), floor);
  const RunResult text = run_cosid({"state", "show", path});
  EXPECT_EQ(text.out.find("cannot be relied on"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  format: 2\n"), std::string::npos) << text.out;
}

TEST(CliNotBefore, FromAKnownId) {
  const RunResult result = run_cosid({"not-before", "--from-id", std::to_string(kExampleId)});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, std::to_string(kExampleMs) + "\n");
  const RunResult json =
      run_cosid({"not-before", "--json", "--from-id", std::to_string(kExampleId)});
  EXPECT_EQ(json.out,
            "{\"not_before_ms\":1796005378123,\"not_before\":\"2026-11-30T02:22:58.123Z\","
            "\"from_id\":\"917722850910023697\"}\n");
  // A second-unit id: the last millisecond of its second.
  const cosid::Layout seconds = cosid::layouts::kSeconds;
  const std::uint64_t id = seconds.compose(seconds.tick_of(kExampleMs), 1, 2);
  const RunResult tick =
      run_cosid({"not-before", "--layout", "seconds", "--from-id", std::to_string(id)});
  EXPECT_EQ(tick.out, "1796005378999\n");
  // A --from-id that is no id is a malformed flag value.
  EXPECT_EQ(run_cosid({"not-before", "--from-id", "12#4"}).exit_code, 2);
  EXPECT_EQ(run_cosid({"not-before"}).exit_code, 2);
}

TEST(CliConfigCheck, ShowsEverySettingAndItsOrigin) {
  const RunResult flag = run_cosid({"config", "check", "--slot", "3"}, Environment().envp());
  EXPECT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_EQ(count_lines(flag.out), static_cast<int>(cosid::detail::kKeyCount));
  const std::size_t line = flag.out.find("cosid.machine.static.slot = 3   (");
  ASSERT_NE(line, std::string::npos) << flag.out;
  const std::string origin = flag.out.substr(line, flag.out.find('\n', line) - line);
  EXPECT_NE(origin.find("--slot"), std::string::npos) << origin;
  EXPECT_NE(flag.out.find("cosid.namespace = cosid   ("), std::string::npos) << flag.out;

  const RunResult env = run_cosid({"config", "check"}, Environment({"COSID_SLOT=4"}).envp());
  EXPECT_EQ(env.exit_code, 0) << env.err;
  EXPECT_NE(env.out.find("cosid.machine.static.slot = 4   (env COSID_SLOT)"), std::string::npos)
      << env.out;

  const RunResult bad = run_cosid({"config", "check", "--slot", "x"}, Environment().envp());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.rfind("cosid: config check: ", 0), 0u) << bad.err;
}

// cosid bench: only the shape of the output and the exit status; the numbers depend on the machine.
TEST(CliBench, PrintsOneJsonLineAndVerifies) {
  const TempDir dir("cli_test");
  const RunResult result = run_cosid({"bench", "--seconds", "1", "--threads", "2", "--verify"},
                                     Environment({"TMPDIR=" + dir.file("")}).envp());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  ASSERT_EQ(count_lines(result.out), 1) << result.out;
  EXPECT_EQ(result.out.rfind("{\"threads\":2,\"seconds\":1,\"ids\":", 0), 0u) << result.out;
  for (const std::string key : {"\"ids_per_s\":", "\"limit_per_s\":4096000,",
                                "\"ratio\":", "\"cpu_s\":", "\"cpu_s_per_million_ids\":"}) {
    EXPECT_NE(result.out.find(key), std::string::npos) << key << " in " << result.out;
  }
  EXPECT_EQ(result.out.substr(result.out.size() - 2), "}\n");
  // The temporary state file and its directory are gone: TMPDIR is empty again.
  EXPECT_EQ(rmdir(dir.file("").c_str()), 0) << "bench left files in " << dir.file("");
  mkdir(dir.file("").c_str(), 0700);  // for TempDir's own clean-up
}

TEST(CliBench, BatchDriftAndAGivenStateFile) {
  const TempDir dir("cli_test");
  const RunResult result =
      run_cosid({"bench", "--seconds", "1", "--batch", "64", "--max-drift", "5ms", "--state-file",
                 dir.file("state"), "--verify", "--busy-loops", "1"},
                Environment().envp());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.rfind("{\"threads\":1,\"seconds\":1,", 0), 0u) << result.out;
  EXPECT_NE(result.out.find(",\"busy_loops\":1,\"busy_cpu_s\":"), std::string::npos) << result.out;
  EXPECT_EQ(access(dir.file("state").c_str(), F_OK), 0);  // a given state file is kept
}

TEST(CliBench, UsageErrors) {
  expect_usage_error({"bench", "--threads", "0"}, "bench: --threads: give at least 1 thread",
                     "bench");
  expect_usage_error({"bench", "--seconds", "0"}, "bench: --seconds: give at least 1 second",
                     "bench");
  EXPECT_EQ(run_cosid({"bench", "--threads", "x"}).exit_code, 2);
  EXPECT_EQ(run_cosid({"bench", "--batch", "0"}).exit_code, 2);
  EXPECT_EQ(run_cosid({"bench", "--max-drift", "5"}).exit_code, 2);
  expect_usage_error({"bench", "--busy-loops", "65"},
                     "bench: --busy-loops: \"65\" is too large: give at most 64", "bench");
  EXPECT_EQ(run_cosid({"bench", "extra"}).exit_code, 2);
  const RunResult help = run_cosid({"bench", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const std::string word :
       {"Usage: cosid bench", "--threads", "--seconds", "--batch", "--max-drift", "--busy-loops",
        "--state-file", "--verify", "limit_per_s", "busy_cpu_s"}) {
    EXPECT_NE(help.out.find(word), std::string::npos) << word;
  }
}

// cosid state check: the readiness of a slot's state file.

// Holds an open-file-description lock on a file, as a running runtime does, until destroyed.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(open(path.c_str(), O_RDWR | O_CLOEXEC)) {
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    if (fd_ < 0 || fcntl(fd_, F_OFD_SETLK, &lock) != 0) ADD_FAILURE() << "cannot lock " << path;
  }
  ~FileLock() {
    if (fd_ >= 0) close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

std::int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A state file for slot 2 (namespace cosid, default layout) whose ceiling is `ceiling_ms`.
void init_state(const std::string& path, std::int64_t ceiling_ms) {
  const RunResult init =
      run_cosid({"state", "init", path, "--slot", "2", "--not-before", std::to_string(ceiling_ms)});
  ASSERT_EQ(init.exit_code, 0) << init.err;
}

void expect_not_ready(const RunResult& result, const std::string& reason) {
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err.rfind("cosid: state check: not ready: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find(reason), std::string::npos) << result.err;
  EXPECT_EQ(count_lines(result.err), 1) << result.err;
}

TEST(CliStateCheck, ReadyWhileNextRunsAndNotAfterItStopsCleanly) {
  const TempDir dir("cli_test");
  const std::string path = dir.file("state");
  StreamingNext next({"--slot", "9", "--state-file", path});
  next.read_lines(1);  // the runtime is open: the file is locked and its ceiling written ahead
  ASSERT_GE(count_lines(next.out()), 1);
  const RunResult ready = run_cosid({"state", "check", path, "--slot", "9"}, Environment().envp());
  EXPECT_EQ(ready.exit_code, 0) << ready.err;
  EXPECT_EQ(ready.err, "");
  EXPECT_EQ(ready.out.rfind("ready: state file " + path + ", slot 9, namespace cosid, ceiling ", 0),
            0u)
      << ready.out;
  EXPECT_EQ(count_lines(ready.out), 1);

  const int status = next.stop();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  expect_not_ready(run_cosid({"state", "check", path, "--slot", "9"}, Environment().envp()),
                   "was closed by a clean shutdown at ");
}

TEST(CliStateCheck, NeedsAHolderAndACeilingAheadByTheMinimumLead) {
  const TempDir dir("cli_test");
  const std::string path = dir.file("state");
  init_state(path, unix_ms_now() + 3600000);  // an hour ahead
  const std::vector<std::string> check = {"state", "check", path, "--slot", "2"};
  expect_not_ready(run_cosid(check, Environment().envp()),
                   "no process holds state file " + path + ": nothing issues ids on slot 2");
  const FileLock lock(path);
  const RunResult ready = run_cosid(check, Environment().envp());
  EXPECT_EQ(ready.exit_code, 0) << ready.err;
  EXPECT_NE(ready.out.find("slot 2, namespace cosid"), std::string::npos) << ready.out;

  std::vector<std::string> with_lead = check;
  with_lead.insert(with_lead.end(), {"--min-lead", "30m"});
  EXPECT_EQ(run_cosid(with_lead, Environment().envp()).exit_code, 0);
  with_lead.back() = "2h";
  expect_not_ready(run_cosid(with_lead, Environment().envp()), ", less than --min-lead 2h: ");
}

TEST(CliStateCheck, ACeilingInThePastIsNotRenewed) {
  const TempDir dir("cli_test");
  const std::string path = dir.file("state");
  init_state(path, 1796005378123 - 366LL * 86400000);  // 2025-11-29T02:22:58.123Z
  const FileLock lock(path);
  const RunResult result = run_cosid({"state", "check", path, "--slot", "2"}, Environment().envp());
  expect_not_ready(result,
                   "the ceiling 2025-11-29T02:22:58.123Z of state file " + path + " lies -");
  EXPECT_NE(result.err.find(" ahead of the clock: it is not being renewed"), std::string::npos)
      << result.err;
}

TEST(CliStateCheck, TheFileMustBelongToTheSlotNamespaceAndLayout) {
  const TempDir dir("cli_test");
  const std::string path = dir.file("state");
  init_state(path, unix_ms_now() + 3600000);
  const FileLock lock(path);
  expect_not_ready(run_cosid({"state", "check", path, "--slot", "3"}, Environment().envp()),
                   "was written for slot 2, configured slot is 3");
  expect_not_ready(run_cosid({"state", "check", path, "--slot", "2", "--namespace", "orders"},
                             Environment().envp()),
                   "was written for another namespace than \"orders\"");
  expect_not_ready(run_cosid({"state", "check", path, "--slot", "2", "--layout", "seconds"},
                             Environment().envp()),
                   "was written for another layout");
  expect_not_ready(
      run_cosid({"state", "check", dir.file("other"), "--slot", "2"}, Environment().envp()),
      "cannot open state file " + dir.file("other"));
}

// The probe of examples/kubernetes: everything from COSID_CONFIG, the slot from ${POD_ORDINAL}.
TEST(CliStateCheck, ResolvesTheServicesConfiguration) {
  const TempDir dir("cli_test");
  const std::string path = dir.file("state");
  init_state(path, unix_ms_now() + 3600000);
  const FileLock lock(path);
  {
    std::ofstream config(dir.file("cosid.yaml"));
    config << "cosid:\n  machine:\n    static:\n      slot: ${POD_ORDINAL}\n"
           << "      state-file: " << path << "\n";
  }
  const RunResult ready =
      run_cosid({"state", "check"},
                Environment({"COSID_CONFIG=" + dir.file("cosid.yaml"), "POD_ORDINAL=2"}).envp());
  EXPECT_EQ(ready.exit_code, 0) << ready.err;
  EXPECT_EQ(ready.out.rfind("ready: state file " + path + ", slot 2, ", 0), 0u) << ready.out;
  expect_not_ready(
      run_cosid({"state", "check"},
                Environment({"COSID_CONFIG=" + dir.file("cosid.yaml"), "POD_ORDINAL=1"}).envp()),
      "configured slot is 1");
  // The variables a flag overrides: COSID_STATE_FILE and COSID_SLOT.
  EXPECT_EQ(run_cosid({"state", "check"},
                      Environment({"COSID_STATE_FILE=" + path, "COSID_SLOT=2"}).envp())
                .exit_code,
            0);
  // POD_ORDINAL unset: the probe's configuration is incomplete, a usage error.
  const RunResult unset =
      run_cosid({"state", "check"}, Environment({"COSID_CONFIG=" + dir.file("cosid.yaml")}).envp());
  EXPECT_EQ(unset.exit_code, 2);
  EXPECT_EQ(unset.err.rfind("cosid: state check: ", 0), 0u) << unset.err;
  EXPECT_NE(unset.err.find("POD_ORDINAL"), std::string::npos) << unset.err;
}

TEST(CliStateCheck, UsageErrors) {
  const Environment env;
  const RunResult none = run_cosid({"state", "check", "--slot", "1"}, env.envp());
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err,
            "cosid: state check: no state file to check: give FILE, --state-file PATH, "
            "COSID_STATE_FILE or state-file in the config file\n" +
                usage_hint("state check"));
  EXPECT_EQ(
      run_cosid({"state", "check", "a", "--state-file", "b", "--slot", "1"}, env.envp()).exit_code,
      2);
  EXPECT_EQ(run_cosid({"state", "check", "a", "b", "--slot", "1"}, env.envp()).exit_code, 2);
  const RunResult lead =
      run_cosid({"state", "check", "a", "--slot", "1", "--min-lead", "5"}, env.envp());
  EXPECT_EQ(lead.exit_code, 2);
  EXPECT_EQ(lead.err.rfind("cosid: state check: --min-lead: \"5\": ", 0), 0u) << lead.err;
}

// Inputs that must neither block nor kill without a word: a FIFO or a directory where a file is
// expected, a file size limit below the state file's size.

// How long a run of the tests below may take before it counts as hung: it is killed and the test
// fails. A guard against a hang, not a timing assertion: each run takes milliseconds.
constexpr std::chrono::seconds kHangGuard{10};

// Reads what is left in `fd` (the child has exited; a pipe holds its small output) and closes it.
std::string drain(int fd) {
  std::string text;
  char buffer[4096];
  for (ssize_t got; (got = read(fd, buffer, sizeof buffer)) != 0;) {
    if (got > 0) text.append(buffer, static_cast<std::size_t>(got));
    if (got < 0 && errno != EINTR) break;
  }
  close(fd);
  return text;
}

// Waits for `pid`; kills it and fails the test if it has not exited within kHangGuard. Returns
// the wait status.
int wait_bounded(pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + kHangGuard;
  int status = 0;
  for (pid_t done; (done = waitpid(pid, &status, WNOHANG)) != pid;) {
    if (done < 0 && errno != EINTR) {
      ADD_FAILURE() << "waitpid " << pid << " failed: errno " << errno;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ADD_FAILURE() << "process " << pid << " did not exit within " << kHangGuard.count()
                    << " s: killed";
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0) {
      }
      break;
    }
    usleep(5000);
  }
  return status;
}

// Runs `cosid ARGS...` as run_cosid does, but with standard output and error on pipes (which no
// file size limit applies to; standard output goes to the file `out_file` instead if it is not
// empty), RLIMIT_FSIZE set to `file_size_limit` in the child before the exec, and killed, failing
// the test, if it has not exited within kHangGuard.
RunResult run_cosid_bounded(const std::vector<std::string>& args, char* const* envp,
                            rlim_t file_size_limit = RLIM_INFINITY,
                            const std::string& out_file = "") {
  std::vector<std::string> words = cosid_cli_command();
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(&word[0]);
  argv.push_back(nullptr);
  RunResult result;
  int out[2];
  int err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe failed";
    return result;
  }
  const int file = out_file.empty()
                       ? -1
                       : open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    const int in = open("/dev/null", O_RDONLY);
    const struct rlimit limit = {file_size_limit, file_size_limit};
    if (in < 0 || dup2(in, 0) < 0 || dup2(file >= 0 ? file : out[1], 1) < 0 ||
        dup2(err[1], 2) < 0 ||
        (file_size_limit != RLIM_INFINITY && setrlimit(RLIMIT_FSIZE, &limit) != 0)) {
      _exit(126);
    }
    execvpe(argv[0], argv.data(), envp);
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  if (file >= 0) close(file);
  if (pid < 0) {
    ADD_FAILURE() << "fork failed";
    close(out[0]);
    close(err[0]);
    return result;
  }
  const int status = wait_bounded(pid);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = drain(out[0]);
  result.err = drain(err[0]);
  return result;
}

TEST(CliInputs, AFifoOrADirectoryAsConfigFileIsRefusedAtOnce) {
  const TempDir dir("cli_test");
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string directory = dir.file("dir");
  ASSERT_EQ(mkdir(directory.c_str(), 0700), 0);
  const std::string advice =
      ", not a regular file: give the path of the config file itself with --config or "
      "COSID_CONFIG\n";
  for (const auto& [path, kind] : {std::pair<std::string, std::string>{fifo, "a FIFO (named pipe)"},
                                   {directory, "a directory"}}) {
    const std::string refusal = "config file " + path + " is " + kind + advice;
    const RunResult flag = run_cosid_bounded(
        {"next", "--config", path, "--slot", "1", "--state-file", dir.file("state")},
        Environment().envp());
    EXPECT_EQ(flag.exit_code, 1) << flag.err;
    EXPECT_EQ(flag.err, "cosid: next: " + refusal);
    EXPECT_EQ(flag.out, "");
    const RunResult env =
        run_cosid_bounded({"config", "check"}, Environment({"COSID_CONFIG=" + path}).envp());
    EXPECT_EQ(env.exit_code, 1) << env.err;
    EXPECT_EQ(env.err, "cosid: config check: " + refusal);
    const RunResult probe =
        run_cosid_bounded({"state", "check"}, Environment({"COSID_CONFIG=" + path}).envp());
    EXPECT_EQ(probe.exit_code, 1) << probe.err;
    EXPECT_EQ(probe.err, "cosid: state check: not ready: " + refusal);
  }
}

TEST(CliInputs, AFifoOrADirectoryAsStateFileIsRefusedAtOnce) {
  const TempDir dir("cli_test");
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string directory = dir.file("dir");
  ASSERT_EQ(mkdir(directory.c_str(), 0700), 0);
  for (const std::string& path : {fifo, directory}) {
    const std::string refusal = "state file " + path +
                                " is not a regular file (a FIFO, a directory, a device): give the "
                                "path of the state file itself\n";
    const RunResult show = run_cosid_bounded({"state", "show", path}, Environment().envp());
    EXPECT_EQ(show.exit_code, 1) << show.err;
    EXPECT_EQ(show.err, "cosid: state show: " + refusal);
    EXPECT_EQ(show.out, "");
    const RunResult check =
        run_cosid_bounded({"state", "check", path, "--slot", "1"}, Environment().envp());
    EXPECT_EQ(check.exit_code, 1) << check.err;
    EXPECT_EQ(check.err, "cosid: state check: not ready: " + refusal);
    EXPECT_EQ(check.out, "");
  }
  // `next` opens it for writing, which never waited for a FIFO; it refuses it as not regular.
  const RunResult next =
      run_cosid_bounded({"next", "--slot", "1", "--state-file", fifo}, Environment().envp());
  EXPECT_EQ(next.exit_code, 1) << next.err;
  EXPECT_EQ(next.err,
            "cosid: next: state file " + fifo +
                " is not a regular file (a FIFO, a directory, a device): give the path of the "
                "state file itself\n");
}

TEST(CliInputs, AFileSizeLimitBelowTheStateFileFailsWithAMessageNotASignal) {
  if (const char* why = file_size_limit_kills_the_runtime()) GTEST_SKIP() << why;
  const TempDir dir("cli_test");
  const std::string hint =
      "; the file size limit (ulimit -f) is below the state file's 8192 bytes: raise it\n";
  // 0: the creation's one write would start at the limit (SIGXFSZ). 4096: it would be cut there
  // (a short write). Either way it is not tried, and fails with EFBIG.
  for (const rlim_t limit : {rlim_t{0}, rlim_t{4096}}) {
    SCOPED_TRACE("RLIMIT_FSIZE " + std::to_string(limit));
    const std::string path = dir.file("state");
    const RunResult created = run_cosid_bounded({"next", "--slot", "1", "--state-file", path},
                                                Environment().envp(), limit);
    EXPECT_EQ(created.exit_code, 1) << created.err;
    EXPECT_EQ(created.err, "cosid: next: cannot create state file " + path +
                               ": File too large: check free space and permissions of its "
                               "directory" +
                               hint);
    EXPECT_EQ(created.out, "");
    EXPECT_NE(access(path.c_str(), F_OK), 0) << "no state file may appear";
  }
  // An existing file: block A lies below the limit, the first advance writes block B at 4096,
  // at the limit.
  const std::string path = dir.file("state");
  const RunResult init = run_cosid({"state", "init", path, "--slot", "1", "--not-before", "0"});
  ASSERT_EQ(init.exit_code, 0) << init.err;
  const RunResult advanced =
      run_cosid_bounded({"next", "--slot", "1", "--state-file", path}, Environment().envp(), 4096);
  EXPECT_EQ(advanced.exit_code, 1) << advanced.err;
  EXPECT_EQ(advanced.err.rfind("cosid: next: state file " + path + ": the first ceiling ", 0), 0u)
      << advanced.err;
  EXPECT_NE(advanced.err.find(" could not be made durable: File too large; nothing was issued"),
            std::string::npos)
      << advanced.err;
  EXPECT_EQ(advanced.err.substr(advanced.err.size() - std::min(advanced.err.size(), hint.size())),
            hint);
  EXPECT_EQ(advanced.out, "");
}

// The tool's own output: a write at the limit raises SIGXFSZ, which the tool ignores.
TEST(CliInputs, AFileSizeLimitOnTheOutputFileFailsWithAMessageNotASignal) {
  if (const char* why = file_size_limit_kills_the_runtime()) GTEST_SKIP() << why;
  const TempDir dir("cli_test");
  const std::string out = dir.file("other");
  const RunResult version = run_cosid_bounded({"--version"}, Environment().envp(), 0, out);
  EXPECT_EQ(version.exit_code, 1) << version.err;
  EXPECT_EQ(version.err,
            "cosid: writing the output: File too large; the file size limit (ulimit -f) is below "
            "the size of the file written: raise it. Check that the file, pipe or disk it goes to "
            "can take it\n");
  EXPECT_EQ(read_file(out), "");
}

// The library in a program that leaves SIGXFSZ at its default (death): the state file's writes
// fail with EFBIG instead of raising it. Run in a forked child, which reports by its exit status.
TEST(CliInputs, TheLibraryGetsEfbigUnderAFileSizeLimitWithoutIgnoringSigxfsz) {
  const TempDir dir("cli_test");
  const std::string path = dir.file("state");
  // In the child: 0 if `call` failed with EFBIG, 1 if it failed otherwise, 2 if it succeeded.
  const auto in_child = [](rlim_t file_size_limit, const auto& call) {
    const pid_t pid = fork();
    if (pid == 0) {
      std::signal(SIGXFSZ, SIG_DFL);
      const struct rlimit limit = {file_size_limit, file_size_limit};
      if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(3);
      const cosid::Status result = call();
      _exit(result.ok() ? 2 : result.code() == std::errc::file_too_large ? 0 : 1);
    }
    const int status = wait_bounded(pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  };
  cosid::SystemClock clock;
  const cosid::StateFileOwner owner{1, cosid::layouts::kDefault, "cosid"};
  const auto create = [&] {
    cosid::Status status;
    (void)cosid::create_state_file(cosid::posix_file_system(), clock, path, owner, 0, status);
    return status;
  };
  // 0: the creation's one write would start at the limit. 4096: the kernel would cut it there.
  EXPECT_EQ(in_child(0, create), 0);
  EXPECT_EQ(in_child(4096, create), 0);
  EXPECT_NE(access(path.c_str(), F_OK), 0);
  // An existing file: the start's first advance would write block B at 4096, at the limit.
  ASSERT_OK(create());
  EXPECT_EQ(in_child(4096,
                     [&] {
                       cosid::Options options;
                       options.slot = 1;
                       options.state_file = path;
                       cosid::RuntimeEnvironment environment;
                       environment.background_thread = false;
                       cosid::Status status;
                       const auto runtime = cosid::Runtime::open(options, environment, status);
                       return status;
                     }),
            0);
}

// cosid help --man and the cosid.1 the build makes from it.

// The words of `help` (a --help text) that start with "--" in its option lists.
std::vector<std::string> options_in_help(const std::string& help) {
  std::vector<std::string> options;
  for (const std::string& line : lines_of(help)) {
    if (line.rfind("  -", 0) != 0 && line.rfind("      --", 0) != 0) continue;
    const std::size_t start = line.find("--");
    options.push_back(line.substr(start, line.find(' ', start) - start));
  }
  return options;
}

// The commands `cosid --help` lists, without "help".
std::vector<std::string> commands_in_help(const std::string& help) {
  std::vector<std::string> commands;
  bool in_list = false;
  for (const std::string& line : lines_of(help)) {
    if (line == "Commands:") {
      in_list = true;
    } else if (in_list && line.empty()) {
      break;
    } else if (in_list) {
      const std::size_t end = line.find_last_not_of(' ', 15);
      const std::string name = line.substr(2, end - 1);
      if (name != "help") commands.push_back(name);
    }
  }
  return commands;
}

// "--slot-bits" as the man page writes it: "\-\-slot\-bits".
std::string roff(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

// The part of `page` from `start` to the next line that begins with ".SS " or ".SH ".
std::string section(const std::string& page, const std::string& start) {
  const std::size_t at = page.find(start);
  if (at == std::string::npos) return "";
  std::size_t end = page.find("\n.S", at + start.size());
  return page.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

TEST(CliManPage, NamesEveryCommandAndEveryOptionOfItsHelp) {
  const RunResult man = run_cosid({"help", "--man"});
  ASSERT_EQ(man.exit_code, 0) << man.err;
  EXPECT_EQ(man.err, "");
  const std::string& page = man.out;
  EXPECT_EQ(read_file(COSID_MAN_PAGE), page) << "the build's cosid.1 is not `cosid help --man`";
  EXPECT_EQ(page.rfind(".\\\" Generated by `cosid help --man`", 0), 0u);
  for (const std::string heading :
       {".TH COSID 1 \"" COSID_RELEASE_DATE "\" \"cosid ", ".SH NAME\n", ".SH SYNOPSIS\n",
        ".SH DESCRIPTION\n", ".SH COMMANDS\n", ".SH OPTIONS\n", ".SH \"EXIT STATUS\"\n",
        ".SH ENVIRONMENT\n", ".SH FILES\n", ".SH EXAMPLES\n", ".SH \"SEE ALSO\"\n"}) {
    EXPECT_NE(page.find(heading), std::string::npos) << heading;
  }
  const RunResult tool = run_cosid({"--help"});
  const std::string options_section =
      section(page, ".SH OPTIONS\n") + section(page, ".SS \"Config flags") +
      section(page, ".SS \"Layout flags") + section(page, ".SS \"Segment flags") +
      section(page, ".SS \"Stream flags");
  for (const std::string& option : options_in_help(tool.out)) {
    EXPECT_NE(options_section.find("\\fB" + roff(option) + "\\fR"), std::string::npos) << option;
  }
  const std::vector<std::string> commands = commands_in_help(tool.out);
  EXPECT_EQ(commands.size(), 17u) << tool.out;
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const std::string own = section(page, ".SS \"cosid " + roff(command) + "\"\n");
    ASSERT_NE(own, "");
    std::vector<std::string> words = {"help"};
    std::istringstream names(command);  // "state show" is two words
    for (std::string word; names >> word;) words.push_back(word);
    const RunResult help = run_cosid(words);
    ASSERT_EQ(help.exit_code, 0);
    const std::vector<std::string> options = options_in_help(help.out);
    EXPECT_FALSE(options.empty());
    for (const std::string& option : options) {
      const std::string label = "\\fB" + roff(option) + "\\fR";
      // In the command's own section, or in a group it refers to under OPTIONS.
      const bool found = own.find(label) != std::string::npos ||
                         (own.find("see \\fBOPTIONS\\fR") != std::string::npos &&
                          options_section.find(label) != std::string::npos);
      EXPECT_TRUE(found) << option;
    }
    // The usage line of --help is in the page's SYNOPSIS.
    const std::string usage = lines_of(help.out).front().substr(7);
    EXPECT_NE(section(page, ".SH SYNOPSIS\n").find(roff(usage.substr(6 + command.size()))),
              std::string::npos)
        << usage;
  }
  EXPECT_EQ(run_cosid({"help", "--man", "x"}).exit_code, 2);
}

// Where `program` is on PATH, or "".
std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

TEST(CliManPage, RendersWithoutWarnings) {
  const std::string groff = find_on_path("groff");
  if (groff.empty()) GTEST_SKIP() << "groff is not installed: the page's roff is not rendered";
  // -ww: every warning; -z: no output, only the diagnostics.
  const RunResult checked =
      run_program({groff, "-man", "-Tutf8", "-ww", "-z", COSID_MAN_PAGE}, environ);
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_EQ(checked.err, "");
  const RunResult text =
      run_program({groff, "-man", "-Tascii", "-P-bcou", COSID_MAN_PAGE}, environ);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  for (const std::string word : {"COSID(1)", "cosid state check [FILE] [--min-lead DUR]",
                                 "--slot-from-hostname", "EXIT STATUS", "COSID_STATE_FILE"}) {
    EXPECT_NE(text.out.find(word), std::string::npos) << word << " in\n" << text.out;
  }
  const std::string man = find_on_path("man");
  if (man.empty()) GTEST_SKIP() << "man is not installed: `man -l` is not tried";
  const Environment env({"MANPAGER=cat", "MANWIDTH=100"});
  const RunResult local = run_program({man, "-l", COSID_MAN_PAGE}, env.envp());
  EXPECT_EQ(local.exit_code, 0) << local.err;
  EXPECT_NE(local.out.find("cosid state check"), std::string::npos) << local.out;
}

// Lease stores on the command line: config check shows the store keys and refuses an unknown type,
// next issues on a leased slot and releases it, lease list shows the record.
TEST(CliLeaseCommands, ConfigCheckShowsTheStoreAndRefusesAmbiguityAndUnknownTypes) {
  const RunResult store =
      run_cosid({"config", "check", "--store", "file:/tmp/leases", "--ttl", "5s"});
  EXPECT_EQ(store.exit_code, 0) << store.err;
  EXPECT_NE(store.out.find("cosid.machine.distributor.type = file   (flag --store)"),
            std::string::npos)
      << store.out;
  EXPECT_NE(store.out.find("cosid.machine.distributor.ttl = 5s   (flag --ttl)"), std::string::npos)
      << store.out;
  const RunResult ambiguous = run_cosid({"config", "check", "--store", "memory", "--slot", "1"});
  EXPECT_EQ(ambiguous.exit_code, 2);
  EXPECT_NE(ambiguous.err.find("are ambiguous"), std::string::npos) << ambiguous.err;
  const RunResult unknown = run_cosid({"config", "check", "--store", "etcd"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no lease store is registered as \"etcd\""), std::string::npos)
      << unknown.err;
  const RunResult target = run_cosid({"config", "check", "--store", "memory:/tmp/x"});
  EXPECT_EQ(target.exit_code, 2);
  EXPECT_EQ(target.err,
            "cosid: config check: cosid.machine.distributor.type = \"memory:/tmp/x\" (flag "
            "--store): only file:DIR and zookeeper:CONNECT take a target after ':', and "
            "\"memory\" takes none on the command line: give --store memory and configure the "
            "store in cosid.stores of the config file\n" +
                usage_hint("config check"));
}

// A store instance of the config file: config check prints its keys where the tool knows its
// type, and says which stores it knows where it does not.
TEST(CliLeaseCommands, ConfigCheckPrintsAStoreInstance) {
  const TempDir dir("cli_test");
  const std::string path = dir.file("cosid.yaml");
  std::ofstream(path) << "cosid:\n"
                         "  stores:\n"
                         "    zk:\n"
                         "      type: zookeeper\n"
                         "      timeout: 3s\n"
                         "      options:\n"
                         "        connectString: zk-1:2181,zk-2:2181\n"
                         "  machine:\n"
                         "    distributor:\n"
                         "      type: zk\n";
  const RunResult check = run_cosid({"config", "check", "--config", path}, Environment().envp());
#if COSID_TEST_CLI_WITH_ZOOKEEPER
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("cosid.machine.distributor.type = zk   (file " + path + ":10)\n"),
            std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("cosid.stores.zk.type = zookeeper   (file " + path +
                           ":4)\n"
                           "cosid.stores.zk.timeout = 3s   (file " +
                           path +
                           ":5)\n"
                           "cosid.stores.zk.options.connectString = zk-1:2181,zk-2:2181   (file " +
                           path + ":7)\n"),
            std::string::npos)
      << check.out;
  const RunResult flag =
      run_cosid({"config", "check", "--store", "zookeeper:zk-3:2181/apps"}, Environment().envp());
  ASSERT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_NE(flag.out.find("cosid.stores.zookeeper.type = zookeeper   (flag --store)\n"
                          "cosid.stores.zookeeper.options.connectString = zk-3:2181/apps   (flag "
                          "--store)\n"),
            std::string::npos)
      << flag.out;
  std::ofstream(dir.file("typo.yaml"))
      << "cosid:\n  stores:\n    zk:\n      type: zookeeper\n      timout: 3s\n  machine:\n"
         "    distributor:\n      type: zk\n";
  const RunResult typo =
      run_cosid({"config", "check", "--config", dir.file("typo.yaml")}, Environment().envp());
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("cosid: config check: cosid.stores.zk.timout = \"3s\" (file " +
                          dir.file("typo.yaml") +
                          ":5) is not a key of a zookeeper store: it knows type, timeout, "),
            std::string::npos)
      << typo.err;
#else
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_EQ(check.err,
            "cosid: config check: no lease store is registered as \"zookeeper\" (the type of the "
            "store instance cosid.stores.zk): this cosid tool knows static, memory, file\n" +
                usage_hint("config check"));
#endif
  std::ofstream(dir.file("memory.yaml"))
      << "cosid:\n  stores:\n    mem:\n      type: memory\n      size: 3\n  machine:\n"
         "    distributor:\n      type: mem\n";
  const RunResult memory =
      run_cosid({"config", "check", "--config", dir.file("memory.yaml")}, Environment().envp());
  EXPECT_EQ(memory.exit_code, 2);
  EXPECT_EQ(memory.err,
            "cosid: config check: cosid.stores.mem.size = \"3\" (file " + dir.file("memory.yaml") +
                ":5) is not a key of a memory store: it knows type\n" + usage_hint("config check"));
  std::ofstream(path, std::ios::app) << "  namespace: orders\n";
  const RunResult unused =
      run_cosid({"config", "check", "--config", path, "--store", "memory"}, Environment().envp());
  EXPECT_EQ(unused.exit_code, 2);
  EXPECT_NE(
      unused.err.find("cosid.stores.zk.type = \"zookeeper\" (file " + path + ":4) has no effect"),
      std::string::npos)
      << unused.err;
}

// `lease list` opens every store but the file store through the tool's registry, as `next` does.
TEST(CliLeaseCommands, LeaseListOpensAZooKeeperStoreThroughTheRegistry) {
  const TempDir dir("cli_test");
  const std::string path = dir.file("cosid.yaml");
  // Port 1 of the loopback: nothing listens, so the store cannot connect; the short wait keeps
  // the refusal quick (it does not decide the outcome).
  std::ofstream(path) << "cosid:\n"
                         "  stores:\n"
                         "    zookeeper:\n"
                         "      type: zookeeper\n"
                         "      options:\n"
                         "        blockUntilConnectedWait: 200ms\n";
  const RunResult list = run_cosid({"lease", "list", "--config", path, "--store",
                                    "zookeeper:127.0.0.1:1", "--namespace", "orders", "--json"},
                                   Environment().envp());
  EXPECT_EQ(list.out, "");
#if COSID_TEST_CLI_WITH_ZOOKEEPER
  EXPECT_EQ(list.exit_code, 1);  // the store cannot connect: a runtime failure
  EXPECT_NE(list.err.find("127.0.0.1:1"), std::string::npos) << list.err;
#else
  EXPECT_EQ(list.exit_code, 2);  // a store type this tool does not know: a usage error
  EXPECT_NE(list.err.find("cosid: lease list: store instance cosid.stores.zookeeper has type "
                          "\"zookeeper\", which no lease store is registered as"),
            std::string::npos)
      << list.err;
#endif
}

TEST(CliLeaseCommands, NextReleasesItsSlotAndLeaseListShowsIt) {
  const std::string leases = testing::TempDir() + "cli_lease_" + std::to_string(getpid());
  const RunResult missing = run_cosid({"lease", "list", "--store", "file:" + leases});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << missing.err;
  const RunResult init = run_cosid({"store", "init", "--store", "file:" + leases});
  ASSERT_EQ(init.exit_code, 0) << init.err;
  const RunResult next = run_cosid({"next", "-n", "3", "--store", "file:" + leases, "--owner-key",
                                    "cli-test", "--format", "json"});
  ASSERT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(count_lines(next.out), 3);
  EXPECT_NE(next.out.find("\"slot\":0,"), std::string::npos) << next.out;
  const RunResult table = run_cosid({"lease", "list", "--store", "file:" + leases});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("namespace cosid, store clock "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("free     (cli-test)"), std::string::npos) << table.out;
  const RunResult json = run_cosid({"lease", "list", "--json", "--store", "file:" + leases});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(count_lines(json.out), 1);
  EXPECT_NE(json.out.find("\"state\":\"free\",\"owner_key\":null"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"last_owner_key\":\"cli-test\""), std::string::npos) << json.out;
  (void)std::system(("rm -rf '" + leases + "'").c_str());
}

// A mistyped store name: a lease store that does not exist is refused, by every command that opens
// one, with what to do; no id is issued and nothing is created. `cosid store init` makes it, once.
TEST(CliStoreInit, AMissingLeaseStoreIsRefusedUntilStoreInitMakesIt) {
  const std::string base = testing::TempDir() + "cli_store_" + std::to_string(getpid());
  ASSERT_EQ(mkdir(base.c_str(), 0700), 0);
  const std::string leases = base + "/leases";
  struct stat st {};
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"next", "-n", "3"}, std::vector<std::string>{"lease", "list"}}) {
    std::vector<std::string> args = command;
    args.insert(args.end(), {"--store", "file:" + leases});
    const RunResult refused = run_cosid(args);
    EXPECT_EQ(refused.exit_code, 1) << command[0];
    EXPECT_EQ(refused.out, "") << command[0];
    EXPECT_NE(refused.err.find(": the file lease store's directory " + leases +
                               " does not exist, and cosid never creates a store on first use"),
              std::string::npos)
        << refused.err;
    EXPECT_NE(
        refused.err.find("create it once with: cosid store init --store file:" + leases + "\n"),
        std::string::npos)
        << refused.err;
    EXPECT_NE(stat(leases.c_str(), &st), 0) << command[0] << " created " << leases;
  }
  const RunResult init = run_cosid({"store", "init", "--store", "file:" + leases});
  EXPECT_EQ(init.exit_code, 0) << init.err;
  EXPECT_EQ(init.out, "file store " + leases + ": created " + leases + "\n");
  EXPECT_EQ(init.err, "");
  ASSERT_EQ(stat(leases.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  const RunResult next = run_cosid({"next", "-n", "3", "--store", "file:" + leases});
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(count_lines(next.out), 3);
  const RunResult again = run_cosid({"store", "init", "--store", "file:" + leases});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "file store " + leases + ": exists already, nothing changed\n");
  (void)std::system(("rm -rf '" + base + "'").c_str());
}

TEST(CliStoreInit, RefusesWhatItCannotOrNeedNotCreate) {
  const std::string base = testing::TempDir() + "cli_store_bad_" + std::to_string(getpid());
  const RunResult parent = run_cosid({"store", "init", "--store", "file:" + base + "/leases"});
  EXPECT_EQ(parent.exit_code, 1);
  EXPECT_NE(parent.err.find("cosid: store init: cannot create the file store's directory " + base +
                            "/leases: its parent " + base + " cannot be opened"),
            std::string::npos)
      << parent.err;
  struct stat st {};
  EXPECT_NE(stat(base.c_str(), &st), 0) << "the parent was created";
  const RunResult memory = run_cosid({"store", "init", "--store", "memory"});
  EXPECT_EQ(memory.exit_code, 2);
  EXPECT_NE(memory.err.find("the memory store lives in one process"), std::string::npos)
      << memory.err;
  const Environment without_cosid_variables;
  const RunResult none = run_cosid({"store", "init"}, without_cosid_variables.envp());
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("cosid: store init: no store to create: name one with --store"),
            std::string::npos)
      << none.err;
}

// Without --store, store init creates the config file's lease store and range store, once when
// they are one store; a memory store there is passed over.
TEST(CliStoreInit, WithoutStoreItCreatesTheConfigFilesStores) {
  const std::string base = testing::TempDir() + "cli_store_config_" + std::to_string(getpid());
  ASSERT_EQ(mkdir(base.c_str(), 0700), 0);
  const std::string config = base + "/cosid.yaml";
  const auto write_config = [&](const std::string& lease_type, const std::string& leases,
                                const std::string& ranges) {
    std::ofstream(config) << "cosid:\n  machine:\n    distributor:\n      type: " << lease_type
                          << "\n"
                          << (leases.empty() ? ""
                                             : "      file:\n        directory: " + leases + "\n")
                          << "  segment:\n    distributor:\n      type: file\n      file:\n"
                          << "        directory: " << ranges << "\n";
  };
  write_config("file", base + "/leases", base + "/ranges");
  RunResult init = run_cosid({"store", "init", "--config", config});
  EXPECT_EQ(init.exit_code, 0) << init.err;
  EXPECT_EQ(init.out, "file store " + base + "/leases: created " + base + "/leases\nfile store " +
                          base + "/ranges: created " + base + "/ranges\n");
  write_config("file", base + "/shared", base + "/shared");
  init = run_cosid({"store", "init", "--config", config});
  EXPECT_EQ(init.exit_code, 0) << init.err;
  EXPECT_EQ(init.out, "file store " + base + "/shared: created " + base + "/shared\n");
  write_config("memory", "", base + "/ranges");
  init = run_cosid({"store", "init", "--config", config});
  EXPECT_EQ(init.exit_code, 0) << init.err;
  EXPECT_EQ(init.out, "file store " + base + "/ranges: exists already, nothing changed\n");
  (void)std::system(("rm -rf '" + base + "'").c_str());
}

}  // namespace
