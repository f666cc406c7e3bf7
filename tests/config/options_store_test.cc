// SPDX-License-Identifier: Apache-2.0
// Options of a slot leased from a store: the distributor keys from flags, variables and the config
// file, the refusals (a static slot and a store together, store keys without a store, ranges),
// the settings `cosid config check` prints, and to_config_text() round trips.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cosid/options.h"
#include "support/options_fixture.h"
#include "support/test_util.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using namespace testing_options;  // NOLINT: the fixture of every test here

// An instance's settings as (key, value, origin), to compare with what a test expects.
using SettingRows = std::vector<std::tuple<std::string, std::string, std::string>>;
SettingRows rows_of(const StoreConfig& config) {
  SettingRows rows;
  for (const StoreSetting& s : config.settings) rows.emplace_back(s.key, s.value, s.origin);
  return rows;
}

const char kZooKeeperInstance[] =
    "cosid:\n"
    "  stores:\n"
    "    zk:\n"
    "      type: zookeeper\n"
    "      timeout: 3s\n"
    "      options:\n"
    "        connectString: zk-1:2181,zk-2:2181,zk-3:2181\n"
    "        retry:\n"
    "          maxSleep: 500ms\n"
    "  machine:\n"
    "    distributor:\n"
    "      type: zk\n";

TEST(StoreOptions, StoreFlagSetsTypeAndDirectoryAndDefaultsApply) {
  Fixture f;
  f.flag("store", "file:/var/lib/cosid/leases");
  const Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_TRUE(r.options.uses_store());
  EXPECT_EQ(r.options.store_type, "file");
  EXPECT_EQ(r.options.store_directory, "/var/lib/cosid/leases");
  EXPECT_EQ(r.options.ttl, milliseconds(30000));
  EXPECT_EQ(r.options.tolerance, milliseconds(1000));
  EXPECT_EQ(r.options.owner_key, "");
  EXPECT_FALSE(r.options.preferred_slot.has_value());
  EXPECT_EQ(r.options.start_wait, milliseconds(31000));
  EXPECT_EQ(r.setting("cosid.machine.distributor.type").origin, "flag --store");
  EXPECT_EQ(r.setting("cosid.machine.distributor.file.directory").origin, "flag --store");
  EXPECT_EQ(r.setting("cosid.machine.static.slot").value, "");
  EXPECT_TRUE(
      contains(r.setting("cosid.machine.static.slot").origin, "leased from the file store"));
}

TEST(StoreOptions, EveryKeyFromFlagsVariablesAndTheConfigFile) {
  Fixture f;
  f.config(
      "cosid:\n  machine:\n    distributor:\n      type: memory\n      ttl: 10s\n"
      "      tolerance: 500ms\n      owner-key: from-file\n");
  f.env.set("COSID_OWNER_KEY", "orders-7");
  f.env.set("COSID_PREFERRED_SLOT", "7");
  f.flag("ttl", "3s");
  const Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.store_type, "memory");
  EXPECT_EQ(r.options.ttl, milliseconds(3000));
  EXPECT_EQ(r.options.tolerance, milliseconds(500));
  EXPECT_EQ(r.options.owner_key, "orders-7");
  ASSERT_TRUE(r.options.preferred_slot.has_value());
  EXPECT_EQ(*r.options.preferred_slot, 7u);
  EXPECT_EQ(r.setting("cosid.machine.distributor.ttl").origin, "flag --ttl");
  EXPECT_EQ(r.setting("cosid.machine.distributor.tolerance").origin, "file cosid.yaml:6");
  EXPECT_EQ(r.setting("cosid.machine.distributor.owner-key").origin, "env COSID_OWNER_KEY");
  EXPECT_EQ(r.setting("cosid.machine.distributor.preferred-slot").value, "7");
}

