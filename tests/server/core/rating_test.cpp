#include "inarow/server/rating.h"

#include <gtest/gtest.h>

#include <array>

namespace inarow::server {
namespace {

// Glickman, "Example of the Glicko-2 system": 1500/200/0.06 beats 1400/30,
// loses to 1550/100 and to 1700/300 in one period, tau 0.5. The paper prints
// 1464.06 / 151.52 / 0.05999 after rounding its intermediate steps to four
// places (mu' = -0.2069); unrounded arithmetic gives 1464.0507 / 151.5165 /
// 0.059996. We check both: the exact values tightly, the paper's to the
// precision its rounding allows.
TEST(Glicko2, GlickmanPaperExample) {
  const Rating player{1500.0, 200.0, 0.06};
  const std::array<GameResult, 3> games = {GameResult{{1400.0, 30.0, 0.06}, 1.0},
                                           GameResult{{1550.0, 100.0, 0.06}, 0.0},
                                           GameResult{{1700.0, 300.0, 0.06}, 0.0}};
  const Rating after = glicko2_update(player, games, 0.5);
  EXPECT_NEAR(after.rating, 1464.0507, 0.0001);
  EXPECT_NEAR(after.deviation, 151.5165, 0.0001);
  EXPECT_NEAR(after.volatility, 0.059996, 0.000001);
  EXPECT_NEAR(after.rating, 1464.06, 0.01);
  EXPECT_NEAR(after.deviation, 151.52, 0.01);
  EXPECT_NEAR(after.volatility, 0.05999, 0.00001);
}

TEST(Glicko2, NoGamesOnlyWidensTheDeviation) {
  const Rating after = glicko2_update({1500.0, 200.0, 0.06}, {});
  EXPECT_DOUBLE_EQ(after.rating, 1500.0);
  EXPECT_NEAR(after.deviation, 200.2714, 0.0001);  // sqrt(phi^2 + sigma^2) on the 173.7178 scale
  EXPECT_DOUBLE_EQ(after.volatility, 0.06);
}

TEST(Glicko2, WinnerGainsWhatLoserLosesBetweenEquals) {
  const Rating a{1500.0, 350.0, 0.06};
  const GameResult win{a, 1.0};
  const GameResult loss{a, 0.0};
  const Rating w = glicko2_update(a, std::span(&win, 1));
  const Rating l = glicko2_update(a, std::span(&loss, 1));
  EXPECT_GT(w.rating, 1500.0);
  EXPECT_NEAR(w.rating - 1500.0, 1500.0 - l.rating, 1e-9);
  EXPECT_LT(w.deviation, 350.0);
  const GameResult draw{a, 0.5};
  EXPECT_NEAR(glicko2_update(a, std::span(&draw, 1)).rating, 1500.0, 1e-9);
}

}  // namespace
}  // namespace inarow::server
