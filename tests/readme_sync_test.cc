// SPDX-License-Identifier: Apache-2.0
// README.md and README.zh-CN.md describe the same tool: this test holds them to the same headings
// (count, levels and order), the same fenced code blocks byte for byte and in order, the same
// `cosid ...` command lines, the same first column in every table (commands, keys, names: cells
// that are not translated) and the same numbers in the prose (every run of digits outside the code
// blocks, in order), so that a figure changed in one file cannot stay old in the other.
//
// Maintainers: the English README is the source. When you change it, make the same change in
// README.zh-CN.md: write the prose and tables for Chinese readers, copy every code block verbatim
// (code is never translated), keep every heading at the same level and in the same order, keep each
// table's first column as it is, and give the same numbers in the same order. A failure names the
// first heading, block, cell or number that differs, with its place in both files.
#include <gtest/gtest.h>

#include <cctype>
#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// A cell or a number with the line it is on, so that a failure can point at both files.
struct Placed {
  std::size_t line;
  std::string text;
};

struct Readme {
  std::vector<std::string> headings;         // "## Concepts": the level's hashes and the text
  std::vector<std::string> blocks;           // every fenced block, fences included
  std::vector<std::string> commands;         // lines inside blocks that run cosid
  std::vector<std::string> inline_commands;  // `cosid ...` spans of the prose, in order
  std::vector<Placed> first_cells;           // each table row's first cell, header rows included
  std::vector<Placed> numbers;               // each run of digits outside the code blocks
};

// "| `cosid next` | issue ids |" gives "`cosid next`"; a separator row ("| --- |") gives nothing.
void add_first_cell(const std::string& line, std::size_t line_number, std::vector<Placed>& out) {
  const std::size_t end = line.find('|', 1);
  if (end == std::string::npos) return;
  std::string cell = line.substr(1, end - 1);
  cell.erase(0, cell.find_first_not_of(' '));
  cell.erase(cell.find_last_not_of(' ') + 1);
  if (cell.find_first_not_of("-:") == std::string::npos && !cell.empty()) return;
  out.push_back({line_number, cell});
}

void add_numbers(const std::string& line, std::size_t line_number, std::vector<Placed>& out) {
  for (std::size_t i = 0; i < line.size();) {
    if (std::isdigit(static_cast<unsigned char>(line[i])) == 0) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end])) != 0) ++end;
    out.push_back({line_number, line.substr(i, end - i)});
    i = end;
  }
}

void add_inline_commands(const std::string& line, std::vector<std::string>& out) {
  for (std::size_t open = line.find("`cosid "); open != std::string::npos;
       open = line.find("`cosid ", open + 1)) {
    const std::size_t close = line.find('`', open + 1);
    if (close == std::string::npos) break;
    out.push_back(line.substr(open + 1, close - open - 1));
    open = close;
  }
}

Readme read_readme(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  Readme readme;
  std::string line, block;
  bool in_block = false;
  for (std::size_t line_number = 1; std::getline(in, line); ++line_number) {
    // A fence may be indented (a block inside a list item).
    const std::size_t text = line.find_first_not_of(' ');
    const bool fence = text != std::string::npos && line.compare(text, 3, "```") == 0;
    if (in_block) {
      block += line + "\n";
      if (fence) {
        readme.blocks.push_back(block);
        in_block = false;
      } else if (line.find("cosid ") != std::string::npos) {
        readme.commands.push_back(line);
      }
    } else if (fence) {
      block = line + "\n";
      in_block = true;
    } else {
      add_numbers(line, line_number, readme.numbers);
      if (line.rfind("#", 0) == 0) {
        readme.headings.push_back(line);
      } else if (line.rfind("|", 0) == 0) {
        add_first_cell(line, line_number, readme.first_cells);
        add_inline_commands(line, readme.inline_commands);
      } else {
        add_inline_commands(line, readme.inline_commands);
      }
    }
  }
  EXPECT_FALSE(in_block) << path << " ends inside a code block";
  return readme;
}

std::string level(const std::string& heading) {
  return heading.substr(0, heading.find_first_not_of('#'));
}

const Readme& english() {
  static const Readme r = read_readme(COSID_SOURCE_DIR "/README.md");
  return r;
}
const Readme& chinese() {
  static const Readme r = read_readme(COSID_SOURCE_DIR "/README.zh-CN.md");
  return r;
}

