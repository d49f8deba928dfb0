#include "inarow/common/json.h"

#include <gtest/gtest.h>

namespace inarow::json {
namespace {

TEST(JsonQuote, PlainTextIsOnlyQuoted) {
  EXPECT_EQ(quote(""), R"("")");
  EXPECT_EQ(quote("h8 i9"), R"("h8 i9")");
}

TEST(JsonQuote, EscapesQuotesAndBackslashes) {
  EXPECT_EQ(quote(R"(say "hi" \o/)"), R"("say \"hi\" \\o/")");
}

TEST(JsonQuote, EscapesEveryControlCharacter) {
  EXPECT_EQ(quote("a\nb\rc\td"), R"("a\nb\rc\td")");
  EXPECT_EQ(quote(std::string_view("\0\x01\x1f", 3)), R"("\u0000\u0001\u001f")");
  EXPECT_EQ(quote("\x7f"), "\"\x7f\"");  // DEL is not a control character to JSON
  for (int c = 0; c < 0x20; ++c) {
    const std::string q = quote(std::string(1, static_cast<char>(c)));
    EXPECT_EQ(q[1], '\\') << c;
    for (char ch : q)
      EXPECT_GE(static_cast<unsigned char>(ch), 0x20) << c;
  }
}

TEST(JsonQuote, ValidUtf8PassesThrough) {
  for (const char* s : {"\xC3\xA9t\xC3\xA9",  // été: two bytes
                        "\xE2\x82\xAC",       // €: three bytes
                        "\xED\x9F\xBF",       // U+D7FF, just below the surrogates
                        "\xEF\xBF\xBD",       // U+FFFD itself
                        "\xF0\x9F\x8E\xB2",   // 🎲: four bytes
                        "\xF4\x8F\xBF\xBF"})  // U+10FFFF, the last code point
    EXPECT_EQ(quote(s), std::string("\"") + s + "\"") << s;
}

TEST(JsonQuote, InvalidUtf8BecomesReplacementCharacters) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(quote("a\x80z"), "\"a" + r + "z\"");                      // stray continuation byte
  EXPECT_EQ(quote("\xBF\xBF"), "\"" + r + r + "\"");                  // one per stray byte
  EXPECT_EQ(quote("\xC0\xAF"), "\"" + r + r + "\"");                  // overlong '/'
  EXPECT_EQ(quote("\xE0\x80\xAF"), "\"" + r + r + r + "\"");          // overlong, three bytes
  EXPECT_EQ(quote("\xED\xA0\x80"), "\"" + r + r + r + "\"");          // a surrogate
  EXPECT_EQ(quote("\xF4\x90\x80\x80"), "\"" + r + r + r + r + "\"");  // past U+10FFFF
  EXPECT_EQ(quote("\xF5\xFF"), "\"" + r + r + "\"");                  // never in UTF-8
  EXPECT_EQ(quote("\xE2\x82"), "\"" + r + "\"");                      // truncated at the end
  EXPECT_EQ(quote("\xE2\x82z"), "\"" + r + "z\"");                    // truncated mid-text
  EXPECT_EQ(quote("\xF0\x9F\x8E\""), "\"" + r + "\\\"\"");            // truncated before a quote
  EXPECT_EQ(quote("\xC3"), "\"" + r + "\"");
}

}  // namespace
}  // namespace inarow::json
