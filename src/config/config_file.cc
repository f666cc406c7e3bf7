// SPDX-License-Identifier: Apache-2.0
#include "config/config_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "base/fail.h"
#include "base/parse_util.h"
#include "config/config_keys.h"
#include "config/interpolate.h"

namespace cosid {
namespace detail {
namespace {

// What a file that is not a regular file is, for a message: "a directory", "a FIFO".
const char* file_kind(mode_t mode) noexcept {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "a special file";
}

bool is_space(char c) noexcept { return c == ' ' || c == '\t'; }

std::string_view trim_right(std::string_view text) noexcept {
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

bool reason(std::string& why, const std::string& text) {
  why = text;
  return false;
}

bool read_quoted(std::string_view text, std::string& out, std::string& why) {
  const char quote_char = text[0];
  out.clear();
  std::size_t pos = 1;
  bool closed = false;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (c == quote_char) {
      if (quote_char == '\'' && pos < text.size() && text[pos] == '\'') {
        out += '\'';
        ++pos;
        continue;
      }
      closed = true;
      break;
    }
    if (c != '\\' || quote_char == '\'') {
      out += c;
      continue;
    }
    const char escaped = pos < text.size() ? text[pos++] : '\0';
    switch (escaped) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      default:
        return reason(why,
                      "unsupported escape in a double-quoted value: use \\\", \\\\, \\n "
                      "or \\t");
    }
  }
  if (!closed) {
    return reason(
        why, std::string("no closing ") + quote_char + ": a quoted value must end on its own line");
  }
  const std::string_view rest = text.substr(pos);
  const std::size_t next = rest.find_first_not_of(" \t");
  if (next != std::string_view::npos && (rest[next] != '#' || next == 0)) {
    return reason(why,
                  "text after the closing quote: only a comment (after a space) may "
                  "follow");
  }
  return true;
}

// Reads the scalar `text` (not empty, no leading space) into `out`. On failure returns false and
// stores in `why` what is wrong and what to write instead.
bool read_scalar(std::string_view text, std::string& out, std::string& why) {
  const char c = text[0];
  if (c == '"' || c == '\'') return read_quoted(text, out, why);
  if (c == '{' || c == '[' || c == '}' || c == ']' || c == ',') {
    return reason(why, "flow style ({...} or [...]) is not supported: write one value per key");
  }
  if (c == '&' || c == '*') return reason(why, "anchors and aliases (&a, *a) are not supported");
  if (c == '!') return reason(why, "tags (!tag) are not supported");
  if (c == '|' || c == '>') {
    return reason(why, "block scalars (| or >) are not supported: write the value on one line");
  }
  if (c == '%' || c == '@' || c == '`') {
    return reason(why, std::string("a plain value cannot start with '") + c + "': quote it");
  }
  if ((c == '-' || c == '?' || c == ':') && (text.size() == 1 || is_space(text[1]))) {
    return reason(why, "lists and complex keys are not supported: give a single value");
  }
  std::size_t end = text.size();
  for (std::size_t i = 1; i < text.size(); ++i) {
    if (text[i] == '#' && is_space(text[i - 1])) {
      end = i;
      break;
    }
  }
  const std::string_view value = trim_right(text.substr(0, end));
  if (value.back() == ':' || value.find(": ") != std::string_view::npos ||
      value.find(":\t") != std::string_view::npos) {
    return reason(why, "a ': ' inside a plain value starts a mapping in YAML: quote the value");
  }
  if (value == "~" || value == "null" || value == "Null" || value == "NULL") {
    return reason(why, "YAML reads " + std::string(value) +
                           " as null: give a value (quote it to mean the text), or remove the "
                           "key");
  }
  out.assign(value);
  return true;
}

class Parser {
 public:
  Parser(std::string_view name, const EnvLookup& env, std::vector<ConfigEntry>& entries,
         Status& status)
      : name_(name), env_(env), entries_(entries), status_(status) {
    blocks_.push_back({0, ""});
  }

  bool line(std::string_view text, int number);
  // After the last line: an instance key left without a value, an instance without a type.
  bool finish();

 private:
  struct Block {
    std::size_t indent;
    std::string path;
  };

  // Fails with "FILE:LINE: why".
  bool refuse_at(std::error_code code, int number, const std::string& why) {
    return detail::fail(status_, code,
                        std::string(name_) + ":" + std::to_string(number) + ": " + why);
  }
  bool syntax(int number, const std::string& why) {
    return refuse_at(errc::config_syntax, number, why);
  }

  // A store instance seen (cosid.stores.NAME), for the check that each has a type.
  struct Instance {
    std::string name;
    int line;
    bool typed;
  };

  bool place(std::size_t indent, int number);
  bool key(std::string_view rest, const std::string& path, bool has_value, int number);
  // A key in cosid.stores: the block, an instance, or a key of an instance (kept as it is, for
  // the store's factory to read).
  bool store_key(std::string_view after, const std::string& path, bool has_value, int number);
  bool open_block(const std::string& path, bool must_have_keys, int number);
  // Keeps the entry of `path` with the scalar `raw`, interpolated.
  bool value(const std::string& raw, const std::string& path, int number);
  // Refuses an instance key that opened a block and has no keys: it has no value.
  bool empty_block();

