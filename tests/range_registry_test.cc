// SPDX-License-Identifier: Apache-2.0
// Range stores in the StoreRegistry (cosid/store_registry.h): add_range() by the rules of add(),
// open_range() resolving cosid.segment.distributor.type to a registered range store or an instance
// of cosid.stores, and the built-in memory and file range stores.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cosid/clock.h"
#include "cosid/segment/memory_range_store.h"
#include "cosid/segment/options.h"
#include "cosid/store_registry.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace cosid {
namespace lease {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A range factory that records what it was given, over one shared memory store.
struct RecordingRangeFactory {
  std::shared_ptr<segment::RangeStore> store = std::make_shared<segment::MemoryRangeStore>();
  int calls = 0;
  const StoreConfig* config = nullptr;

  RangeStoreFactory factory() {
    return [this](const RangeStoreContext& context, Status& status) {
      ++calls;
      config = context.config;
      status.clear();
      return store;
    };
  }
};

segment::SegmentOptions options_of(const std::string& type) {
  segment::SegmentOptions options;
  options.store_type = type;
  return options;
}

// The refusal of StoreRegistry::open_range() for the store `options` select.
Status refused_open(StoreRegistry& registry, const segment::SegmentOptions& options) {
  Status status;
  EXPECT_EQ(registry.open_range(RangeStoreContext{options}, status), nullptr);
  return status;
}

TEST(RangeRegistryTest, MemoryIsOneStorePerRegistry) {
  StoreRegistry registry;
  const segment::SegmentOptions options = options_of("memory");
  Status status(make_error_code(errc::invalid_value), "an earlier failure");
  const std::shared_ptr<segment::RangeStore> first =
      registry.open_range(RangeStoreContext{options}, status);
  ASSERT_NE(first, nullptr) << status.message();
  EXPECT_OK(status);
  EXPECT_EQ(registry.open_range(RangeStoreContext{options}, status), first);
  // A value claimed through one is seen through the other: they are one store.
  segment::Range range;
  ASSERT_TRUE(first->claim(segment::RangeRequest{"orders", 0, 10}, range, status));
  segment::RangeState state;
  ASSERT_TRUE(
      registry.open_range(RangeStoreContext{options}, status)->read("orders", state, status));
  EXPECT_TRUE(state.exists);
  EXPECT_EQ(state.next, 11);
  // Another registry has a store of its own.
  StoreRegistry other;
  EXPECT_NE(other.open_range(RangeStoreContext{options}, status), first);
}

TEST(RangeRegistryTest, NoTypeConfiguredNamesTheKeyAndTheFlag) {
  StoreRegistry registry;
  const Status status = refused_open(registry, options_of(""));
  EXPECT_STATUS(status, errc::invalid_argument);
  EXPECT_TRUE(contains(status.message(), "cosid.segment.distributor.type")) << status.message();
  EXPECT_TRUE(contains(status.message(), "--store")) << status.message();
}

TEST(RangeRegistryTest, AnUnregisteredTypeListsTheRangeStores) {
  StoreRegistry registry;
  RecordingRangeFactory kv;
  Status added;
  ASSERT_TRUE(registry.add_range("kv", kv.factory(), added)) << added.message();
  const Status status = refused_open(registry, options_of("etcd"));
  EXPECT_STATUS(status, errc::unknown_store_type);
  EXPECT_TRUE(contains(status.message(),
                       "no range store is registered as \"etcd\" (cosid.segment.distributor.type), "
                       "and no store instance of cosid.stores has that name: use one of memory, "
                       "file, kv, or register the range store with StoreRegistry::add_range"))
      << status.message();
}

TEST(RangeRegistryTest, ALeaseStoreTypeIsNotARangeStoreType) {
  // add() registers a lease store only: the type has no range store until add_range().
  StoreRegistry registry;
  Status added;
  ASSERT_TRUE(registry.add(
      "kv",
      [](const StoreContext&, Status& status) {
        status.clear();
        return std::shared_ptr<SlotLeaseStore>();
      },
      added))
      << added.message();
  EXPECT_STATUS(refused_open(registry, options_of("kv")), errc::unknown_store_type);
  RecordingRangeFactory kv;
  ASSERT_TRUE(registry.add_range("kv", kv.factory(), added)) << added.message();
  Status status;
  EXPECT_EQ(registry.open_range(RangeStoreContext{options_of("kv")}, status), kv.store);
  EXPECT_EQ(kv.calls, 1);
}

TEST(RangeRegistryTest, AddRangeRefusesWhatAddRefuses) {
  StoreRegistry registry;
  RecordingRangeFactory kv;
  const auto refused = [&registry](const std::string& type, RangeStoreFactory factory) {
    Status status;
    EXPECT_FALSE(registry.add_range(type, std::move(factory), status)) << type;
    EXPECT_STATUS(status, errc::invalid_argument);
    return status.message();
  };
  EXPECT_TRUE(contains(refused("static", kv.factory()), "\"static\" is the configured slot"));
  EXPECT_TRUE(contains(refused("Orders", kv.factory()),
                       "range store type \"Orders\" is not a name: use lower-case letters"));
  EXPECT_TRUE(contains(refused(std::string(65, 'a'), kv.factory()), "is not a name"));
  EXPECT_TRUE(contains(refused("memory", kv.factory()),
                       "a range store is registered as \"memory\" already"));
  EXPECT_TRUE(contains(refused("kv", RangeStoreFactory()),
                       "the factory for range store type \"kv\" is empty"));
  EXPECT_FALSE(registry.contains("kv"));  // nothing was registered by the refusals
}

TEST(RangeRegistryTest, AnInstanceIsMadeByItsTypesFactoryWithItsConfig) {
  StoreRegistry registry;
  RecordingRangeFactory kv;
  Status added;
  ASSERT_TRUE(registry.add_range("kv", kv.factory(), added)) << added.message();
  segment::SegmentOptions options = options_of("orders-kv");
  options.stores = {{"other", "kv", {}}, {"orders-kv", "kv", {{"timeout", "3s", "flag x"}}}};
  Status status;
  EXPECT_EQ(registry.open_range(RangeStoreContext{options}, status), kv.store);
  EXPECT_OK(status);
  EXPECT_EQ(kv.calls, 1);
  EXPECT_EQ(kv.config, &options.stores[1]);
  options.store_type = "kv";  // the type named directly: no instance
  EXPECT_EQ(registry.open_range(RangeStoreContext{options}, status), kv.store);
  EXPECT_EQ(kv.calls, 2);
  EXPECT_EQ(kv.config, nullptr);
}

TEST(RangeRegistryTest, AnInstanceNamedLikeARegisteredTypeMustBeOfThatType) {
  StoreRegistry registry;
  RecordingRangeFactory kv;
  Status added;
  ASSERT_TRUE(registry.add_range("kv", kv.factory(), added)) << added.message();
  segment::SegmentOptions options = options_of("memory");
  options.stores = {{"memory", "kv", {}}};
  const Status status = refused_open(registry, options);
  EXPECT_STATUS(status, errc::invalid_argument);
  EXPECT_TRUE(contains(status.message(),
                       "store instance cosid.stores.memory has type \"kv\" but is named like the "
                       "registered store type \"memory\""))
      << status.message();
  EXPECT_EQ(kv.calls, 0);
}

TEST(RangeRegistryTest, AnInstanceOfAnUnregisteredTypeIsAnUnknownStoreType) {
  StoreRegistry registry;
  segment::SegmentOptions options = options_of("zk");
  options.stores = {{"zk", "etcd", {}}};
  const Status status = refused_open(registry, options);
  EXPECT_STATUS(status, errc::unknown_store_type);
  EXPECT_TRUE(contains(status.message(),
                       "store instance cosid.stores.zk has type \"etcd\", which no range store is "
                       "registered as: use one of memory"))
      << status.message();
}

TEST(RangeRegistryTest, AFactoryThatReturnsNothingAndNoErrorIsStoreUnavailable) {
  StoreRegistry registry;
  Status added;
  ASSERT_TRUE(registry.add_range(
      "kv",
      [](const RangeStoreContext&, Status& status) {
        status.clear();
        return std::shared_ptr<segment::RangeStore>();
      },
      added))
      << added.message();
  const Status status = refused_open(registry, options_of("kv"));
  EXPECT_STATUS(status, errc::store_unavailable);
  EXPECT_TRUE(
      contains(status.message(), "the factory of range store type \"kv\" returned no store"))
      << status.message();
}

TEST(RangeRegistryTest, TheBuiltInStoresRefuseAnInstancesKeys) {
  const TempDir dir("range_registry");
  StoreRegistry registry;
  for (const char* type : {"memory", "file"}) {
    SCOPED_TRACE(type);
    segment::SegmentOptions options = options_of("local");
    options.store_directory = dir.path();
    options.stores = {{"local", type, {}}};
    Status status;
    EXPECT_NE(registry.open_range(RangeStoreContext{options}, status), nullptr) << status.message();
    options.stores[0].settings = {{"directory", "/tmp", "file a.yaml:5"}};
    status = refused_open(registry, options);
    EXPECT_STATUS(status, errc::config_unknown_key);
    EXPECT_EQ(status.message(),
              "cosid.stores.local.directory = \"/tmp\" (file a.yaml:5) is not a "
              "key of a " +
                  std::string(type) + " store: it knows type");
  }
}

TEST(RangeRegistryTest, FileIsAFileRangeStoreInTheDirectory) {
  const TempDir dir("range_registry");
  StoreRegistry registry;
  segment::SegmentOptions options = options_of("file");
  options.store_directory = dir.path() + "/ranges";
  Status status;
  // Not made by opening it: the registry's init makes it, one directory for leases and ranges.
  EXPECT_EQ(registry.open_range(RangeStoreContext{options}, status), nullptr);
  EXPECT_STATUS(status, errc::store_not_initialized);
  Options init_options;
  init_options.store_type = "file";
  init_options.store_directory = options.store_directory;
  SystemClock clock;
  StoreInitReport report;
  ASSERT_TRUE(registry.init(StoreContext{init_options, clock}, report, status)) << status.message();
  EXPECT_EQ(report.store, "file store " + options.store_directory);
  EXPECT_EQ(report.created, std::vector<std::string>{options.store_directory});
  const std::shared_ptr<segment::RangeStore> first =
      registry.open_range(RangeStoreContext{options}, status);
  ASSERT_NE(first, nullptr) << status.message();
  segment::Range range;
  ASSERT_TRUE(first->claim(segment::RangeRequest{"orders", 0, 10}, range, status))
      << status.message();
  // A store of another registry (another process would open one) on the directory sees the claim.
  StoreRegistry other;
  const std::shared_ptr<segment::RangeStore> second =
      other.open_range(RangeStoreContext{options}, status);
  ASSERT_NE(second, nullptr) << status.message();
  EXPECT_NE(second, first);
  segment::RangeState state;
  ASSERT_TRUE(second->read("orders", state, status)) << status.message();
  EXPECT_TRUE(state.exists);
  EXPECT_EQ(state.next, 11);
}

TEST(RangeRegistryTest, FileWithoutADirectoryNamesTheKeyAndTheFlag) {
  StoreRegistry registry;
  const Status status = refused_open(registry, options_of("file"));
  EXPECT_STATUS(status, errc::invalid_argument);
  EXPECT_TRUE(contains(status.message(), "cosid.segment.distributor.file.directory"))
      << status.message();
  EXPECT_TRUE(contains(status.message(), "--store file:DIR")) << status.message();
}

// init() resolves the type as open() does: an instance's type (its initializer given the
// instance), a registered name, and refuses a type without an initializer, and memory.
TEST(RangeRegistryTest, InitResolvesTheStoreAsOpenDoes) {
  StoreRegistry registry;
  int calls = 0;
  const StoreConfig* seen = nullptr;
  Status status;
  ASSERT_TRUE(registry.add_initializer(
      "kv",
      [&](const StoreContext& context, StoreInitReport& report, Status& s) {
        ++calls;
        seen = context.config;
        report.store = "kv store";
        report.created = {"/kv"};
        s.clear();
        return true;
      },
      status))
      << status.message();
  EXPECT_FALSE(registry.add_initializer(
      "kv", [](const StoreContext&, StoreInitReport&, Status&) { return true; }, status));
  EXPECT_STATUS(status, errc::invalid_argument);
  EXPECT_TRUE(contains(status.message(), "a store initializer is registered as \"kv\" already"))
      << status.message();
  Options options;
  options.store_type = "mine";
  options.stores = {{"mine", "kv", {}}};
  SystemClock clock;
  StoreInitReport report;
  ASSERT_TRUE(registry.init(StoreContext{options, clock}, report, status)) << status.message();
  EXPECT_EQ(calls, 1);
  ASSERT_NE(seen, nullptr);
  EXPECT_EQ(seen->name, "mine");
  EXPECT_EQ(report.created, std::vector<std::string>{"/kv"});

  options.store_type = "etcd";
  options.stores.clear();
  EXPECT_FALSE(registry.init(StoreContext{options, clock}, report, status));
  EXPECT_STATUS(status, errc::unknown_store_type);
  EXPECT_TRUE(contains(status.message(), "no store initializer is registered as \"etcd\""))
      << status.message();
  options.store_type = "memory";
  EXPECT_FALSE(registry.init(StoreContext{options, clock}, report, status));
  EXPECT_STATUS(status, errc::invalid_argument);
  EXPECT_TRUE(contains(status.message(), "nothing to create")) << status.message();
  options.store_type = "file";
  EXPECT_FALSE(registry.init(StoreContext{options, clock}, report, status));
  EXPECT_STATUS(status, errc::invalid_argument);
  EXPECT_TRUE(contains(status.message(), "the file store needs a directory")) << status.message();
}

}  // namespace
}  // namespace lease
}  // namespace cosid
