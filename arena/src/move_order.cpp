#include "inarow/arena/move_order.h"

#include "inarow/engine/game.h"
#include "inarow/engine/search.h"

namespace inarow::arena {

double MoveOrderReport::top(int n) const {
  std::int64_t within = 0;
  for (int i = 0; i < n && i < int(by_rank.size()); ++i)
    within += by_rank[std::size_t(i)];
  return positions ? double(within) / double(positions) : 0.0;
}

MoveOrderReport measure_move_order(const Variant& v, const Weights& weights,
                                   const std::vector<LabelledGame>& games) {
  MoveOrderReport r;
  Searcher searcher(v, weights, 1);  // no search runs: the table is never used
  for (const LabelledGame& g : games) {
    ++r.games;
    Game game(v);
    for (std::size_t i = 0; i < g.moves.size() && !game.over(); ++i) {
      if (int(i) >= g.skip) {
        const MoveRank m = searcher.move_rank(game, g.moves[i]);
        if (m.quiet) {
          ++r.positions;
          if (m.rank < 0) {
            ++r.outside;
          } else {
            if (std::size_t(m.rank) >= r.by_rank.size()) r.by_rank.resize(std::size_t(m.rank) + 1);
            ++r.by_rank[std::size_t(m.rank)];
            r.searched += m.rank < m.searched;
          }
        }
      }
      if (!game.play(g.moves[i])) break;  // labelled_games replays them: never
    }
  }
  return r;
}

}  // namespace inarow::arena
