#include "inarow/common/json.h"

#include <cstdint>

namespace inarow::json {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

// The length of the well-formed UTF-8 sequence at the start of `s`, or 0 if
// none starts there; `*bad` is then how many bytes form the maximal invalid
// prefix to replace by one U+FFFD (Unicode's "maximal subpart" practice).
std::size_t utf8_sequence(std::string_view s, std::size_t* bad) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(s[i]); };
  const std::uint8_t lead = byte(0);
  std::size_t length = 0;
  std::uint8_t low = 0x80, high = 0xBF;  // range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlong forms
    if (lead == 0xF4) high = 0x8F;  // nothing past U+10FFFF
  } else {
    *bad = 1;  // a continuation byte, C0, C1 or F5..FF
    return 0;
  }
  for (std::size_t i = 1; i < length; ++i) {
    const bool fits =
        i < s.size() && byte(i) >= (i == 1 ? low : 0x80) && byte(i) <= (i == 1 ? high : 0xBF);
    if (!fits) {
      *bad = i;
      return 0;
    }
  }
  return length;
}

}  // namespace

std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto ch = static_cast<unsigned char>(s[i]);
    if (ch < 0x80) {
      switch (ch) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        default:
          if (ch < 0x20) {
            static constexpr char kHex[] = "0123456789abcdef";
            out += "\\u00";
            out += kHex[ch >> 4];
            out += kHex[ch & 0xF];
          } else {
            out += static_cast<char>(ch);
          }
      }
      ++i;
      continue;
    }
    std::size_t bad = 0;
    if (const std::size_t n = utf8_sequence(s.substr(i), &bad); n > 0) {
      out += s.substr(i, n);
      i += n;
    } else {
      out += kReplacement;
      i += bad;
    }
  }
  out += '"';
  return out;
}

}  // namespace inarow::json
