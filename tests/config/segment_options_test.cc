// SPDX-License-Identifier: Apache-2.0
// Segment options (segment/options.h): the cosid.segment block from flags and the config file,
// every key and its refusals, precedence, store instances the segment distributor names, and the
// Runtime's options left as they were by a segment block.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config_keys.h"
#include "cosid/options.h"
#include "cosid/segment/options.h"
#include "support/options_fixture.h"
#include "support/test_util.h"

namespace cosid {
namespace {

using namespace testing_options;  // NOLINT: the fixture of every test here
using segment::KeyDefinition;
using segment::SegmentOptions;

using SegmentResult = ResultOf<SegmentOptions>;

SegmentResult resolve_segment(const Fixture& f) {
  SegmentResult r;
  Status status = f.store_flag;
  if (status.ok()) r.options = segment::resolve_segment_options(f.sources, r.settings, status);
  r.ok = status.ok();
  r.ec = status.code();
  r.message = status.message();
  return r;
}

// The message of a refused segment resolution, which must have failed with `code`.
std::string refused_segment(const Fixture& f, errc code) {
  const SegmentResult r = resolve_segment(f);
  EXPECT_ERRC(r.ec, code) << r.message;
  EXPECT_FALSE(r.message.empty());
  return r.message;
}

// A segment flag as `cosid segment` passes it: --store split into the segment keys, the others as
// canonical keys.
void segment_flag(Fixture& f, const std::string& key, const std::string& value) {
  if (key == "store") {
    (void)detail::split_store_flag(value, f.sources.flags, f.store_flag, detail::kSegmentStoreFlag);
    return;
  }
  f.sources.flags.emplace_back(key, value);
}

bool same(const KeyDefinition& a, const KeyDefinition& b) {
  return a.offset == b.offset && a.step == b.step;
}

const char kEveryKey[] =
    "cosid:\n"
    "  segment:\n"
    "    distributor:\n"
    "      type: file\n"
    "      file:\n"
    "        directory: /var/lib/cosid/ranges\n"
    "    share:\n"
    "      offset: 1000\n"
    "      step: 50\n"
    "    provider:\n"
    "      orders:\n"
    "        offset: 7\n"
    "        step: 500\n"
    "      codes:\n"
    "        step: 20\n"
    "    chain:\n"
    "      safe-distance: 4\n";

TEST(SegmentOptions, NothingGivenIsTheDefaultsAndNoStore) {
  Fixture f;  // no slot either: segment ids need none
  Status status(make_error_code(errc::invalid_value), "an earlier failure");
  const SegmentOptions options = segment::resolve_segment_options(f.sources, status);
  EXPECT_OK(status);
  EXPECT_EQ(options.store_type, "");
  EXPECT_EQ(options.store_directory, "");
  EXPECT_TRUE(options.stores.empty());
  EXPECT_TRUE(same(options.share, KeyDefinition{0, 100}));
  EXPECT_TRUE(options.providers.empty());
  EXPECT_EQ(options.safe_distance, 2u);
  EXPECT_TRUE(same(options.definition_of("orders"), KeyDefinition{0, 100}));
}

TEST(SegmentOptions, EveryKeyFromTheConfigFile) {
  Fixture f;
  f.config(kEveryKey);
  const SegmentResult r = resolve_segment(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.store_type, "file");
  EXPECT_EQ(r.options.store_directory, "/var/lib/cosid/ranges");
  EXPECT_TRUE(same(r.options.share, KeyDefinition{1000, 50}));
  EXPECT_EQ(r.options.safe_distance, 4u);
  ASSERT_EQ(r.options.providers.size(), 2u);
  EXPECT_TRUE(same(r.options.definition_of("orders"), KeyDefinition{7, 500}));
  // A provider entry without an offset takes the shared one.
  EXPECT_TRUE(same(r.options.definition_of("codes"), KeyDefinition{1000, 20}));
  EXPECT_TRUE(same(r.options.definition_of("other"), KeyDefinition{1000, 50}));
  // The settings, one per key, with where each came from.
  EXPECT_EQ(r.setting("cosid.segment.distributor.type").value, "file");
  EXPECT_EQ(r.setting("cosid.segment.distributor.type").origin, "file cosid.yaml:4");
  EXPECT_EQ(r.setting("cosid.segment.distributor.file.directory").origin, "file cosid.yaml:6");
  EXPECT_EQ(r.setting("cosid.segment.share.step").value, "50");
  EXPECT_EQ(r.setting("cosid.segment.chain.safe-distance").origin, "file cosid.yaml:17");
  EXPECT_EQ(r.setting("cosid.segment.provider.orders.step").origin, "file cosid.yaml:13");
  EXPECT_EQ(r.setting("cosid.segment.provider.codes.offset").value, "1000");
  EXPECT_EQ(r.setting("cosid.segment.provider.codes.offset").origin,
            "share: cosid.segment.share.offset");
}

TEST(SegmentOptions, EveryKeyFromFlags) {
  Fixture f;
  segment_flag(f, "store", "file:/tmp/ranges");
  segment_flag(f, "cosid.segment.share.offset", "10");
  segment_flag(f, "cosid.segment.share.step", "30");
  segment_flag(f, "cosid.segment.chain.safe-distance", "3");
  // A flag's key may hold dots, which a config file's block names cannot.
  segment_flag(f, "cosid.segment.provider.orders.2026.step", "1000");
  segment_flag(f, "cosid.segment.provider.orders.2026.offset", "5");
  const SegmentResult r = resolve_segment(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.store_type, "file");
  EXPECT_EQ(r.options.store_directory, "/tmp/ranges");
  EXPECT_TRUE(same(r.options.share, KeyDefinition{10, 30}));
  EXPECT_EQ(r.options.safe_distance, 3u);
  EXPECT_TRUE(same(r.options.definition_of("orders.2026"), KeyDefinition{5, 1000}));
  EXPECT_EQ(r.setting("cosid.segment.distributor.type").origin, "flag --store");
  EXPECT_EQ(r.setting("cosid.segment.distributor.file.directory").origin, "flag --store");
  EXPECT_EQ(r.setting("cosid.segment.provider.orders.2026.step").origin, "flag --step");
  EXPECT_EQ(r.setting("cosid.segment.provider.orders.2026.offset").origin, "flag --offset");
  EXPECT_EQ(r.setting("cosid.segment.share.step").origin, "flag cosid.segment.share.step");
}

TEST(SegmentOptions, StoreFlagSetsTheSegmentKeysAsTheLeaseFlagSetsTheMachineKeys) {
  Fixture memory;
  segment_flag(memory, "store", "memory");
  SegmentResult r = resolve_segment(memory);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.store_type, "memory");
  Fixture zookeeper;
  segment_flag(zookeeper, "store", "zookeeper:zk-1:2181/ids");
  r = resolve_segment(zookeeper);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.store_type, "zookeeper");
  ASSERT_EQ(r.options.stores.size(), 1u);
  EXPECT_EQ(r.options.stores[0].name, "zookeeper");
  EXPECT_EQ(r.options.stores[0].type, "zookeeper");
  ASSERT_EQ(r.options.stores[0].settings.size(), 1u);
  EXPECT_EQ(r.options.stores[0].settings[0].key, "options.connectString");
  EXPECT_EQ(r.options.stores[0].settings[0].value, "zk-1:2181/ids");
  EXPECT_EQ(r.setting("cosid.stores.zookeeper.options.connectString").origin, "flag --store");
  // The refusals of the lease --store, naming the segment key.
  Fixture target;
  segment_flag(target, "store", "memory:x");
  const std::string message = refused_segment(target, errc::invalid_value);
  EXPECT_TRUE(contains(message, "cosid.segment.distributor.type = \"memory:x\" (flag --store)"))
      << message;
  Fixture empty;
  segment_flag(empty, "store", "zookeeper:");
  EXPECT_TRUE(contains(refused_segment(empty, errc::invalid_value), "no ensemble after ':'"));
}

