// Names as the server keeps them, and error messages as the wire carries them.
#include "inarow/server/player_name.h"

#include <gtest/gtest.h>

#include "inarow/server/wire.h"

namespace inarow::server {
namespace {

std::string kept(std::string_view raw) {
  auto name = check_player_name(raw);
  EXPECT_TRUE(name) << raw << ": " << name.error().message;
  return name ? *name : std::string();
}

std::string refused(std::string_view raw) {
  auto name = check_player_name(raw);
  EXPECT_FALSE(name) << raw << " was kept as " << *name;
  if (name) return {};
  EXPECT_EQ(name.error().code, ProtocolError::bad_request);
  return name.error().message;
}

TEST(PlayerName, WhiteSpaceIsTrimmedAndCollapsed) {
  EXPECT_EQ(kept("ada"), "ada");
  EXPECT_EQ(kept(" ada  b   c "), "ada b c");
  EXPECT_EQ(kept("\xE2\x80\x83x\xE2\x80\xAF\xE2\x80\xAFy\xE3\x80\x80"), "x y");  // Zs spaces
  EXPECT_EQ(kept("\xC3\xA9t\xC3\xA9"), "\xC3\xA9t\xC3\xA9");
  EXPECT_EQ(kept("e\xCC\x81"), "e\xCC\x81");  // kept as sent: no NFC
  EXPECT_EQ(kept(std::string(32, 'n')), std::string(32, 'n'));
  EXPECT_EQ(kept("  " + std::string(32, 'n') + "  "), std::string(32, 'n'));
  EXPECT_EQ(kept("bots"), "bots");
  EXPECT_EQ(kept("abbot"), "abbot");
  EXPECT_EQ(kept("bot fan"), "bot fan");
}

TEST(PlayerName, WhatCannotBeShownIsRefused) {
  EXPECT_EQ(refused(""), "a name needs a visible character");
  EXPECT_EQ(refused(" \xC2\xA0 "), "a name needs a visible character");
  EXPECT_EQ(refused(std::string("a\0b", 3)),
            "names cannot hold control or formatting characters (U+0000 at byte 1)");
  EXPECT_EQ(refused("x\r"),
            "names cannot hold control or formatting characters (U+000D at byte 1)");
  EXPECT_EQ(refused("x\xC2\x85"),
            "names cannot hold control or formatting characters (U+0085 at byte 1)");  // C1 NEL
  EXPECT_EQ(
      refused("\xC2\xAD"),
      "names cannot hold control or formatting characters (U+00AD at byte 0)");  // soft hyphen
  EXPECT_EQ(refused("a\xE2\x80\x8D"),
            "names cannot hold control or formatting characters (U+200D at byte 1)");  // ZWJ
  EXPECT_EQ(refused("a\xE2\x80\x8F"),
            "names cannot hold control or formatting characters (U+200F at byte 1)");  // RLM
  EXPECT_EQ(refused("\xE2\x81\xA7x"),
            "names cannot hold control or formatting characters (U+2067 at byte 0)");  // RLI
  EXPECT_EQ(refused("a\xE2\x80\xA8"),
            "names cannot hold control or formatting characters (U+2028 at byte 1)");
  EXPECT_EQ(refused("\xEF\xBB\xBF"
                    "ada"),
            "names cannot hold control or formatting characters (U+FEFF at byte 0)");  // BOM
  EXPECT_EQ(refused("a\xF3\xA0\x81\x81"),
            "names cannot hold control or formatting characters (U+E0041 at byte 1)");  // tag A
  EXPECT_EQ(refused("\xC0\xAF"), "names are UTF-8 text; byte 0 is not");        // overlong '/'
  EXPECT_EQ(refused("ok\xED\xA0\x80"), "names are UTF-8 text; byte 2 is not");  // surrogate
  EXPECT_EQ(refused(std::string(33, 'n')), "names are at most 32 bytes");
  EXPECT_EQ(
      refused(std::string(11, 'n') + "\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC" + std::string(13, 'n')),
      "names are at most 32 bytes");  // 33 bytes in 27 characters
}

TEST(PlayerName, BotNamesAreKeptForBots) {
  for (const char* name : {"medium bot", "Medium Bot", "MASTER BOT", "  beginner    bot ",
                           "random bot", "bot", "BoT", "my-bot", "x_bot", "a.bot"}) {
    EXPECT_EQ(refused(name), "names ending in \"bot\" are kept for the bots") << name;
  }
}

TEST(ShownMessage, IsValidTextOfBoundedLength) {
  EXPECT_EQ(shown_message("not your turn"), "not your turn");
  EXPECT_EQ(shown_message("found '\xC3\xA9'"), "found '\xC3\xA9'");
  EXPECT_EQ(shown_message("x \"q\" \\ y"), "x \"q\" \\ y");  // untouched when clean
  EXPECT_EQ(shown_message("found '\xC3'"), "found '\xEF\xBF\xBD'");
  EXPECT_EQ(shown_message("a\nb\\"), "a\\nb\\\\");
  EXPECT_EQ(shown_message("\xE2\x80\xAE"), "\\u202e");
  const std::string long_one(600, 'm');
  EXPECT_EQ(shown_message(long_one), std::string(kMaxMessageBytes, 'm') + "\xE2\x80\xA6");
}

// An account's name is unique by its key: capitals fold to small letters
// in ASCII, Latin-1, Greek and Cyrillic; anything else is kept as it is.
TEST(NameKey, FoldsCapitalsOfTheScriptsItKnows) {
  EXPECT_EQ(name_key("Alice"), "alice");
  EXPECT_EQ(name_key("ALICE"), name_key("alice"));
  EXPECT_EQ(name_key("\xC3\x89MILE"), "\xC3\xA9mile");          // ÉMILE -> émile
  EXPECT_EQ(name_key("\xC3\x97"), "\xC3\x97");                  // × is no letter
  EXPECT_EQ(name_key("\xCE\x9F\xCE\x94"), "\xCE\xBF\xCE\xB4");  // ΟΔ -> οδ
  EXPECT_EQ(name_key("\xD0\x98\xD0\x81"), "\xD0\xB8\xD1\x91");  // ИЁ -> иё
  EXPECT_EQ(name_key("\xE5\xB1\xB1 X"), "\xE5\xB1\xB1 x");      // 山 kept
  EXPECT_NE(name_key("Bob 1"), name_key("Bob1"));
}

}  // namespace
}  // namespace inarow::server
