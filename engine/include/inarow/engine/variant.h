// The rules of one k-in-a-row game: board size, line length and gravity.
#pragma once

#include <string>
#include <string_view>

#include "inarow/common/error.h"
#include "inarow/common/expected.h"

namespace inarow {

enum class Side : unsigned char { first = 0, second = 1 };
constexpr Side opponent(Side s) {
  return s == Side::first ? Side::second : Side::first;
}
constexpr int index(Side s) {
  return static_cast<int>(s);
}

// A cell is a bit index in the column-major layout of bitboard.h:
// col * (height + 1) + row, with (0, 0) the bottom-left cell "a1".
using Cell = int;
constexpr Cell kNoCell = -1;

// How a game opens: who places the first stones, and when the players'
// sides are settled (opening.h). The stones alternate sides from the first
// whatever the opening, so nothing below the match needs to know it.
enum class Opening : unsigned char {
  none,   // the first side moves first; the sides are settled from the start
  swap2,  // gomoku's swap2 (opening.h: Swap2)
};

struct Variant {
  static constexpr int kMaxSide = 20;  // Gomocup plays on 20x20

  // canonical: "tictactoe", "connect4", "gomoku", "gomoku-standard",
  // "mnk:9,9,4[,gravity][,exact][,swap2]"; the swap2 opening of the named
  // games: "gomoku-swap2", "gomoku-standard-swap2"
  std::string name;
  int width = 3;   // columns
  int height = 3;  // rows
  int k = 3;       // stones in a line that win (k or more: freestyle)
  bool gravity = false;
  // The standard rule: only a line of exactly k wins; k + 1 or more in a row
  // (an overline) is no win, for either side.
  bool exact = false;
  Opening opening = Opening::none;

  static Variant tictactoe();
  static Variant connect4();
  static Variant gomoku();
  static Variant gomoku_standard();  // 15x15, exactly five wins
  // "tictactoe", "connect4", "gomoku", "gomoku-standard" or
  // "mnk:M,N,K[,gravity][,exact][,swap2]" (M columns, N rows; the options in
  // that order), or a named game with "-swap2" after it. swap2 needs a board
  // without gravity, k >= 4 (no line can end the opening) and 16 cells.
  static expected<Variant, Error> parse(std::string_view text);

  // The same board and rules (size, k, gravity, exact), whatever the opening:
  // the engine's evaluation and search depend on nothing else.
  bool same_board(const Variant& o) const {
    return width == o.width && height == o.height && k == o.k && gravity == o.gravity &&
           exact == o.exact;
  }

  int stride() const { return height + 1; }
  int cells() const { return width * height; }
  int span() const { return width * stride(); }  // bits the layout uses
  // Words of 64 bits a bitboard of this variant needs: 1, 2, 4 or 7.
  int words() const;

  Cell cell(int col, int row) const { return col * stride() + row; }
  int col(Cell c) const { return c / stride(); }
  int row(Cell c) const { return c % stride(); }
  bool on_board(int col, int row) const {
    return col >= 0 && col < width && row >= 0 && row < height;
  }
  bool on_board(Cell c) const { return c >= 0 && c < span() && row(c) < height; }

  bool operator==(const Variant&) const = default;
};

}  // namespace inarow