TEST(SegmentOptions, AFlagBeatsTheFileWhichBeatsTheDefault) {
  Fixture f;
  f.config(kEveryKey);
  segment_flag(f, "store", "memory");
  segment_flag(f, "cosid.segment.provider.orders.step", "9");
  segment_flag(f, "cosid.segment.share.offset", "3");
  // --store memory replaces the type; the file's directory then has nothing to apply to.
  std::string message = refused_segment(f, errc::invalid_value);
  EXPECT_TRUE(contains(message,
                       "cosid.segment.distributor.file.directory = \"/var/lib/cosid/ranges\" "
                       "(file cosid.yaml:6): the memory range store keeps no files"))
      << message;
  f.sources.flags.clear();
  segment_flag(f, "store", "file:/tmp/other");
  segment_flag(f, "cosid.segment.provider.orders.step", "9");
  segment_flag(f, "cosid.segment.share.offset", "3");
  const SegmentResult r = resolve_segment(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.store_directory, "/tmp/other");
  EXPECT_TRUE(same(r.options.definition_of("orders"), KeyDefinition{7, 9}));  // offset: the file's
  EXPECT_TRUE(same(r.options.definition_of("codes"), KeyDefinition{3, 20}));  // offset: the flag's
  EXPECT_EQ(r.setting("cosid.segment.share.offset").origin, "flag cosid.segment.share.offset");
  EXPECT_EQ(r.setting("cosid.segment.share.step").origin, "file cosid.yaml:9");
  EXPECT_EQ(r.setting("cosid.segment.provider.orders.step").origin, "flag --step");
  EXPECT_EQ(r.setting("cosid.segment.provider.orders.offset").origin, "file cosid.yaml:12");
  // A later flag wins over an earlier one.
  segment_flag(f, "cosid.segment.provider.orders.step", "11");
  EXPECT_EQ(resolve_segment(f).options.definition_of("orders").step, 11);
  // What no source gives is the default.
  Fixture none;
  none.config("cosid:\n  segment:\n    share:\n      step: 5\n");
  const SegmentResult defaults = resolve_segment(none);
  ASSERT_TRUE(defaults.ok) << defaults.message;
  EXPECT_EQ(defaults.setting("cosid.segment.share.offset").origin, "default");
  EXPECT_EQ(defaults.setting("cosid.segment.chain.safe-distance").value, "2");
}

