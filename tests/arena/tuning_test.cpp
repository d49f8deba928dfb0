#include <gtest/gtest.h>

#include "inarow/arena/spsa.h"
#include "inarow/arena/texel.h"

namespace inarow::arena {
namespace {

TEST(Tuning, WindowFeaturesMatchTheEvaluatorsDefinition) {
  // Tic-tac-toe: X on the centre, O in a corner.
  auto g = Game::parse(Variant::tictactoe(), "b2a1");
  ASSERT_TRUE(g);
  const auto f = window_features(*g);
  ASSERT_EQ(f.size(), 2u);
  // X's centre lies on 4 lines, one of them (the diagonal) shared with O's
  // corner: X keeps 3 clean one-stone windows, O keeps 2 (its row and column).
  EXPECT_EQ(f[0], 3 - 2);
  EXPECT_EQ(f[1], 0);
}

TEST(Tuning, SpsaMovesBadWeightsTowardBetterOnes) {
  // Start with threats worth less than lone stones; the defaults say 1, 6, 40.
  SpsaOptions o;
  o.variant = Variant::connect4();
  o.start.by_count = {0, 40, 6, 1};
  o.iterations = 60;
  o.depth = 2;
  o.pairs_per_iteration = 2;
  o.c_end = {4, 2, 2};
  o.r_end = {0.5, 0.5, 0.5};
  o.seed = 5;
  o.openings.count = 64;
  const auto r = run_spsa(o);
  ASSERT_EQ(r.history.size(), 61u);
  EXPECT_EQ(r.games, 60 * 4);
  const auto& end = r.history.back();
  // Three-in-a-window gains on lone stones.
  const double start_ratio = 1.0 / 40.0;
  const double end_ratio = end[2] / std::max(end[0], 1.0);
  EXPECT_GT(end_ratio, start_ratio * 2) << "w1 " << end[0] << " w2 " << end[1] << " w3 " << end[2];
  EXPECT_NE(spsa_history_csv(r).find("iteration,w1,w2,w3"), std::string::npos);
  const auto svg = spsa_history_svg(r, "test");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("polyline"), std::string::npos);
}

TEST(Tuning, TexelFitLowersTheError) {
  TexelOptions o;
  o.variant = Variant::connect4();
  o.start.by_count = {0, 40, 6, 1};
  o.games = 40;
  o.depth = 2;
  o.iterations = 150;
  const auto r = run_texel(o);
  EXPECT_GT(r.positions, 200);
  EXPECT_LT(r.loss_end, r.loss_start);
  EXPECT_GT(r.weights.by_count[3], r.weights.by_count[1]) << r.weights.to_text();
}

}  // namespace
}  // namespace inarow::arena
