#include "inarow/engine/position.h"

#include <gtest/gtest.h>

#include <random>

#include "inarow/engine/game.h"

namespace inarow {
namespace {

TEST(Position, WinsAreFoundInEveryDirection) {
  // Columns, rows and both diagonals, on a board with gravity and without.
  for (const char* moves : {"a1b1a2b2a3", "a1a2b1b2c1", "a1b1b2c1c3", "c1b1b2a1a3"}) {
    const auto game = Game::parse(Variant::tictactoe(), moves);
    ASSERT_TRUE(game) << moves;
    EXPECT_EQ(game->outcome(), Outcome::first_wins) << moves;
  }
  // Connect four: vertical, horizontal, both diagonals.
  for (const char* moves : {"1212121", "1122334", "12233434414", "76655454474"}) {
    const auto game = Game::parse(Variant::connect4(), moves);
    ASSERT_TRUE(game) << moves;
    EXPECT_EQ(game->outcome(), Outcome::first_wins) << moves;
  }
}

TEST(Position, NoWrapAroundBetweenColumns) {
  // Three at the top of column a and one at the bottom of column b are
  // adjacent bits apart from the spare bit, and must not count as a line.
  const Variant v = *Variant::parse("mnk:4,4,4");
  Game game(v);
  for (const char* m : {"a2", "d4", "a3", "d3", "a4", "c4", "b1"}) ASSERT_TRUE(game.play(m)) << m;
  EXPECT_EQ(game.outcome(), Outcome::ongoing);
}

TEST(Position, FreestyleFiveOrMoreWins) {
  const Variant v = Variant::gomoku();
  // Black fills e8 f8 g8 _ i8 j8, then h8 makes six in a row.
  auto game = Game::parse(v, "e8e1f8f1g8g1i8i1j8j1");
  ASSERT_TRUE(game);
  EXPECT_EQ(game->outcome(), Outcome::ongoing);
  ASSERT_TRUE(game->play("h8"));
  EXPECT_EQ(game->outcome(), Outcome::first_wins);
  EXPECT_EQ(game->winning_line().size(), 6u);
}

TEST(Position, DrawOnAFullBoard) {
  const auto game = Game::parse(Variant::tictactoe(), "b2a1c1a3a2c2b1b3c3");
  ASSERT_TRUE(game);
  EXPECT_EQ(game->outcome(), Outcome::draw);
}

TEST(Position, MakeUndoRestoresKeyAndPlayableCells) {
  std::mt19937 rng(7);
  for (const Variant& v : {Variant::connect4(), Variant::gomoku(), *Variant::parse("mnk:19,19,5,gravity")}) {
    Game game(v);
    std::vector<std::uint64_t> keys{game.key()};
    std::vector<std::vector<Cell>> legal{game.legal_moves()};
    while (!game.over() && game.ply() < 60) {
      const auto moves = game.legal_moves();
      ASSERT_TRUE(game.play(moves[rng() % moves.size()]));
      keys.push_back(game.key());
      legal.push_back(game.legal_moves());
    }
    while (game.ply() > 0) {
      ASSERT_TRUE(game.undo());
      keys.pop_back();
      legal.pop_back();
      EXPECT_EQ(game.key(), keys.back());
      EXPECT_EQ(game.legal_moves(), legal.back());
    }
    EXPECT_FALSE(game.undo());
  }
}

TEST(Position, KeysDependOnStonesNotOrder) {
  const auto a = Game::parse(Variant::gomoku(), "h8i9g7");
  const auto b = Game::parse(Variant::gomoku(), "g7i9h8");
  EXPECT_EQ(a->key(), b->key());
  EXPECT_NE(a->key(), Game::parse(Variant::gomoku(), "h8g7i9")->key());
}

TEST(Position, WinningCellsMatchABruteForceCheck) {
  std::mt19937 rng(11);
  for (const Variant& v : {Variant::connect4(), Variant::gomoku(), *Variant::parse("mnk:10,7,3"),
                          Variant::gomoku_standard(), *Variant::parse("mnk:10,7,3,exact"),
                          *Variant::parse("mnk:7,6,4,gravity,exact")}) {
    for (int trial = 0; trial < 30; ++trial) {
      Game game(v);
      while (!game.over() && game.ply() < 20) {
        const auto moves = game.legal_moves();
        Game probe = game;
        (void)probe.play(moves[rng() % moves.size()]);
        if (probe.over()) break;
        game = probe;
      }
      std::visit(
          [&](const auto& pos) {
            for (Side s : {Side::first, Side::second}) {
              const auto cells = pos.winning_cells(s);
              for (int c = 0; c < v.width; ++c)
                for (int r = 0; r < v.height; ++r) {
                  const Cell cell = v.cell(c, r);
                  if (pos.occupied().test(cell)) {
                    EXPECT_FALSE(cells.test(cell));
                    continue;
                  }
                  auto own = pos.stones(s);
                  own.set(cell);
                  EXPECT_EQ(cells.test(cell), pos.has_line(own)) << v.name << " " << c << "," << r;
                }
            }
          },
          game.position());
    }
  }
}

}  // namespace
}  // namespace inarow

namespace inarow {
namespace {

// The win check through the last move agrees with the whole-board line test
// on random games of every shape, up to the board's edges and spare bits.
TEST(Position, LineThroughTheLastMoveMatchesTheWholeBoard) {
  std::mt19937 rng(5);
  for (const char* name : {"tictactoe", "connect4", "gomoku", "mnk:19,19,5", "mnk:20,20,5", "mnk:2,20,2",
                           "mnk:19,2,3,gravity", "mnk:8,7,4", "gomoku-standard", "mnk:8,7,4,exact",
                           "mnk:19,2,3,gravity,exact", "mnk:20,20,5,exact"}) {
    const Variant v = *Variant::parse(name);
    for (int trial = 0; trial < 40; ++trial) {
      Game game(v);
      while (!game.over()) {
        const auto moves = game.legal_moves();
        ASSERT_TRUE(game.play(moves[rng() % moves.size()]));
      }
      const Cell last = game.last_move();
      std::visit(
          [&](const auto& pos) {
            const Side mover = opponent(pos.to_move());
            EXPECT_EQ(pos.has_line_through(pos.stones(mover), last), pos.has_line(pos.stones(mover)))
                << name << " " << game.notation();
            EXPECT_EQ(pos.won(), pos.has_line(pos.stones(mover))) << name << " " << game.notation();
          },
          game.position());
    }
  }
}

}  // namespace
}  // namespace inarow
