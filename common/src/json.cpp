#include "inarow/common/json.h"

#include <algorithm>
#include <cstdint>

#include "inarow/common/utf8.h"

namespace inarow::json {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8
constexpr char kHex[] = "0123456789abcdef";

// \uXXXX, as JSON writes it: a surrogate pair past U+FFFF.
void append_u(std::string& out, char32_t c) {
  if (c > 0xFFFF) {
    append_u(out, 0xD800 + ((c - 0x10000) >> 10));
    append_u(out, 0xDC00 + ((c - 0x10000) & 0x3FF));
    return;
  }
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4)
    out += kHex[(c >> shift) & 0xF];
}

// The two-character escapes quote and echo share ("" for any other
// character): `\\` so that an escape is always ours, and the white space
// that has a short form.
std::string_view short_escape(char32_t c) {
  switch (c) {
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      return {};
  }
}

}  // namespace

std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto ch = static_cast<unsigned char>(s[i]);
    if (ch < 0x80) {
      if (ch == '"')
        out += "\\\"";
      else if (const std::string_view e = short_escape(ch); !e.empty())
        out += e;
      else if (ch < 0x20)
        append_u(out, ch);
      else
        out += static_cast<char>(ch);
      ++i;
      continue;
    }
    const utf8::Char c = utf8::decode(s.substr(i));
    if (c.valid) {
      out += s.substr(i, c.length);
    } else {
      out += kReplacement;
    }
    i += c.length;
  }
  out += '"';
  return out;
}

std::string echo(std::string_view s, std::size_t limit) {
  std::string out;
  out.reserve(std::min(s.size(), limit) + 8);
  std::size_t i = 0;
  while (i < s.size()) {
    const utf8::Char c = utf8::decode(s.substr(i));
    if (i + c.length > limit) break;
    if (!c.valid) {
      out += kReplacement;
    } else if (const std::string_view e = short_escape(c.code_point); !e.empty()) {
      out += e;
    } else if (utf8::hidden(c.code_point)) {
      append_u(out, c.code_point);
    } else {
      out += s.substr(i, c.length);
    }
    i += c.length;
  }
  if (i < s.size()) out += "\xE2\x80\xA6";  // U+2026, the ellipsis
  return out;
}

}  // namespace inarow::json