TEST(StoreOptions, AStaticSlotAndAStoreTogetherAreRefusedAsAmbiguous) {
  const char* const static_flags[][2] = {{"slot", "3"},
                                         {"slot-from-hostname", ""},
                                         {"state-file", "/var/lib/cosid/state"},
                                         {"ahead", "5s"},
                                         {"require-state-file", ""},
                                         // A leased slot's start waits for the store's ceiling:
                                         // borrowing ahead is a static slot's start mode.
                                         {"start", "borrow"}};
  for (const auto& flag : static_flags) {
    SCOPED_TRACE(flag[0]);
    Fixture f;
    f.flag("store", "file:/tmp/leases");
    f.flag(flag[0], flag[1]);
    const Result r = resolve(f);
    EXPECT_ERRC(r.ec, errc::invalid_value);
    EXPECT_TRUE(contains(r.message, "are ambiguous")) << r.message;
    EXPECT_TRUE(contains(r.message, "(flag --store)")) << r.message;
  }
  Fixture env;
  env.env.set("COSID_SLOT", "2");
  env.flag("store", "memory");
  const Result r = resolve(env);
  EXPECT_ERRC(r.ec, errc::invalid_value);
  EXPECT_TRUE(contains(r.message, "(env COSID_SLOT)")) << r.message;
}

TEST(StoreOptions, StoreKeysWithAStaticSlotAreRefused) {
  const char* const store_flags[][2] = {
      {"ttl", "10s"}, {"tolerance", "1s"}, {"owner-key", "a"}, {"preferred-slot", "1"}};
  for (const auto& flag : store_flags) {
    SCOPED_TRACE(flag[0]);
    Fixture f;
    f.flag("slot", "1");
    f.flag(flag[0], flag[1]);
    const Result r = resolve(f);
    EXPECT_ERRC(r.ec, errc::invalid_value);
    EXPECT_TRUE(contains(r.message, "only applies to a lease store")) << r.message;
  }
  Fixture f;
  f.flag("slot", "1");
  f.flag("store", "static:/tmp/x");
  EXPECT_ERRC(resolve(f).ec, errc::invalid_value);
}

TEST(StoreOptions, ValuesOutOfRangeAreRefusedWithTheRule) {
  struct Case {
    const char* flag;
    const char* value;
    errc code;
    const char* why;
  };
  const Case cases[] = {
      {"ttl", "299ms", errc::invalid_value, "ttl is from 300ms to 1h"},
      {"ttl", "2h", errc::invalid_value, "ttl is from 300ms to 1h"},
      {"ttl", "10", errc::invalid_value, "cosid.machine.distributor.ttl"},
      {"tolerance", "61m", errc::invalid_value, "tolerance is from 0ms to 1h"},
      {"owner-key", "a b", errc::invalid_value, "printable ASCII without spaces"},
      {"owner-key", "", errc::invalid_value, "1 to 255 bytes"},
      {"preferred-slot", "1024", errc::slot_out_of_range, "preferred-slot"},
      {"preferred-slot", "-1", errc::invalid_slot, "preferred-slot"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.flag) + "=" + c.value);
    Fixture f;
    f.flag("store", "memory");
    f.flag(c.flag, c.value);
    const Result r = resolve(f);
    EXPECT_ERRC(r.ec, c.code);
    EXPECT_TRUE(contains(r.message, c.why)) << r.message;
  }
}

TEST(StoreOptions, TypeAndDirectoryRules) {
  Fixture no_dir;
  no_dir.flag("store", "file");
  Result r = resolve(no_dir);
  EXPECT_ERRC(r.ec, errc::invalid_value);
  EXPECT_TRUE(contains(r.message, "needs a directory")) << r.message;

  Fixture memory_dir;
  memory_dir.flag("store", "memory");
  memory_dir.config(
      "cosid:\n  machine:\n    distributor:\n      file:\n        directory: /tmp/x\n");
  r = resolve(memory_dir);
  EXPECT_ERRC(r.ec, errc::invalid_value);
  EXPECT_TRUE(contains(r.message, "keeps no files")) << r.message;

  Fixture upper;
  upper.flag("store", "File");
  r = resolve(upper);
  EXPECT_ERRC(r.ec, errc::invalid_value);
  EXPECT_TRUE(contains(r.message, "not a distributor type")) << r.message;

  Fixture custom;  // any well-formed name: the registry decides at open
  custom.flag("store", "zookeeper");
  EXPECT_TRUE(resolve(custom).ok);

  Fixture seconds;  // a second-unit layout needs a longer ttl
  seconds.flag("store", "memory");
  seconds.flag("layout", "seconds");
  seconds.flag("ttl", "2s");
  r = resolve(seconds);
  EXPECT_ERRC(r.ec, errc::invalid_value);
  EXPECT_TRUE(contains(r.message, "give 3s or more")) << r.message;

  Fixture wide;  // a store leases at most 2^31 slots
  wide.flag("store", "memory");
  wide.flag("slot-bits", "32");
  wide.flag("timestamp-bits", "25");
  wide.flag("sequence-bits", "6");
  r = resolve(wide);
  EXPECT_ERRC(r.ec, errc::invalid_value);
  EXPECT_TRUE(contains(r.message, "2^31")) << r.message;
}

