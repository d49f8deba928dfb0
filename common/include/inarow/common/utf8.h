// UTF-8 decoding and the character classes the server refuses or escapes
// when it shows text a client sent.
#pragma once

#include <cstddef>
#include <string_view>

namespace inarow::utf8 {

// The character at the start of `s`: its length in bytes and code point when
// it is well-formed UTF-8 (`valid`); otherwise `length` is the maximal
// invalid prefix that one U+FFFD replaces (Unicode's "maximal subpart"
// practice) and `code_point` is U+FFFD. An empty `s` gives length 0.
struct Char {
  std::size_t length = 0;
  char32_t code_point = 0;
  bool valid = false;
};
Char decode(std::string_view s);

// General category Cc (C0, DEL, C1) or Cf (format: soft hyphen, zero-width
// space and joiners, left-to-right and right-to-left marks, bidi embeddings,
// overrides and isolates, word joiner, invisible operators, BOM, tags…), or
// a line or paragraph separator (U+2028, U+2029): characters that do not
// show as themselves, or that reorder or hide what follows.
bool hidden(char32_t c);

// White space that shows as a gap (category Zs: U+0020, U+00A0, U+1680,
// U+2000..U+200A, U+202F, U+205F, U+3000).
bool space(char32_t c);

}  // namespace inarow::utf8
