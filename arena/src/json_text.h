// Just enough JSON for the arena's own files: strings quoted by the common
// quoter, numbers for output, and reading back flat objects of strings and
// numbers (the record lines).
#pragma once

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "inarow/common/json.h"

namespace inarow::arena::json {

using inarow::json::quote;

// A finite number, or null (JSON has no infinity).
inline std::string number(double v, int decimals = 2) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// A flat object: every value a string or a number (kept as its text).
// Returns nullopt on anything else.
inline std::optional<std::map<std::string, std::string>> parse_flat(std::string_view text) {
  std::map<std::string, std::string> out;
  std::size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r'))
      ++i;
  };
  auto string = [&]() -> std::optional<std::string> {
    if (i >= text.size() || text[i] != '"') return std::nullopt;
    std::string s;
    for (++i; i < text.size(); ++i) {
      char ch = text[i];
      if (ch == '"') {
        ++i;
        return s;
      }
      if (ch == '\\') {
        if (++i >= text.size()) return std::nullopt;
        switch (text[i]) {
          case 'n':
            s += '\n';
            break;
          case 'r':
            s += '\r';
            break;
          case 't':
            s += '\t';
            break;
          case 'u':
            if (i + 4 >= text.size()) return std::nullopt;
            s += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 4)), nullptr, 16));
            i += 4;
            break;
          default:
            s += text[i];
        }
      } else {
        s += ch;
      }
    }
    return std::nullopt;
  };
  skip();
  if (i >= text.size() || text[i++] != '{') return std::nullopt;
  skip();
  if (i < text.size() && text[i] == '}') return out;
  for (;;) {
    skip();
    auto key = string();
    if (!key) return std::nullopt;
    skip();
    if (i >= text.size() || text[i++] != ':') return std::nullopt;
    skip();
    if (i < text.size() && text[i] == '"') {
      auto value = string();
      if (!value) return std::nullopt;
      out[*key] = *value;
    } else {
      const std::size_t start = i;
      while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ' ')
        ++i;
      if (i == start) return std::nullopt;
      out[*key] = std::string(text.substr(start, i - start));
    }
    skip();
    if (i >= text.size()) return std::nullopt;
    if (text[i] == ',') {
      ++i;
      continue;
    }
    if (text[i] == '}') return out;
    return std::nullopt;
  }
}

}  // namespace inarow::arena::json
