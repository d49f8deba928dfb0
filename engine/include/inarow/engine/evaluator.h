// The line-window evaluator: every window of k cells along a row, column or
// diagonal that holds stones of one side only scores weight[count] for that
// side. Weights are data: per variant defaults, or parsed from a small text
// (the bots read it from a file: the engine does no I/O).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inarow/common/error.h"
#include "inarow/common/expected.h"
#include "inarow/engine/variant.h"

namespace inarow {

struct EvalTerms;

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
  // And by the cell's two best lines together, where the best is an open
  // two, a three, an open three or a four: pair_<best>_<second> for every
  // second no better than the best (none, two, open_two, three, open_three,
  // four), 18 keys from pair_open_two_none to pair_four_four. What a cell
  // threatens depends on how its lines combine, which the sum of its lines
  // and the three cell classes tell only in part. Present with the shapes.
  std::vector<int> pairs;
  // And once per pair that some empty cell makes, however many do: for the
  // side to move (held_<pair>, e.g. held_open_three_open_two), then for
  // the opponent (their_held_<pair>). The sums above count every cell
  // alike; what decides a quiet position is more the best threat each side
  // holds, and the mover's comes first. 36 keys, present with the shapes.
  std::vector<int> held_pairs;
  bool shapes_on = false;
  // Where shapes are on, the search orders a node's quiet moves by the
  // windows' gain plus these, in its units (OrderTerms has what each
  // multiplies): the shapes' gain, in percent (key order_shape_gain); what
  // a stone makes on each of its four lines for the mover (order_two,
  // order_open_two, order_three, order_open_three, order_four,
  // order_open_four) and what one of the opponent's there would
  // (order_their_two ... order_their_open_four); the four lines together
  // (order_double_three, order_four_three, order_double_four, and the
  // same three as order_their_*); nearness to the last move, one to three
  // king steps away (order_near_1..3), and to the mover's own last
  // (order_near_own_1..2). Present with the shapes; inarow-arena order
  // --fit fits them to a strong player's games.
  std::vector<int> order;
  // The order's own copy of the values its gain is made of: the windows'
  // (keys gain_w1..gain_w(k-1)) and, where shapes are on, the shapes'
  // (gain_shape_two ... gain_double_four). Empty, the order reads by_count
  // and shapes themselves. With the copy, a tuner that moves the score
  // moves only the score: the forward prune keeps the order's first moves
  // (ten near the horizon), and a fit that moved them with the score
  // played hundreds of Elo worse (bench/gomoku/RESULTS.md). Present with
  // the order's terms.
  std::vector<int> gain_by_count;
  std::vector<int> gain_shapes;
  // The side to move's own windows count this many percent more at a leaf
  // (key tempo): it plays next, so its lines are nearer to threats than the
  // same lines of the opponent's. 0 on small boards (solved or tuned
  // without it).
  int tempo = 0;

  // The built-in weights for a variant (tic-tac-toe: 2 -> 2, 1 -> 1).
  static Weights defaults(const Variant& v);
  // Every number above by its key in the text form, in that form's order:
  // w1..w(k-1), the threat terms, tempo, the shapes, their pairs and the
  // pairs held, the order's gain values, the order's terms (those these weights have). What
  // a tuner moves picks among them by name.
  std::vector<std::string> keys() const;
  // The values parse reads for the weight under `key`: -10000..10000, the
  // tempo -100..1000 (percent).
  static std::pair<int, int> range(std::string_view key);
  // The weight under `key`, or nullptr when these weights have none.
  int* find(std::string_view key);
  const int* find(std::string_view key) const { return const_cast<Weights*>(this)->find(key); }
  // Text form: "w1 = 1", "w2 = 4"... one per line, '#' comments. Counts not
  // given keep their default. Errors name the line.
  static expected<Weights, Error> parse(const Variant& v, std::string_view text);
  std::string to_text() const;
  // The first player's evaluation from a position's terms (below), before
  // the search clamps it into its heuristic range.
  long long evaluate(const EvalTerms& terms) const;

  bool operator==(const Weights&) const = default;
};

// The search's evaluation of a position where it stands pat, term by term:
// what each weight multiplies, from the first player's view, place for place
// with Weights. The evaluation is linear in the weights (Weights::evaluate),
// which is what lets a tuner fit them to game results.
struct EvalTerms {
  // [n], n = 1..k-1: the first player's windows holding n stones (and none
  // of the second's) minus the second player's.
  std::vector<int> by_count;
  // four, three, their_four, their_three (boards with k >= 5 and no
  // gravity): the cells where the side to move makes a four or a straight
  // four, and the opponent's; positive where the first player is to move.
  std::vector<int> threats;
  // Per shape key (k = 5 freestyle): the empty cells where a stone of the
  // first player makes that shape, minus the second player's. Counted in
  // the evaluation only while Weights::shapes_on.
  std::vector<int> shapes;
  // Per pair key, the same: the empty cells whose two best lines for the
  // first player make that pair, minus the second player's.
  std::vector<int> pairs;
  // Per held pair key: 1 where some empty cell makes that pair for the side
  // to move (then, the second 18, for the opponent), negated where the
  // second player is to move.
  std::vector<int> held_pairs;
  // [n]: the side to move's own windows holding n stones (and none of the
  // opponent's), which Weights::tempo weighs again; `first_to_move` says
  // whose they are.
  std::vector<int> mover_by_count;
  bool first_to_move = true;
  // The search stands pat here: neither side can make five, the opponent
  // has no three to answer, and the side to move has no unstoppable three.
  bool quiet = false;
};

}  // namespace inarow