TEST(StoreOptions, ValidateOptionsChecksStoreFieldsBuiltInCode) {
  Options options;
  options.store_type = "file";
  Status status;
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_STATUS(status, errc::invalid_value);
  options.store_directory = "/tmp/leases";
  EXPECT_TRUE(validate_options(options, status)) << status.message();
  options.state_file = "/tmp/state";
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_TRUE(contains(status.message(), "state file")) << status.message();
  options.state_file.clear();
  options.tolerance = milliseconds(-1);
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_STATUS(status, errc::invalid_value);
  options.tolerance = milliseconds(1000);
  options.preferred_slot = 5000;
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_STATUS(status, errc::slot_out_of_range);
}

TEST(StoreOptions, ConfigTextRoundTripsAStore) {
  Fixture f;
  f.flag("store", "file:/var/lib/cosid/leases $x");
  f.flag("ttl", "90s");
  f.flag("tolerance", "0ms");
  f.flag("owner-key", "orders-\"7\"");
  f.flag("preferred-slot", "9");
  f.flag("namespace", "orders");
  const Result first = resolve(f);
  ASSERT_TRUE(first.ok) << first.message;
  Fixture again;
  again.config(to_config_text(first.options));
  const Result second = resolve(again);
  ASSERT_TRUE(second.ok) << second.message << "\n" << *again.sources.config_text;
  EXPECT_EQ(second.options.store_type, "file");
  EXPECT_EQ(second.options.store_directory, "/var/lib/cosid/leases $x");
  EXPECT_EQ(second.options.ttl, milliseconds(90000));
  EXPECT_EQ(second.options.tolerance, milliseconds(0));
  EXPECT_EQ(second.options.owner_key, "orders-\"7\"");
  EXPECT_EQ(second.options.preferred_slot, first.options.preferred_slot);
  EXPECT_EQ(second.options.namespace_name, "orders");
  EXPECT_EQ(second.options.start_wait, first.options.start_wait);
}

TEST(StoreOptions, ConfigTextOfAStaticSlotSaysStaticAndStillResolves) {
  Fixture f;
  f.flag("slot", "4");
  const Result first = resolve(f);
  ASSERT_TRUE(first.ok) << first.message;
  const std::string text = to_config_text(first.options);
  EXPECT_TRUE(contains(text, "    distributor:\n      type: \"static\"\n")) << text;
  EXPECT_FALSE(contains(text, "ttl")) << text;
  Fixture again;
  again.config(text);
  const Result second = resolve(again);
  ASSERT_TRUE(second.ok) << second.message;
  EXPECT_FALSE(second.options.uses_store());
  EXPECT_EQ(second.options.slot, 4u);
}

