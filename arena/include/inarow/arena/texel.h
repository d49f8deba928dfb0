// Texel-style fitting of the evaluator's weights: quiet positions labelled
// with their game's result, from self-play or from recorded games (any
// players', a stronger engine's best), or each with its own chance (a
// stronger engine's view of it), and weights chosen to minimise the squared
// error between the label and sigmoid(eval / K). The search's leaf
// evaluation is linear in every weight (EvalTerms), so the fit moves the
// window counts, the threat terms and, while they are on, the shapes,
// their pairs and the pairs held. The move order's copies of those values
// (Weights::gain_by_count, gain_shapes) stay as they are.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "inarow/arena/openings.h"
#include "inarow/common/error.h"
#include "inarow/common/expected.h"
#include "inarow/engine/evaluator.h"
#include "inarow/engine/game.h"
#include "inarow/engine/variant.h"

namespace inarow::arena {

// A finished game to draw positions from: its moves and its result. The
// first `skip` plies (a random opening, say) give none.
struct LabelledGame {
  std::vector<Cell> moves;
  Outcome result = Outcome::draw;
  int skip = 0;
};

// A position with the first player's chance in it, 0..1 (a stronger
// engine's evaluation of it, say).
struct LabelledPosition {
  std::vector<Cell> moves;
  double first_wins = 0.5;
};

struct TexelOptions {
  Variant variant = Variant::connect4();
  Weights start;    // the self-play bots' weights and the fit's start
  int games = 200;  // self-play games to draw positions from, when `recorded` is empty
  std::vector<LabelledGame> recorded;  // games to draw positions from instead
  std::vector<LabelledPosition> positions;  // or positions with their own labels
  // A weight whose term is not 0 in at least this many of the fitted
  // positions keeps its start value: a rare term (an open four in a quiet
  // position) fitted to a handful of positions learns their noise.
  int min_count = 0;
  int depth = 2;
  int iterations = 300;        // gradient steps
  double learning_rate = 0.0;  // <= 0: chosen from the data
  std::uint64_t seed = 1;
  OpeningOptions openings{.count = 256, .plies = -1, .depth = 2, .seed = 1};
};

struct TexelResult {
  Weights weights;
  double k = 1;           // the fitted scale: P(first wins) = sigmoid(eval / k)
  double loss_start = 0;  // mean squared error with the start weights
  double loss_end = 0;
  std::int64_t positions = 0;
  std::int64_t held_out = 0;  // positions kept out of the fit (every tenth game's or position)
  double held_out_start = 0;  // their mean squared error with the start weights
  double held_out_end = 0;    // and with the fitted ones
  std::vector<std::string> kept;  // weights held at their start values (min_count)
};

TexelResult run_texel(const TexelOptions& o);

// The games of a tournament's record file (one JSON line each, as
// `inarow-arena --record` writes them) that ended on the board (a line or a
// full board: a game lost on time or by a crash says nothing of its last
// position), their openings skipped. Games of other boards are left out;
// a line that does not parse, or whose moves do not replay, is an error
// naming the line.
expected<std::vector<LabelledGame>, Error> labelled_games(const Variant& v,
                                                          std::string_view records);

// Labelled positions, one a line: the moves in the board's notation, then
// the first player's chance (0..1), e.g. "h8i9h10 0.62". '#' starts a
// comment. A line that does not parse, a position that does not replay or
// is over, or a chance outside 0..1 is an error naming the line.
expected<std::vector<LabelledPosition>, Error> labelled_positions(const Variant& v,
                                                                  std::string_view text);

}  // namespace inarow::arena
