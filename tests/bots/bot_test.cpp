#include "inarow/bots/bot.h"

#include <gtest/gtest.h>

#include <functional>

namespace inarow::bots {
namespace {

TEST(Levels, AreOrderedWeakestFirst) {
  std::vector<std::string> names;
  for (const Level& l : levels())
    names.emplace_back(l.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"beginner", "easy", "medium", "hard", "expert", "master"}));
  EXPECT_TRUE(find_level("hard"));
  EXPECT_FALSE(find_level("grandmaster"));
}

// Gomoku-sized boards have presets of their own under the same names.
TEST(Levels, WideBoardsHaveTheirOwnPresets) {
  const Variant gomoku = Variant::gomoku();
  ASSERT_EQ(levels(gomoku).size(), levels().size());
  for (std::size_t i = 0; i < levels().size(); ++i)
    EXPECT_EQ(levels(gomoku)[i].name, levels()[i].name);
  EXPECT_EQ(find_level("hard", gomoku)->nodes, 50'000u);
  EXPECT_EQ(find_level("hard", gomoku)->depth, 0);
  EXPECT_EQ(find_level("hard")->depth, 6);
  EXPECT_EQ(find_level("hard", Variant::connect4())->depth, 6);
  // k = 5 with gravity is connect-four-like: the small boards' table.
  EXPECT_EQ(find_level("hard", *Variant::parse("mnk:9,9,5,gravity"))->depth, 6);
  EXPECT_EQ(find_level("medium", *Variant::parse("mnk:19,19,5"))->nodes, 10'000u);
  EXPECT_FALSE(find_level("grandmaster", gomoku));

  EXPECT_EQ(BotSpec::parse("hard", gomoku)->nodes, 50'000u);
  EXPECT_EQ(BotSpec::parse("hard")->nodes, 0u);
  // Settings after the name still win over the preset.
  EXPECT_EQ(BotSpec::parse("hard,nodes=5000", gomoku)->nodes, 5000u);
  EXPECT_EQ(BotSpec::parse("easy,blunder=0", gomoku)->level.blunder_percent, 0);
}

// A level named in a spec parsed without a board plays that board's preset:
// gomoku's medium stops at its 20,000 nodes (checked every 1,024), where
// connect four's medium would stop at depth 3.
TEST(Levels, ABotPlaysItsBoardsPreset) {
  const Variant gomoku = Variant::gomoku();
  const Game game = *Game::parse(gomoku, "h8h9i9g7j10i8");
  auto bot = *make_bot(gomoku, *BotSpec::parse("medium"), 1);
  const Choice c = bot->choose(game, {});
  EXPECT_TRUE(game.is_legal(c.move));
  EXPECT_GE(c.nodes, 10'000u);
  EXPECT_LE(c.nodes, 10'000u + 1024u);
  EXPECT_GT(c.depth, 3);
}

TEST(BotSpec, ParsesLevelsAndSettings) {
  auto s = BotSpec::parse("hard,weights=w.txt,tt=4");
  ASSERT_TRUE(s) << s.error().describe();
  EXPECT_EQ(s->level.name, "hard");
  EXPECT_EQ(s->weights_path, "w.txt");
  EXPECT_EQ(s->tt_megabytes, 4u);

  s = BotSpec::parse("depth=7,nodes=1000,noise=0,blunder=5");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->level.depth, 7);
  EXPECT_EQ(s->nodes, 1000u);
  EXPECT_EQ(s->level.blunder_percent, 5);
  EXPECT_TRUE(BotSpec::parse("random")->random);
  // A time or node budget alone is not capped by the custom preset's depth.
  EXPECT_EQ(BotSpec::parse("nodes=5000")->level.depth, 0);
  EXPECT_EQ(BotSpec::parse("time=200,noise=0")->level.depth, 0);
  EXPECT_EQ(BotSpec::parse("noise=3")->level.depth, 4);
  EXPECT_EQ(BotSpec::parse("hard,time=100")->level.depth, 6);
  EXPECT_EQ(BotSpec::parse("master,eval=windows")->eval, "windows");
  EXPECT_EQ(BotSpec::parse("master,eval=shapes")->eval, "shapes");
  // Shapes are a preference: a board without them keeps the windows.
  EXPECT_TRUE(make_bot(Variant::connect4(), *BotSpec::parse("depth=2,eval=shapes"), 1));
}

TEST(BotSpec, BadSpecsAreErrors) {
  for (const char* bad :
       {"", "grandmaster", "depth", "depth=-1", "depth=x", "hard,,depth=2", "colour=red",
        "blunder=101", "depth=0", "hard,medium", "weights=", "eval=magic"}) {
    const auto s = BotSpec::parse(bad);
    EXPECT_FALSE(s) << bad;
    if (!s) {
      EXPECT_FALSE(s.error().message.empty());
    }
  }
  EXPECT_FALSE(make_bot(Variant::connect4(), *BotSpec::parse("easy,weights=/nonexistent"), 1));
}

// Plays a whole game between two bots; returns the record.
std::string play(Bot& a, Bot& b, const Variant& v) {
  Game game(v);
  while (!game.over()) {
    Bot& bot = game.to_move() == Side::first ? a : b;
    const Choice c = bot.choose(game, {});
    EXPECT_TRUE(game.is_legal(c.move)) << game.notation();
    if (!game.play(c.move)) break;
  }
  return game.notation();
}

TEST(Bots, SameSeedSameGame) {
  const Variant v = Variant::connect4();
  auto game_with_seed = [&](std::uint64_t seed) {
    auto a = *make_level_bot(v, "beginner", seed);
    auto b = *make_level_bot(v, "easy", seed + 1);
    return play(*a, *b, v);
  };
  EXPECT_EQ(game_with_seed(5), game_with_seed(5));
  EXPECT_NE(game_with_seed(5), game_with_seed(6));
}

TEST(Bots, EveryLevelPlaysLegalGamesInEveryVariant) {
  for (const char* name : {"tictactoe", "connect4", "mnk:6,6,4", "mnk:8,8,4,gravity"}) {
    const Variant v = *Variant::parse(name);
    for (const Level& l : levels()) {
      if (l.time_ms > 300 && v.cells() > 9) continue;  // slow levels: tic-tac-toe only here
      auto a = *make_level_bot(v, l.name, 1);
      auto b = *make_level_bot(v, "random", 2);
      const std::string record = play(*a, *b, v);
      EXPECT_TRUE(Game::parse(v, record)->over()) << name << " " << l.name;
    }
  }
}

TEST(Bots, StrongerLevelsBeatTheRandomBot) {
  const Variant v = Variant::connect4();
  int wins = 0;
  for (int seed = 0; seed < 6; ++seed) {
    auto bot = *make_level_bot(v, "medium", seed);
    auto random = make_random_bot(seed + 100);
    const bool bot_first = seed % 2 == 0;
    const Game g = *Game::parse(v, bot_first ? play(*bot, *random, v) : play(*random, *bot, v));
    wins += g.outcome() == (bot_first ? Outcome::first_wins : Outcome::second_wins);
  }
  EXPECT_EQ(wins, 6);
}

// The top level never loses tic-tac-toe, whatever the opponent replies.
void never_loses(Bot& bot, Game& game, Side bot_side, int& games) {
  if (game.over()) {
    ++games;
    const Outcome lost = bot_side == Side::first ? Outcome::second_wins : Outcome::first_wins;
    EXPECT_NE(game.outcome(), lost) << game.notation();
    return;
  }
  if (game.to_move() == bot_side) {
    ASSERT_TRUE(game.play(bot.choose(game, {}).move));
    never_loses(bot, game, bot_side, games);
    game.undo();
    return;
  }
  for (Cell m : game.legal_moves()) {
    ASSERT_TRUE(game.play(m));
    never_loses(bot, game, bot_side, games);
    game.undo();
  }
}

TEST(Bots, MasterNeverLosesTicTacToeFromEitherSide) {
  const Variant v = Variant::tictactoe();
  for (Side side : {Side::first, Side::second}) {
    auto bot = *make_level_bot(v, "master", 9);
    Game game(v);
    int games = 0;
    never_loses(*bot, game, side, games);
    EXPECT_GT(games, 0);
  }
}

}  // namespace
}  // namespace inarow::bots
