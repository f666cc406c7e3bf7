// SPDX-License-Identifier: Apache-2.0
// Options resolution: precedence with provenance, the static slot sources, and every refusal by
// its exact code (tests/SCENARIOS.md, B-02 and B-03).
#include "cosid/options.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cosid/segment/options.h"
#include "support/options_fixture.h"
#include "support/test_util.h"

namespace cosid {
namespace {

using std::chrono::milliseconds;
using namespace testing_options;  // NOLINT: the fixture of every test here

TEST(Options, NoSlotIsAnErrorThatListsTheWays) {
  Fixture f;
  const std::string message = refused(f, errc::no_slot_configured);
  for (const char* way : {"--slot N", "COSID_SLOT=N", "slot: ${POD_ORDINAL}",
                          "--slot-from-hostname", "slot-source: stateful-set"}) {
    EXPECT_TRUE(contains(message, way)) << way << "\n" << message;
  }
  f.config("cosid:\n  machine:\n    static:\n      slot-source: explicit\n");
  refused(f, errc::no_slot_configured);
}

TEST(Options, DefaultsWithOnlyASlot) {
  Fixture f;
  f.flag("slot", "5");
  const Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.slot, 5u);
  EXPECT_EQ(r.options.namespace_name, "cosid");
  EXPECT_EQ(r.options.layout, layouts::kDefault);
  EXPECT_EQ(r.options.slot_source, SlotSource::kExplicit);
  EXPECT_EQ(r.options.state_file, "");
  EXPECT_EQ(r.options.ahead, milliseconds(10000));
  EXPECT_EQ(r.options.not_before_ms, 0);
  EXPECT_FALSE(r.options.require_state_file);
  EXPECT_EQ(r.options.start_wait, milliseconds(11000));
  ASSERT_EQ(r.settings.size(), detail::kKeyCount);
  for (std::size_t i = 0; i < r.settings.size(); ++i) {
    EXPECT_EQ(r.settings[i].key, detail::kConfigKeyRows[i].key);
  }
  EXPECT_EQ(r.setting("cosid.machine.static.slot").origin, "flag --slot");
  EXPECT_EQ(r.setting("cosid.namespace").value, "cosid");
  EXPECT_EQ(r.setting("cosid.namespace").origin, "default");
  EXPECT_EQ(r.setting("cosid.machine.static.ahead").value, "10s");
  EXPECT_EQ(r.setting("cosid.machine.static.not-before").value, "0");
  EXPECT_EQ(r.setting("cosid.layout.epoch").value, "1577203200000");
  EXPECT_EQ(r.setting("cosid.layout.unit").value, "ms");
  EXPECT_EQ(r.setting("cosid.layout.slot-bits").origin, "default");
}

TEST(Options, FlagBeatsEnvBeatsFileBeatsDefault) {
  const struct {
    const char* flag;
    const char* variable;
    const char* key;
    const char* file_value;
    const char* env_value;
    const char* flag_value;
  } cases[] = {
      {"slot", "COSID_SLOT", "slot", "1", "2", "3"},
      {"namespace", "COSID_NAMESPACE", "namespace", "from-file", "from-env", "from-flag"},
      {"state-file", "COSID_STATE_FILE", "state-file", "/f", "/e", "/g"},
      {"ahead", "COSID_AHEAD", "ahead", "1s", "2s", "3s"},
      {"not-before", "COSID_NOT_BEFORE", "not-before", "2026-01-01T00:00:00.000Z",
       "2026-01-02T00:00:00.000Z", "2026-01-03T00:00:00.000Z"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.flag);
    const bool top = std::string(c.key) == "namespace";
    const std::string full = top ? "cosid.namespace" : std::string("cosid.machine.static.") + c.key;
    Fixture f;
    std::string text = "cosid:\n  machine:\n    static:\n      slot: 9\n";
    if (top) {
      text += "  namespace: " + std::string(c.file_value) + "\n";
    } else if (std::string(c.key) != "slot") {
      text += std::string("      ") + c.key + ": " + c.file_value + "\n";
    } else {
      text = "cosid:\n  machine:\n    static:\n      slot: 1\n";
    }
    f.config(text);
    f.env.set(c.variable, c.env_value);
    f.flag(c.flag, c.flag_value);
    if (std::string(c.key) != "slot") f.flag("slot", "9");
    Result r = resolve(f);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.setting(full).value, c.flag_value);
    EXPECT_EQ(r.setting(full).origin, std::string("flag --") + c.flag);

    f.sources.flags.clear();
    r = resolve(f);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.setting(full).value, c.env_value);
    EXPECT_EQ(r.setting(full).origin, std::string("env ") + c.variable);