TEST(SegmentOptions, TheDistributorsRefusals) {
  struct Case {
    const char* key;
    const char* value;
    const char* part;
  };
  const Case cases[] = {
      {"cosid.segment.distributor.type", "File",
       "cosid.segment.distributor.type = \"File\" (flag --store): not a range store type"},
      {"cosid.segment.distributor.type", "static",
       "static is a configured slot of Snowflake ids, not a store"},
      {"cosid.segment.distributor.file.directory", "/tmp/x",
       "cosid.segment.distributor.file.directory = \"/tmp/x\" (flag --store): has no effect "
       "without a range store"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.value);
    Fixture f;
    segment_flag(f, c.key, c.value);
    const std::string message = refused_segment(f, errc::invalid_value);
    EXPECT_TRUE(contains(message, c.part)) << message;
  }
  Fixture no_directory;
  segment_flag(no_directory, "store", "file");
  std::string message = refused_segment(no_directory, errc::invalid_value);
  EXPECT_TRUE(contains(message,
                       "cosid.segment.distributor.type = \"file\" (flag --store) needs a "
                       "directory for the range files"))
      << message;
  EXPECT_TRUE(
      contains(message, "give --store file:DIR or cosid.segment.distributor.file.directory"))
      << message;
  Fixture empty_directory;
  segment_flag(empty_directory, "store", "file:");
  EXPECT_TRUE(
      contains(refused_segment(empty_directory, errc::invalid_value), "empty: give a path"));
  Fixture memory;
  segment_flag(memory, "store", "memory");
  segment_flag(memory, "cosid.segment.distributor.file.directory", "/tmp/x");
  EXPECT_TRUE(contains(refused_segment(memory, errc::invalid_value),
                       "the memory range store keeps no files"));
}

