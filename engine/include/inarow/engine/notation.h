// Text for cells, moves and whole games.
//
// A cell is a column letter and a row number, "a1" bottom-left ("h8" is the
// centre of gomoku's 15x15 board); under gravity a move is its column number,
// "1" to "9" for up to nine columns, column letters beyond that. A game is
// its moves concatenated from the start: "b2a1c3", "4453". Parsing never
// throws: bad text gives an Error that names the problem and its offset.
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
std::string format_moves(const Variant& v, const std::vector<Cell>& moves);

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