TEST(StoreOptions, SplitStoreFlag) {
  const auto split = [](const char* value) {
    std::vector<KeyValue> settings;
    Status status;
    EXPECT_TRUE(detail::split_store_flag(value, settings, status)) << status.message();
    return settings;
  };
  EXPECT_EQ(split("memory"), (std::vector<KeyValue>{{"cosid.machine.distributor.type", "memory"}}));
  EXPECT_EQ(split("file:/a:b"),
            (std::vector<KeyValue>{{"cosid.machine.distributor.type", "file"},
                                   {"cosid.machine.distributor.file.directory", "/a:b"}}));
  EXPECT_EQ(split("zookeeper:zk-1:2181,zk-2:2181/cosid"),
            (std::vector<KeyValue>{
                {"cosid.machine.distributor.type", "zookeeper"},
                {"cosid.stores.zookeeper.type", "zookeeper"},
                {"cosid.stores.zookeeper.options.connectString", "zk-1:2181,zk-2:2181/cosid"}}));
  EXPECT_EQ(split("zookeeper"),
            (std::vector<KeyValue>{{"cosid.machine.distributor.type", "zookeeper"}}));
}

TEST(StoreOptions, SplitStoreFlagRefusesATargetForAnyOtherStore) {
  for (const char* value : {"memory:/tmp/x", "kv:host:1", "static:/tmp/x", ":x", "zookeeper:"}) {
    SCOPED_TRACE(value);
    std::vector<KeyValue> settings{{"cosid.namespace", "kept"}};
    Status status;
    EXPECT_FALSE(detail::split_store_flag(value, settings, status));
    EXPECT_STATUS(status, errc::invalid_value);
    EXPECT_TRUE(contains(status.message(), std::string("cosid.machine.distributor.type = \"") +
                                               value + "\" (flag --store): "))
        << status.message();
    EXPECT_EQ(settings, (std::vector<KeyValue>{{"cosid.namespace", "kept"}}));
  }
  std::vector<KeyValue> settings;
  Status status;
  EXPECT_FALSE(detail::split_store_flag("kv:host:1", settings, status));
  EXPECT_TRUE(contains(status.message(),
                       "\"kv\" takes none on the command line: give --store kv and configure the "
                       "store in cosid.stores"))
      << status.message();
  EXPECT_FALSE(detail::split_store_flag("zookeeper:", settings, status));
  EXPECT_TRUE(contains(status.message(), "--store zookeeper alone for localhost:2181"))
      << status.message();
}

TEST(StoreInstances, ABlockBecomesTheInstanceTheDistributorSelects) {
  Fixture f;
  f.config(kZooKeeperInstance);
  const Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.store_type, "zk");
  ASSERT_EQ(r.options.stores.size(), 1u);
  EXPECT_EQ(r.options.stores[0].name, "zk");
  EXPECT_EQ(r.options.stores[0].type, "zookeeper");
  EXPECT_EQ(
      rows_of(r.options.stores[0]),
      (SettingRows{{"timeout", "3s", "file cosid.yaml:5"},
                   {"options.connectString", "zk-1:2181,zk-2:2181,zk-3:2181", "file cosid.yaml:7"},
                   {"options.retry.maxSleep", "500ms", "file cosid.yaml:9"}}));
  EXPECT_EQ(r.options.start_wait, milliseconds(31000));
  EXPECT_TRUE(contains(r.setting("cosid.machine.static.slot").origin, "leased from the zk store"));
  // `cosid config check` lists the instance's keys after the table's, as they were given.
  ASSERT_GE(r.settings.size(), 4u);
  const std::vector<Setting> last(r.settings.end() - 4, r.settings.end());
  const auto row = [](const Setting& s) { return std::make_tuple(s.key, s.value, s.origin); };
  EXPECT_EQ(row(last[0]),
            std::make_tuple("cosid.stores.zk.type", "zookeeper", "file cosid.yaml:4"));
  EXPECT_EQ(row(last[1]), std::make_tuple("cosid.stores.zk.timeout", "3s", "file cosid.yaml:5"));
  EXPECT_EQ(row(last[2]), std::make_tuple("cosid.stores.zk.options.connectString",
                                          "zk-1:2181,zk-2:2181,zk-3:2181", "file cosid.yaml:7"));
  EXPECT_EQ(row(last[3]), std::make_tuple("cosid.stores.zk.options.retry.maxSleep", "500ms",
                                          "file cosid.yaml:9"));
}

