#include "inarow/engine/evaluator.h"

#include <gtest/gtest.h>

#include "inarow/engine/search.h"

namespace inarow {
namespace {

TEST(Weights, TicTacToeDefaultsAreTheSeeds) {
  const Weights w = Weights::defaults(Variant::tictactoe());
  EXPECT_EQ(w.by_count, (std::vector<int>{0, 1, 2}));
}

TEST(Weights, GomokuThreatTermsAreData) {
  const Variant v = Variant::gomoku();
  EXPECT_EQ(Weights::defaults(v).threats, (std::vector<int>{15, 40, 10, 25}));
  EXPECT_TRUE(Weights::defaults(Variant::connect4()).threats.empty());
  const auto w = Weights::parse(v, "three = 50\ntheir_three = -3\n");
  ASSERT_TRUE(w) << w.error().describe();
  EXPECT_EQ(w->threats, (std::vector<int>{15, 50, 10, -3}));
  EXPECT_EQ(*Weights::parse(v, w->to_text()), *w);
  const auto bad = Weights::parse(Variant::connect4(), "four = 3\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("line 1"), std::string::npos) << bad.error().message;
}

TEST(Weights, ParseAndPrintRoundTrip) {
  const Variant v = Variant::connect4();
  const auto w = Weights::parse(v, "# tuned\nvariant = connect4\nw1 = 2\n  w3=90  # threats\n\n");
  ASSERT_TRUE(w) << w.error().describe();
  EXPECT_EQ(w->by_count, (std::vector<int>{0, 2, Weights::defaults(v).by_count[2], 90}));
  EXPECT_EQ(*Weights::parse(v, w->to_text()), *w);
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

}  // namespace
}  // namespace inarow
