// Tactics any decent bot must see: win in one, block, and a forced win two
// moves deep, in gomoku and connect four.
#include <gtest/gtest.h>

#include "inarow/engine/notation.h"
#include "inarow/engine/search.h"

namespace inarow {
namespace {

struct Tactic {
  const char* variant;
  const char* moves;
  std::vector<const char*> best;  // any of these
  int depth;
  Score score;  // kMate - p for a win in p plies; 0 = only the move matters
};

class Tactics : public testing::TestWithParam<Tactic> {};

TEST_P(Tactics, FoundAtShallowDepth) {
  const Tactic& t = GetParam();
  const Variant v = *Variant::parse(t.variant);
  const auto game = Game::parse(v, t.moves);
  ASSERT_TRUE(game) << game.error().describe();
  Searcher searcher(v, {}, 4);
  Limits limits;
  limits.depth = t.depth;
  const SearchResult r = searcher.search(*game, limits);
  const std::string played = format_move(v, r.best);
  EXPECT_TRUE(std::find(t.best.begin(), t.best.end(), played) != t.best.end())
      << t.moves << ": played " << played;
  if (t.score != 0) {
    EXPECT_EQ(r.score, t.score) << t.moves;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Engine, Tactics,
    testing::Values(
        // gomoku: an open four completes to five.
        Tactic{"gomoku", "h8a1h9c1h10e1h11g1", {"h7", "h12"}, 4, kMate - 1},
        // gomoku: a closed four must be blocked at its open end.
        Tactic{"gomoku", "h8h12h9a1h10c1h11", {"h7"}, 4, 0},
        // gomoku: an open three becomes an open four, which cannot be stopped.
        Tactic{"gomoku", "g8a1h8a15i8o1", {"f8", "j8"}, 4, kMate - 3},
        // connect four: three stacked in column 1 are completed.
        Tactic{"connect4", "121212", {"1"}, 4, kMate - 1},
        // connect four: the stack must be capped.
        Tactic{"connect4", "12131", {"1"}, 4, 0},
        // connect four: two stones on the bottom row become an open three.
        Tactic{"connect4", "3344", {"2", "5"}, 4, kMate - 3}));

}  // namespace
}  // namespace inarow
