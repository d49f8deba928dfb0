#include "inarow/engine/notation.h"

#include <gtest/gtest.h>

#include <random>

#include "inarow/engine/game.h"

namespace inarow {
namespace {

TEST(Notation, CellsAndColumns) {
  const Variant g = Variant::gomoku();
  EXPECT_EQ(format_move(g, g.cell(7, 7)), "h8");  // gomoku's centre
  EXPECT_EQ(format_move(g, g.cell(0, 0)), "a1");
  EXPECT_EQ(format_move(g, g.cell(14, 14)), "o15");
  const Variant c = Variant::connect4();
  EXPECT_EQ(format_move(c, c.cell(3, 2)), "4");
  EXPECT_EQ(format_cell(c, c.cell(3, 2)), "d3");
  const Variant wide = *Variant::parse("mnk:12,6,4,gravity");
  EXPECT_EQ(format_move(wide, wide.cell(11, 0)), "l");
}

TEST(Notation, RoundTripsRandomGames) {
  std::mt19937 rng(3);
  for (const Variant& v : {Variant::tictactoe(), Variant::connect4(), Variant::gomoku(),
                           *Variant::parse("mnk:19,19,5"), *Variant::parse("mnk:12,6,4,gravity")}) {
    for (int trial = 0; trial < 20; ++trial) {
      Game game(v);
      while (!game.over() && game.ply() < 40) {
        const auto moves = game.legal_moves();
        ASSERT_TRUE(game.play(moves[rng() % moves.size()]));
      }
      const std::string text = game.notation();
      const auto parsed = Game::parse(v, text);
      ASSERT_TRUE(parsed) << v.name << " " << text << ": " << parsed.error().describe();
      EXPECT_EQ(parsed->moves(), game.moves()) << text;
      EXPECT_EQ(parsed->notation(), text);
    }
  }
}

TEST(Notation, StartPosition) {
  EXPECT_EQ(Game::parse(Variant::connect4(), "")->ply(), 0);
  EXPECT_EQ(Game::parse(Variant::connect4(), "-")->ply(), 0);
}

struct Bad {
  const char* variant;
  const char* text;
  ErrorCode code;
  std::size_t offset;
};

class BadNotation : public testing::TestWithParam<Bad> {};

TEST_P(BadNotation, NamesTheProblemAndItsOffset) {
  const Bad& b = GetParam();
  const auto game = Game::parse(*Variant::parse(b.variant), b.text);
  ASSERT_FALSE(game) << b.text;
  EXPECT_EQ(game.error().code, b.code) << b.text << ": " << game.error().describe();
  EXPECT_EQ(game.error().offset, b.offset) << b.text << ": " << game.error().describe();
  EXPECT_FALSE(game.error().message.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Engine, BadNotation,
    testing::Values(Bad{"tictactoe", "d1", ErrorCode::off_board, 0},        // off-board column
                    Bad{"tictactoe", "a4", ErrorCode::off_board, 1},        // off-board row
                    Bad{"tictactoe", "b2b2", ErrorCode::occupied, 2},       // occupied cell
                    Bad{"tictactoe", "a1b1a2b2a3c3", ErrorCode::game_over, 10},  // after the end
                    Bad{"tictactoe", "b2 a1", ErrorCode::bad_syntax, 2},    // stray space
                    Bad{"tictactoe", "b2!", ErrorCode::bad_syntax, 2},      // stray character
                    Bad{"tictactoe", "b", ErrorCode::bad_syntax, 1},        // missing row
                    Bad{"tictactoe", "b0", ErrorCode::bad_syntax, 1},       // row zero
                    Bad{"gomoku", "h08", ErrorCode::bad_syntax, 1},         // leading zero
                    Bad{"gomoku", "h16", ErrorCode::off_board, 1},
                    Bad{"connect4", "8", ErrorCode::off_board, 0},          // no column 8
                    Bad{"connect4", "0", ErrorCode::off_board, 0},
                    Bad{"connect4", "1111111", ErrorCode::column_full, 6},  // full column
                    Bad{"connect4", "44a", ErrorCode::bad_syntax, 2},
                    Bad{"connect4", "12121212", ErrorCode::game_over, 7}));

TEST(Notation, SingleMovesAreCheckedWithoutChangingTheGame) {
  Game game = *Game::parse(Variant::connect4(), "444444");
  const auto before = game.moves();
  const auto full = game.play("4");
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error().code, ErrorCode::column_full);
  for (const char* junk : {"", "x", "44", "4 ", "-1", "\xff"}) {
    const auto r = game.play(junk);
    ASSERT_FALSE(r) << junk;
  }
  EXPECT_EQ(game.moves(), before);
}

}  // namespace
}  // namespace inarow