    f.env.unset(c.variable);
    r = resolve(f);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.setting(full).value, c.file_value);
    const int line = top || std::string(c.key) != "slot" ? 5 : 4;
    EXPECT_EQ(r.setting(full).origin, "file cosid.yaml:" + std::to_string(line));
  }
}

TEST(Options, ConfigFileFromCosidConfigOrFlag) {
  char path[] = "/tmp/cosid_options_test_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string text = "cosid:\n  machine:\n    static:\n      slot: 6\n";
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fd);

  Fixture f;
  f.sources.config_file.clear();
  f.env.set("COSID_CONFIG", path);
  Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.slot, 6u);
  EXPECT_EQ(r.setting("cosid.machine.static.slot").origin, std::string("file ") + path + ":4");

  f.sources.config_file = "/nonexistent/cosid.yaml";  // --config beats COSID_CONFIG
  std::string message = refused(f, errc::config_unreadable);
  EXPECT_TRUE(contains(message, "/nonexistent/cosid.yaml")) << message;

  f.sources.config_file.clear();
  f.env.set("COSID_CONFIG", "");
  message = refused(f, errc::invalid_value);
  EXPECT_TRUE(contains(message, "COSID_CONFIG is set but empty")) << message;
  ::unlink(path);
}

// A relative path the config file gives lies in the file's directory, joined as text; a flag's
// or a variable's stays relative to the working directory, and an absolute one is unchanged.
TEST(Options, RelativePathsOfTheConfigFileResolveAgainstItsDirectory) {
  const std::string key = "cosid.machine.static.state-file";
  const std::string text =
      "cosid:\n  machine:\n    static:\n      slot: 1\n      state-file: cosid.state\n";
  const struct {
    const char* config_file;
    const char* resolved;
  } cases[] = {
      {"conf/cosid.yaml", "conf/cosid.state"},
      {"../conf/cosid.yaml", "../conf/cosid.state"},
      {"/etc/cosid/cosid.yaml", "/etc/cosid/cosid.state"},
      {"/cosid.yaml", "/cosid.state"},
      {"cosid.yaml", "cosid.state"},  // the working directory is the file's
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.config_file);
    Fixture f;
    f.config(text);
    f.sources.config_file = c.config_file;
    const Result r = resolve(f);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.options.state_file, c.resolved);
    EXPECT_EQ(r.setting(key).value, c.resolved);
    const std::string origin = std::string("file ") + c.config_file + ":5";
    EXPECT_EQ(r.setting(key).origin,
              std::string(c.resolved) == "cosid.state"
                  ? origin
                  : origin + ", where \"cosid.state\" is relative to the config file's directory");
  }

  {
    Fixture f;
    f.config(text);
    f.sources.config_file = "conf/cosid.yaml";
    f.env.set("COSID_STATE_FILE", "env.state");
    Result r = resolve(f);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.options.state_file, "env.state");
    EXPECT_EQ(r.setting(key).origin, "env COSID_STATE_FILE");
    f.flag("state-file", "flag.state");
    r = resolve(f);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.options.state_file, "flag.state");
  }
  {  // absolute, interpolated, and a text without a file to stand for
    Fixture f;
    f.config("cosid:\n  machine:\n    static:\n      slot: 1\n      state-file: /var/lib/s\n");
    f.sources.config_file = "conf/cosid.yaml";
    Result r = resolve(f);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.options.state_file, "/var/lib/s");
    EXPECT_EQ(r.setting(key).origin, "file conf/cosid.yaml:5");
    f.config("cosid:\n  machine:\n    static:\n      slot: 1\n      state-file: ${STATE:-s}\n");
    f.sources.config_file = "conf/cosid.yaml";
    f.env.set("STATE", "from-env");
    r = resolve(f);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.options.state_file, "conf/from-env");
    f.sources.config_file.clear();
    r = resolve(f);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.options.state_file, "from-env");
    EXPECT_EQ(r.setting(key).origin, "file config:5");
  }
  {  // the other path keys: the file stores' directories
    Fixture f;
    f.config(
        "cosid:\n  machine:\n    distributor:\n      type: file\n      file:\n"
        "        directory: leases\n  segment:\n    distributor:\n      type: file\n"
        "      file:\n        directory: ranges\n");
    f.sources.config_file = "/srv/app/cosid.yaml";
    const Result r = resolve(f);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.options.store_directory, "/srv/app/leases");
    Status status;
    const segment::SegmentOptions segment = segment::resolve_segment_options(f.sources, status);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(segment.store_directory, "/srv/app/ranges");
  }
}

