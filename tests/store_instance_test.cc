// SPDX-License-Identifier: Apache-2.0
// A store instance as a store's factory meets it: StoreSettings (the typed reads of the instance's
// keys, and the refusal of a key no read asked for), and StoreRegistry::open() resolving
// options.store_type to an instance of options.stores and its type's factory.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cosid/clock.h"
#include "cosid/lease/memory_store.h"
#include "cosid/options.h"
#include "cosid/store_registry.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace cosid {
namespace lease {
namespace {

using std::chrono::milliseconds;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

StoreConfig zk_instance(std::vector<StoreSetting> settings) {
  return StoreConfig{"zk", "zookeeper", std::move(settings)};
}

TEST(StoreSettingsTest, ReadsTheGivenKeysAndKeepsTheDefaultsOfTheOthers) {
  const StoreConfig config = zk_instance({{"options.connectString", "zk-1:2181", "file a.yaml:7"},
                                          {"timeout", "3s", "file a.yaml:5"},
                                          {"options.retry.maxRetries", "7", "file a.yaml:9"}});
  StoreSettings settings(&config);
  Status status(make_error_code(errc::invalid_value), "an earlier failure");
  std::string connect = "localhost:2181";
  ASSERT_TRUE(settings.read_text("options.connectString", 255, connect, status));
  EXPECT_OK(status);  // a reused Status is ok after a success
  EXPECT_EQ(connect, "zk-1:2181");
  milliseconds timeout{1000};
  ASSERT_TRUE(
      settings.read_duration("timeout", milliseconds(1), milliseconds(60000), timeout, status));
  EXPECT_EQ(timeout, milliseconds(3000));
  std::int64_t retries = 5;
  ASSERT_TRUE(settings.read_whole("options.retry.maxRetries", 0, 29, retries, status));
  EXPECT_EQ(retries, 7);
  milliseconds session{60000};  // not given: its default stays
  status = Status(make_error_code(errc::invalid_value), "an earlier failure");
  ASSERT_TRUE(settings.read_duration("options.sessionTimeout", milliseconds(1), milliseconds(1),
                                     session, status));
  EXPECT_OK(status);
  EXPECT_EQ(session, milliseconds(60000));
  EXPECT_TRUE(settings.finish(status));
  EXPECT_OK(status);
}

TEST(StoreSettingsTest, WithoutAnInstanceEveryReadKeepsItsDefault) {
  StoreSettings settings(nullptr);
  Status status;
  std::string text = "default";
  EXPECT_TRUE(settings.read_text("options.connectString", 10, text, status));
  EXPECT_EQ(text, "default");
  EXPECT_TRUE(settings.finish(status));
  EXPECT_OK(status);
}

TEST(StoreSettingsTest, ALaterSettingOfAKeyWins) {
  const StoreConfig config =
      zk_instance({{"timeout", "3s", "file a.yaml:5"}, {"timeout", "4s", "flag x"}});
  StoreSettings settings(&config);
  Status status;
  milliseconds timeout{0};
  ASSERT_TRUE(
      settings.read_duration("timeout", milliseconds(1), milliseconds(10000), timeout, status));
  EXPECT_EQ(timeout, milliseconds(4000));
}

TEST(StoreSettingsTest, RefusesAValueWithTheKeyTheValueItsOriginAndTheRule) {
  struct Case {
    const char* value;
    const char* kind;  // text, duration, whole
    const char* rule;
  };
  const Case cases[] = {
      {"", "text", "must be 1 to 4 bytes"},
      {"abcde", "text", "must be 1 to 4 bytes"},
      {"a\tb", "text", "must not hold control characters"},
      {"3x", "duration", "is not a duration: "},
      {"2h", "duration", "must be from 1ms to 1h"},
      {"0ms", "duration", "must be from 1ms to 1h"},
      {"11", "whole", "must be a whole number from 1 to 10"},
      {"0", "whole", "must be a whole number from 1 to 10"},
      {"-1", "whole", "must be a whole number from 1 to 10"},
      {"01", "whole", "must be a whole number from 1 to 10"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.kind) + " " + c.value);
    const StoreConfig config = zk_instance({{"options.x", c.value, "file a.yaml:8"}});
    StoreSettings settings(&config);
    Status status;
    std::string text = "kept";
    milliseconds duration{5};
    std::int64_t whole = 5;
    const std::string kind = c.kind;
    const bool read = kind == "text" ? settings.read_text("options.x", 4, text, status)
                      : kind == "duration"
                          ? settings.read_duration("options.x", milliseconds(1),
                                                   milliseconds(3600000), duration, status)
                          : settings.read_whole("options.x", 1, 10, whole, status);
    EXPECT_FALSE(read);
    EXPECT_STATUS(status, errc::invalid_value);
    // The value as messages quote it: a tab escaped.
    const std::string shown = kind == "text" && std::string(c.value) == "a\tb" ? "a\\tb" : c.value;
    EXPECT_TRUE(contains(status.message(),
                         "cosid.stores.zk.options.x = \"" + shown + "\" (file a.yaml:8) " + c.rule))
        << status.message();
    EXPECT_EQ(text, "kept");  // a refused value leaves the default
    EXPECT_EQ(duration, milliseconds(5));
    EXPECT_EQ(whole, 5);
  }
}

TEST(StoreSettingsTest, FinishRefusesAKeyNoReadAskedFor) {
  const StoreConfig config = zk_instance(
      {{"timeout", "3s", "file a.yaml:5"}, {"options.conectString", "zk:2181", "file a.yaml:7"}});
  StoreSettings settings(&config);
  Status status;
  milliseconds timeout{0};
  std::string connect;
  ASSERT_TRUE(
      settings.read_duration("timeout", milliseconds(1), milliseconds(10000), timeout, status));
  ASSERT_TRUE(settings.read_text("options.connectString", 255, connect, status));
  EXPECT_FALSE(settings.finish(status));
  EXPECT_STATUS(status, errc::config_unknown_key);
  EXPECT_EQ(status.message(),
            "cosid.stores.zk.options.conectString = \"zk:2181\" (file a.yaml:7) is not a key of a "
            "zookeeper store: it knows type, timeout, options.connectString");
}

// The refusal of StoreRegistry::open() for the store `options` select.
Status refused_open(StoreRegistry& registry, const Options& options) {
  ManualClock clock;
  Status status;
  EXPECT_EQ(registry.open(StoreContext{options, clock}, status), nullptr);
  return status;
}

// A factory that records what it was given, over one shared memory store.
struct RecordingFactory {
  ManualClock clock;
  std::shared_ptr<SlotLeaseStore> store = std::make_shared<MemoryLeaseStore>(clock);
  int calls = 0;
  const StoreConfig* config = nullptr;