  std::string_view name_;
  const EnvLookup& env_;
  std::vector<ConfigEntry>& entries_;
  Status& status_;
  std::vector<Block> blocks_;  // the open mappings, outermost first; blocks_[0] is the document
  bool block_opened_ = false;  // the previous key had no value: its block may follow
  std::string opened_path_;
  int opened_line_ = 0;
  bool opened_must_have_keys_ = false;  // a key below an instance: a value or keys below it
  std::vector<Instance> instances_;     // in the order of the file
  std::map<std::string, int> seen_;     // full path -> line, for every key
};

// Finds the block a line of `indent` belongs to, closing deeper ones and opening a pending one.
bool Parser::place(std::size_t indent, int number) {
  if (block_opened_) {
    if (indent > blocks_.back().indent) {
      block_opened_ = false;
      blocks_.push_back({indent, opened_path_});
      return true;
    }
    if (!empty_block()) return false;
  }
  bool closed = false;
  while (blocks_.size() > 1 && indent < blocks_.back().indent) {
    blocks_.pop_back();
    closed = true;
  }
  if (indent == blocks_.back().indent) return true;
  if (indent > blocks_.back().indent && !closed) {
    return syntax(number,
                  "unexpected indentation: only a key without a value opens an indented "
                  "block below it");
  }
  return syntax(number, "inconsistent indentation: " + std::to_string(indent) +
                            " spaces match no open block: indent each key like the keys "
                            "before it in its block");
}

bool Parser::line(std::string_view text, int number) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t') || byte == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned>(byte));
      return syntax(number, std::string("control byte ") + buf + ": a config file is text");
    }
  }
  std::size_t indent = 0;
  while (indent < text.size() && text[indent] == ' ') ++indent;
  const std::string_view rest = text.substr(indent);
  if (trim_right(rest).empty() || rest[0] == '#') return true;
  if (rest[0] == '\t') return syntax(number, "a tab in the indentation: indent with spaces");
  if (indent == 0 && (rest.substr(0, 3) == "---" || rest.substr(0, 3) == "...")) {
    return syntax(number, "document markers (---, ...) are not supported: one document per file");
  }
  const char c = rest[0];
  if (c == '-' && (rest.size() == 1 || is_space(rest[1]))) {
    return syntax(number, "lists (- item) are not supported: every setting is a single value");
  }
  if (c == '%') return syntax(number, "directives (%YAML) are not supported");
  if (c == '?') return syntax(number, "complex keys (?) are not supported");
  if (c == '"' || c == '\'') return syntax(number, "quoted keys are not supported");
  std::size_t end = 0;
  while (end < rest.size() && is_key_char(rest[end])) ++end;
  if (end == 0 || end == rest.size() || rest[end] != ':') {
    return syntax(number,
                  "expected \"key: value\" or \"key:\" with a key of letters, digits, "
                  "'-' and '_'");
  }
  std::string_view after = rest.substr(end + 1);
  if (!after.empty() && !is_space(after[0])) {
    return syntax(number, "a ':' after a key needs a space before the value");
  }
  while (!after.empty() && is_space(after[0])) after.remove_prefix(1);
  const bool has_value = !after.empty() && after[0] != '#';
  if (!place(indent, number)) return false;
  const std::string& parent = blocks_.back().path;
  const std::string path = parent.empty() ? std::string(rest.substr(0, end))
                                          : parent + "." + std::string(rest.substr(0, end));
  return key(after, path, has_value, number);
}

bool Parser::empty_block() {
  block_opened_ = false;
  if (!opened_must_have_keys_) return true;
  return syntax(opened_line_, opened_path_ +
                                  " has no value: write it after the ':', or its keys on the "
                                  "lines below, indented");
}

bool Parser::finish() {
  if (block_opened_ && !empty_block()) return false;
  for (const Instance& instance : instances_) {
    if (instance.typed) continue;
    return syntax(instance.line, std::string(kStoresBlock) + "." + instance.name +
                                     " has no type: give the store type it is made by (such as "
                                     "\"type: zookeeper\") on a line of its own below it");
  }
  return true;
}

bool Parser::open_block(const std::string& path, bool must_have_keys, int number) {
  block_opened_ = true;
  opened_path_ = path;
  opened_line_ = number;
  opened_must_have_keys_ = must_have_keys;
  return true;
}

bool Parser::value(const std::string& raw, const std::string& path, int number) {
  ConfigEntry entry;
  entry.key = path;
  entry.line = number;
  entry.value = interpolate(raw, env_, status_);
  if (!status_.ok()) return refuse_at(status_.code(), number, path + ": " + status_.message());
  if (entry.value.empty() && !raw.empty()) entry.emptied_from = raw;
  entries_.push_back(std::move(entry));
  return true;
}

