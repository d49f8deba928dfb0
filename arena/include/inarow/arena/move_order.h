// How well the search's move order agrees with recorded games: for each
// quiet position of the games (one where the order has a choice to make,
// Searcher::move_rank), where the move that was played comes in the order.
// Against a strong engine's games this is the share of its choices the
// forward prune keeps, which self-play cannot show: a move both sides'
// order puts late is one neither ever plays.
#pragma once

#include <cstdint>
#include <vector>

#include "inarow/arena/texel.h"
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

}  // namespace inarow::arena