  StoreFactory factory() {
    return [this](const StoreContext& context, Status& status) {
      ++calls;
      config = context.config;
      status.clear();
      return store;
    };
  }
};

TEST(StoreRegistryOpenTest, AnInstanceIsMadeByItsTypesFactoryWithItsConfig) {
  RecordingFactory kv;
  StoreRegistry registry;
  Status added;
  ASSERT_TRUE(registry.add("kv", kv.factory(), added)) << added.message();
  Options options;
  options.store_type = "orders-kv";
  options.stores = {{"other", "kv", {}}, {"orders-kv", "kv", {{"timeout", "3s", "flag x"}}}};
  ManualClock clock;
  Status status;
  EXPECT_EQ(registry.open(StoreContext{options, clock}, status), kv.store);
  EXPECT_OK(status);
  EXPECT_EQ(kv.calls, 1);
  EXPECT_EQ(kv.config, &options.stores[1]);
  // The type named directly: no instance.
  options.store_type = "kv";
  EXPECT_EQ(registry.open(StoreContext{options, clock}, status), kv.store);
  EXPECT_EQ(kv.calls, 2);
  EXPECT_EQ(kv.config, nullptr);
}

TEST(StoreRegistryOpenTest, AnInstanceNamedLikeARegisteredTypeMustBeOfThatType) {
  RecordingFactory kv;
  StoreRegistry registry;
  Status added;
  ASSERT_TRUE(registry.add("kv", kv.factory(), added)) << added.message();
  Options options;
  options.store_type = "file";
  options.stores = {{"file", "kv", {}}};
  const Status status = refused_open(registry, options);
  EXPECT_STATUS(status, errc::invalid_argument);
  EXPECT_TRUE(contains(status.message(),
                       "store instance cosid.stores.file has type \"kv\" but is named like the "
                       "registered store type \"file\""))
      << status.message();
  EXPECT_EQ(kv.calls, 0);
}

TEST(StoreRegistryOpenTest, AnInstanceOfAnUnregisteredTypeIsAnUnknownStoreType) {
  StoreRegistry registry;
  Options options;
  options.store_type = "zk";
  options.stores = {{"zk", "etcd", {}}};
  const Status status = refused_open(registry, options);
  EXPECT_STATUS(status, errc::unknown_store_type);
  EXPECT_TRUE(contains(status.message(),
                       "store instance cosid.stores.zk has type \"etcd\", which no lease store is "
                       "registered as: use one of memory, file"))
      << status.message();
}

TEST(StoreRegistryOpenTest, TheBuiltInStoresRefuseAnInstancesKeys) {
  const TempDir dir("store_instance");
  StoreRegistry registry;
  ManualClock clock;
  for (const char* type : {"memory", "file"}) {
    SCOPED_TRACE(type);
    Options options;
    options.store_type = "local";
    options.store_directory = dir.path();
    options.stores = {{"local", type, {}}};
    Status status;
    EXPECT_NE(registry.open(StoreContext{options, clock}, status), nullptr) << status.message();
    options.stores[0].settings = {{"directory", "/tmp", "file a.yaml:5"}};
    status = refused_open(registry, options);
    EXPECT_STATUS(status, errc::config_unknown_key);
    EXPECT_EQ(status.message(),
              "cosid.stores.local.directory = \"/tmp\" (file a.yaml:5) is not a "
              "key of a " +
                  std::string(type) + " store: it knows type");
  }
}

}  // namespace
}  // namespace lease
}  // namespace cosid