TEST(SegmentOptions, WholeNumbersOutsideTheirRangeAreRefusedWithTheRule) {
  struct Case {
    const char* key;
    const char* value;
    const char* part;
  };
  const Case cases[] = {
      {"cosid.segment.share.offset", "-1", "not a whole number"},
      {"cosid.segment.share.offset", "4611686018427387905",
       "larger than the maximum, 4611686018427387904: cosid.segment.share.offset is from 0 to "
       "4611686018427387904"},
      {"cosid.segment.share.step", "0",
       "below the minimum, 1: cosid.segment.share.step is from 1 to 1073741824"},
      {"cosid.segment.share.step", "1073741825", "larger than the maximum, 1073741824"},
      {"cosid.segment.share.step", "010", "a leading zero is refused"},
      {"cosid.segment.share.step", "", "empty: give a whole number"},
      {"cosid.segment.provider.orders.step", "0",
       "cosid.segment.provider.orders.step = \"0\" (flag --step): below the minimum, 1: "
       "cosid.segment.provider.KEY.step is from 1 to 1073741824"},
      {"cosid.segment.provider.orders.offset", "1x", "not a whole number"},
      {"cosid.segment.chain.safe-distance", "0", "below the minimum, 1"},
      {"cosid.segment.chain.safe-distance", "65537", "larger than the maximum, 65536"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.key) + " = " + c.value);
    Fixture f;
    segment_flag(f, c.key, c.value);
    const std::string message = refused_segment(f, errc::invalid_value);
    EXPECT_TRUE(contains(message, c.part)) << message;
    EXPECT_TRUE(contains(message, std::string(c.key) + " = \"" + c.value + "\"")) << message;
  }
}

TEST(SegmentOptions, OneClaimOfTheSafeDistanceMustFitInTwoToTheForty) {
  Fixture share;  // 65536 segments of 2^30 ids: 2^46
  segment_flag(share, "cosid.segment.chain.safe-distance", "65536");
  segment_flag(share, "cosid.segment.share.step", "1073741824");
  std::string message = refused_segment(share, errc::invalid_value);
  EXPECT_TRUE(contains(message,
                       "cosid.segment.chain.safe-distance = \"65536\" (flag "
                       "cosid.segment.chain.safe-distance) and cosid.segment.share.step = "
                       "\"1073741824\" (flag cosid.segment.share.step): one claim of that many "
                       "segments of that step would take more than 2^40 ids"))
      << message;
  Fixture provider;
  segment_flag(provider, "cosid.segment.chain.safe-distance", "2048");
  segment_flag(provider, "cosid.segment.provider.orders.step", "1073741824");
  message = refused_segment(provider, errc::invalid_value);
  EXPECT_TRUE(
      contains(message, "cosid.segment.provider.orders.step = \"1073741824\" (flag --step)"))
      << message;
  Fixture fits;  // 1024 segments of 2^30: exactly 2^40
  segment_flag(fits, "cosid.segment.chain.safe-distance", "1024");
  segment_flag(fits, "cosid.segment.share.step", "1073741824");
  EXPECT_TRUE(resolve_segment(fits).ok);
}

TEST(SegmentOptions, AProviderNameThatIsNotASegmentKeyIsRefused) {
  Fixture long_name;  // a config file's name of 201 bytes
  long_name.config("cosid:\n  segment:\n    provider:\n      " + std::string(201, 'k') +
                   ":\n        step: 10\n");
  std::string message = refused_segment(long_name, errc::invalid_value);
  EXPECT_TRUE(contains(message, "cosid.segment.provider." + std::string(201, 'k') +
                                    ".step = \"10\" (file cosid.yaml:5): the provider entry's "
                                    "name is not a segment key: segment key"))
      << message;
  EXPECT_TRUE(contains(message, "is 201 bytes: give 1 to 200 bytes")) << message;
  Fixture slash;  // a flag's key
  segment_flag(slash, "cosid.segment.provider.orders/2026.offset", "1");
  message = refused_segment(slash, errc::invalid_value);
  EXPECT_TRUE(contains(message, "holds \"/\": a key is made of A-Z a-z 0-9 _ . - only")) << message;
  Fixture dots;
  segment_flag(dots, "cosid.segment.provider....step", "1");
  EXPECT_TRUE(contains(refused_segment(dots, errc::invalid_value), "is a path component"));
}

