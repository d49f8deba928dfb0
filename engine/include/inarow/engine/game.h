// Game: the engine's facade for programs that are not searching — the server,
// the bots' callers, the clients. One class for every variant: it holds a
// Position<W> of the right width behind a std::variant and checks every move,
// so callers get an Error for bad input instead of an assertion.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "inarow/common/error.h"
#include "inarow/common/expected.h"
#include "inarow/engine/position.h"
#include "inarow/engine/variant.h"

namespace inarow {

enum class Outcome : std::uint8_t { ongoing, first_wins, second_wins, draw };
std::string_view to_string(Outcome o);

using AnyPosition = std::variant<Position<1>, Position<2>, Position<4>, Position<7>>;

class Game {
 public:
  explicit Game(const Variant& v);
  // A game from its notation ("b2a1c3"); "" or "-" is the start position.
  static expected<Game, Error> parse(const Variant& v, std::string_view moves);

  const Variant& variant() const { return variant_; }
  int ply() const;
  Side to_move() const;
  Outcome outcome() const;
  bool over() const { return outcome() != Outcome::ongoing; }
  std::vector<Cell> moves() const;
  Cell last_move() const;

  // The stone on (col, row), if any.
  std::optional<Side> at(int col, int row) const;
  bool is_legal(Cell c) const;
  std::vector<Cell> legal_moves() const;
  // Stones per column, for gravity moves.
  int column_height(int col) const;

  // Checked moves: an Error (occupied, column_full, game_over, off_board) and
  // no change, or the move is made.
  expected<void, Error> play(Cell c);
  // A move in notation ("c3", or "4" under gravity).
  expected<Cell, Error> play(std::string_view move);
  // Resolve a move in notation to a cell without playing it.
  expected<Cell, Error> parse_move(std::string_view move) const;
  bool undo();

  std::uint64_t key() const;
  // The k (or more) cells of the winning line, empty if nobody has won.
  std::vector<Cell> winning_line() const;
  std::string notation() const;  // moves concatenated: "b2a1c3"
  // A board diagram with coordinates, one text line per row, top row first.
  std::string diagram() const;

  AnyPosition& position() { return pos_; }
  const AnyPosition& position() const { return pos_; }

 private:
  Variant variant_;
  AnyPosition pos_;
};

}  // namespace inarow
