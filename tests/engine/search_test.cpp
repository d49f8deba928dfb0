// The fast search against the plain minimax reference on random positions
// with few empty cells, and the search's limits and cancellation.
#include "inarow/engine/search.h"

#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "inarow/engine/notation.h"
#include "stones.h"

namespace inarow {
namespace {

// A random game that stops with `empties` cells left, no line made.
std::optional<Game> random_unfinished(const Variant& v, int empties, std::mt19937_64& rng) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    Game game(v);
    bool ok = true;
    while (ok && v.cells() - game.ply() > empties) {
      auto moves = game.legal_moves();
      std::shuffle(moves.begin(), moves.end(), rng);
      ok = false;
      for (Cell m : moves) {
        ASSERT_TRUE(game.play(m)), std::nullopt;
        if (!game.over()) {
          ok = true;
          break;
        }
        game.undo();
      }
    }
    if (ok) return game;
  }
  return std::nullopt;
}

struct Case {
  const char* variant;
  int empties;
  int positions;
};

class AgainstReference : public ::testing::TestWithParam<Case> {};

TEST_P(AgainstReference, SameValueAsPlainMinimax) {
  const Case& c = GetParam();
  const Variant v = *Variant::parse(c.variant);
  std::mt19937_64 rng(42);
  Searcher searcher(v, {}, 4);
  for (int i = 0; i < c.positions; ++i) {
    const auto game = random_unfinished(v, c.empties, rng);
    ASSERT_TRUE(game) << "no position found";
    const Score truth = plain_minimax(*game).score;
    searcher.clear();
    EXPECT_EQ(searcher.solve(*game).score, truth) << v.name << " " << game->notation();
    searcher.clear();
    const SearchResult r = searcher.search(*game, {});
    EXPECT_EQ(r.score, truth) << v.name << " " << game->notation();
    EXPECT_TRUE(r.exact);
    // Weak solving only gets the sign right, and must.
    searcher.clear();
    const Score weak = searcher.solve(*game, true).score;
    EXPECT_EQ((weak > 0) - (weak < 0), (truth > 0) - (truth < 0)) << game->notation();
  }
}