TEST(StoreInstances, AnInstanceTheDistributorDoesNotSelectIsRefused) {
  Fixture unused;  // the distributor is static by default
  unused.config("cosid:\n  stores:\n    zk:\n      type: zookeeper\n");
  unused.flag("slot", "1");
  std::string message = refused(unused, errc::invalid_value);
  EXPECT_TRUE(
      contains(message,
               "cosid.stores.zk.type = \"zookeeper\" (file cosid.yaml:4) has no effect: the "
               "store instance zk is not the distributor (cosid.machine.distributor.type "
               "= \"static\" (default)): select it with \"type: zk\" under "
               "cosid.machine.distributor (or --store zk), or drop its block"))
      << message;
  Fixture other;  // a flag selects another store
  other.config(kZooKeeperInstance);
  other.flag("store", "memory");
  message = refused(other, errc::invalid_value);
  EXPECT_TRUE(contains(message, "(cosid.machine.distributor.type = \"memory\" (flag --store))"))
      << message;
  Fixture two;  // only one instance can be selected
  two.config(std::string(kZooKeeperInstance) + "  stores2:\n");
  EXPECT_ERRC(resolve(two).ec, errc::config_unknown_key);
  Fixture second;
  second.config(
      "cosid:\n  stores:\n    a:\n      type: kv\n    b:\n      type: kv\n  machine:\n"
      "    distributor:\n      type: a\n");
  message = refused(second, errc::invalid_value);
  EXPECT_TRUE(contains(message, "cosid.stores.b.type = \"kv\" (file cosid.yaml:6) has no effect"))
      << message;
}

TEST(StoreInstances, TheTypeMustNameAStoreType) {
  for (const char* type : {"static", "Zoo", "\"\""}) {
    SCOPED_TRACE(type);
    Fixture f;
    f.config(std::string("cosid:\n  stores:\n    zk:\n      type: ") + type +
             "\n  machine:\n    distributor:\n      type: zk\n");
    const std::string message = refused(f, errc::invalid_value);
    EXPECT_TRUE(contains(message, "cosid.stores.zk.type = ")) << message;
    EXPECT_TRUE(contains(message, "(file cosid.yaml:4): not a store type")) << message;
  }
}

TEST(StoreInstances, KeysGivenAsFlagsAreCheckedAndNeedAType) {
  Fixture untyped;
  untyped.sources.flags = {{"cosid.machine.distributor.type", "kv"},
                           {"cosid.stores.kv.timeout", "1s"}};
  std::string message = refused(untyped, errc::invalid_value);
  EXPECT_TRUE(contains(message,
                       "cosid.stores.kv.timeout = \"1s\" (flag cosid.stores.kv.timeout) is a key "
                       "of the store instance cosid.stores.kv, which has no type: give "
                       "cosid.stores.kv.type"))
      << message;
  const char* const bad[][2] = {{"cosid.stores.Kv.type", "is not a store instance's name"},
                                {"cosid.stores.kv", "not a key of a store instance"},
                                {"cosid.stores.kv.a..b", "not a key of a store instance"},
                                {"cosid.stores.kv.type.x", "it has no keys below it"}};
  for (const auto& key : bad) {
    SCOPED_TRACE(key[0]);
    Fixture f;
    f.sources.flags = {{"cosid.stores.kv.type", "kv"}, {key[0], "v"}};
    message = refused(f, errc::invalid_value);
    EXPECT_TRUE(contains(message, std::string(key[0]) + " = \"v\" (flag " + key[0] + "): "))
        << message;
    EXPECT_TRUE(contains(message, key[1])) << message;
  }
  Fixture both;  // one key a value and a block
  both.sources.flags = {{"cosid.machine.distributor.type", "kv"},
                        {"cosid.stores.kv.type", "kv"},
                        {"cosid.stores.kv.options.a", "1"},
                        {"cosid.stores.kv.options", "2"}};
  message = refused(both, errc::invalid_value);
  EXPECT_TRUE(contains(message, "make one key both a value and a block")) << message;
  Fixture unknown;
  unknown.sources.flags = {{"cosid.store.kv.type", "kv"}};
  message = refused(unknown, errc::config_unknown_key);
  EXPECT_TRUE(contains(message, "cosid.stores.NAME.KEY of a store instance")) << message;
}

