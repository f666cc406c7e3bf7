// SPDX-License-Identifier: Apache-2.0
// The table of config keys (src/config/config_keys.h) against what is derived from it and against
// the configuration reference's table (src/config/README.md), which is written by hand and must say
// the same: every key with its flag, its variable, its default and its one line, and no key the
// table does not have.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_keys.h"
#include "cosid/options.h"
#include "support/test_util.h"

namespace cosid {
namespace {

using detail::ConfigKey;
using detail::kConfigKeyRows;

// One row of the reference's table: key | flag | variable | default | one line, backticks removed.
struct ReadmeRow {
  std::string flag;
  std::string variable;
  std::string default_text;
  std::string summary;
};

std::string unquote(std::string cell) {
  while (!cell.empty() && cell.front() == ' ') cell.erase(0, 1);
  while (!cell.empty() && cell.back() == ' ') cell.pop_back();
  if (cell.size() >= 2 && cell.front() == '`' && cell.back() == '`') {
    cell = cell.substr(1, cell.size() - 2);
  }
  return cell;
}

// The rows of the reference's first table (the one before its first "## " section), by key.
std::map<std::string, ReadmeRow> readme_rows() {
  std::ifstream in(COSID_CONFIG_REFERENCE);
  EXPECT_TRUE(in) << COSID_CONFIG_REFERENCE;
  std::map<std::string, ReadmeRow> rows;
  bool in_section = true;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_section = false;
    if (!in_section || line.rfind("| `cosid.", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream stream(line.substr(1));
    for (std::string cell; std::getline(stream, cell, '|');) cells.push_back(unquote(cell));
    if (!cells.empty() && cells.back().empty()) cells.pop_back();
    EXPECT_EQ(cells.size(), 5u) << line;
    if (cells.size() != 5) continue;
    EXPECT_EQ(rows.count(cells[0]), 0u) << "listed twice: " << cells[0];
    rows[cells[0]] = {cells[1], cells[2], cells[3], cells[4]};
  }
  return rows;
}

// "--slot N", "--slot-from-hostname", or "" for a key without a flag.
std::string flag_text(const ConfigKey& row) {
  if (row.flag == nullptr) return "";
  std::string text = std::string("--") + row.flag;
  if (row.value_name != nullptr) text += std::string(" ") + row.value_name;
  return text;
}

// The reference's line a row asks for, printed when it is missing or differs.
std::string expected_line(const ConfigKey& row) {
  const std::string flag = flag_text(row);
  const auto code = [](const std::string& text) { return text.empty() ? "" : "`" + text + "`"; };
  return std::string("| `") + row.key + "` | " + code(flag) + " | " +
         code(row.variable != nullptr ? row.variable : "") + " | " + code(row.default_text) +
         " | " + row.summary + " |";
}

TEST(ConfigTable, ReadmeListsEveryKeyWithItsFlagVariableAndDefault) {
  const std::map<std::string, ReadmeRow> readme = readme_rows();
  for (const ConfigKey& row : kConfigKeyRows) {
    SCOPED_TRACE(expected_line(row));
    const auto it = readme.find(row.key);
    if (it == readme.end()) {
      ADD_FAILURE() << "src/config/README.md's table lacks " << row.key;
      continue;
    }
    EXPECT_EQ(it->second.flag, flag_text(row));
    EXPECT_EQ(it->second.variable, row.variable != nullptr ? row.variable : "");
    EXPECT_EQ(it->second.default_text, row.default_text);
    EXPECT_EQ(it->second.summary, row.summary);
  }
}

// The segment keys' table (a provider row's key with KEY), held to the reference the same way: a
// flag is `cosid segment`'s, and no variable sets them.
TEST(ConfigTable, ReadmeListsEverySegmentKeyWithItsFlagAndDefault) {
  const std::map<std::string, ReadmeRow> readme = readme_rows();
  for (const detail::ConfigKey& row : detail::kSegmentKeyRows) {
    const std::string flag =
        row.flag != nullptr ? std::string("--") + row.flag + " " + row.value_name : "";
    SCOPED_TRACE(std::string("| `") + row.key + "` | " + (flag.empty() ? "" : "`" + flag + "`") +
                 " | | `" + row.default_text + "` | " + row.summary + " |");
    const auto it = readme.find(row.key);
    if (it == readme.end()) {
      ADD_FAILURE() << "src/config/README.md's table lacks " << row.key;
      continue;
    }
    EXPECT_EQ(it->second.flag, flag);
    EXPECT_EQ(it->second.variable, "");
    EXPECT_EQ(it->second.default_text, row.default_text);
    EXPECT_EQ(it->second.summary, row.summary);
  }
}

TEST(ConfigTable, ReadmeListsNoKeyTheTableLacks) {
  for (const auto& [key, row] : readme_rows()) {
    std::string_view provider;
    EXPECT_TRUE(detail::find_key(key) != detail::kKeyCount ||
                detail::find_segment_key(key, provider) != detail::kSegmentKeyCount)
        << "src/config/README.md lists " << key << ", which no row of src/config/config_keys.h has";
  }
}

TEST(ConfigTable, SegmentRowsAreWellFormed) {
  for (detail::SegmentKey key = 0; key < detail::kSegmentKeyCount; ++key) {
    const detail::ConfigKey& row = detail::kSegmentKeyRows[key];
    SCOPED_TRACE(row.key);
    EXPECT_EQ(std::string_view(row.key).substr(0, 14), "cosid.segment.");
    std::string_view provider;
    EXPECT_EQ(detail::find_segment_key(row.key, provider), key) << "a key listed twice";
    EXPECT_EQ(detail::find_key(row.key), detail::kKeyCount) << "a key of both tables";
    EXPECT_NE(row.summary[0], '\0');
    EXPECT_NE(row.wording[0], '\0');
    EXPECT_LE(row.min, row.max);
  }
  EXPECT_EQ(detail::segment_range_text(detail::kShareStep), "from 1 to 1073741824");
  EXPECT_EQ(detail::segment_range_text(detail::kSegmentDirectory), "1 to 4095 bytes");
}

TEST(ConfigTable, RowsAreWellFormed) {
  std::map<std::string, int> variables;
  for (detail::Key key = 0; key < detail::kKeyCount; ++key) {
    const ConfigKey& row = kConfigKeyRows[key];
    SCOPED_TRACE(row.key);
    EXPECT_EQ(detail::find_key(row.key), key) << "a key listed twice";
    EXPECT_EQ(std::string_view(row.key).substr(0, 6), "cosid.");
    EXPECT_NE(row.summary[0], '\0');
    EXPECT_NE(row.wording[0], '\0');
    EXPECT_NE(row.default_text[0], '\0');
    // A switch sets its key to a value; a flag with a value takes it from the command line.
    if (row.flag != nullptr) {
      EXPECT_NE(row.value_name == nullptr, row.implied == nullptr);
    }
    if (row.variable != nullptr) {
      EXPECT_EQ(std::string_view(row.variable).substr(0, 6), "COSID_");
      EXPECT_EQ(variables[row.variable]++, 0) << row.variable << " sets two keys";
    }
    EXPECT_LE(row.min, row.max);
  }
}

TEST(ConfigTable, EveryFlagFindsItsRow) {
  for (const ConfigKey& row : kConfigKeyRows) {
    if (row.flag == nullptr) continue;
    SCOPED_TRACE(row.key);
    // --store is the type's row; its part after ':' sets the directory (split_store_flag()).
    const ConfigKey* found = detail::find_config_flag(row.flag);
    ASSERT_NE(found, nullptr);
    EXPECT_TRUE(found == &row || std::string_view(row.flag) == "store");
    EXPECT_STREQ(detail::key_for_flag(row.flag), found->key);
  }
  EXPECT_EQ(detail::key_for_flag("config"), nullptr);
  EXPECT_EQ(detail::key_for_flag("--slot"), nullptr);
}

TEST(ConfigTable, RangeMessagesQuoteTheRowsBounds) {
  EXPECT_EQ(detail::range_text(detail::kAhead), "from 10ms to 24h");
  EXPECT_EQ(detail::range_text(detail::kTtl), "from 300ms to 1h");
  EXPECT_EQ(detail::range_text(detail::kTolerance), "from 0ms to 1h");
  EXPECT_EQ(detail::range_text(detail::kOwnerKey), "1 to 255 bytes");
  Options options;
  options.ahead = std::chrono::milliseconds(5);
  Status status;
  EXPECT_FALSE(validate_options(options, status));
  EXPECT_STATUS(status, errc::invalid_value);
  EXPECT_NE(status.message().find("ahead is " + detail::range_text(detail::kAhead)),
            std::string::npos)
      << status.message();
}

}  // namespace
}  // namespace cosid
