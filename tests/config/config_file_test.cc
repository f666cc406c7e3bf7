// SPDX-License-Identifier: Apache-2.0
// The config file reader (the YAML subset) and ${VAR} interpolation.
#include "config/config_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "config/interpolate.h"
#include "support/fake_env.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace cosid {
namespace detail {
namespace {

struct Parsed {
  std::vector<ConfigEntry> entries;
  std::error_code ec;
  std::string message;
};

Parsed parse(const std::string& text, const FakeEnv& env = FakeEnv({})) {
  Parsed parsed;
  Status status;
  parsed.entries = parse_config(text, "cosid.yaml", env.lookup(), status);
  parsed.ec = status.code();
  parsed.message = status.message();
  return parsed;
}

// The message of a refused text, which must start with the file and line.
std::string refused(const std::string& text, errc code, int line,
                    const FakeEnv& env = FakeEnv({})) {
  const Parsed parsed = parse(text, env);
  EXPECT_ERRC(parsed.ec, code) << text;
  const std::string prefix = "cosid.yaml:" + std::to_string(line) + ": ";
  EXPECT_EQ(parsed.message.substr(0, prefix.size()), prefix) << parsed.message;
  return parsed.message;
}

TEST(ConfigFile, ReadsTheReadmeExample) {
  const Parsed parsed = parse(
      "cosid:\n"
      "  machine:\n"
      "    static:\n"
      "      slot: ${POD_ORDINAL}\n"
      "      state-file: /var/lib/cosid/state   # keeps the ceiling across restarts\n"
      "      ahead: 10s\n",
      FakeEnv({{"POD_ORDINAL", "3"}}));
  ASSERT_NO_ERROR(parsed.ec);
  ASSERT_EQ(parsed.entries.size(), 3u);
  EXPECT_EQ(parsed.entries[0].key, "cosid.machine.static.slot");
  EXPECT_EQ(parsed.entries[0].value, "3");
  EXPECT_EQ(parsed.entries[0].line, 4);
  EXPECT_EQ(parsed.entries[1].key, "cosid.machine.static.state-file");
  EXPECT_EQ(parsed.entries[1].value, "/var/lib/cosid/state");
  EXPECT_EQ(parsed.entries[1].line, 5);
  EXPECT_EQ(parsed.entries[2].key, "cosid.machine.static.ahead");
  EXPECT_EQ(parsed.entries[2].value, "10s");
}

TEST(ConfigFile, ReadsEveryKeyWithCommentsQuotesAndCrlf) {
  const Parsed parsed = parse(
      "# cosid for the order service\r\n"
      "cosid:\r\n"
      "    namespace: 'order''s'   # four spaces here\r\n"
      "\r\n"
      "    machine:\r\n"
      "      static:\r\n"
      "        # a comment line inside a block\r\n"
      "        slot: \"7\"\r\n"
      "        slot-source: explicit\r\n"
      "        state-file: \"/var/lib/co#sid/st\\\"ate\\\\x\"  # a '#' inside quotes stays\r\n"
      "        ahead: 500ms\r\n"
      "        not-before: 2026-11-30T02:22:58.123Z\r\n"
      "        require-state-file: true\r\n"
      "    layout:\r\n"
      "      preset: js-safe\r\n"
      "      epoch: 1577203200000\r\n"
      "      unit: ms\r\n"
      "      timestamp-bits: 41\r\n"
      "      slot-bits: 3\r\n"
      "      sequence-bits: a#b\r\n");
  ASSERT_NO_ERROR(parsed.ec) << parsed.message;
  std::map<std::string, std::string> values;
  for (const ConfigEntry& entry : parsed.entries) values[entry.key] = entry.value;
  EXPECT_EQ(values.size(), 13u);
  EXPECT_EQ(values["cosid.namespace"], "order's");
  EXPECT_EQ(values["cosid.machine.static.slot"], "7");
  EXPECT_EQ(values["cosid.machine.static.state-file"], "/var/lib/co#sid/st\"ate\\x");
  EXPECT_EQ(values["cosid.machine.static.not-before"], "2026-11-30T02:22:58.123Z");
  EXPECT_EQ(values["cosid.layout.sequence-bits"], "a#b");
}

TEST(ConfigFile, DoubleQuotedEscapes) {
  const Parsed parsed = parse("cosid:\n  namespace: \"a\\tb\\nc\"\n");
  ASSERT_NO_ERROR(parsed.ec);
  ASSERT_EQ(parsed.entries.size(), 1u);
  EXPECT_EQ(parsed.entries[0].value, "a\tb\nc");
}

TEST(ConfigFile, EmptyFilesAndEmptyBlocksHaveNoKeys) {
  for (const char* text : {"", "\n\n", "# only a comment\n   # another\n", "cosid:\n",
                           "cosid:\n  machine:\n    static:\n  # nothing yet\n",
                           "\xEF\xBB\xBF# with a byte order mark\ncosid:\n"}) {
    const Parsed parsed = parse(text);
    EXPECT_NO_ERROR(parsed.ec) << text;
    EXPECT_TRUE(parsed.entries.empty()) << text;
  }
}

TEST(ConfigFile, BlocksMayUseDifferentIndentation) {
  const Parsed parsed = parse(
      "cosid:\n"
      " layout:\n"
      "       slot-bits: 3\n"
      "       unit: ms\n"
      " machine:\n"
      "   static:\n"
      "     slot: 1\n");
  ASSERT_NO_ERROR(parsed.ec) << parsed.message;
  EXPECT_EQ(parsed.entries.size(), 3u);
}

TEST(ConfigFile, RefusesWhatIsOutsideTheSubset) {
  const struct {
    const char* text;
    int line;
    const char* reason;
  } cases[] = {
      {"cosid:\n\tnamespace: x\n", 2, "tab"},
      {"cosid:\n  \tnamespace: x\n", 2, "tab"},
      {"cosid:\n  - namespace\n", 2, "lists"},
      {"cosid:\n  namespace: - x\n", 2, "lists"},
      {"cosid:\n  namespace: &a x\n", 2, "anchors"},
      {"cosid:\n  namespace: *a\n", 2, "aliases"},
      {"cosid:\n  namespace: !str x\n", 2, "tags"},
      {"cosid:\n  namespace: {a: b}\n", 2, "flow"},
      {"cosid:\n  namespace: [a]\n", 2, "flow"},
      {"cosid: {namespace: x}\n", 1, "flow"},
      {"---\ncosid:\n", 1, "document"},
      {"cosid:\n  namespace: x\n...\n", 3, "document"},
      {"cosid:\n  namespace: |\n    x\n", 2, "block scalars"},
      {"cosid:\n  namespace: >\n    x\n", 2, "block scalars"},
      {"cosid:\n  namespace:\n", 2, "has no value"},
      {"cosid:\n  namespace: # nothing\n", 2, "has no value"},
      {"cosid:\n  machine:\n    static:\n      slot:\n      ahead: 1s\n", 4, "has no value"},
      {"cosid:\n    namespace: x\n  machine:\n", 3, "inconsistent indentation"},
      {"cosid:\n  machine:\n    static:\n      slot: 1\n     ahead: 1s\n", 5, "inconsistent"},
      {"cosid:\n  namespace: x\n    machine:\n", 3, "unexpected indentation"},
      {"  cosid:\n", 1, "unexpected indentation"},
      {"cosid:\n  namespace:x\n", 2, "needs a space"},
      {"cosid:\n  namespace: \"x\n", 2, "no closing"},
      {"cosid:\n  namespace: 'x\n", 2, "no closing"},
      {"cosid:\n  namespace: \"x\" y\n", 2, "after the closing quote"},
      {"cosid:\n  namespace: \"x\"# c\n", 2, "after the closing quote"},
      {"cosid:\n  namespace: \"a\\x41\"\n", 2, "escape"},
      {"cosid:\n  namespace: a: b\n", 2, "quote the value"},
      {"cosid:\n  namespace: ab:\n", 2, "quote the value"},
      {"cosid:\n  namespace: ~\n", 2, "null"},
      {"cosid:\n  namespace: null\n", 2, "null"},
      {"cosid:\n  namespace: a\x01"
       "b\n",
       2, "control byte"},
      {"cosid:\n  \"namespace\": x\n", 2, "quoted keys"},
      {"%YAML 1.2\ncosid:\n", 1, "directives"},
      {"cosid:\n  ? namespace\n", 2, "complex keys"},
      {"cosid:\n  name space: x\n", 2, "expected"},
      {"cosid:\n  namespace\n", 2, "expected"},
      {"cosid:\n  machine: x\n", 2, "is a block"},
      {"cosid:\n  namespace: @x\n", 2, "cannot start"},
  };
  for (const auto& c : cases) {
    const std::string message = refused(c.text, errc::config_syntax, c.line);
    EXPECT_NE(message.find(c.reason), std::string::npos) << c.text << "\n" << message;
  }
}

TEST(ConfigFile, RefusesDuplicateKeys) {
  std::string message =
      refused("cosid:\n  namespace: a\n  namespace: b\n", errc::config_duplicate_key, 3);
  EXPECT_NE(message.find("cosid.namespace is given twice (first on line 2)"), std::string::npos)
      << message;
  refused("cosid:\n  namespace: a\ncosid:\n  layout:\n", errc::config_duplicate_key, 3);
  message = refused(
      "cosid:\n  machine:\n    static:\n      slot: 1\n  machine:\n    static:\n      slot: 2\n",
      errc::config_duplicate_key, 5);
  EXPECT_NE(message.find("cosid.machine is given twice"), std::string::npos) << message;
}

TEST(ConfigFile, RefusesUnknownKeys) {
  std::string message = refused("server:\n  port: 1\n", errc::config_unknown_key, 1);
  EXPECT_NE(message.find("one top-level key, cosid"), std::string::npos) << message;
  message =
      refused("cosid:\n  machine:\n    static:\n      slots: 1\n", errc::config_unknown_key, 4);
  EXPECT_NE(message.find("unknown key cosid.machine.static.slots: the keys under "
                         "cosid.machine.static are slot, slot-source, state-file, ahead, "
                         "not-before, require-state-file"),
            std::string::npos)
      << message;
  message = refused("cosid:\n  machine:\n    dynamic:\n", errc::config_unknown_key, 3);
  EXPECT_NE(message.find("the keys under cosid.machine are static"), std::string::npos) << message;
  message = refused("cosid:\n  store:\n", errc::config_unknown_key, 2);
  EXPECT_NE(message.find("the keys under cosid are namespace, machine, layout, stores"),
            std::string::npos)
      << message;
  message = refused("cosid:\n  layout:\n    bits: 1\n", errc::config_unknown_key, 3);
  EXPECT_NE(message.find("preset, epoch, unit, timestamp-bits"), std::string::npos) << message;
  refused("cosid:\n  machine:\n    static:\n      slot: 1\n      ahead:\n        x: 1\n",
          errc::config_syntax, 5);
}

// The store instances: every key below cosid.stores.NAME is kept as it is, at any depth, for the
// store's factory to read; the reader checks only the shape, the name and the type's presence.
TEST(ConfigFile, ReadsStoreInstancesWithNestedKeys) {
  const Parsed parsed = parse(
      "cosid:\n"
      "  stores:\n"
      "    zk:\n"
      "      type: zookeeper\n"
      "      timeout: 3s\n"
      "      options:\n"
      "        connectString: ${ZK:-zk-1:2181},zk-2:2181\n"
      "        retry:\n"
      "          maxSleep: 500ms   # a comment\n"
      "        sessionTimeout: '60s'\n"
      "    second_2-b:\n"
      "      type: kv\n"
      "  machine:\n"
      "    distributor:\n"
      "      type: zk\n");
  ASSERT_NO_ERROR(parsed.ec) << parsed.message;
  std::vector<std::pair<std::string, std::string>> keys;
  std::vector<int> lines;
  for (const ConfigEntry& entry : parsed.entries) {
    keys.emplace_back(entry.key, entry.value);
    lines.push_back(entry.line);
  }
  EXPECT_EQ(keys, (std::vector<std::pair<std::string, std::string>>{
                      {"cosid.stores.zk.type", "zookeeper"},
                      {"cosid.stores.zk.timeout", "3s"},
                      {"cosid.stores.zk.options.connectString", "zk-1:2181,zk-2:2181"},
                      {"cosid.stores.zk.options.retry.maxSleep", "500ms"},
                      {"cosid.stores.zk.options.sessionTimeout", "60s"},
                      {"cosid.stores.second_2-b.type", "kv"},
                      {"cosid.machine.distributor.type", "zk"}}));
  EXPECT_EQ(lines, (std::vector<int>{4, 5, 7, 9, 10, 12, 15}));
  // An empty cosid.stores block is nothing, like any empty block.
  EXPECT_NO_ERROR(parse("cosid:\n  stores:\n  namespace: x\n").ec);
}

TEST(ConfigFile, RefusesAStoreInstanceWithoutTypeOrWithABadName) {
  std::string message =
      refused("cosid:\n  stores:\n    zk:\n      timeout: 3s\n", errc::config_syntax, 3);
  EXPECT_NE(message.find("cosid.stores.zk has no type: give the store type it is made by"),
            std::string::npos)
      << message;
  refused("cosid:\n  stores:\n    zk:\n  namespace: x\n", errc::config_syntax, 3);
  // The type of a nested block is a key of the store, not the instance's type.
  refused("cosid:\n  stores:\n    zk:\n      options:\n        type: zookeeper\n",
          errc::config_syntax, 3);
  for (const char* name : {"Zk", "z.k", "zk\xC3\xA9",
                           "a1234567890123456789012345678901234567890123456789012345678901234"}) {
    SCOPED_TRACE(name);
    message = refused(std::string("cosid:\n  stores:\n    ") + name + ":\n      type: kv\n",
                      name == std::string("z.k") || name == std::string("zk\xC3\xA9")
                          ? errc::config_syntax
                          : errc::invalid_value,
                      3);
  }
  message = refused("cosid:\n  stores:\n    Zk:\n      type: kv\n", errc::invalid_value, 3);
  EXPECT_NE(message.find("store instance \"Zk\" (cosid.stores.Zk) is not a name: use lower-case "
                         "letters, digits, '-' and '_' (1 to 64 bytes)"),
            std::string::npos)
      << message;
  EXPECT_NO_ERROR(
      parse("cosid:\n  stores:\n    "
            "a123456789012345678901234567890123456789012345678901234567890123:\n      type: kv\n")
          .ec);
}

TEST(ConfigFile, RefusesStoreKeysWithoutValues) {
  const struct {
    const char* text;
    int line;
    const char* reason;
  } cases[] = {
      {"cosid:\n  stores: x\n", 2, "cosid.stores is a block, not a value"},
      {"cosid:\n  stores:\n    zk: x\n", 3, "cosid.stores.zk is a store instance, not a value"},
      {"cosid:\n  stores:\n    zk:\n      type:\n", 4,
       "cosid.stores.zk.type has no value: write the store type after the ':'"},
      {"cosid:\n  stores:\n    zk:\n      type: kv\n      timeout:\n", 5,
       "cosid.stores.zk.timeout has no value"},
      {"cosid:\n  stores:\n    zk:\n      type: kv\n      options:\n      timeout: 1s\n", 5,
       "cosid.stores.zk.options has no value"},
      {"cosid:\n  stores:\n    zk:\n      type: kv\n      options:\n        retry:\n"
       "  namespace: x\n",
       6, "cosid.stores.zk.options.retry has no value"},
      {"cosid:\n  stores:\n    zk:\n      type: kv\n      timeout: ~\n", 5, "null"},
  };
  for (const auto& c : cases) {
    const std::string message = refused(c.text, errc::config_syntax, c.line);
    EXPECT_NE(message.find(c.reason), std::string::npos) << c.text << "\n" << message;
  }
}

TEST(ConfigFile, RefusesDuplicateStoreKeys) {
  std::string message =
      refused("cosid:\n  stores:\n    zk:\n      type: kv\n      timeout: 1s\n      timeout: 2s\n",
              errc::config_duplicate_key, 6);
  EXPECT_NE(message.find("cosid.stores.zk.timeout is given twice (first on line 5)"),
            std::string::npos)
      << message;
  message = refused(
      "cosid:\n  stores:\n    zk:\n      type: kv\n      options:\n        a: 1\n"
      "      options:\n        b: 2\n",
      errc::config_duplicate_key, 7);
  EXPECT_NE(message.find("cosid.stores.zk.options is given twice"), std::string::npos) << message;
  refused("cosid:\n  stores:\n    zk:\n      type: kv\n    zk:\n      type: kv\n",
          errc::config_duplicate_key, 5);
  refused("cosid:\n  stores:\n    zk:\n      type: kv\n  stores:\n", errc::config_duplicate_key, 5);
}

TEST(ConfigFile, InterpolatesVariables) {
  const FakeEnv env({{"POD_ORDINAL", "4"}, {"EMPTY", ""}, {"DIR", "/data"}});
  const auto value_of = [&env](const std::string& value) {
    const Parsed parsed = parse("cosid:\n  namespace: " + value + "\n", env);
    EXPECT_NO_ERROR(parsed.ec) << parsed.message;
    return parsed.entries.empty() ? std::string("<none>") : parsed.entries[0].value;
  };
  EXPECT_EQ(value_of("${POD_ORDINAL}"), "4");
  EXPECT_EQ(value_of("${UNSET:-0}"), "0");
  EXPECT_EQ(value_of("${POD_ORDINAL:-0}"), "4");
  EXPECT_EQ(value_of("${EMPTY:-dflt}"), "dflt");
  EXPECT_EQ(value_of("x${EMPTY}y"), "xy");
  EXPECT_EQ(value_of("${DIR}/cosid-${POD_ORDINAL}"), "/data/cosid-4");
  EXPECT_EQ(value_of("\"${DIR}/s\""), "/data/s");
  EXPECT_EQ(value_of("'${DIR}'"), "/data");
  EXPECT_EQ(value_of("a$$b"), "a$b");
  EXPECT_EQ(value_of("$${DIR}"), "${DIR}");
  EXPECT_EQ(value_of("a$b"), "a$b");
  EXPECT_EQ(value_of("cost$"), "cost$");
  EXPECT_EQ(value_of("${UNSET:-}"), "");
  EXPECT_EQ(value_of("${UNSET:-a b}"), "a b");
}

TEST(ConfigFile, InterpolationErrors) {
  const FakeEnv env({{"SET", "1"}});
  std::string message = refused("cosid:\n  machine:\n    static:\n      slot: ${POD_ORDINAL}\n",
                                errc::unset_variable, 4, env);
  EXPECT_EQ(message,
            "cosid.yaml:4: cosid.machine.static.slot: ${POD_ORDINAL}: the variable POD_ORDINAL "
            "is not set: set it, or write ${POD_ORDINAL:-VALUE} to give a default");
  refused("cosid:\n  namespace: ${SET\n", errc::config_syntax, 2, env);
  refused("cosid:\n  namespace: a${\n", errc::config_syntax, 2, env);
  refused("cosid:\n  namespace: ${}\n", errc::config_syntax, 2, env);
  refused("cosid:\n  namespace: ${1A}\n", errc::config_syntax, 2, env);
  refused("cosid:\n  namespace: ${SET-x}\n", errc::config_syntax, 2, env);
  refused("cosid:\n  namespace: ${SET:=x}\n", errc::config_syntax, 2, env);
  refused("cosid:\n  namespace: ${A:-${SET}}\n", errc::config_syntax, 2, env);
}

TEST(Interpolate, ValuesAreNotScannedAgain) {
  const FakeEnv env({{"A", "${B}"}, {"B", "x"}});
  Status status;
  EXPECT_EQ(interpolate("${A}", env.lookup(), status), "${B}");
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(ConfigFile, RefusesAnOversizedText) {
  const std::string text = "cosid:\n" + std::string(kMaxConfigBytes, '#');
  Status status;
  EXPECT_TRUE(parse_config(text, "big.yaml", {}, status).empty());
  EXPECT_STATUS(status, errc::config_syntax);
  EXPECT_EQ(status.message().substr(0, 10), "big.yaml: ");
}

TEST(ConfigFile, ReadsAFile) {
  char path[] = "/tmp/cosid_config_test_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string text = "cosid:\n  namespace: from-file\n";
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fd);
  Status status;
  std::vector<ConfigEntry> entries = read_config_file(path, {}, status);
  EXPECT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].value, "from-file");
  ::unlink(path);