INSTANTIATE_TEST_SUITE_P(Engine, AgainstReference,
                         ::testing::Values(Case{"connect4", 9, 40}, Case{"gomoku", 7, 15},
                                           Case{"mnk:4,4,3", 10, 30}, Case{"mnk:5,5,4", 9, 30},
                                           Case{"mnk:5,4,3,gravity", 10, 40},
                                           Case{"mnk:9,9,4,gravity", 8, 20},
                                           Case{"mnk:19,19,5", 6, 5}, Case{"mnk:20,20,5", 6, 3}),
                         [](const auto& param_info) {
                           std::string name = param_info.param.variant;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(Search, DepthLimitIsRespected) {
  Searcher searcher(Variant::connect4(), {}, 4);
  Limits limits;
  limits.depth = 5;
  const SearchResult r = searcher.search(Game(Variant::connect4()), limits);
  EXPECT_EQ(r.depth, 5);
  EXPECT_FALSE(r.exact);
  EXPECT_TRUE(Game(Variant::connect4()).is_legal(r.best));
}

TEST(Search, NodeLimitStopsTheSearch) {
  Searcher searcher(Variant::gomoku(), {}, 4);
  Limits limits;
  limits.nodes = 5000;
  const SearchResult r = searcher.search(*Game::parse(Variant::gomoku(), "h8i9"), limits);
  EXPECT_LE(r.nodes, 5000u + 1024u);  // checked every 1024 nodes
  EXPECT_TRUE(Game::parse(Variant::gomoku(), "h8i9")->is_legal(r.best));
}

TEST(Search, TimeLimitStopsTheSearch) {
  // Gomoku after one stone has 224 plies to go: only the time limit ends this
  // search, after a completed iteration and short of the end of the game.
  Searcher searcher(Variant::gomoku(), {}, 4);
  Limits limits;
  limits.time = std::chrono::milliseconds(100);
  const Game game = *Game::parse(Variant::gomoku(), "h8");
  const SearchResult r = searcher.search(game, limits);
  EXPECT_GE(r.depth, 1);
  EXPECT_LT(r.depth, game.variant().cells() - 1);
  EXPECT_FALSE(r.exact);
  EXPECT_TRUE(game.is_legal(r.best));
}

// A time that is the move's alone is used to its end: the search stops at
// the deadline, not after the last iteration it expects to finish.
TEST(Search, UseAllTimeSearchesToTheDeadline) {
  Searcher searcher(Variant::gomoku(), {}, 4);
  Limits limits;
  limits.time = std::chrono::milliseconds(150);
  limits.use_all_time = true;
  const Game game = *Game::parse(Variant::gomoku(), "h8i9");
  const SearchResult r = searcher.search(game, limits);
  EXPECT_GE(r.elapsed, limits.time);
  EXPECT_FALSE(r.exact);
  EXPECT_TRUE(game.is_legal(r.best));
}

// The stop flag is read every 1024 nodes: a search that starts stopped ends
// at the first check (the node that makes it is counted: 1025 nodes), with a
// legal move all the same.
TEST(Search, AStopFlagEndsTheSearchAtTheNextCheck) {
  std::atomic<bool> stop{true};
  Searcher searcher(Variant::gomoku(), {}, 4);
  Limits limits;
  limits.stop = &stop;
  const Game game = *Game::parse(Variant::gomoku(), "h8");
  const SearchResult r = searcher.search(game, limits);
  EXPECT_LE(r.nodes, 1025u);
  EXPECT_TRUE(game.is_legal(r.best));

  Searcher solver(Variant::connect4(), {}, 16);
  const Solution s = solver.solve(Game(Variant::connect4()), false, &stop);  // hours if not stopped
  EXPECT_LE(s.nodes, 1025u);
}

TEST(Search, CancelledFromAnotherThread) {
  Searcher searcher(Variant::connect4(), {}, 16);
  std::atomic<bool> stop{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop = true;
  });
  // Hours if not stopped: returning at all is the check (the test's timeout
  // catches a search that ignores the flag); the solve saw it mid-search.
  const Solution s = searcher.solve(Game(Variant::connect4()), false, &stop);
  canceller.join();
  EXPECT_TRUE(stop);
  EXPECT_GT(s.nodes, 0u);
}

// A board strewn with stones, where either side has fours to make: the
// horizon's block of a four used to be extended, which handed the four's
// maker another full-width ply after every block, so a depth-2 search
// spent 134,646 nodes here (a beginner bot's move took seconds on a loaded
// server). Not extended: 1,620 nodes.
TEST(Search, ChainsOfFoursDoNotBlowUpAShallowSearch) {
  const Variant v = Variant::gomoku();
  const auto game = Game::parse(v,
                                "k8h9i9m11g9g8h8h7n4g7f7a5j8k9n15i8o8i7j7h10h6g10f9j6i11i10g2f8i6n3"
                                "g6h5j9c1k7o5e10g14g11f10e7g5");
  ASSERT_TRUE(game);
  Searcher searcher(v, {}, 4);
  Limits limits;
  limits.depth = 2;
  const SearchResult r = searcher.search(*game, limits);
  EXPECT_EQ(r.depth, 2);
  EXPECT_TRUE(game->is_legal(r.best));
  EXPECT_LT(r.nodes, 10'000u);
}

TEST(Search, MateScoresCountPlies) {
  EXPECT_EQ(mate_plies(kMate - 3), 3);
  EXPECT_EQ(mate_plies(-(kMate - 4)), 4);
  EXPECT_TRUE(is_mate_score(kMate - 300));
  EXPECT_FALSE(is_mate_score(kMaxEval));
}

// Where a move comes in an interior node's order (inarow-arena order).
TEST(MoveRank, RanksAMoveWhereAnInteriorNodeWouldTryIt) {
  const Variant v = Variant::gomoku();
  Searcher s(v, Weights::defaults(v), 1);
  // The empty board has one candidate, the centre; a corner is none.
  const Game empty(v);
  const MoveRank centre = s.move_rank(empty, v.cell(7, 7));
  EXPECT_TRUE(centre.quiet);
  EXPECT_EQ(centre.rank, 0);
  EXPECT_EQ(centre.candidates, 1);
  EXPECT_EQ(centre.searched, 1);
  const MoveRank corner = s.move_rank(empty, v.cell(0, 0));
  EXPECT_TRUE(corner.quiet);
  EXPECT_EQ(corner.rank, -1);
  EXPECT_EQ(s.move_rank(empty, kNoCell).rank, -1);

  // A blocked three (g8 holds it on the left): its two four cells, k8 and
  // l8, go before every quiet move; ten of the candidates are searched.
  const Game blocked = testing::from_stones(v, {"h8", "i8", "j8"}, {"g8", "a1", "a15"});
  const Cell k8 = v.cell(10, 7), l8 = v.cell(11, 7);
  std::vector<int> ranks;
  for (Cell c : blocked.legal_moves()) {
    const MoveRank r = s.move_rank(blocked, c);
    ASSERT_TRUE(r.quiet);
    EXPECT_GT(r.candidates, 10);
    EXPECT_EQ(r.searched, 10);
    ranks.push_back(r.rank);
  }
  EXPECT_EQ(s.move_rank(blocked, k8).rank + s.move_rank(blocked, l8).rank, 1);
  // Every candidate has its own place: 0, 1, 2, ... once each.
  std::vector<int> placed;
  std::copy_if(ranks.begin(), ranks.end(), std::back_inserter(placed),
               [](int r) { return r >= 0; });
  std::sort(placed.begin(), placed.end());
  for (std::size_t i = 0; i < placed.size(); ++i)
    EXPECT_EQ(placed[i], int(i));

  // What a search taught the searcher (killers, history) stays out of it.
  (void)s.search(testing::from_stones(v, {"h8", "h9"}, {"i9", "j10"}), Limits{.nodes = 20000});
  std::vector<int> again;
  for (Cell c : blocked.legal_moves())
    again.push_back(s.move_rank(blocked, c).rank);
  EXPECT_EQ(again, ranks);

  // An open three to answer leaves the order nothing to choose.
  const Game open_three = testing::from_stones(v, {"h8", "i8", "j8"}, {"a1", "a15"});
  EXPECT_FALSE(s.move_rank(open_three, v.cell(6, 7)).quiet);
}

// The order's terms, one by one: what each of Weights::order multiplies.
TEST(OrderTerms, CountWhatEachWeightMultiplies) {
  const Variant v = Variant::gomoku();
  Searcher s(v, Weights::defaults(v), 1);
  // X: h8 i8 j8, held by g8; O's last stone is a15, X's own last j8.
  const Game blocked = testing::from_stones(v, {"h8", "i8", "j8"}, {"g8", "a1", "a15"});
  const OrderTerms t = s.order_terms(blocked);
  ASSERT_TRUE(t.quiet);
  EXPECT_EQ(int(t.moves.size()), s.move_rank(blocked, v.cell(10, 7)).candidates);
  const auto k8 = std::find_if(t.moves.begin(), t.moves.end(),
                               [&](const OrderTerms::Move& m) { return m.cell == v.cell(10, 7); });
  ASSERT_NE(k8, t.moves.end());
  EXPECT_EQ(k8->tier, 1);  // it makes a four
  EXPECT_GT(k8->windows, 0);
  // The blocked four along the row, a king step from X's own last move,
  // and nothing for O: the rest are zero but the shapes' gain.
  std::vector<int> expected(24, 0);
  expected[0] = k8->terms[0];
  expected[5] = 1;   // order_four
  expected[22] = 1;  // order_near_own_1
  EXPECT_EQ(k8->terms, expected);
  EXPECT_GT(k8->terms[0], 0);
  // A cell next to a15, O's last move, three steps from j8: no own nearness.
  const auto b14 = std::find_if(t.moves.begin(), t.moves.end(),
                                [&](const OrderTerms::Move& m) { return m.cell == v.cell(1, 13); });
  ASSERT_NE(b14, t.moves.end());
  EXPECT_EQ(b14->tier, 0);
  EXPECT_EQ(b14->terms[19], 1);  // order_near_1
  EXPECT_EQ(b14->terms[22] + b14->terms[23], 0);

  // Not quiet, or no shapes: no terms.
  EXPECT_FALSE(s.order_terms(testing::from_stones(v, {"h8", "i8", "j8"}, {"a1", "a15"})).quiet);
  Weights windows = Weights::defaults(v);
  windows.shapes_on = false;
  Searcher w(v, windows, 1);
  EXPECT_TRUE(w.order_terms(blocked).moves.empty());
}

// The mover's four cells go first; where the shapes are on, the cells where
// the opponent would make a four are ranked by their terms among the rest
// (order_their_four), and without the shapes they go first too.
TEST(OrderTerms, OnlyTheMoversFoursGoFirst) {
  const Variant v = Variant::gomoku();
  // X: h8 i8 j8 held by g8 (four cells k8, l8); O: c3 d3 e3 held by b3
  // (four cells f3, g3). X to move.
  const Game game = testing::from_stones(v, {"h8", "i8", "j8", "b3"}, {"g8", "c3", "d3", "e3"});
  const Cell k8 = v.cell(10, 7), l8 = v.cell(11, 7), f3 = v.cell(5, 2), g3 = v.cell(6, 2);
  Searcher shapes(v, Weights::defaults(v), 1);
  const OrderTerms t = shapes.order_terms(game);
  ASSERT_TRUE(t.quiet);
  for (const OrderTerms::Move& m : t.moves) {
    EXPECT_EQ(m.tier, m.cell == k8 || m.cell == l8) << format_cell(v, m.cell);
    if (m.cell == f3 || m.cell == g3) {
      EXPECT_EQ(m.terms[11], 1);  // order_their_four
    }
  }
  EXPECT_EQ(shapes.move_rank(game, k8).rank + shapes.move_rank(game, l8).rank, 1);
  EXPECT_GE(shapes.move_rank(game, f3).rank, 2);
  Weights windows = Weights::defaults(v);
  windows.shapes_on = false;
  Searcher plain(v, windows, 1);
  std::vector<int> first;
  for (Cell c : {k8, l8, f3, g3})
    first.push_back(plain.move_rank(game, c).rank);
  std::sort(first.begin(), first.end());
  EXPECT_EQ(first, (std::vector<int>{0, 1, 2, 3}));
}

// The order's gain reads its own copy of the windows' and the shapes'
// values: weights that move the score (as a tuner does) leave every move's
// place in the order as it was, and the copy, moved, changes it.
TEST(OrderTerms, TheScoresWeightsLeaveTheOrderBe) {
  const Variant v = Variant::gomoku();
  const Game game = testing::from_stones(v, {"h8", "i9", "g10", "k7"}, {"h9", "j8", "f11", "d4"});
  const Weights start = Weights::defaults(v);
  const Weights score = *Weights::parse(v, "w3 = 5\nw2 = 40\nshape_four = 90\nfour_three = -40\n");
  const Weights gain = *Weights::parse(v, "gain_w3 = 5\ngain_w2 = 40\ngain_shape_four = 90\n");
  EXPECT_EQ(gain.by_count, start.by_count);
  EXPECT_EQ(gain.shapes, start.shapes);
  Searcher a(v, start, 1), b(v, score, 1), c(v, gain, 1);
  const EvalTerms terms = a.eval_terms(game);
  EXPECT_NE(score.evaluate(terms), start.evaluate(terms));
  EXPECT_EQ(gain.evaluate(terms), start.evaluate(terms));
  int moved = 0, cells = 0;
  for (const OrderTerms::Move& m : a.order_terms(game).moves) {
    const int rank = a.move_rank(game, m.cell).rank;
    EXPECT_EQ(b.move_rank(game, m.cell).rank, rank) << format_cell(v, m.cell);
    moved += c.move_rank(game, m.cell).rank != rank;
    ++cells;
  }
  EXPECT_GT(cells, 20);
  EXPECT_GT(moved, 0);
}

// The terms and the weights give the order a node uses: where a move's tier
// and value are its own, its rank is the count of moves above it.
TEST(OrderTerms, TheWeightsDotTheTermsIsTheOrder) {
  const Variant v = Variant::gomoku();
  for (const char* text : {"", "order_near_1 = 900\norder_shape_gain = 0\n",
                           "order_their_two = 300\norder_open_two = -200\n"}) {
    const Weights weights = *Weights::parse(v, text);
    Searcher s(v, weights, 1);
    const Game game = testing::from_stones(v, {"h8", "i9", "g10", "k7"}, {"h9", "j8", "f11", "d4"});
    const OrderTerms t = s.order_terms(game);
    ASSERT_TRUE(t.quiet) << text;
    ASSERT_GT(t.moves.size(), 20u);
    auto key = [&](const OrderTerms::Move& m) {
      long long value = m.windows + m.terms[0] * weights.order[0] / 100;
      for (std::size_t i = 1; i < m.terms.size(); ++i)
        value += static_cast<long long>(weights.order[i]) * m.terms[i];
      return std::pair(m.tier, value);
    };
    int checked = 0;
    for (const auto& m : t.moves) {
      int above = 0, same = 0;
      for (const auto& other : t.moves) {
        above += key(other) > key(m);
        same += key(other) == key(m);
      }
      if (same > 1) continue;
      EXPECT_EQ(s.move_rank(game, m.cell).rank, above) << text << " " << format_cell(v, m.cell);
      ++checked;
    }
    EXPECT_GT(checked, 10) << text;
    if (weights.order[19] == 900) {  // nearness to the last move (d4) first
      const auto first = std::find_if(t.moves.begin(), t.moves.end(), [&](const auto& m) {
        return s.move_rank(game, m.cell).rank == 0;
      });
      EXPECT_EQ(first->terms[19], 1);
    }
  }
}

}  // namespace
}  // namespace inarow