TEST(Options, PodOrdinalInterpolation) {
  Fixture f;
  f.config("cosid:\n  machine:\n    static:\n      slot: ${POD_ORDINAL}\n");
  f.env.set("POD_ORDINAL", "3");
  Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.slot, 3u);
  EXPECT_EQ(r.setting("cosid.machine.static.slot").origin, "file cosid.yaml:4");

  f.env.unset("POD_ORDINAL");
  std::string message = refused(f, errc::unset_variable);
  EXPECT_TRUE(contains(message, "cosid.yaml:4:")) << message;
  EXPECT_TRUE(contains(message, "POD_ORDINAL")) << message;

  f.config("cosid:\n  machine:\n    static:\n      slot: ${POD_ORDINAL:-0}\n");
  r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.slot, 0u);
  f.env.set("POD_ORDINAL", "2");
  r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.slot, 2u);
}

TEST(Options, BadSlotValuesAreRefusedNeverRepaired) {
  const struct {
    std::string value;
    errc code;
  } cases[] = {
      {"", errc::invalid_slot},
      {" 3", errc::invalid_slot},
      {"3 ", errc::invalid_slot},
      {"3\n", errc::invalid_slot},
      {"-1", errc::invalid_slot},
      {"+1", errc::invalid_slot},
      {"abc", errc::invalid_slot},
      {"03", errc::invalid_slot},
      {"3.0", errc::invalid_slot},
      {"0x3", errc::invalid_slot},
      {"99999999999999999999", errc::invalid_slot},
      {std::string(1 << 20, '7'), errc::invalid_slot},
      {"1024", errc::slot_out_of_range},
      {"4294967296", errc::slot_out_of_range},
      {"18446744073709551615", errc::slot_out_of_range},
  };
  for (const auto& c : cases) {
    Fixture f;
    f.env.set("COSID_SLOT", c.value);
    const std::string message = refused(f, c.code);
    EXPECT_TRUE(contains(message, "(env COSID_SLOT)")) << message;
    EXPECT_LT(message.size(), 400u) << "a long value is cut in the message";
  }
  Fixture f;
  f.env.set("COSID_SLOT", "abc");
  EXPECT_EQ(refused(f, errc::invalid_slot),
            "slot \"abc\" (env COSID_SLOT) is not a whole number: give ASCII digits only, "
            "without sign or spaces, such as 3");
}

TEST(Options, SlotMustFitTheSlotBits) {
  Fixture f;
  f.flag("slot", "1023");
  EXPECT_TRUE(resolve(f).ok);
  f.flag("slot", "1024");
  EXPECT_EQ(refused(f, errc::slot_out_of_range),
            "slot 1024 (flag --slot) does not fit the layout's 10 slot bits, which hold slots 0 "
            "to 1023: give a slot in that range, or a layout with more slot bits");

  Fixture js;
  js.flag("layout", "js-safe");
  js.flag("slot", "7");
  EXPECT_TRUE(resolve(js).ok);
  js.flag("slot", "8");
  EXPECT_TRUE(
      contains(refused(js, errc::slot_out_of_range), "3 slot bits, which hold slots 0 to 7"));

  // uid-generator PR #52: worker id 462146 with 18 worker bits (2^18 = 262144).
  Fixture uid;
  uid.config("cosid:\n  layout:\n    slot-bits: 18\n    sequence-bits: 4\n");
  uid.flag("slot", "462146");
  EXPECT_TRUE(contains(refused(uid, errc::slot_out_of_range), "slots 0 to 262143"));
  uid.flag("slot", "262143");
  const Result r = resolve(uid);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.slot, 262143u);
}

