// SPDX-License-Identifier: Apache-2.0
// Introspection with the real `cosid`: `state show` names the namespace and layout a file was
// written for and compares them with the configuration, the mismatch error names both sides,
// `state check FILE` takes the file's slot when none is configured, `state check --json`, and
// `config check` with a relative state-file of a config file in another directory.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "support/cli_run.h"
#include "support/temp_dir.h"

namespace {

using Outcome = cosid::testing::CliOutcome;

Outcome run(const TempDir& dir, const std::vector<std::string>& args,
            const std::vector<std::string>& env = {}) {
  return cosid::testing::run_cli(dir, args, env);
}

void expect_has(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "missing " << part << " in:\n" << text;
}

// FNV-1a 64 of "cosid" and "prod", and the fingerprints of the default and the seconds layout,
// as the state file records them (src/window/state_record.h).
constexpr const char* kCosidHash = "0xc3f42a8e4ee91e51";
constexpr const char* kProdHash = "0x85729c0e3537be14";
constexpr const char* kDefaultFingerprint = "0x0d961b7925f8e51e";
constexpr const char* kSecondsFingerprint = "0x9be98bbe4c0c5d3b";
constexpr const char* kDefaultLayout = "41/10/12 bits in ms with epoch 1577203200000";
constexpr const char* kSecondsLayout = "31/10/22 bits in s with epoch 1577203200";

class CliInspect : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    const Outcome init = run(dir_, {"state", "init", state(), "--slot", "3"});
    ASSERT_EQ(init.code, 0) << init.err;
  }
  std::string state() const { return dir_.file("state"); }
  // A config file naming `ns` and the seconds layout.
  std::string config(const std::string& ns) const {
    const std::string path = dir_.file("cosid.conf");
    std::ofstream(path) << "cosid:\n  namespace: " << ns << "\n  layout:\n    preset: seconds\n";
    return path;
  }

  TempDir dir_{"cli_inspect"};
};

TEST_F(CliInspect, StateShowComparesTheDefaults) {
  const Outcome shown = run(dir_, {"state", "show", state()});
  ASSERT_EQ(shown.code, 0) << shown.err;
  expect_has(shown.out, std::string("namespace: hash ") + kCosidHash + " (matches \"cosid\")\n");
  expect_has(shown.out, std::string("layout: fingerprint ") + kDefaultFingerprint +
                            " (matches the configured " + kDefaultLayout + ")\n");
  expect_has(shown.out, std::string("  namespace_hash: ") + kCosidHash + "\n");
}

TEST_F(CliInspect, StateShowTakesTheConfigFileAndSaysWhatDiffers) {
  for (const std::vector<std::string>& env :
       {std::vector<std::string>{}, std::vector<std::string>{"COSID_CONFIG=" + config("prod")}}) {
    std::vector<std::string> args = {"state", "show", state()};
    if (env.empty()) args.insert(args.end(), {"--config", config("prod")});
    const Outcome shown = run(dir_, args, env);
    ASSERT_EQ(shown.code, 0) << shown.err;
    expect_has(shown.out, std::string("namespace: hash ") + kCosidHash +
                              " (does not match the configured \"prod\", hash " + kProdHash +
                              ")\n");
    expect_has(shown.out, std::string("layout: fingerprint ") + kDefaultFingerprint +
                              " (does not match the configured " + kSecondsLayout +
                              ", fingerprint " + kSecondsFingerprint + ")\n");
  }
  const Outcome json = run(dir_, {"state", "show", state(), "--json", "--namespace", "cosid"});
  ASSERT_EQ(json.code, 0) << json.err;
  expect_has(json.out, std::string("\"format\":2,\"layout_fingerprint\":\"") + kDefaultFingerprint +
                           "\",\"namespace_hash\":\"" + kCosidHash + "\",\"problem\":null}");
  expect_has(json.out, std::string("],\"namespace\":{\"configured\":\"cosid\",\"hash\":\"") +
                           kCosidHash + "\",\"matches\":true},\"layout\":{\"configured\":\"" +
                           kDefaultLayout + "\",\"fingerprint\":\"" + kDefaultFingerprint +
                           "\",\"matches\":true}}\n");

  const Outcome bad = run(dir_, {"state", "show", state(), "--layout", "nope"});
  EXPECT_EQ(bad.code, 2) << bad.err;
  expect_has(bad.err, "cosid: state show: ");
  const Outcome missing = run(dir_, {"state", "show", state(), "--config", dir_.file("none")});
  EXPECT_EQ(missing.code, 1) << missing.err;
  expect_has(missing.err, dir_.file("none"));
}

