#include "inarow/client/command.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace inarow::client {
namespace {

using K = Command::Kind;

TEST(CommandTest, BotWithLevelSideAndTimeInAnyOrder) {
  auto c = parse_command("bot connect4 hard second time 5+3");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->kind, K::bot);
  EXPECT_EQ(c->variant, "connect4");
  EXPECT_EQ(c->level, "hard");
  EXPECT_EQ(c->side, v1::SIDE_SECOND);
  EXPECT_EQ(c->initial_ms, 300'000);
  EXPECT_EQ(c->increment_ms, 3'000);
  auto d = parse_command("BOT ttt first 0.5+2 beginner");
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(d->variant, "tictactoe");
  EXPECT_EQ(d->level, "beginner");
  EXPECT_EQ(d->initial_ms, 30'000);
  EXPECT_EQ(d->increment_ms, 2'000);
  EXPECT_EQ(parse_command("bot gomoku")->level, "medium");
}

TEST(CommandTest, VariantsAreCheckedByTheEngine) {
  EXPECT_EQ(parse_command("seek mnk:9,9,4")->variant, "mnk:9,9,4");
  EXPECT_EQ(parse_command("seek mnk:8,8,4,gravity")->variant, "mnk:8,8,4,gravity");
  EXPECT_EQ(parse_command("seek c4")->variant, "connect4");
  EXPECT_FALSE(parse_command("seek chess"));
  EXPECT_FALSE(parse_command("seek"));
}

TEST(CommandTest, TimeControls) {
  EXPECT_EQ(parse_time_control("5+3")->first, 300'000);
  EXPECT_EQ(parse_time_control("90s+1")->first, 90'000);
  EXPECT_EQ(parse_time_control("untimed")->first, 0);
  EXPECT_EQ(parse_time_control("3")->second, 0);
  EXPECT_FALSE(parse_time_control("five+3"));
  EXPECT_FALSE(parse_time_control("0+5"));
  EXPECT_FALSE(parse_command("bot connect4 time"));
}

TEST(CommandTest, PrivateGamesWatchAndMatchCommands) {
  auto c = parse_command("create gomoku second rated time 10+5");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, K::create);
  EXPECT_TRUE(c->rated);
  EXPECT_EQ(c->side, v1::SIDE_SECOND);
  EXPECT_EQ(parse_command("join AB12CD")->code, "AB12CD");
  EXPECT_FALSE(parse_command("join"));
  EXPECT_EQ(parse_command("watch 2")->kind, K::watch);
  EXPECT_EQ(parse_command("list")->kind, K::list);
  EXPECT_EQ(parse_command("resign")->kind, K::resign);
  EXPECT_EQ(parse_command("draw")->kind, K::draw);
  EXPECT_EQ(parse_command("undo")->kind, K::undo);
  EXPECT_EQ(parse_command("decline")->kind, K::decline);
  EXPECT_EQ(parse_command("quit")->kind, K::quit);
  auto b = parse_command("botmatch tictactoe easy hard");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->level, "easy");
  EXPECT_EQ(b->level2, "hard");
}

TEST(CommandTest, MovesAndSound) {
  EXPECT_EQ(parse_command("moves")->kind, K::moves);
  EXPECT_FALSE(parse_command("moves all"));
  EXPECT_EQ(parse_command("sound off")->kind, K::sound);
  EXPECT_FALSE(parse_command("sound off")->on);
  EXPECT_TRUE(parse_command("SOUND On")->on);
  EXPECT_EQ(parse_command("sound").error(), "sound on, or sound off");
  EXPECT_FALSE(parse_command("sound loud"));
}

TEST(CommandTest, AnythingElseOfOneWordIsAMove) {
  auto c = parse_command("  B2 ");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, K::move);
  EXPECT_EQ(c->move, "b2");
  EXPECT_EQ(parse_command("4")->move, "4");
  EXPECT_FALSE(parse_command("play the centre"));
  EXPECT_FALSE(parse_command("resign now"));
}

TEST(CommandTest, Wait) {
  EXPECT_EQ(parse_command("wait")->wait_for, WaitFor::turn);
  EXPECT_EQ(parse_command("wait end")->wait_for, WaitFor::end);
  EXPECT_EQ(parse_command("wait start")->wait_for, WaitFor::start);
  EXPECT_EQ(parse_command("wait offer")->wait_for, WaitFor::offer);
  EXPECT_FALSE(parse_command("wait forever"));
}

TEST(CommandTest, PasswordAndLoginNeverTakeThePasswordItself) {
  EXPECT_EQ(parse_command("password")->kind, K::password);
  EXPECT_EQ(parse_command("passwd")->kind, K::password);
  EXPECT_EQ(parse_command("password hunter22").error(), "password takes no arguments");
  auto login = parse_command("login  Ada  Lovelace");
  ASSERT_TRUE(login);
  EXPECT_EQ(login->kind, K::login);
  EXPECT_EQ(login->code, "Ada Lovelace");  // names keep their case and inner spaces
  EXPECT_EQ(parse_command("login").error(), "login NAME: the account's name");
}

TEST(CommandTest, SeeksAcceptAndRatedOrCasual) {
  EXPECT_EQ(parse_command("seeks")->kind, K::seeks);
  EXPECT_FALSE(parse_command("seeks all"));
  auto a = parse_command("accept 2");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->kind, K::accept);
  EXPECT_EQ(a->code, "2");
  EXPECT_EQ(parse_command("accept").error(), "accept wants a seek's number in seeks");
  auto casual = parse_command("seek c4 casual 5+3");
  ASSERT_TRUE(casual);
  EXPECT_TRUE(casual->casual);
  EXPECT_FALSE(casual->rated);
  EXPECT_EQ(casual->initial_ms, 300'000);
  auto rated = parse_command("seek c4 casual rated");  // the last word counts
  ASSERT_TRUE(rated);
  EXPECT_FALSE(rated->casual);
  EXPECT_TRUE(rated->rated);
  EXPECT_FALSE(parse_command("seek c4")->casual);  // rated unless casual
}

// The swap2 opening's choice, and the variants that have it.
TEST(CommandTest, ChooseAndTheSwap2Variants) {
  auto black = parse_command("choose black");
  ASSERT_TRUE(black) << black.error();
  EXPECT_EQ(black->kind, K::choose);
  EXPECT_EQ(black->side, v1::SIDE_FIRST);
  EXPECT_FALSE(black->place_two);
  EXPECT_EQ(parse_command("CHOOSE first")->side, v1::SIDE_FIRST);
  EXPECT_EQ(parse_command("choose x")->side, v1::SIDE_FIRST);
  EXPECT_EQ(parse_command("choose second")->side, v1::SIDE_SECOND);
  EXPECT_EQ(parse_command("choose white")->side, v1::SIDE_SECOND);
  EXPECT_EQ(parse_command("choose o")->side, v1::SIDE_SECOND);
  auto two = parse_command("choose two");
  ASSERT_TRUE(two);
  EXPECT_TRUE(two->place_two);
  EXPECT_EQ(two->side, v1::SIDE_UNSPECIFIED);
  const std::string usage =
      "choose first (black, X), choose second (white, O) or choose two (two more stones)";
  EXPECT_EQ(parse_command("choose").error(), usage);
  EXPECT_EQ(parse_command("choose red").error(), usage);
  EXPECT_EQ(parse_command("choose first now").error(), usage);

  EXPECT_EQ(parse_command("bot gomoku-swap2 second")->variant, "gomoku-swap2");
  EXPECT_EQ(parse_command("bot swap2 easy")->variant, "gomoku-swap2");
  EXPECT_EQ(parse_command("seek gomoku-standard-swap2")->variant, "gomoku-standard-swap2");
  EXPECT_EQ(parse_command("seek standard-swap2")->variant, "gomoku-standard-swap2");
  EXPECT_EQ(parse_command("seek mnk:15,15,5,swap2")->variant, "gomoku-swap2");
  EXPECT_EQ(parse_command("seek mnk:9,9,4,exact,swap2")->variant, "mnk:9,9,4,exact,swap2");
  EXPECT_FALSE(parse_command("seek mnk:7,6,4,gravity,swap2"));
  EXPECT_FALSE(parse_command("seek tictactoe-swap2"));  // k 3 and nine cells

  const auto& words = completion_words();
  for (const char* w : {"choose", "two", "gomoku-swap2", "gomoku-standard-swap2", "swap2"})
    EXPECT_NE(std::find(words.begin(), words.end(), w), words.end()) << w;
  EXPECT_NE(help_text(true).find("choose first|second|two"), std::string::npos);
  EXPECT_NE(help_text(false).find("gomoku-swap2"), std::string::npos);
}

}  // namespace
}  // namespace inarow::client