TEST(Options, SlotFromHostname) {
  const struct {
    std::string hostname;
    errc code;  // errc{} for success
    std::uint32_t slot;
  } cases[] = {
      {"order-service-3", errc{}, 3},
      {"order-service-0", errc{}, 0},
      {"order-service-1023", errc{}, 1023},
      {"order-service-3.order-service.ns.svc.cluster.local", errc{}, 3},
      {std::string(61, 'a') + "-5", errc{}, 5},
      {"order-service-03", errc::no_hostname_ordinal, 0},
      {"order-service-", errc::no_hostname_ordinal, 0},
      {"web", errc::no_hostname_ordinal, 0},
      {"order-service-3-canary", errc::no_hostname_ordinal, 0},
      {"order-service-+3", errc::no_hostname_ordinal, 0},
      {std::string(297, 'a') + "-3", errc::no_hostname_ordinal, 0},
      {"order-service-1024", errc::slot_out_of_range, 0},
      {"order-service-99999999999999999999", errc::slot_out_of_range, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.hostname);
    Fixture f;
    f.flag("slot-from-hostname");
    f.sources.hostname = c.hostname;
    const Result r = resolve(f);
    if (c.code == errc{}) {
      ASSERT_TRUE(r.ok) << r.message;
      EXPECT_EQ(r.options.slot, c.slot);
      EXPECT_EQ(r.options.slot_source, SlotSource::kStatefulSet);
      EXPECT_EQ(r.setting("cosid.machine.static.slot-source").value, "stateful-set");
      EXPECT_EQ(r.setting("cosid.machine.static.slot-source").origin, "flag --slot-from-hostname");
    } else {
      EXPECT_ERRC(r.ec, c.code);
      EXPECT_TRUE(contains(r.message, c.hostname.substr(0, 20))) << r.message;
    }
  }
}

TEST(Options, HostnameComesFromTheHostnameVariable) {
  Fixture f;
  f.config("cosid:\n  machine:\n    static:\n      slot-source: stateful-set\n");
  f.env.set("HOSTNAME", "order-service-4");
  const Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.slot, 4u);
  EXPECT_EQ(r.setting("cosid.machine.static.slot").origin,
            "host name order-service-4 (env HOSTNAME)");
  f.env.set("HOSTNAME", "web");
  EXPECT_TRUE(contains(refused(f, errc::no_hostname_ordinal), "\"web\" (env HOSTNAME)"));
}

TEST(Options, SlotAndStatefulSetTogetherAreAmbiguous) {
  Fixture f;
  f.env.set("COSID_SLOT", "3");
  f.flag("slot-from-hostname");
  f.sources.hostname = "order-service-3";
  const std::string message = refused(f, errc::invalid_value);
  EXPECT_TRUE(contains(message, "env COSID_SLOT")) << message;
  EXPECT_TRUE(contains(message, "flag --slot-from-hostname")) << message;
}

