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
  EXPECT_EQ(format_move(wide, wide.cell(11, 0)), "12");
  EXPECT_EQ(format_move(wide, wide.cell(0, 3)), "1");
  EXPECT_EQ(format_moves(wide, {wide.cell(9, 0), wide.cell(2, 0), wide.cell(11, 0)}), "10,3,12");
  EXPECT_EQ(format_moves(c, {c.cell(3, 0), c.cell(3, 1), c.cell(4, 0)}), "445");
  // Moves kept as text (a game's record) join by the same rule, as written.
  EXPECT_EQ(join_moves({"10", "3", "12"}, wide_columns(wide)), "10,3,12");
  EXPECT_EQ(join_moves({"4", "4", "5"}, wide_columns(c)), "445");
  EXPECT_EQ(join_moves({"h8", "i9"}, wide_columns(g)), "h8i9");
  EXPECT_EQ(join_moves({"10", "j"}, true), "10,j");  // a column letter, as first stored
  EXPECT_EQ(join_moves({}, true), "");
}

// Gravity boards of ten or more columns take the column's number, as the
// protocol documents; their games are written with commas.
TEST(Notation, WideGravityBoardsTakeColumnNumbers) {
  const Variant wide = *Variant::parse("mnk:20,5,4,gravity");
  Game game(wide);
  EXPECT_EQ(*game.parse_move("20"), wide.cell(19, 0));
  EXPECT_EQ(*game.parse_move("1"), wide.cell(0, 0));
  EXPECT_EQ(*game.parse_move("t"), wide.cell(19, 0));  // a column letter, as first written
  const auto parsed = Game::parse(wide, "10,10,20,1,j");
  ASSERT_TRUE(parsed) << parsed.error().describe();
  EXPECT_EQ(parsed->notation(), "10,10,20,1,10");
  EXPECT_EQ(parsed->at(9, 2), Side::first);
  for (auto [text, message] : std::initializer_list<std::pair<const char*, const char*>>{
           {"21", "column 21 is off the board (1-20)"},
           {"0", "column 0 is off the board (1-20)"},
           {"07", "column 0 is off the board (1-20)"},
           {"123", "column 123 is off the board (1-20)"},
           {"u", "column 'u' is off the board (a-t)"},
           {"-1", "expected a column number 1-20, found '-'"},
           {"\xC3\xA9", "expected a column number 1-20, found '\xC3\xA9'"},
           {"12x", "unexpected 'x' after the move"}}) {
    const auto r = game.parse_move(text);
    ASSERT_FALSE(r) << text;
    EXPECT_EQ(r.error().message, message) << text;
  }
  EXPECT_EQ(game.ply(), 0);
  const auto trailing = Game::parse(wide, "3,");
  ASSERT_FALSE(trailing);
  EXPECT_EQ(trailing.error().message, "expected a move after ','");
  EXPECT_EQ(trailing.error().offset, 2u);
}

// What a message shows of the text is escaped, never raw bytes.
TEST(Notation, ErrorsShowTheTextEscaped) {
  Game game(Variant::tictactoe());
  auto message = [&](std::string_view text) { return game.parse_move(text).error().message; };
  EXPECT_EQ(message("\xC3\xA9"
                    "1"),
            "expected a column letter, found '\xC3\xA9'");
  EXPECT_EQ(message("\xFF"
                    "1"),
            "expected a column letter, found '\xEF\xBF\xBD'");
  EXPECT_EQ(message("\xC3"), "expected a column letter, found '\xEF\xBF\xBD'");
  EXPECT_EQ(message("\x1b"), "expected a column letter, found '\\u001b'");
  EXPECT_EQ(message("a\xE2\x80\xAE"), "expected a row number, found '\\u202e'");
  EXPECT_EQ(message("a1\n\x01"), "unexpected '\\n\\u0001' after the move");
  EXPECT_EQ(message("a1" + std::string(40, 'z')),
            "unexpected '" + std::string(32, 'z') + "\xE2\x80\xA6' after the move");
  const Game c4(Variant::connect4());
  EXPECT_EQ(c4.parse_move("\xC3\xA9").error().message,
            "expected a column digit 1-7, found '\xC3\xA9'");
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
    testing::Values(Bad{"tictactoe", "d1", ErrorCode::off_board, 0},             // off-board column
                    Bad{"tictactoe", "a4", ErrorCode::off_board, 1},             // off-board row
                    Bad{"tictactoe", "b2b2", ErrorCode::occupied, 2},            // occupied cell
                    Bad{"tictactoe", "a1b1a2b2a3c3", ErrorCode::game_over, 10},  // after the end
                    Bad{"tictactoe", "b2 a1", ErrorCode::bad_syntax, 2},         // stray space
                    Bad{"tictactoe", "b2!", ErrorCode::bad_syntax, 2},           // stray character
                    Bad{"tictactoe", "b", ErrorCode::bad_syntax, 1},             // missing row
                    Bad{"tictactoe", "b0", ErrorCode::bad_syntax, 1},            // row zero
                    Bad{"gomoku", "h08", ErrorCode::bad_syntax, 1},              // leading zero
                    Bad{"gomoku", "h16", ErrorCode::off_board, 1},
                    Bad{"connect4", "8", ErrorCode::off_board, 0},  // no column 8
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