TEST(SegmentOptions, UnknownKeysOfTheBlockAreRefused) {
  Fixture field;
  field.config("cosid:\n  segment:\n    provider:\n      orders:\n        size: 10\n");
  std::string message = refused_segment(field, errc::config_unknown_key);
  EXPECT_TRUE(contains(message,
                       "cosid.yaml:5: unknown key cosid.segment.provider.orders.size: the keys "
                       "under cosid.segment.provider.orders are offset, step"))
      << message;
  Fixture chain;
  chain.config("cosid:\n  segment:\n    chain:\n      distance: 3\n");
  message = refused_segment(chain, errc::config_unknown_key);
  EXPECT_TRUE(contains(message, "the keys under cosid.segment.chain are safe-distance")) << message;
  Fixture block;
  block.config("cosid:\n  segments:\n");
  message = refused_segment(block, errc::config_unknown_key);
  EXPECT_TRUE(contains(message,
                       "the keys under cosid are namespace, machine, layout, stores, "
                       "segment"))
      << message;
  Fixture deep;
  deep.config("cosid:\n  segment:\n    provider:\n      orders:\n        v2:\n          step: 1\n");
  EXPECT_TRUE(contains(refused_segment(deep, errc::config_unknown_key),
                       "unknown key cosid.segment.provider.orders.v2"));
  Fixture flag;
  segment_flag(flag, "cosid.segment.share.size", "1");
  EXPECT_TRUE(contains(refused_segment(flag, errc::config_unknown_key),
                       "unknown key \"cosid.segment.share.size\" given as a flag"));
  Fixture value;
  value.config("cosid:\n  segment: 3\n");
  EXPECT_TRUE(contains(refused_segment(value, errc::config_syntax), "is a block, not a value"));
  Fixture twice;
  twice.config(
      "cosid:\n  segment:\n    provider:\n      orders:\n        step: 1\n        step: 2\n");
  EXPECT_TRUE(contains(refused_segment(twice, errc::config_duplicate_key), "is given twice"));
}

TEST(SegmentOptions, AConfigWithAMachineAndASegmentBlockServesBoth) {
  const std::string text =
      "cosid:\n"
      "  namespace: shop\n"
      "  machine:\n"
      "    static:\n"
      "      slot: 3\n"
      "  segment:\n"
      "    distributor:\n"
      "      type: memory\n"
      "    share:\n"
      "      step: 10\n";
  Fixture f;
  f.config(text);
  const Result machine = resolve(f);
  ASSERT_TRUE(machine.ok) << machine.message;
  EXPECT_EQ(machine.options.slot, 3u);
  EXPECT_EQ(machine.options.namespace_name, "shop");
  const SegmentResult segment = resolve_segment(f);
  ASSERT_TRUE(segment.ok) << segment.message;
  EXPECT_EQ(segment.options.store_type, "memory");
  EXPECT_EQ(segment.options.share.step, 10);
  // resolve_options() prints and writes what it did without the block.
  Fixture plain;
  plain.config("cosid:\n  namespace: shop\n  machine:\n    static:\n      slot: 3\n");
  const Result without = resolve(plain);
  ASSERT_TRUE(without.ok) << without.message;
  ASSERT_EQ(machine.settings.size(), without.settings.size());
  for (std::size_t i = 0; i < machine.settings.size(); ++i) {
    EXPECT_EQ(machine.settings[i].key, without.settings[i].key);
    EXPECT_EQ(machine.settings[i].value, without.settings[i].value);
  }
  EXPECT_EQ(to_config_text(machine.options), to_config_text(without.options));
}

TEST(SegmentOptions, TheOtherKeysAreCheckedButNoSlotIsNeeded) {
  Fixture no_slot;
  no_slot.config("cosid:\n  segment:\n    distributor:\n      type: memory\n");
  EXPECT_TRUE(resolve_segment(no_slot).ok);
  EXPECT_ERRC(resolve(no_slot).ec, errc::no_slot_configured);
  // A slot taken from the host name is not looked for either.
  Fixture hostname;
  hostname.config("cosid:\n  machine:\n    static:\n      slot-source: stateful-set\n");
  hostname.sources.hostname = "no-ordinal";
  EXPECT_TRUE(resolve_segment(hostname).ok) << resolve_segment(hostname).message;
  // But every key given is checked as resolve_options() checks it: a slot too.
  Fixture ahead;
  ahead.config("cosid:\n  machine:\n    static:\n      ahead: 1ms\n");
  EXPECT_TRUE(contains(refused_segment(ahead, errc::invalid_value), "cosid.machine.static.ahead"));
  Fixture slot;
  slot.config("cosid:\n  machine:\n    static:\n      slot: 1024\n");
  refused_segment(slot, errc::slot_out_of_range);
  Fixture ambiguous;
  ambiguous.config("cosid:\n  machine:\n    static:\n      slot: 1\n      slot-source: x\n");
  EXPECT_TRUE(contains(refused_segment(ambiguous, errc::invalid_value), "not a slot source"));
  Fixture layout;
  layout.sources.flags.emplace_back("cosid.layout.preset", "tiny");
  refused_segment(layout, errc::unknown_layout);
}

