// JSON string quoting, the one every part writes its JSON text with, and the
// same escaping for text a client sent that a message shows back.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace inarow::json {

// `s` as a JSON string literal, quotes included. `"` and `\` are escaped,
// control characters become \n, \r, \t or \u00XX, valid UTF-8 passes through
// unchanged and each invalid UTF-8 sequence (a stray continuation byte, a
// truncated, overlong or surrogate sequence, a code point past U+10FFFF)
// becomes U+FFFD, so the output is always valid UTF-8 and valid JSON.
std::string quote(std::string_view s);

// Text a client sent, to show inside a message: at most `limit` bytes of `s`
// (cut at a character boundary, "…" marking the cut), each invalid UTF-8
// sequence as U+FFFD, and every character that would not show as itself
// (utf8::hidden: C0 and C1 controls, DEL, zero-width and bidi formatting
// characters…) as \n, \r, \t or \uXXXX; `\` becomes `\\` so that an escape
// is always ours. Quotes are left alone: the caller puts the echo in its
// own. The result is valid UTF-8 without a control character.
std::string echo(std::string_view s, std::size_t limit = 32);

}  // namespace inarow::json