TEST_F(CliInspect, TheMismatchErrorNamesBothSides) {
  const Outcome ns =
      run(dir_, {"next", "--slot", "3", "--state-file", state(), "--namespace", "prod"});
  EXPECT_EQ(ns.code, 1);
  expect_has(ns.err, "was written for another namespace than \"prod\" (its namespace hash is " +
                         std::string(kCosidHash) + ", \"prod\" hashes to " + kProdHash +
                         "): configure the namespace it was written for");
  const Outcome layout =
      run(dir_, {"next", "--slot", "3", "--state-file", state(), "--layout", "seconds"});
  EXPECT_EQ(layout.code, 1);
  expect_has(layout.err, "was written for another layout (fingerprint " +
                             std::string(kDefaultFingerprint) + ") than the configured " +
                             kSecondsLayout + " (fingerprint " + kSecondsFingerprint +
                             "): use the layout it was written with (`cosid state show " + state() +
                             "` with this configuration compares them)");
  const Outcome slot = run(dir_, {"next", "--slot", "4", "--state-file", state()});
  EXPECT_EQ(slot.code, 1);
  expect_has(slot.err, "was written for slot 3, configured slot is 4");
}

TEST_F(CliInspect, StateCheckTakesTheFilesSlotUnlessOneIsConfigured) {
  // No slot: the file's slot 3, so the check gets as far as the lock nobody holds.
  const Outcome own = run(dir_, {"state", "check", state()});
  EXPECT_EQ(own.code, 1);
  EXPECT_EQ(own.err, "cosid: state check: not ready: no process holds state file " + state() +
                         ": nothing issues ids on slot 3 now\n");
  const Outcome other = run(dir_, {"state", "check", state(), "--slot", "5"});
  EXPECT_EQ(other.code, 1);
  expect_has(other.err, "was written for slot 3, configured slot is 5");
  // Through the config file, the namespace and layout it names are compared as well.
  const Outcome configured = run(dir_, {"state", "check", state(), "--config", config("prod")});
  EXPECT_EQ(configured.code, 1);
  expect_has(configured.err, "was written for another layout");
}

