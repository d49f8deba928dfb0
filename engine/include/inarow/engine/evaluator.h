// The line-window evaluator: every window of k cells along a row, column or
// diagonal that holds stones of one side only scores weight[count] for that
// side. Weights are data: per variant defaults, or parsed from a small text
// (the bots read it from a file: the engine does no I/O).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "inarow/common/error.h"
#include "inarow/common/expected.h"
#include "inarow/engine/variant.h"

namespace inarow {

struct Weights {
  // by_count[n] scores a window holding n stones of one side, n = 0..k-1
  // (by_count[0] is always 0; a full window is a win, scored by the search).
  std::vector<int> by_count;
  // Boards with k >= 5 and no gravity add, at the search's leaves, per cell:
  // where the side to move makes a four, where it makes a straight four (a
  // three's cell), and the same two for the opponent. Keys four, three,
  // their_four, their_three; empty on other boards.
  std::vector<int> threats;
  // Shape evaluation (k = 5 without gravity, engine/src/shapes.h): on top of
  // the windows, every empty cell scores, per side, by what a stone there
  // makes on each line (keys shape_two, shape_open_two, shape_three,
  // shape_open_three, shape_four, shape_open_four, shape_five) and by the
  // four lines together (double_three, four_three, double_four). Empty on
  // other boards; `shapes_on` picks it over the windows ("eval = shapes").
  std::vector<int> shapes;
  bool shapes_on = false;

  // The built-in weights for a variant (tic-tac-toe: 2 -> 2, 1 -> 1).
  static Weights defaults(const Variant& v);
  // Text form: "w1 = 1", "w2 = 4"... one per line, '#' comments. Counts not
  // given keep their default. Errors name the line.
  static expected<Weights, Error> parse(const Variant& v, std::string_view text);
  std::string to_text() const;

  bool operator==(const Weights&) const = default;
};

}  // namespace inarow
