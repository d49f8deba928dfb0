// Tic-tac-toe is solved: these tests hold the engine to the known truths.
#include <gtest/gtest.h>

#include <functional>
#include <unordered_set>

#include "inarow/engine/game.h"
#include "inarow/engine/search.h"

namespace inarow {
namespace {

// Every position reachable from the empty board, stopping at a win or a full board.
void reachable(Game& game, std::unordered_set<std::uint64_t>& seen,
               const std::function<void(const Game&)>& visit) {
  if (!seen.insert(game.key()).second) return;
  visit(game);
  if (game.over()) return;
  for (Cell m : game.legal_moves()) {
    ASSERT_TRUE(game.play(m));
    reachable(game, seen, visit);
    game.undo();
  }
}

TEST(TicTacToe, HasExactly5478ReachablePositions) {
  Game game(Variant::tictactoe());
  std::unordered_set<std::uint64_t> seen;
  int finished = 0;
  reachable(game, seen, [&](const Game& g) { finished += g.over(); });
  EXPECT_EQ(seen.size(), 5478u);
  EXPECT_EQ(finished, 958);  // 942 won and 16 drawn final positions
}

TEST(TicTacToe, PlainMinimaxVisits549946NodesAndFindsADraw) {
  const MinimaxResult r = plain_minimax(Game(Variant::tictactoe()));
  EXPECT_EQ(r.nodes, 549946u);
  EXPECT_EQ(r.score, 0);
}

TEST(TicTacToe, SolvedFromTheStartIsADrawToTheFullBoard) {
  Searcher searcher(Variant::tictactoe(), {}, 1);
  const Solution s = searcher.solve(Game(Variant::tictactoe()));
  EXPECT_EQ(s.value_for_mover, Outcome::draw);
  EXPECT_EQ(s.plies, 9);
}

TEST(TicTacToe, FastSearchAgreesWithTheReferenceEverywhere) {
  Searcher searcher(Variant::tictactoe(), {}, 1);
  Game game(Variant::tictactoe());
  std::unordered_set<std::uint64_t> seen;
  int checked = 0;
  reachable(game, seen, [&](const Game& g) {
    if (g.over()) return;
    const Score truth = plain_minimax(g).score;
    searcher.clear();
    const Solution s = searcher.solve(g);
    EXPECT_EQ(s.score, truth) << g.notation();
    searcher.clear();
    const SearchResult r = searcher.search(g, {});
    EXPECT_EQ(r.score, truth) << g.notation();
    EXPECT_TRUE(r.exact);
    // The move it names achieves the value.
    Game after = g;
    ASSERT_TRUE(after.play(s.best));
    const Score achieved = after.over() ? (after.outcome() == Outcome::draw ? 0 : kMate - 1)
                                        : -plain_minimax(after).score;
    const Score one_ply_later = achieved > kMaxEval ? achieved - 1 : achieved < -kMaxEval ? achieved + 1 : achieved;
    EXPECT_EQ(after.over() ? achieved : one_ply_later, truth) << g.notation() << " best " << s.best;
    ++checked;
  });
  EXPECT_EQ(checked, 5478 - 958);
}

}  // namespace
}  // namespace inarow