TEST_F(CliInspect, StateCheckJson) {
  const Outcome idle = run(dir_, {"state", "check", state(), "--json"});
  EXPECT_EQ(idle.code, 1);
  EXPECT_EQ(idle.err, "");
  EXPECT_EQ(idle.out, "{\"file\":\"" + state() +
                          "\",\"slot\":3,\"held\":false,\"clean\":false,\"ceiling\":"
                          "\"1970-01-01T00:00:00.000Z\",\"lead_ms\":null,\"ok\":false,\"reason\":"
                          "\"no process holds state file " +
                          state() + ": nothing issues ids on slot 3 now\"}\n");
  const Outcome none = run(dir_, {"state", "check", dir_.file("none"), "--json"});
  EXPECT_EQ(none.code, 1);
  expect_has(none.out, "{\"file\":\"" + dir_.file("none") +
                           "\",\"slot\":null,\"held\":null,\"clean\":null,\"ceiling\":null,"
                           "\"lead_ms\":null,\"ok\":false,\"reason\":\"cannot open state file ");
  const Outcome bad = run(dir_, {"state", "check", state(), "--json", "--slot", "x"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.out, "");
  expect_has(bad.err, "cosid: state check: slot \"x\" (flag --slot) is not a whole number");
}

TEST(CliInspectConfig, ConfigCheckPrintsEverythingThenRefusesAMissingSlot) {
  const TempDir dir("cli_inspect");
  const Outcome text = run(dir, {"config", "check", "--namespace", "prod"});
  EXPECT_EQ(text.code, 2);
  expect_has(text.out, "cosid.namespace = prod   (flag --namespace)\n");
  expect_has(text.out, "cosid.machine.static.slot =    (not given)\n");
  expect_has(text.out, "cosid.layout.epoch = ");
  EXPECT_EQ(text.err.rfind("cosid: config check: no slot is configured", 0), 0u) << text.err;

  const Outcome json = run(dir, {"config", "check", "--json", "--namespace", "prod"});
  EXPECT_EQ(json.code, 2);
  EXPECT_EQ(json.out.rfind("{\"cosid.namespace\":{\"value\":\"prod\",\"source\":\"flag "
                           "--namespace\"},\"cosid.machine.static.slot\":{\"value\":\"\","
                           "\"source\":\"not given\"},",
                           0),
            0u)
      << json.out;
  expect_has(json.out, ",\"ok\":false,\"error\":\"no slot is configured");
  EXPECT_EQ(json.out.back(), '\n');

  const Outcome complete = run(dir, {"config", "check", "--json", "--slot", "4"});
  EXPECT_EQ(complete.code, 0) << complete.err;
  expect_has(complete.out,
             "\"cosid.machine.static.slot\":{\"value\":\"4\",\"source\":\"flag --slot\"}");
  expect_has(complete.out, ",\"ok\":true,\"error\":null}\n");

  const Outcome bad = run(dir, {"config", "check", "--json", "--slot", "x"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.out, "");
}

// The working directory of this process, and so of the `cosid` it spawns, changed for a scope.
class InDirectory {
 public:
  explicit InDirectory(const std::string& path) {
    char buf[4096];
    if (getcwd(buf, sizeof buf) != nullptr) previous_ = buf;
    EXPECT_EQ(chdir(path.c_str()), 0) << path;
  }
  ~InDirectory() { EXPECT_EQ(chdir(previous_.c_str()), 0) << previous_; }
  InDirectory(const InDirectory&) = delete;
  InDirectory& operator=(const InDirectory&) = delete;

 private:
  std::string previous_;
};

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// A relative state-file in a config file lies next to the config file, whatever the working
// directory; one given as a flag or variable lies in the working directory; an absolute one is
// where it says. Run from another directory than the config file's, with the config file named
// relative to the working directory as an operator types it.
TEST(CliInspectConfig, ARelativeStateFileOfAConfigFileLiesNextToIt) {
  const TempDir dir("cli_inspect");
  ASSERT_FALSE(dir.path().empty());
  ASSERT_EQ(mkdir(dir.file("conf").c_str(), 0700), 0);
  ASSERT_EQ(mkdir(dir.file("run").c_str(), 0700), 0);
  std::ofstream(dir.file("conf/cosid.yaml"))
      << "cosid:\n  machine:\n    static:\n      slot: 5\n      state-file: cosid.state\n";
  std::ofstream(dir.file("conf/absolute.yaml"))
      << "cosid:\n  machine:\n    static:\n      slot: 5\n      state-file: "
      << dir.file("absolute.state") << "\n";
  const InDirectory in_run(dir.file("run"));

  const Outcome check = run(dir, {"config", "check", "--config", "../conf/cosid.yaml"});
  EXPECT_EQ(check.code, 0) << check.err;
  expect_has(check.out,
             "cosid.machine.static.state-file = ../conf/cosid.state   (file "
             "../conf/cosid.yaml:5, where \"cosid.state\" is relative to the config file's "
             "directory)\n");
  const Outcome next = run(dir, {"next", "-n", "1", "--config", "../conf/cosid.yaml"});
  EXPECT_EQ(next.code, 0) << next.err;
  EXPECT_TRUE(exists(dir.file("conf/cosid.state")));
  EXPECT_FALSE(exists(dir.file("run/cosid.state")));

  const Outcome flag =
      run(dir, {"next", "-n", "1", "--config", "../conf/cosid.yaml", "--state-file", "flag.state"});
  EXPECT_EQ(flag.code, 0) << flag.err;
  EXPECT_TRUE(exists(dir.file("run/flag.state")));
  const Outcome env = run(dir, {"next", "-n", "1", "--config", "../conf/cosid.yaml"},
                          {"COSID_STATE_FILE=env.state"});
  EXPECT_EQ(env.code, 0) << env.err;
  EXPECT_TRUE(exists(dir.file("run/env.state")));
  EXPECT_FALSE(exists(dir.file("conf/env.state")));

  const Outcome absolute = run(dir, {"config", "check", "--config", "../conf/absolute.yaml"});
  EXPECT_EQ(absolute.code, 0) << absolute.err;
  expect_has(absolute.out, "cosid.machine.static.state-file = " + dir.file("absolute.state") +
                               "   (file ../conf/absolute.yaml:5)\n");
}

}  // namespace
