// SPDX-License-Identifier: Apache-2.0
#include "config/interpolate.h"

#include <cstdlib>
#include <utility>

#include "base/fail.h"
#include "base/parse_util.h"

namespace cosid {
namespace detail {
namespace {

bool name_start(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool name_char(char c) noexcept { return name_start(c) || (c >= '0' && c <= '9'); }

}  // namespace

EnvLookup env_or_getenv(const EnvLookup& env) {
  if (env) return env;
  return [](const char* name) -> const char* { return std::getenv(name); };
}

std::string interpolate(std::string_view text, const EnvLookup& env, Status& status) noexcept {
  const EnvLookup lookup = env_or_getenv(env);
  std::string out;
  const auto refuse = [&status](errc code, std::string why) {
    fail(status, code, std::move(why));
    return std::string();
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t dollar = text.find('$', pos);
    if (dollar == std::string_view::npos || dollar + 1 == text.size()) {
      out.append(text.substr(pos));
      break;
    }
    out.append(text.substr(pos, dollar - pos));
    const char next = text[dollar + 1];
    if (next == '$') {
      out += '$';
      pos = dollar + 2;
      continue;
    }
    if (next != '{') {
      out += '$';
      pos = dollar + 1;
      continue;
    }
    const std::size_t close = text.find('}', dollar + 2);
    if (close == std::string_view::npos) {
      return refuse(errc::config_syntax,
                    "\"${\" without its '}': write ${NAME}, or $$ for a literal '$'");
    }
    const std::string_view inner = text.substr(dollar + 2, close - dollar - 2);
    std::size_t name_end = 0;
    while (name_end < inner.size() && name_char(inner[name_end])) ++name_end;
    const std::string name(inner.substr(0, name_end));
    if (name.empty() || !name_start(name[0])) {
      return refuse(errc::config_syntax,
                    quote(text.substr(dollar, close - dollar + 1)) +
                        ": a variable name is letters, digits and '_', not starting with a digit");
    }
    const std::string_view rest = inner.substr(name_end);
    const bool has_default = rest.substr(0, 2) == ":-";
    if (!rest.empty() && !has_default) {
      return refuse(errc::config_syntax, quote(text.substr(dollar, close - dollar + 1)) +
                                             ": only ${NAME} and ${NAME:-DEFAULT} are supported");
    }
    const std::string_view fallback = has_default ? rest.substr(2) : std::string_view();
    if (fallback.find("${") != std::string_view::npos) {
      return refuse(errc::config_syntax,
                    quote(text.substr(dollar)) + ": a default may not contain another ${...}");
    }
    const char* value = lookup(name.c_str());
    if (value == nullptr && !has_default) {
      return refuse(errc::unset_variable, "${" + name + "}: the variable " + name +
                                              " is not set: set it, or write ${" + name +
                                              ":-VALUE} to give a default");
    }
    if (value != nullptr && (*value != '\0' || !has_default)) {
      out += value;
    } else {
      out.append(fallback);
    }
    pos = close + 1;
  }
  status.clear();
  return out;
}

}  // namespace detail
}  // namespace cosid