TEST(ReadmeSyncTest, SameHeadingLevelsInOrder) {
  const auto& en = english().headings;
  const auto& zh = chinese().headings;
  ASSERT_FALSE(en.empty());
  for (std::size_t i = 0; i < en.size() && i < zh.size(); ++i) {
    ASSERT_EQ(level(en[i]), level(zh[i]))
        << "heading " << i + 1 << " differs in level: README.md \"" << en[i]
        << "\", README.zh-CN.md \"" << zh[i] << "\"";
  }
  ASSERT_EQ(en.size(), zh.size()) << "README.md has " << en.size() << " headings, README.zh-CN.md "
                                  << zh.size() << "; the first one past the shorter: \""
                                  << (en.size() > zh.size() ? en[zh.size()] : zh[en.size()])
                                  << "\"";
}

TEST(ReadmeSyncTest, SameCodeBlocksByteForByte) {
  const auto& en = english().blocks;
  const auto& zh = chinese().blocks;
  ASSERT_FALSE(en.empty());
  for (std::size_t i = 0; i < en.size() && i < zh.size(); ++i) {
    ASSERT_EQ(en[i], zh[i]) << "code block " << i + 1 << " differs";
  }
  ASSERT_EQ(en.size(), zh.size()) << "README.md has " << en.size()
                                  << " code blocks, README.zh-CN.md " << zh.size()
                                  << "; the first one past the shorter:\n"
                                  << (en.size() > zh.size() ? en[zh.size()] : zh[en.size()]);
}

TEST(ReadmeSyncTest, SameCosidCommandLines) {
  EXPECT_FALSE(english().commands.empty());
  EXPECT_EQ(english().commands, chinese().commands);
  const auto& en = english().inline_commands;
  const auto& zh = chinese().inline_commands;
  EXPECT_FALSE(en.empty());
  for (std::size_t i = 0; i < en.size() && i < zh.size(); ++i) {
    ASSERT_EQ(en[i], zh[i]) << "inline command " << i + 1 << " differs";
  }
  EXPECT_EQ(en.size(), zh.size()) << "README.md has " << en.size()
                                  << " inline `cosid ...` commands, README.zh-CN.md " << zh.size();
}

// The first item that differs (or the first past the shorter list), with its line in both files.
void expect_same_in_order(const std::string& what, const std::vector<Placed>& en,
                          const std::vector<Placed>& zh) {
  for (std::size_t i = 0; i < en.size() && i < zh.size(); ++i) {
    ASSERT_EQ(en[i].text, zh[i].text)
        << what << " " << i + 1 << " differs: README.md line " << en[i].line << " has \""
        << en[i].text << "\", README.zh-CN.md line " << zh[i].line << " has \"" << zh[i].text
        << "\"";
  }
  if (en.size() == zh.size()) return;
  const bool english_longer = en.size() > zh.size();
  const Placed& extra = english_longer ? en[zh.size()] : zh[en.size()];
  ADD_FAILURE() << what << ": README.md has " << en.size() << ", README.zh-CN.md " << zh.size()
                << "; the first one past the shorter: \"" << extra.text << "\" on line "
                << extra.line << " of " << (english_longer ? "README.md" : "README.zh-CN.md");
}

TEST(ReadmeSyncTest, SameFirstColumnInEveryTable) {
  ASSERT_FALSE(english().first_cells.empty());
  expect_same_in_order("first-column cell", english().first_cells, chinese().first_cells);
}

TEST(ReadmeSyncTest, SameNumbersInTheProse) {
  ASSERT_FALSE(english().numbers.empty());
  expect_same_in_order("number in the prose", english().numbers, chinese().numbers);
}

TEST(ReadmeSyncTest, EachLinksToTheOther) {
  std::ifstream en(COSID_SOURCE_DIR "/README.md"), zh(COSID_SOURCE_DIR "/README.zh-CN.md");
  std::stringstream e, z;
  e << en.rdbuf();
  z << zh.rdbuf();
  EXPECT_NE(e.str().find("README.zh-CN.md"), std::string::npos);
  EXPECT_NE(z.str().find("(README.md)"), std::string::npos);
}

}  // namespace