bool Parser::store_key(std::string_view after, const std::string& path, bool has_value,
                       int number) {
  std::string_view name;
  std::string_view below;
  if (!split_store_key(path, name, below)) {  // cosid.stores itself
    if (has_value) {
      return syntax(number, path +
                                " is a block, not a value: put each store instance on the lines "
                                "below, indented (NAME:, then its type and keys below it)");
    }
    return open_block(path, /*must_have_keys=*/false, number);
  }
  if (below.empty()) {
    if (!is_store_instance_name(name)) {
      return refuse_at(errc::invalid_value, number,
                       "store instance " + quote(name) + " (" + path +
                           ") is not a name: use lower-case letters, digits, '-' and '_' (1 to " +
                           std::to_string(kMaxStoreNameBytes) + " bytes)");
    }
    if (has_value) {
      return syntax(number, path +
                                " is a store instance, not a value: put its type and keys on the "
                                "lines below, indented");
    }
    instances_.push_back({std::string(name), number, false});
    return open_block(path, /*must_have_keys=*/false, number);
  }
  if (!has_value) {
    if (below == "type") {
      return syntax(number, path + " has no value: write the store type after the ':'");
    }
    return open_block(path, /*must_have_keys=*/true, number);
  }
  std::string raw;
  std::string why;
  if (!read_scalar(after, raw, why)) return syntax(number, why);
  if (below == "type") {
    for (Instance& instance : instances_) instance.typed = instance.typed || instance.name == name;
  }
  return value(raw, path, number);
}

bool Parser::key(std::string_view after, const std::string& path, bool has_value, int number) {
  const auto first = seen_.find(path);
  if (first != seen_.end()) {
    return refuse_at(
        errc::config_duplicate_key, number,
        path + " is given twice (first on line " + std::to_string(first->second) + "): keep one");
  }
  seen_.emplace(path, number);
  std::string_view name;
  std::string_view below;
  if (path == kStoresBlock || split_store_key(path, name, below)) {
    return store_key(after, path, has_value, number);
  }
  const bool leaf = find_any_row(path) != nullptr;
  if (!leaf && !is_key_block(path)) {
    const std::size_t dot = path.rfind('.');
    if (dot == std::string::npos) {
      return refuse_at(
          errc::config_unknown_key, number,
          "unknown key " + path + ": a cosid config file has one top-level key, cosid");
    }
    const std::string parent = path.substr(0, dot);
    return refuse_at(
        errc::config_unknown_key, number,
        "unknown key " + path + ": the keys under " + parent + " are " + keys_under(parent));
  }
  if (!has_value) {
    if (leaf) return syntax(number, path + " has no value: write it after the ':'");
    return open_block(path, /*must_have_keys=*/false, number);
  }
  std::string raw;
  std::string why;
  if (!read_scalar(after, raw, why)) return syntax(number, why);
  if (!leaf) {
    return syntax(number, path + " is a block, not a value: put its keys (" + keys_under(path) +
                              ") on the lines below, indented");
  }
  return value(raw, path, number);
}

}  // namespace

std::vector<ConfigEntry> parse_config(std::string_view text, std::string_view name,
                                      const EnvLookup& env, Status& status) noexcept {
  std::vector<ConfigEntry> entries;
  if (text.size() > kMaxConfigBytes) {
    fail(status, errc::config_syntax,
         std::string(name) + ": " + std::to_string(text.size()) +
             " bytes, more than a cosid config file may have (1 MiB): check the path");
    return entries;
  }
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
  const EnvLookup lookup = env_or_getenv(env);
  Parser parser(name, lookup, entries, status);
  int number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (!parser.line(line, ++number)) return {};
  }
  if (!parser.finish()) return {};
  status.clear();
  return entries;
}

std::vector<ConfigEntry> read_config_file(const std::string& path, const EnvLookup& env,
                                          Status& status) noexcept {
  const auto unreadable = [&](int error) {
    fail(status, errc::config_unreadable,
         "cannot read config file " + path + ": " + std::strerror(error) +
             ": check the path given with --config or COSID_CONFIG, and its permissions");
    return std::vector<ConfigEntry>();
  };
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, for ever if none
  // comes. What is not a regular file is refused below, before any read could block.
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return unreadable(errno);
  struct stat st {};
  if (::fstat(fd, &st) < 0) {
    const int error = errno;
    ::close(fd);
    return unreadable(error);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(status, errc::config_unreadable,
         "config file " + path + " is " + file_kind(st.st_mode) +
             ", not a regular file: give the path of the config file itself with --config or "
             "COSID_CONFIG");
    return std::vector<ConfigEntry>();
  }
  // Back to blocking reads (for a regular file O_NONBLOCK changes nothing, so this cannot fail in
  // a way that matters; a failure is ignored).
  (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return unreadable(error);
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxConfigBytes) break;  // parse_config reports the size
  }
  ::close(fd);
  return parse_config(text, path, env, status);
}

}  // namespace detail
}  // namespace cosid
