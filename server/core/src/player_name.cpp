#include "inarow/server/player_name.h"

#include <fmt/format.h>

#include "inarow/common/utf8.h"

namespace inarow::server {

namespace {

// "bot" as the last word, after a space, '-', '_' or '.', or alone,
// whatever the case: the server shows its bots as "<level> bot".
bool bot_like(std::string_view name) {
  if (name.size() < 3) return false;
  std::string tail;
  for (char ch : name.substr(name.size() - 3))
    tail += static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
  if (tail != "bot") return false;
  if (name.size() == 3) return true;
  const char before = name[name.size() - 4];
  return before == ' ' || before == '-' || before == '_' || before == '.';
}

// The small letter for a capital in the scripts name_key folds.
char32_t fold(char32_t c) {
  const bool plus32 = (c >= U'A' && c <= U'Z') ||
                      (c >= 0xC0 && c <= 0xDE && c != 0xD7) ||     // Latin-1: À…Þ but ×
                      (c >= 0x391 && c <= 0x3AB && c != 0x3A2) ||  // Greek: Α…Ϋ
                      (c >= 0x410 && c <= 0x42F);                  // Cyrillic: А…Я
  if (plus32) return static_cast<char32_t>(c + 32);
  if (c >= 0x400 && c <= 0x40F) return static_cast<char32_t>(c + 80);  // Cyrillic: Ѐ…Џ
  return c;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace

std::string name_key(std::string_view name) {
  std::string key;
  for (std::size_t at = 0; at < name.size();) {
    const utf8::Char c = utf8::decode(name.substr(at));
    if (c.length == 0) break;
    if (c.valid) {
      append_utf8(key, fold(c.code_point));
    } else {
      key += name.substr(at, c.length);
    }
    at += c.length;
  }
  return key;
}

Expected<std::string> normalise_player_name(std::string_view raw) {
  std::string name;
  bool gap = false;  // white space seen since the last shown character
  for (std::size_t at = 0; at < raw.size();) {
    const utf8::Char c = utf8::decode(raw.substr(at));
    if (!c.valid)
      return fail_with(ProtocolError::bad_request,
                       fmt::format("names are UTF-8 text; byte {} is not", at));
    if (utf8::hidden(c.code_point))
      return fail_with(ProtocolError::bad_request,
                       fmt::format("names cannot hold control or formatting characters "
                                   "(U+{:04X} at byte {})",
                                   static_cast<std::uint32_t>(c.code_point), at));
    if (utf8::space(c.code_point)) {
      gap = !name.empty();
    } else {
      if (gap) name += ' ';
      gap = false;
      name += raw.substr(at, c.length);
    }
    at += c.length;
  }
  if (name.empty())
    return fail_with(ProtocolError::bad_request, "a name needs a visible character");
  if (name.size() > kMaxNameBytes)
    return fail_with(ProtocolError::bad_request,
                     fmt::format("names are at most {} bytes", kMaxNameBytes));
  return name;
}

Expected<std::string> check_player_name(std::string_view raw) {
  auto name = normalise_player_name(raw);
  if (name && bot_like(*name))
    return fail_with(ProtocolError::bad_request, "names ending in \"bot\" are kept for the bots");
  return name;
}

}  // namespace inarow::server
