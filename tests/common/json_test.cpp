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

TEST(Echo, ShowsClientTextSafely) {
  EXPECT_EQ(echo("h8"), "h8");
  EXPECT_EQ(echo("\xC3\xA9"
                 "1"),
            "\xC3\xA9"
            "1");
  EXPECT_EQ(echo("say \"hi\""), "say \"hi\"");  // the caller quotes
  EXPECT_EQ(echo("a\\b"), "a\\\\b");
  EXPECT_EQ(echo("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(echo(std::string_view("\0\x1b\x7f", 3)), "\\u0000\\u001b\\u007f");
  EXPECT_EQ(echo("\xC2\x9B"), "\\u009b");  // C1 CSI
  EXPECT_EQ(echo("\xE2\x80\xAE"
                 "x"),
            "\\u202ex");                                  // right-to-left override
  EXPECT_EQ(echo("\xE2\x80\x8B"), "\\u200b");             // zero-width space
  EXPECT_EQ(echo("\xF3\xA0\x80\x81"), "\\udb40\\udc01");  // U+E0001, as JSON writes it
  EXPECT_EQ(echo("\xFF"
                 "a\xC3"),
            "\xEF\xBF\xBD"
            "a\xEF\xBF\xBD");
}

TEST(Echo, CutsAtACharacterBoundary) {
  EXPECT_EQ(echo("abcdef", 4), "abcd\xE2\x80\xA6");
  EXPECT_EQ(echo("abcd", 4), "abcd");
  EXPECT_EQ(echo("ab\xC3\xA9", 3), "ab\xE2\x80\xA6");  // é would not fit whole
  EXPECT_EQ(echo(std::string(40, 'x')), std::string(32, 'x') + "\xE2\x80\xA6");
}

}  // namespace
}  // namespace inarow::json
