#include "inarow/engine/evaluator.h"

#include <gtest/gtest.h>

#include <tuple>

#include "inarow/common/splitmix.h"
#include "inarow/engine/search.h"
#include "stones.h"

namespace inarow {
namespace {

TEST(Weights, TicTacToeDefaultsAreTheSeeds) {
  const Weights w = Weights::defaults(Variant::tictactoe());
  EXPECT_EQ(w.by_count, (std::vector<int>{0, 1, 2}));
}

TEST(Weights, GomokuThreatTermsAreData) {
  const Variant v = Variant::gomoku();
  EXPECT_EQ(Weights::defaults(v).threats, (std::vector<int>{-6, 48, 13, 33}));
  // The standard rule keeps the set tuned before freestyle's shapes were on.
  EXPECT_EQ(Weights::defaults(Variant::gomoku_standard()).threats,
            (std::vector<int>{3, 47, 13, 32}));
  EXPECT_TRUE(Weights::defaults(Variant::connect4()).threats.empty());
  const auto w = Weights::parse(v, "three = 50\ntheir_three = -3\n");
  ASSERT_TRUE(w) << w.error().describe();
  EXPECT_EQ(w->threats, (std::vector<int>{-6, 50, 13, -3}));
  EXPECT_EQ(*Weights::parse(v, w->to_text()), *w);
  const auto bad = Weights::parse(Variant::connect4(), "four = 3\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("line 1"), std::string::npos) << bad.error().message;
}

// The move order's terms are data where the shapes are: their keys read and
// print like the evaluation's, and a board without shapes has none.
TEST(Weights, TheOrdersTermsAreData) {
  const Variant v = Variant::gomoku();
  const Weights d = Weights::defaults(v);
  EXPECT_EQ(d.order, (std::vector<int>{148, -8, 21, 12,  27,  22, 500, -1, 16, 16, 45, 35,
                                       47,  10, 68, 500, -38, -4, 9,   21, 14, 12, 20, 13}));
  // Other freestyle boards have them with the shapes, off until asked for.
  EXPECT_EQ(Weights::defaults(*Variant::parse("mnk:13,13,5")).order, d.order);
  EXPECT_TRUE(Weights::defaults(Variant::gomoku_standard()).order.empty());
  EXPECT_TRUE(Weights::defaults(Variant::connect4()).order.empty());
  const auto w = Weights::parse(v, "order_near_1 = 40\norder_their_four = -5\n");
  ASSERT_TRUE(w) << w.error().describe();
  EXPECT_EQ(w->order[19], 40);
  EXPECT_EQ(w->order[11], -5);
  EXPECT_EQ(*Weights::parse(v, w->to_text()), *w);
  for (const char* text : {"order_near_1 = 10001", "order_near_4 = 1", "order_two = x"}) {
    const auto bad = Weights::parse(v, text);
    ASSERT_FALSE(bad) << text;
    EXPECT_EQ(bad.error().code, ErrorCode::bad_weights);
  }
  const auto standard = Weights::parse(Variant::gomoku_standard(), "order_two = 3\n");
  ASSERT_FALSE(standard);
  EXPECT_NE(standard.error().message.find("needs k = 5 without gravity"), std::string::npos)
      << standard.error().message;
  // The order's copies of the score's values go with its terms: freestyle
  // gomoku's are the values its terms were fitted with, the score's since
  // moved on; other freestyle boards' are the score's.
  EXPECT_EQ(d.gain_by_count, (std::vector<int>{0, 3, 16, 51, 32}));
  EXPECT_EQ(d.gain_shapes, (std::vector<int>{1, -2, 1, 4, 7, 16, 20, 18, 37, 31}));
  EXPECT_NE(d.gain_by_count, d.by_count);
  const Weights wide = Weights::defaults(*Variant::parse("mnk:13,13,5"));
  EXPECT_EQ(wide.gain_by_count, wide.by_count);
  EXPECT_EQ(wide.gain_shapes, wide.shapes);
  EXPECT_TRUE(Weights::defaults(Variant::gomoku_standard()).gain_by_count.empty());
  EXPECT_TRUE(Weights::defaults(Variant::connect4()).gain_shapes.empty());
  for (const auto& [variant, text, why] :
       {std::tuple{Variant::gomoku_standard(), "gain_w1 = 3", "needs k = 5 without gravity"},
        std::tuple{Variant::gomoku(), "gain_w5 = 3",
                   "'gain_w5' is out of range (gain_w1..gain_w4)"},
        std::tuple{Variant::connect4(), "gain_shape_two = 1", "needs k = 5 without gravity"}}) {
    const auto bad = Weights::parse(variant, text);
    ASSERT_FALSE(bad) << text;
    EXPECT_NE(bad.error().message.find(why), std::string::npos) << bad.error().message;
  }
}

// Gomoku-sized boards weigh the mover's own windows again (Weights::tempo);
// the small games, solved or tuned without it, do not.
TEST(Weights, TempoIsDataForEveryBoard) {
  EXPECT_EQ(Weights::defaults(Variant::gomoku()).tempo, 69);
  EXPECT_EQ(Weights::defaults(Variant::gomoku_standard()).tempo, 58);
  EXPECT_EQ(Weights::defaults(Variant::connect4()).tempo, 0);
  EXPECT_EQ(Weights::defaults(Variant::tictactoe()).tempo, 0);
  const auto w = Weights::parse(Variant::connect4(), "tempo = 30\n");
  ASSERT_TRUE(w) << w.error().describe();
  EXPECT_EQ(w->tempo, 30);
  EXPECT_EQ(*Weights::parse(Variant::connect4(), w->to_text()), *w);
  // A gomoku file that turns it off keeps it off through its text.
  const auto off = Weights::parse(Variant::gomoku(), "tempo = 0\n");
  ASSERT_TRUE(off) << off.error().describe();
  EXPECT_EQ(*Weights::parse(Variant::gomoku(), off->to_text()), *off);
  for (const char* text : {"tempo = 1001", "tempo = -101", "tempo = half", "tempo ="}) {
    const auto bad = Weights::parse(Variant::gomoku(), text);
    ASSERT_FALSE(bad) << text;
    EXPECT_EQ(bad.error().code, ErrorCode::bad_weights) << text;
  }
}

// X on h8 has 20 one-stone windows (five through it in each direction), O
// on a1 three (one along each line out of the corner), each worth w1 = 1.
// X to move: 20 - 3 with no tempo, and X's 20 again at 50% and at 100%.
// O to move after X's i8: its own 3 count half again, rounded toward zero.
TEST(Weights, TempoAddsTheMoversShareOfItsOwnWindows) {
  const Variant v = Variant::gomoku();
  Weights w = Weights::defaults(v);
  w.by_count[1] = 1;
  w.shapes_on = false;  // the windows alone
  const Game x_to_move = *Game::parse(v, "h8a1");
  for (const auto& [tempo, expected] :
       std::vector<std::pair<int, Score>>{{0, 17}, {50, 27}, {100, 37}}) {
    w.tempo = tempo;
    Searcher s(v, w, 1);
    EXPECT_EQ(s.evaluate(x_to_move), expected) << tempo;
  }
  w.tempo = 0;
  const Score plain = Searcher(v, w, 1).evaluate(*Game::parse(v, "h8a1i8"));
  w.tempo = 50;
  EXPECT_EQ(Searcher(v, w, 1).evaluate(*Game::parse(v, "h8a1i8")), plain + 1);
}

TEST(Weights, ParseAndPrintRoundTrip) {
  const Variant v = Variant::connect4();
  const auto w = Weights::parse(v, "# tuned\nvariant = connect4\nw1 = 2\n  w3=90  # threats\n\n");
  ASSERT_TRUE(w) << w.error().describe();
  EXPECT_EQ(w->by_count, (std::vector<int>{0, 2, Weights::defaults(v).by_count[2], 90}));
  EXPECT_EQ(*Weights::parse(v, w->to_text()), *w);
}

// Every weight by its key, in the text form's order: what the tuners move.
TEST(Weights, EveryWeightHasItsKey) {
  Weights g = Weights::defaults(Variant::gomoku());
  const auto keys = g.keys();
  EXPECT_EQ(std::vector<std::string>(keys.begin(), keys.begin() + 9),
            (std::vector<std::string>{"w1", "w2", "w3", "w4", "four", "three", "their_four",
                                      "their_three", "tempo"}));
  // then the ten shapes, their eighteen pairs, the pairs held by the mover
  // and by the opponent, the order's copies of w1..w4 and of the shapes,
  // and the order's 24 terms
  ASSERT_EQ(keys.size(), 111u);
  for (const auto& [at, key] : {std::pair{18, "double_four"},
                                {19, "pair_open_two_none"},
                                {30, "pair_open_three_open_three"},
                                {36, "pair_four_four"},
                                {37, "held_open_two_none"},
                                {54, "held_four_four"},
                                {55, "their_held_open_two_none"},
                                {72, "their_held_four_four"},
                                {73, "gain_w1"},
                                {77, "gain_shape_two"},
                                {86, "gain_double_four"},
                                {87, "order_shape_gain"},
                                {88, "order_two"},
                                {110, "order_near_own_2"}})
    EXPECT_EQ(keys[std::size_t(at)], key) << at;
  ASSERT_NE(g.find("w3"), nullptr);
  EXPECT_EQ(*g.find("w3"), 16);
  *g.find("their_three") = 7;
  *g.find("tempo") = 60;
  *g.find("four_three") = 33;
  EXPECT_EQ(g.threats[3], 7);
  EXPECT_EQ(g.tempo, 60);
  EXPECT_EQ(g.shapes[8], 33);
  *g.find("pair_four_open_two") = -3;
  EXPECT_EQ(g.pairs[14], -3);
  *g.find("their_held_three_two") = 8;
  EXPECT_EQ(g.held_pairs[22], 8);
  *g.find("order_their_open_three") = -9;
  EXPECT_EQ(g.order[10], -9);
  // The order's copies are the score's values it was fitted with, and move
  // on their own.
  EXPECT_EQ(*g.find("gain_w3"), 51);
  *g.find("gain_w3") = 12;
  *g.find("gain_four_three") = 5;
  EXPECT_EQ(g.gain_by_count[3], 12);
  EXPECT_EQ(g.by_count[3], 16);
  EXPECT_EQ(g.gain_shapes[8], 5);
  EXPECT_EQ(g.shapes[8], 33);
  for (const char* none :
       {"w0", "w5", "w", "w2x", "five", "", "tempo ", "gain_w0", "gain_w5", "gain_", "gain_three",
        "gain_order_two", "pair_four_five", "pair_two_none", "gain_pair_four_four", "held_",
        "held_pair_four_four", "their_held_five"})
    EXPECT_EQ(g.find(none), nullptr) << none;
  // The text form is the keys, each with its value (and the evaluator switch).
  EXPECT_EQ(*Weights::parse(Variant::gomoku(), g.to_text()), g);
  EXPECT_EQ(Weights::defaults(Variant::connect4()).keys(),
            (std::vector<std::string>{"w1", "w2", "w3", "tempo"}));
  EXPECT_EQ(Weights::defaults(Variant::connect4()).find("four"), nullptr);
}

TEST(Weights, BadFilesNameTheLine) {
  const Variant v = Variant::connect4();
  for (const char* text : {"w1 2", "w4 = 1", "w0 = 1", "x1 = 1", "w1 = two", "w1 = 99999999",
                           "variant = gomoku", "w2 = 3.5"}) {
    const auto w = Weights::parse(v, std::string("w1 = 1\n") + text);
    ASSERT_FALSE(w) << text;
    EXPECT_EQ(w.error().code, ErrorCode::bad_weights);
    EXPECT_NE(w.error().message.find("line 2"), std::string::npos) << w.error().message;
  }
}

// The evaluator's view through the search: a depth-0 search is the static
// score, so these pin the window arithmetic.
Score static_score(const Variant& v, const char* moves, Weights w = {}) {
  Searcher s(v, std::move(w), 1);
  Limits limits;
  limits.depth = 1;
  const Game game = *Game::parse(v, moves);
  // Depth 1 = the best child's static score, negated back to the mover.
  return s.search(game, limits).score;
}

TEST(Evaluator, CentreIsWorthMostOnAnEmptyTicTacToeBoard) {
  // X in the centre owns 4 windows with one stone (1 each); O to move then
  // takes a corner: the best reply leaves X at +4 - 3 = 1... seen from O, -1.
  const Variant v = Variant::tictactoe();
  Searcher s(v, {}, 1);
  Limits limits;
  limits.depth = 1;
  const auto r = s.search(*Game::parse(v, "-"), limits);
  EXPECT_EQ(r.best, v.cell(1, 1));
  EXPECT_EQ(r.score, 4);
  EXPECT_EQ(static_score(v, "b2"), -1);
}

TEST(Evaluator, WeightsChangeTheScore) {
  const Variant v = Variant::tictactoe();
  Weights heavy;
  heavy.by_count = {0, 10, 2};
  EXPECT_EQ(static_score(v, "-", heavy), 40);  // centre: four one-stone windows at 10
}

// The terms of a leaf are what the weights multiply: counted by hand on a
// lone stone in the middle of a gomoku board.
TEST(EvalTerms, ALoneStoneInTheMiddle) {
  const Variant v = Variant::gomoku();
  Searcher s(v, {}, 1);
  const EvalTerms t = s.eval_terms(*Game::parse(v, "h8"));
  // Five windows of five through h8 in each of four directions.
  EXPECT_EQ(t.by_count, (std::vector<int>{0, 20, 0, 0, 0}));
  EXPECT_EQ(t.threats, (std::vector<int>{0, 0, 0, 0}));
  // Each direction: one, two or three cells away a stone of X makes an open
  // two (.XX., .X.X., .X..X. can each become an open four in two more
  // moves), four away only a two (X...X needs all three between).
  EXPECT_EQ(t.shapes, (std::vector<int>{8, 24, 0, 0, 0, 0, 0, 0, 0, 0}));
  // Each of those open twos is its cell's one line: 24 cells whose pair
  // is an open two and nothing else; the twos' cells pair nothing.
  std::vector<int> pairs(18, 0);
  pairs[0] = 24;
  EXPECT_EQ(t.pairs, pairs);
  // O is to move and holds no pair; its opponent, X, holds that one.
  std::vector<int> held(36, 0);
  held[18] = -1;
  EXPECT_EQ(t.held_pairs, held);
  EXPECT_TRUE(t.quiet);
}

// A three blocked at one end gives its side two four cells (k8 and l8); the
// terms count them for the side to move, or against it.
TEST(EvalTerms, FourCellsOfEitherSide) {
  const Variant v = Variant::gomoku();
  Searcher s(v, {}, 1);
  const EvalTerms mine =
      s.eval_terms(testing::from_stones(v, {"h8", "i8", "j8"}, {"g8", "a1", "a15"}));
  EXPECT_EQ(mine.threats, (std::vector<int>{2, 0, 0, 0}));
  EXPECT_TRUE(mine.quiet);
  const EvalTerms theirs = s.eval_terms(testing::from_stones(v, {"h8", "i8", "j8"}, {"g8", "a1"}));
  EXPECT_EQ(theirs.threats, (std::vector<int>{0, 0, 2, 0}));  // the first player's, O to move
  EXPECT_TRUE(theirs.quiet);
  // An open three: O to move must answer it, X to move wins with it.
  EXPECT_FALSE(s.eval_terms(testing::from_stones(v, {"h8", "i8", "j8"}, {"a1", "a15"})).quiet);
  EXPECT_FALSE(
      s.eval_terms(testing::from_stones(v, {"h8", "i8", "j8"}, {"a1", "a15", "o1"})).quiet);
}

// A leaf with a VCF does not stand pat (its dive finds the win), so it is
// not quiet: X to move plays k8, a four on its row and on its column.
TEST(EvalTerms, AVcfIsNotQuiet) {
  const Variant v = Variant::gomoku();
  Searcher s(v, {}, 1);
  const std::vector<std::string> o = {"g8", "k12", "a1", "a15", "o1", "o15"};
  const EvalTerms t =
      s.eval_terms(testing::from_stones(v, {"h8", "i8", "j8", "k9", "k10", "k11"}, o));
  EXPECT_EQ(t.threats, (std::vector<int>{3, 0, 0, 0}));  // k8, l8, k7
  EXPECT_FALSE(t.quiet);
  // With only k9 on the column, k8 makes one four and no VCF follows.
  EXPECT_TRUE(s.eval_terms(testing::from_stones(v, {"h8", "i8", "j8", "k9", "c3", "c5"}, o)).quiet);
}

// The evaluation is the weights' dot product with the terms, as the search
// computes it at a leaf: on random gomoku middle games and weights, with the
// shapes on and off, and on connect four (windows only).
TEST(EvalTerms, TheLeafEvaluationIsLinearInTheWeights) {
  std::uint64_t rng = 7;
  int quiet = 0;
  for (const Variant& v : {Variant::gomoku(), Variant::connect4()}) {
    for (int trial = 0; trial < 250; ++trial) {
      Weights w = Weights::defaults(v);
      for (std::size_t n = 1; n < w.by_count.size(); ++n)
        w.by_count[n] = int(splitmix64_next(rng) % 60);
      for (int& x : w.threats)
        x = int(splitmix64_next(rng) % 81) - 40;
      for (int& x : w.shapes)
        x = int(splitmix64_next(rng) % 41) - 20;
      for (int& x : w.pairs)
        x = int(splitmix64_next(rng) % 41) - 20;
      for (int& x : w.held_pairs)
        x = int(splitmix64_next(rng) % 201) - 100;
      w.shapes_on = !w.shapes.empty() && trial % 2 == 0;
      Searcher s(v, w, 1);
      Game game(v);
      const int plies = 6 + int(splitmix64_next(rng) % 30);
      while (game.ply() < plies && !game.over()) {
        // Near the middle, so that lines form.
        const auto moves = game.legal_moves();
        std::vector<Cell> near;
        for (Cell c : moves)
          if (v.gravity || (std::abs(v.col(c) - 7) <= 3 && std::abs(v.row(c) - 7) <= 3))
            near.push_back(c);
        const auto& from = near.empty() ? moves : near;
        (void)game.play(from[splitmix64_next(rng) % from.size()]);
      }
      if (game.over()) continue;
      const EvalTerms t = s.eval_terms(game);
      if (!t.quiet) continue;
      ++quiet;
      const long long first = w.evaluate(t);
      ASSERT_LT(std::abs(first), kMaxEval - 1);
      EXPECT_EQ(s.evaluate(game), game.to_move() == Side::first ? first : -first)
          << v.name << " " << game.notation();
    }
  }
  EXPECT_GT(quiet, 100);  // not a test of nothing: many random positions are quiet
}

}  // namespace
}  // namespace inarow
