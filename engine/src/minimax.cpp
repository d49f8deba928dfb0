// The reference search: plain minimax over the whole game tree. Slow on
// purpose — no pruning, no table, no move ordering — so that it is obviously
// right and the fast search can be checked against it.
#include "inarow/engine/search.h"

namespace inarow {

namespace {

template <int W>
Score minimax(Position<W>& pos, int ply, std::uint64_t& nodes) {
  ++nodes;
  if (pos.won()) return -(kMate - ply);  // the side to move has lost
  if (pos.full()) return 0;
  Score best = -kInfinity;
  for (int m : bits(pos.playable())) {
    pos.make(m);
    best = std::max(best, -minimax(pos, ply + 1, nodes));
    pos.undo();
  }
  return best;
}

}  // namespace

MinimaxResult plain_minimax(const Game& game) {
  MinimaxResult result;
  AnyPosition pos = game.position();
  result.score = std::visit([&](auto& p) { return minimax(p, 0, result.nodes); }, pos);
  return result;
}

}  // namespace inarow