TEST(Options, InvalidValuesNameKeyValueOriginAndRule) {
  const struct {
    const char* variable;  // set through this variable, else through the flag
    const char* flag;
    std::string value;
    errc code;
  } cases[] = {
      {"COSID_AHEAD", nullptr, "10", errc::invalid_value},
      {"COSID_AHEAD", nullptr, "0ms", errc::invalid_value},
      {"COSID_AHEAD", nullptr, "9ms", errc::invalid_value},
      {"COSID_AHEAD", nullptr, "25h", errc::invalid_value},
      {"COSID_AHEAD", nullptr, "1.5s", errc::invalid_value},
      {"COSID_AHEAD", nullptr, "-1s", errc::invalid_value},
      {"COSID_AHEAD", nullptr, "10 s", errc::invalid_value},
      {"COSID_AHEAD", nullptr, "9223372036854775808ms", errc::invalid_value},
      {"COSID_NAMESPACE", nullptr, "", errc::invalid_value},
      {"COSID_NAMESPACE", nullptr, "a b", errc::invalid_value},
      {"COSID_NAMESPACE", nullptr, "caf\xc3\xa9", errc::invalid_value},
      {"COSID_NAMESPACE", nullptr, std::string(256, 'n'), errc::invalid_value},
      {"COSID_STATE_FILE", nullptr, "", errc::invalid_value},
      {"COSID_STATE_FILE", nullptr, "/var/a\nb", errc::invalid_value},
      {"COSID_NOT_BEFORE", nullptr, "abc", errc::invalid_value},
      {"COSID_NOT_BEFORE", nullptr, "-1", errc::invalid_value},
      {"COSID_NOT_BEFORE", nullptr, "2026-11-30T23:59:60Z", errc::invalid_value},
      {"COSID_NOT_BEFORE", nullptr, "2026-11-30T02:22:58", errc::invalid_value},
      {"COSID_NOT_BEFORE", nullptr, "1796005378", errc::invalid_value},  // seconds, not ms
      {"COSID_NOT_BEFORE", nullptr, "2100-01-01T00:00:00Z", errc::invalid_value},
      {nullptr, "require-state-file", "yes", errc::invalid_value},
      {nullptr, "require-state-file", "true", errc::invalid_value},  // without a state file
      {nullptr, "slot-from-hostname", "hostname", errc::invalid_value},
      {nullptr, "layout", "bogus", errc::unknown_layout},
      {nullptr, "unit", "us", errc::invalid_value},
      {nullptr, "epoch", "abc", errc::invalid_value},
      {nullptr, "epoch", "-1", errc::invalid_value},
      {nullptr, "epoch", "9223372036854775808", errc::invalid_value},
      {nullptr, "timestamp-bits", "64", errc::invalid_value},
      {nullptr, "slot-bits", "0", errc::layout_field_empty},
      {nullptr, "timestamp-bits", "50", errc::layout_too_wide},
      {nullptr, "epoch", "9223372036854775000", errc::layout_epoch_invalid},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.variable != nullptr ? c.variable : c.flag);
    SCOPED_TRACE(c.value);
    Fixture f;
    f.flag("slot", "1");
    if (c.variable != nullptr) {
      f.env.set(c.variable, c.value);
    } else {
      const detail::ConfigKey* entry = detail::find_config_flag(c.flag);
      ASSERT_NE(entry, nullptr);
      f.sources.flags.emplace_back(entry->key, c.value);
    }
    const std::string message = refused(f, c.code);
    if (c.code == errc::invalid_value || c.code == errc::unknown_layout) {
      EXPECT_TRUE(contains(message, "cosid.")) << message;
      EXPECT_TRUE(contains(message, c.variable != nullptr ? std::string("(env ") + c.variable
                                                          : std::string(" (flag ")))
          << message;
    } else {
      EXPECT_TRUE(contains(message, "(set by flag --")) << message;
    }
  }
}

TEST(Options, InvalidValueMessagesAreExact) {
  Fixture f;
  f.flag("slot", "1");
  f.env.set("COSID_AHEAD", "10");
  EXPECT_EQ(refused(f, errc::invalid_value),
            "cosid.machine.static.ahead = \"10\" (env COSID_AHEAD): a duration needs a unit: "
            "such as 500ms, 10s, 1m or 1h");
  f.env.unset("COSID_AHEAD");
  f.config("cosid:\n  machine:\n    static:\n      require-state-file: yes\n");
  EXPECT_EQ(refused(f, errc::invalid_value),
            "cosid.machine.static.require-state-file = \"yes\" (file cosid.yaml:4): not a "
            "boolean: give true or false");
}

TEST(Options, UnknownFlagKeyIsRefused) {
  Fixture f;
  f.sources.flags.emplace_back("cosid.machine.static.slots", "1");
  refused(f, errc::config_unknown_key);
}

TEST(Options, RequireStateFileWithAStateFile) {
  Fixture f;
  f.flag("slot", "1");
  f.flag("require-state-file");
  f.flag("state-file", "/var/lib/cosid/state");
  const Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_TRUE(r.options.require_state_file);
  EXPECT_EQ(r.setting("cosid.machine.static.require-state-file").origin,
            "flag --require-state-file");
}

TEST(Options, AheadAndStartWait) {
  Fixture f;
  f.flag("slot", "1");
  f.flag("ahead", "1m");
  Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.ahead, milliseconds(60000));
  EXPECT_EQ(r.options.start_wait, milliseconds(61000));
  f.flag("layout", "seconds");
  f.flag("ahead", "1s");
  EXPECT_TRUE(contains(refused(f, errc::invalid_value), "2s or more"));
  f.flag("ahead", "2s");
  EXPECT_TRUE(resolve(f).ok);
}

