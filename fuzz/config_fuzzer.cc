// SPDX-License-Identifier: Apache-2.0
// Fuzzes option resolution (cosid/options.h) from a config text and an environment:
//  - resolve_options never crashes; a refusal carries a cosid error code and a bounded message;
//  - accepted options pass validate_options (and their layout validate());
//  - to_config_text(options), resolved again with an empty environment, gives equal options
//    (with an explicit slot: a slot taken from the host name is written as the number);
//  - the settings list has one entry per key of the config key table, in order.
//
// Input: the config text up to the first NUL byte; after it, NUL-separated NAME=VALUE entries of
// the environment (COSID_CONFIG is dropped: the text is the config). HOSTNAME, when not set by the
// input, is "cosid-7", so that gethostname() is never asked.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "config/config_keys.h"
#include "cosid/error.h"
#include "cosid/options.h"
#include "fuzz_util.h"

namespace {

std::string describe(const cosid::Options& o) {
  const cosid::Layout& l = o.layout;
  return "ns=" + o.namespace_name + " slot=" + std::to_string(o.slot) +
         " source=" + std::to_string(static_cast<int>(o.slot_source)) + " state=" + o.state_file +
         " ahead=" + std::to_string(o.ahead.count()) + " nb=" + std::to_string(o.not_before_ms) +
         " req=" + std::to_string(o.require_state_file) +
         " wait=" + std::to_string(o.start_wait.count()) + " epoch=" + std::to_string(l.epoch) +
         " unit=" + cosid::to_string(l.unit) + " bits=" + std::to_string(l.timestamp_bits) + "/" +
         std::to_string(l.slot_bits) + "/" + std::to_string(l.sequence_bits) +
         " store=" + o.store_type + " ttl=" + std::to_string(o.ttl.count()) +
         " tolerance=" + std::to_string(o.tolerance.count()) + " owner=" + o.owner_key +
         " dir=" + o.store_directory;
}

bool same(const cosid::Options& a, const cosid::Options& b) {
  return a.namespace_name == b.namespace_name && a.layout == b.layout && a.slot == b.slot &&
         a.state_file == b.state_file && a.ahead == b.ahead && a.not_before_ms == b.not_before_ms &&
         a.require_state_file == b.require_state_file && a.start_wait == b.start_wait &&
         a.store_type == b.store_type && a.ttl == b.ttl && a.tolerance == b.tolerance &&
         a.owner_key == b.owner_key && a.preferred_slot == b.preferred_slot &&
         a.store_directory == b.store_directory;
}

bool is_cosid_error(const std::error_code& ec) {
  return ec && ec.category() == cosid::error_category();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;  // a config file is small; bigger inputs only slow the search
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string text(input.substr(0, nul));

  std::map<std::string, std::string> env;
  if (nul != std::string_view::npos) {
    std::string_view rest = input.substr(nul + 1);
    while (!rest.empty()) {
      const std::size_t end = rest.find('\0');
      const std::string_view entry = rest.substr(0, end);
      const std::size_t eq = entry.find('=');
      if (eq != std::string_view::npos && eq > 0) {
        env[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
      }
      if (end == std::string_view::npos) break;
      rest = rest.substr(end + 1);
    }
  }
  env.erase("COSID_CONFIG");

  cosid::OptionSources sources;
  sources.config_file = "fuzz.yaml";
  sources.config_text = text;
  sources.env = [&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  const auto host = env.find("HOSTNAME");
  if (host == env.end() || host->second.empty()) sources.hostname = "cosid-7";

  std::vector<cosid::Setting> settings;
  cosid::Status status;
  const cosid::Options options = cosid::resolve_options(sources, settings, status);
  if (!status.ok()) {
    const std::string message = status.message();
    CHECK_MSG(is_cosid_error(status.code()), message);
    CHECK_MSG(!message.empty() && message.size() < 4096, message);
    return 0;
  }
  // The short form agrees.
  cosid::Status short_status;
  const cosid::Options short_form = cosid::resolve_options(sources, short_status);
  CHECK_MSG(short_status.ok() && same(short_form, options), describe(options));

  cosid::Status valid_status;
  CHECK_MSG(cosid::validate_options(options, valid_status),
            describe(options) + ": " + valid_status.message());
  cosid::Status layout_valid;
  CHECK_MSG(options.layout.validate(layout_valid), describe(options));
  CHECK_MSG(options.start_wait == (options.uses_store() ? options.ttl + options.tolerance
                                                        : options.ahead + std::chrono::seconds(1)),
            describe(options));

  CHECK_MSG(settings.size() == cosid::detail::kKeyCount, describe(options));
  for (std::size_t i = 0; i < settings.size(); ++i) {
    CHECK_MSG(settings[i].key == cosid::detail::kConfigKeyRows[i].key, settings[i].key);
    CHECK_MSG(!settings[i].origin.empty(), settings[i].key);
  }

  const std::string again_text = cosid::to_config_text(options);
  cosid::OptionSources again_sources;
  again_sources.config_file = "again.yaml";
  again_sources.config_text = again_text;
  again_sources.env = [](const char*) -> const char* { return nullptr; };
  again_sources.hostname = "cosid-7";
  cosid::Status again_status;
  const cosid::Options again = cosid::resolve_options(again_sources, again_status);
  CHECK_MSG(again_status.ok(), again_text + "\n=> " + again_status.message());
  CHECK_MSG(same(again, options),
            describe(options) + "\n  vs " + describe(again) + "\n" + again_text);
  CHECK_MSG(again.slot_source == cosid::SlotSource::kExplicit, again_text);
  CHECK_MSG(cosid::to_config_text(again) == again_text, again_text);
  return 0;
}
