// JSON string quoting, the one every part writes its JSON text with.
#pragma once

#include <string>
#include <string_view>

namespace inarow::json {

// `s` as a JSON string literal, quotes included. `"` and `\` are escaped,
// control characters become \n, \r, \t or \u00XX, valid UTF-8 passes through
// unchanged and each invalid UTF-8 sequence (a stray continuation byte, a
// truncated, overlong or surrogate sequence, a code point past U+10FFFF)
// becomes U+FFFD, so the output is always valid UTF-8 and valid JSON.
std::string quote(std::string_view s);

}  // namespace inarow::json