// The start mode: wait by default, borrow from a flag, a variable or the file, any other word
// refused with the key, the value, its origin and the two words; a static slot's key, ambiguous
// with a store.
TEST(Options, StartMode) {
  Fixture f;
  f.flag("slot", "1");
  Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.start, StartMode::kWait);
  EXPECT_EQ(r.setting("cosid.machine.static.start").value, "wait");
  EXPECT_EQ(r.setting("cosid.machine.static.start").origin, "default");
  f.config("cosid:\n  machine:\n    static:\n      start: borrow\n");
  r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.start, StartMode::kBorrow);
  EXPECT_EQ(r.setting("cosid.machine.static.start").origin, "file cosid.yaml:4");
  f.env.set("COSID_START", "wait");
  r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.start, StartMode::kWait);
  f.flag("start", "borrow");
  r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.start, StartMode::kBorrow);
  EXPECT_EQ(r.setting("cosid.machine.static.start").origin, "flag --start");
  f.flag("start", "Borrow");
  EXPECT_EQ(refused(f, errc::invalid_value),
            "cosid.machine.static.start = \"Borrow\" (flag --start): not a start mode: use wait "
            "(wait for the clock to pass the state file's ceiling after a crash) or borrow (issue "
            "at once, ids ahead of the clock by at most ahead)");
  Fixture store;
  store.flag("store", "memory");
  store.flag("start", "borrow");
  EXPECT_TRUE(contains(refused(store, errc::invalid_value), "are ambiguous"));
}

TEST(Options, LayoutFromKeys) {
  Fixture f;
  f.flag("slot", "1");
  f.flag("layout", "js-safe");
  Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.layout, layouts::kJsSafe);
  EXPECT_EQ(r.setting("cosid.layout.preset").value, "js-safe");
  EXPECT_EQ(r.setting("cosid.layout.slot-bits").value, "3");
  EXPECT_EQ(r.setting("cosid.layout.slot-bits").origin, "preset js-safe (flag --layout)");

  Fixture unit;
  unit.flag("slot", "1");
  unit.config("cosid:\n  layout:\n    unit: s\n    sequence-bits: 22\n    timestamp-bits: 31\n");
  r = resolve(unit);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.layout, layouts::kSeconds);  // the epoch converted to seconds
  EXPECT_EQ(r.setting("cosid.layout.epoch").value, "1577203200000");

  unit.flag("epoch", "1600000000000");
  r = resolve(unit);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.layout.epoch, 1600000000);
  EXPECT_EQ(r.setting("cosid.layout.epoch").origin, "flag --epoch");
  unit.flag("epoch", "1600000000500");
  EXPECT_TRUE(contains(refused(unit, errc::invalid_value), "not a whole second"));
}

TEST(Options, LayoutFromSettings) {
  Layout layout;
  Status status;
  const std::vector<KeyValue> flags = {{"cosid.layout.preset", "seconds"},
                                       {"cosid.machine.static.slot", "ignored"},
                                       {"cosid.layout.slot-bits", "12"},
                                       {"cosid.layout.sequence-bits", "20"}};
  layout = layout_from_settings(flags, status);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(layout.unit, TimeUnit::kSecond);
  EXPECT_EQ(layout.slot_bits, 12);
  (void)layout_from_settings({{"cosid.layout.unit", "h"}}, status);
  EXPECT_STATUS(status, errc::invalid_value);
  EXPECT_EQ(status.message(), "cosid.layout.unit = \"h\" (flag --unit): not a unit: use ms or s");
  (void)layout_from_settings({{"cosid.layout.preset", "x"}}, status);
  EXPECT_STATUS(status, errc::unknown_layout);
}

TEST(Options, FlagTable) {
  EXPECT_STREQ(detail::key_for_flag("slot"), "cosid.machine.static.slot");
  EXPECT_STREQ(detail::key_for_flag("layout"), "cosid.layout.preset");
  EXPECT_STREQ(detail::key_for_flag("slot-from-hostname"), "cosid.machine.static.slot-source");
  EXPECT_EQ(detail::key_for_flag("config"), nullptr);
  EXPECT_EQ(detail::key_for_flag("--slot"), nullptr);
  ASSERT_NE(detail::find_config_flag("require-state-file"), nullptr);
  EXPECT_STREQ(detail::find_config_flag("require-state-file")->implied, "true");
}

TEST(Options, ValidateOptionsBuiltInCode) {
  Options options;
  Status status;
  EXPECT_TRUE(validate_options(options, status)) << status.message();
  options.slot = 1024;
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_STATUS(status, errc::slot_out_of_range);
  options.slot = 1;
  options.ahead = milliseconds(0);
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_STATUS(status, errc::invalid_value);
  options.ahead = milliseconds(10000);
  options.require_state_file = true;
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_STATUS(status, errc::invalid_value);
  options.require_state_file = false;
  options.start_wait = milliseconds(-1);
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_STATUS(status, errc::invalid_value);
  options.start_wait = milliseconds(0);
  options.namespace_name = "";
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_STATUS(status, errc::invalid_value);
}