  EXPECT_TRUE(read_config_file(path, {}, status).empty());
  EXPECT_STATUS(status, errc::config_unreadable);
  EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("No such file"), std::string::npos) << status.message();
  EXPECT_TRUE(read_config_file("/tmp", {}, status).empty());
  EXPECT_STATUS(status, errc::config_unreadable);
}

// A FIFO would make the open wait for a writer (cli_test runs that case, with a hang guard); a
// directory and a device are refused the same way, by what they are, before any read.
TEST(ConfigFile, RefusesWhatIsNotARegularFile) {
  Status status;
  const TempDir temp("config_file_test");
  const std::string& dir = temp.path();
  ASSERT_FALSE(dir.empty());
  EXPECT_TRUE(read_config_file(dir, {}, status).empty());
  EXPECT_STATUS(status, errc::config_unreadable);
  EXPECT_EQ(status.message(),
            "config file " + dir +
                " is a directory, not a regular file: give the path of the config file "
                "itself with --config or COSID_CONFIG");
  // /dev/null reads as empty, which would pass for a config file without a key.
  EXPECT_TRUE(read_config_file("/dev/null", {}, status).empty());
  EXPECT_STATUS(status, errc::config_unreadable);
  EXPECT_EQ(status.message(),
            "config file /dev/null is a character device, not a regular file: give the path of "
            "the config file itself with --config or COSID_CONFIG");
}

}  // namespace
}  // namespace detail
}  // namespace cosid