TEST(StoreInstances, StoreFlagZooKeeperMakesTheInstanceZookeeper) {
  Fixture f;
  f.flag("store", "zookeeper:zk-1:2181,zk-2:2181/apps");
  const Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.store_type, "zookeeper");
  ASSERT_EQ(r.options.stores.size(), 1u);
  EXPECT_EQ(r.options.stores[0].name, "zookeeper");
  EXPECT_EQ(r.options.stores[0].type, "zookeeper");
  EXPECT_EQ(rows_of(r.options.stores[0]),
            (SettingRows{{"options.connectString", "zk-1:2181,zk-2:2181/apps", "flag --store"}}));
  EXPECT_EQ(r.setting("cosid.machine.distributor.type").origin, "flag --store");
  EXPECT_EQ(r.setting("cosid.stores.zookeeper.type").origin, "flag --store");
  EXPECT_EQ(r.setting("cosid.stores.zookeeper.options.connectString").value,
            "zk-1:2181,zk-2:2181/apps");

  Fixture plain;  // no ':': the type alone, with the store's defaults
  plain.flag("store", "zookeeper");
  const Result defaults = resolve(plain);
  ASSERT_TRUE(defaults.ok) << defaults.message;
  EXPECT_EQ(defaults.options.store_type, "zookeeper");
  EXPECT_TRUE(defaults.options.stores.empty());

  Fixture other;
  other.flag("store", "kv:x");
  const std::string message = refused(other, errc::invalid_value);
  EXPECT_TRUE(contains(message, "takes none on the command line")) << message;
}

// The instance --store zookeeper:CONNECT makes, in a config file, without a connect string.
const char kFileZooKeeperInstance[] =
    "cosid:\n"
    "  stores:\n"
    "    zookeeper:\n"
    "      type: zookeeper\n"
    "      options:\n"
    "        sessionTimeout: 30s\n"
    "      timeout: 3s\n"
    "  machine:\n"
    "    distributor:\n"
    "      type: zookeeper\n";

TEST(StoreInstances, TheFlagsKeysReplaceAFileInstancesKeyByKey) {
  Fixture f;
  f.config(kFileZooKeeperInstance);
  f.flag("store", "zookeeper:zk-9:2181");
  Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  ASSERT_EQ(r.options.stores.size(), 1u);
  // Added to the block it belongs to, so that the instance can be written back as a file.
  EXPECT_EQ(rows_of(r.options.stores[0]),
            (SettingRows{{"options.sessionTimeout", "30s", "file cosid.yaml:6"},
                         {"options.connectString", "zk-9:2181", "flag --store"},
                         {"timeout", "3s", "file cosid.yaml:7"}}));
  EXPECT_EQ(r.setting("cosid.stores.zookeeper.type").origin, "flag --store");

  Fixture replaced;  // the same key from the file and the flag: the flag's
  replaced.config(
      "cosid:\n  stores:\n    zookeeper:\n      type: zookeeper\n      options:\n"
      "        connectString: old:2181\n");
  replaced.flag("store", "zookeeper:new:2181");
  r = resolve(replaced);
  ASSERT_TRUE(r.ok) << r.message;
  ASSERT_EQ(r.options.stores.size(), 1u);
  EXPECT_EQ(rows_of(r.options.stores[0]),
            (SettingRows{{"options.connectString", "new:2181", "flag --store"}}));
}