TEST(Options, ConfigTextRoundTrips) {
  Fixture a;
  a.flag("slot-from-hostname");
  a.sources.hostname = "order-service-6";
  a.flag("namespace", "ord$ers\"\\x");
  a.flag("state-file", "/var/lib/my cosid/state #1");
  a.flag("ahead", "2500ms");
  a.flag("not-before", "2026-11-30T07:52:58.123+05:30");
  a.flag("layout", "js-safe-seconds");
  a.flag("require-state-file");
  a.flag("start", "borrow");
  Fixture b;
  b.flag("slot", "1");
  b.flag("unit", "s");
  b.flag("ahead", "2s");
  for (const Fixture* f : {&a, &b}) {
    const Result first = resolve(*f);
    ASSERT_TRUE(first.ok) << first.message;
    Fixture again;
    again.config(to_config_text(first.options));
    const Result second = resolve(again);
    ASSERT_TRUE(second.ok) << second.message << "\n" << *again.sources.config_text;
    EXPECT_EQ(second.options.namespace_name, first.options.namespace_name);
    EXPECT_EQ(second.options.layout, first.options.layout);
    EXPECT_EQ(second.options.slot, first.options.slot);
    EXPECT_EQ(second.options.state_file, first.options.state_file);
    EXPECT_EQ(second.options.ahead, first.options.ahead);
    EXPECT_EQ(second.options.not_before_ms, first.options.not_before_ms);
    EXPECT_EQ(second.options.require_state_file, first.options.require_state_file);
    EXPECT_EQ(second.options.start_wait, first.options.start_wait);
    EXPECT_EQ(second.options.start, first.options.start);
    for (std::size_t i = 0; i < first.settings.size(); ++i) {
      if (first.settings[i].key == "cosid.machine.static.slot-source" ||
          first.settings[i].key == "cosid.layout.preset") {
        continue;  // the text spells out an explicit slot and the layout's fields
      }
      EXPECT_EQ(second.settings[i].value, first.settings[i].value) << first.settings[i].key;
    }
  }
}

TEST(Options, TheReadmeExample) {
  Fixture f;
  f.config(
      "cosid:\n"
      "  namespace: orders\n"
      "  machine:\n"
      "    static:\n"
      "      slot: ${POD_ORDINAL}\n"
      "      state-file: /var/lib/cosid/state   # keeps the ceiling across restarts\n"
      "      ahead: 10s\n"
      "      not-before: 2026-11-30T02:22:58Z\n"
      "      require-state-file: true\n"
      "  layout:\n"
      "    preset: default\n");
  f.env.set("POD_ORDINAL", "3");
  const Result r = resolve(f);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.options.namespace_name, "orders");
  EXPECT_EQ(r.options.slot, 3u);
  EXPECT_EQ(r.options.state_file, "/var/lib/cosid/state");
  EXPECT_EQ(r.options.not_before_ms, 1796005378000);
  EXPECT_TRUE(r.options.require_state_file);
  EXPECT_EQ(r.setting("cosid.machine.static.not-before").value, "2026-11-30T02:22:58.000Z");
  EXPECT_EQ(r.setting("cosid.machine.static.state-file").origin, "file cosid.yaml:6");
}

#if COSID_HAS_EXCEPTIONS
TEST(Options, ThrowingOverloads) {
  Fixture f;
  try {
    (void)resolve_options(f.sources);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_ERRC(e.code(), errc::no_slot_configured);
    EXPECT_TRUE(contains(e.what(), "--slot N")) << e.what();
  }
  f.flag("slot", "2");
  EXPECT_EQ(resolve_options(f.sources).slot, 2u);
  EXPECT_THROW((void)layout_from_settings({{"cosid.layout.unit", "h"}}), Error);
  Options bad;
  bad.namespace_name = "";
  EXPECT_THROW(validate_options(bad), Error);
}
#endif

TEST(SlotSource, LocalHostnameIsNotEmpty) {
  std::string name;
  Status status;
  ASSERT_TRUE(local_hostname(name, status));
  EXPECT_FALSE(name.empty());
}

}  // namespace
}  // namespace cosid
