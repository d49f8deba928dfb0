// Text for cells, moves and whole games.
//
// A cell is a column letter and a row number, "a1" bottom-left ("h8" is the
// centre of gomoku's 15x15 board); under gravity a move is its column number,
// "1" to the width ("12" on a 12-column board; a column letter is read there
// too, as games were first written). A game is its moves concatenated from
// the start: "b2a1c3", "4453"; on gravity boards of ten or more columns the
// moves are separated by commas: "10,3,12". Parsing never throws: bad text
// gives an Error that names the problem and its offset, and shows what it
// found escaped (json::echo), never as raw bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "inarow/common/error.h"
#include "inarow/common/expected.h"
#include "inarow/engine/variant.h"

namespace inarow {

// "c3" for a cell; under gravity the column ("4").
std::string format_move(const Variant& v, Cell c);
// "c3" always, whatever the variant.
std::string format_cell(const Variant& v, Cell c);
// A gravity board of ten or more columns: its column numbers may have two
// digits, so a game's moves are written with commas between them.
bool wide_columns(const Variant& v);
// The moves concatenated; commas between them on wide_columns boards.
std::string format_moves(const Variant& v, const std::vector<Cell>& moves);
// Moves as written (format_move), joined as format_moves joins them: with
// commas between them when `commas` (a wide_columns board), else run
// together. For moves kept as text, as a game's record keeps them.
std::string join_moves(const std::vector<std::string>& moves, bool commas);

// One move token at the start of `text`. Under gravity the token names a
// column and the cell is resolved against `heights` (stones per column) when
// given; `consumed` receives the token's length. Offsets are relative to text.
struct MoveToken {
  int col = 0;
  int row = -1;  // -1 for a gravity column move
  std::size_t length = 0;
};
expected<MoveToken, Error> parse_move_token(const Variant& v, std::string_view text);

}  // namespace inarow