TEST(SegmentOptions, ResolveOptionsChecksTheSegmentBlockToo) {
  Fixture f;
  f.config(
      "cosid:\n  machine:\n    static:\n      slot: 1\n  segment:\n    share:\n"
      "      step: 0\n");
  EXPECT_TRUE(contains(refused(f, errc::invalid_value), "cosid.segment.share.step = \"0\""));
}

const char kSegmentInstance[] =
    "cosid:\n"
    "  stores:\n"
    "    zk:\n"
    "      type: zookeeper\n"
    "      options:\n"
    "        connectString: zk-1:2181\n"
    "  machine:\n"
    "    static:\n"
    "      slot: 1\n"
    "  segment:\n"
    "    distributor:\n"
    "      type: zk\n";

TEST(SegmentOptions, AnInstanceTheSegmentDistributorNamesIsItsAlone) {
  Fixture f;
  f.config(kSegmentInstance);
  const SegmentResult segment = resolve_segment(f);
  ASSERT_TRUE(segment.ok) << segment.message;
  EXPECT_EQ(segment.options.store_type, "zk");
  ASSERT_EQ(segment.options.stores.size(), 1u);
  EXPECT_EQ(segment.options.stores[0].name, "zk");
  EXPECT_EQ(segment.options.stores[0].type, "zookeeper");
  ASSERT_EQ(segment.options.stores[0].settings.size(), 1u);
  EXPECT_EQ(segment.options.stores[0].settings[0].origin, "file cosid.yaml:6");
  EXPECT_EQ(segment.setting("cosid.stores.zk.type").origin, "file cosid.yaml:4");
  EXPECT_EQ(segment.setting("cosid.stores.zk.options.connectString").value, "zk-1:2181");
  // The Runtime's options accept it and leave it out: the slot is static.
  const Result machine = resolve(f);
  ASSERT_TRUE(machine.ok) << machine.message;
  EXPECT_TRUE(machine.options.stores.empty());
  EXPECT_EQ(machine.setting("cosid.stores.zk.type").value, "<missing>");
}

TEST(SegmentOptions, AnInstanceBothDistributorsNameServesBoth) {
  Fixture f;
  f.config(
      "cosid:\n  stores:\n    zk:\n      type: zookeeper\n  machine:\n    distributor:\n"
      "      type: zk\n  segment:\n    distributor:\n      type: zk\n");
  const SegmentResult segment = resolve_segment(f);
  ASSERT_TRUE(segment.ok) << segment.message;
  EXPECT_EQ(segment.options.stores.size(), 1u);
  const Result machine = resolve(f);
  ASSERT_TRUE(machine.ok) << machine.message;
  EXPECT_EQ(machine.options.stores.size(), 1u);
}

TEST(SegmentOptions, AnInstanceNeitherDistributorNamesIsRefused) {
  Fixture f;
  f.config(
      "cosid:\n  stores:\n    zk:\n      type: zookeeper\n  segment:\n    distributor:\n"
      "      type: memory\n");
  EXPECT_TRUE(contains(refused_segment(f, errc::invalid_value),
                       "cosid.stores.zk.type = \"zookeeper\" (file cosid.yaml:4) has no effect"));
  f.sources.flags.emplace_back("cosid.machine.static.slot", "1");
  EXPECT_TRUE(contains(refused(f, errc::invalid_value), "has no effect"));
}

TEST(SegmentOptions, AFileInstanceNeedsTheSegmentDirectory) {
  Fixture f;
  f.config(
      "cosid:\n  stores:\n    local:\n      type: file\n  segment:\n    distributor:\n"
      "      type: local\n");
  const std::string message = refused_segment(f, errc::invalid_value);
  EXPECT_TRUE(contains(message,
                       "cosid.segment.distributor.type = \"local\" (file cosid.yaml:7) (a store "
                       "instance of type file) needs a directory"))
      << message;
  segment_flag(f, "cosid.segment.distributor.file.directory", "/tmp/r");
  const SegmentResult r = resolve_segment(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.store_directory, "/tmp/r");
}

}  // namespace
}  // namespace cosid