TEST(StoreInstances, AFileOrMemoryInstanceKeepsTheDirectoryRules) {
  const std::string instance =
      "cosid:\n  stores:\n    local:\n      type: file\n  machine:\n    distributor:\n"
      "      type: local\n";
  Fixture no_dir;
  no_dir.config(instance);
  std::string message = refused(no_dir, errc::invalid_value);
  EXPECT_TRUE(contains(message, "(a store instance of type file) needs a directory")) << message;
  Fixture dir;
  dir.config(instance + "      file:\n        directory: /tmp/leases\n");
  const Result r = resolve(dir);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.store_directory, "/tmp/leases");
  Fixture memory;
  memory.config(
      "cosid:\n  stores:\n    mem:\n      type: memory\n  machine:\n    distributor:\n"
      "      type: mem\n      file:\n        directory: /tmp/leases\n");
  message = refused(memory, errc::invalid_value);
  EXPECT_TRUE(contains(message, "keeps no files")) << message;
}

TEST(StoreInstances, ConfigTextRoundTripsAnInstance) {
  Fixture f;
  f.config(kFileZooKeeperInstance);
  f.flag("store", "zookeeper:zk-1:2181/$HOME \"q\" #c");
  const Result first = resolve(f);
  ASSERT_TRUE(first.ok) << first.message;
  const std::string text = to_config_text(first.options);
  EXPECT_TRUE(contains(text,
                       "  stores:\n"
                       "    zookeeper:\n"
                       "      type: \"zookeeper\"\n"
                       "      options:\n"
                       "        sessionTimeout: \"30s\"\n"
                       "        connectString: \"zk-1:2181/$$HOME \\\"q\\\" #c\"\n"
                       "      timeout: \"3s\"\n"))
      << text;
  const auto key_values = [](const StoreConfig& config) {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const StoreSetting& s : config.settings) pairs.emplace_back(s.key, s.value);
    return pairs;
  };
  const auto resolved_again = [](const Options& options) {
    Fixture again;
    again.config(to_config_text(options));
    const Result second = resolve(again);
    EXPECT_TRUE(second.ok) << second.message << "\n" << *again.sources.config_text;
    EXPECT_EQ(second.options.store_type, options.store_type);
    EXPECT_EQ(second.options.stores.size(), 1u);
    return second.options.stores.empty() ? StoreConfig() : second.options.stores[0];
  };
  const StoreConfig second = resolved_again(first.options);
  EXPECT_EQ(second.name, "zookeeper");
  EXPECT_EQ(second.type, "zookeeper");
  EXPECT_EQ(key_values(second), (std::vector<std::pair<std::string, std::string>>{
                                    {"options.sessionTimeout", "30s"},
                                    {"options.connectString", "zk-1:2181/$HOME \"q\" #c"},
                                    {"timeout", "3s"}}));
  // Settings of Options built in code are grouped by block as they are written.
  Options code = first.options;
  code.stores[0].settings = {{"options.a", "1", "in code"},
                             {"timeout", "2s", "in code"},
                             {"options.retry.maxSleep", "1s", "in code"},
                             {"options.b", "3", "in code"}};
  EXPECT_EQ(key_values(resolved_again(code)),
            (std::vector<std::pair<std::string, std::string>>{{"options.a", "1"},
                                                              {"options.retry.maxSleep", "1s"},
                                                              {"options.b", "3"},
                                                              {"timeout", "2s"}}));
}

TEST(StoreInstances, ValidateOptionsChecksInstancesBuiltInCode) {
  Options options;
  options.store_type = "zk";
  options.stores = {{"zk", "zookeeper", {{"timeout", "3s", "in code"}}}};
  Status status;
  EXPECT_TRUE(validate_options(options, status)) << status.message();
  options.stores[0].name = "Zk";
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_STATUS(status, errc::invalid_value);
  EXPECT_TRUE(contains(status.message(), "instance named \"Zk\"")) << status.message();
  options.stores[0].name = "zk";
  options.stores[0].type = "static";
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_TRUE(contains(status.message(), "not a store type")) << status.message();
  options.stores[0].type = "zookeeper";
  options.stores[0].settings.push_back({"type", "kv", "in code"});
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_TRUE(contains(status.message(), "StoreConfig::type")) << status.message();
  options.stores[0].settings.pop_back();
  options.stores.push_back({"local", "file", {}});
  options.store_type = "local";
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_TRUE(contains(status.message(), "a file store, but Options::store_directory is empty"))
      << status.message();
}

}  // namespace
}  // namespace cosid
