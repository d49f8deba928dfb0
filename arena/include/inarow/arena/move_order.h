// How well the search's move order agrees with recorded games: for each
// quiet position of the games (one where the order has a choice to make,
// Searcher::move_rank), where the move that was played comes in the order.
// Against a strong engine's games this is the share of its choices the
// forward prune keeps, which self-play cannot show: a move both sides'
// order puts late is one neither ever plays.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inarow/arena/texel.h"
#include "inarow/common/error.h"
#include "inarow/common/expected.h"
#include "inarow/engine/evaluator.h"
#include "inarow/engine/variant.h"

namespace inarow::arena {

struct MoveOrderReport {
  std::int64_t games = 0;
  std::int64_t positions = 0;  // quiet positions, each with its played move
  std::int64_t outside = 0;    // played moves that were not candidates at all
  std::int64_t searched = 0;   // played moves within what an interior node searches
  // by_rank[i]: played moves the order put at i (0 = first).
  std::vector<std::int64_t> by_rank;

  // The share of the positions whose played move came in the first n.
  double top(int n) const;
};

MoveOrderReport measure_move_order(const Variant& v, const Weights& weights,
                                   const std::vector<LabelledGame>& games);

// Fitting the order's terms (Weights::order) to the same games: in each
// quiet position the played move and the others of its tier (the tier goes
// first whatever the terms say, OrderTerms) are a choice, and the fit is a
// conditional logit: P(move) is the softmax, over those candidates, of the
// windows' gain plus the terms, all times one free scale, fitted by
// Newton's method with a light ridge. The scale is then divided out, which
// leaves the terms in the windows' unit, as the search adds them.
struct OrderFitOptions {
  // A term seen on fewer candidate moves than this keeps its start value
  // (the rare winning shapes: too few choices to fit).
  int min_count = 200;
  int max_iterations = 100;
  // The ridge on each fitted term, in units of its spread over the
  // candidates: a pull toward zero worth this many positions' evidence.
  double ridge = 1.0;
};

struct OrderFit {
  Weights weights;                  // the start, with its order terms fitted
  std::vector<std::string> fitted;  // the keys that moved
  std::vector<std::string> kept;    // the order's other keys: too rare to fit
  std::int64_t games = 0;
  std::int64_t positions = 0;   // choices fitted: quiet, the played move among 2+ of its tier
  std::int64_t candidates = 0;  // their moves, all told
  // Mean -ln P(played move) per position, the start's terms at their best
  // scale and the fit's (the lower, the better the order predicts them),
  // and the share of positions whose played move the terms put first in
  // its tier. Both on the fitted games: measure_move_order on others tells
  // how it generalises.
  double loss_start = 0, loss_end = 0;
  double first_start = 0, first_end = 0;
  int iterations = 0;
};

// Errors (bad_weights) where the start has no order terms in use (shapes
// off, or a board without them) or where nothing pulls the scale positive.
// No quiet positions fit nothing: positions is 0 and the weights the start.
expected<OrderFit, Error> fit_move_order(const Variant& v, const Weights& start,
                                         const std::vector<LabelledGame>& games,
                                         const OrderFitOptions& options = {});

}  // namespace inarow::arena
