// Options of a slot leased from a store: the distributor keys from flags, variables and the config
// file, the refusals (a static slot and a store together, store keys without a store, ranges),
// the settings `cosid config check` prints, and to_config_text() round trips.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "cosid/options.h"
#include "options_fixture.h"
#include "test_util.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using namespace testing_options;  // NOLINT: the fixture of every test here

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
                                         {"require-state-file", ""}};
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
  memory_dir.flag("store", "memory:/tmp/x");
  r = resolve(memory_dir);
  EXPECT_ERRC(r.ec, errc::invalid_value);
  EXPECT_TRUE(contains(r.message, "keeps no files")) << r.message;

  Fixture upper;
  upper.flag("store", "File:/tmp/x");
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
  EXPECT_EQ(detail::split_store_flag("memory"),
            (std::vector<KeyValue>{{"cosid.machine.distributor.type", "memory"}}));
  EXPECT_EQ(detail::split_store_flag("file:/a:b"),
            (std::vector<KeyValue>{{"cosid.machine.distributor.type", "file"},
                                   {"cosid.machine.distributor.file.directory", "/a:b"}}));
}

}  // namespace
}  // namespace cosid
