#include "inarow/arena/statistics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "inarow/arena/sprt.h"

namespace inarow::arena {
namespace {

TEST(Stats, EloFromScore) {
  EXPECT_NEAR(elo_from_score(0.6), 70.437, 1e-3);
  EXPECT_NEAR(elo_from_score(0.5), 0.0, 1e-12);
  EXPECT_NEAR(elo_from_score(0.4), -70.437, 1e-3);
  EXPECT_TRUE(std::isinf(elo_from_score(1.0)));
  EXPECT_NEAR(score_from_elo(elo_from_score(0.73)), 0.73, 1e-12);
}

TEST(Stats, TrinomialMargin) {
  // 60 wins, 20 draws, 20 losses: score 0.7, variance 0.13 per game.
  const auto e = estimate(Trinomial{60, 20, 20});
  EXPECT_NEAR(e.score, 0.7, 1e-12);
  EXPECT_NEAR(e.elo, 147.19, 0.01);
  EXPECT_NEAR(e.margin, 66.01, 0.01);
  EXPECT_GT(e.los, 0.999);
}

TEST(Stats, PentanomialVarianceAndMargin) {
  Pentanomial p;
  p.counts = {1, 5, 10, 5, 1};  // symmetric: mean 1/2
  const auto even = estimate(p);
  EXPECT_NEAR(even.score, 0.5, 1e-12);
  EXPECT_NEAR(even.stddev * even.stddev, 0.0511364, 1e-6);
  EXPECT_NEAR(even.margin, 66.46, 0.01);
  EXPECT_NEAR(even.los, 0.5, 1e-12);

  p.counts = {10, 20, 40, 60, 30};
  const auto e = estimate(p);
  EXPECT_NEAR(e.score, 0.625, 1e-12);
  EXPECT_NEAR(e.stddev * e.stddev, 0.078125, 1e-12);
  EXPECT_NEAR(e.elo, 88.74, 0.01);
  EXPECT_NEAR(e.margin, 32.21, 0.01);
  EXPECT_GT(e.los, 0.9999999);
}

TEST(Stats, PentanomialAddsPairs) {
  Pentanomial p;
  p.add(1, 1);
  p.add(1, 0);
  p.add(0.5, 0.5);
  p.add(0.5, 0);
  p.add(0, 0);
  EXPECT_EQ(p.counts, (std::array<std::int64_t, 5>{1, 1, 2, 0, 1}));
  EXPECT_EQ(p.pairs(), 5);
}

TEST(Stats, LosFromWinsAndLosses) {
  EXPECT_NEAR(los(Trinomial{60, 0, 40}), 0.97725, 1e-5);
  EXPECT_NEAR(los(Trinomial{10, 50, 10}), 0.5, 1e-12);
  EXPECT_NEAR(los(Trinomial{40, 0, 60}), 1 - 0.97725, 1e-5);
}

TEST(Stats, SprtBounds) {
  SprtConfig cfg;
  cfg.alpha = 0.05;
  cfg.beta = 0.05;
  EXPECT_NEAR(cfg.upper_bound(), std::log(0.95 / 0.05), 1e-12);
  EXPECT_NEAR(cfg.lower_bound(), -2.944439, 1e-6);
  cfg.alpha = 0.1;
  cfg.beta = 0.2;
  EXPECT_NEAR(cfg.upper_bound(), std::log(0.8 / 0.1), 1e-12);
  EXPECT_NEAR(cfg.lower_bound(), std::log(0.2 / 0.9), 1e-12);
}

TEST(Stats, SprtParse) {
  auto cfg = SprtConfig::parse("elo0=0,elo1=10,alpha=0.05,beta=0.1");
  ASSERT_TRUE(cfg);
  EXPECT_EQ(cfg->elo1, 10);
  EXPECT_EQ(cfg->beta, 0.1);
  EXPECT_FALSE(SprtConfig::parse("elo0=5,elo1=0"));
  EXPECT_FALSE(SprtConfig::parse("elo0=x"));
  EXPECT_FALSE(SprtConfig::parse("gamma=1"));
  EXPECT_FALSE(SprtConfig::parse("alpha=1.5"));
}

TEST(Stats, SprtLlrKnownValues) {
  Pentanomial p;
  p.counts = {10, 20, 40, 60, 30};
  SprtConfig cfg{0, 10, 0.05, 0.05};
  // Normal approximation: N (s1 - s0) (2 mean - s0 - s1) / (2 var) with
  // N = 160, mean 0.625, var 0.078125.
  EXPECT_NEAR(sprt_llr_normal(cfg, p), 3.47116, 1e-4);
  // The exact generalised ratio from the constrained MLEs (computed
  // independently by solving the secular equation).
  EXPECT_NEAR(sprt_llr(cfg, p), 2.75073, 1e-4);
  EXPECT_EQ(sprt_decide(cfg, sprt_llr(cfg, p)), SprtDecision::continue_testing);
  // Ten times the data: ten times the ratio.
  for (auto& c : p.counts)
    c *= 10;
  EXPECT_NEAR(sprt_llr(cfg, p), 27.5073, 1e-3);
  EXPECT_EQ(sprt_decide(cfg, sprt_llr(cfg, p)), SprtDecision::accept_h1);
  // The two agree near the hypotheses.
  p.counts = {100, 400, 1000, 420, 110};
  EXPECT_NEAR(sprt_llr(cfg, p), sprt_llr_normal(cfg, p), 0.05);
}

TEST(Stats, SprtIsNotFooledByAFewIdenticalPairs) {
  // Two pairs won twice: the variance is nearly zero and the normal
  // approximation explodes; the exact ratio stays small.
  Pentanomial p;
  p.counts = {0, 0, 0, 0, 2};
  SprtConfig cfg{0, 10, 0.05, 0.05};
  EXPECT_GT(sprt_llr_normal(cfg, p), 10);
  EXPECT_NEAR(sprt_llr(cfg, p), 0.0568, 1e-3);
  EXPECT_EQ(sprt_decide(cfg, sprt_llr(cfg, p)), SprtDecision::continue_testing);
}

TEST(Stats, SprtDecisionsOnSyntheticResults) {
  const SprtConfig cfg{0, 20, 0.05, 0.05};
  // An even match drifts to H0; a clearly better side reaches H1 quickly.
  Pentanomial even, better;
  SprtDecision d_even = SprtDecision::continue_testing, d_better = d_even;
  int pairs_even = 0, pairs_better = 0;
  for (int i = 0; i < 10000 && d_even == SprtDecision::continue_testing; ++i, ++pairs_even) {
    static constexpr double kEven[4][2] = {{1, 0}, {0.5, 0.5}, {0, 1}, {0.5, 0.5}};
    even.add(kEven[i % 4][0], kEven[i % 4][1]);
    d_even = sprt_decide(cfg, sprt_llr(cfg, even));
  }
  for (int i = 0; i < 10000 && d_better == SprtDecision::continue_testing; ++i, ++pairs_better) {
    static constexpr double kBetter[4][2] = {{1, 0.5}, {0.5, 0.5}, {1, 0}, {1, 1}};
    better.add(kBetter[i % 4][0], kBetter[i % 4][1]);
    d_better = sprt_decide(cfg, sprt_llr(cfg, better));
  }
  EXPECT_EQ(d_even, SprtDecision::accept_h0);
  EXPECT_EQ(d_better, SprtDecision::accept_h1);
  EXPECT_LT(pairs_better, 100);
  EXPECT_EQ(sprt_decide(cfg, 0.0), SprtDecision::continue_testing);
}

TEST(Stats, JointRatingsOfTwoMatchTheScore) {
  // With two participants the MLE difference is the Elo of the score, the
  // prior's two virtual draws included: (60 + 1) / (100 + 2).
  const auto r = joint_ratings(2, {{0, 1, Trinomial{60, 0, 40}}});
  EXPECT_NEAR(r[0].elo - r[1].elo, elo_from_score(61.0 / 102.0), 1e-6);
  EXPECT_NEAR(r[0].elo + r[1].elo, 0, 1e-9);
  const auto anchored = joint_ratings(2, {{0, 1, Trinomial{60, 0, 40}}}, 2.0, 1);
  EXPECT_NEAR(anchored[1].elo, 0, 1e-9);
  EXPECT_NEAR(anchored[0].elo, elo_from_score(61.0 / 102.0), 1e-6);
}

TEST(Stats, JointRatingsOrderAChain) {
  // a > b > c, and a beats c even more: ratings keep the order, gaps similar.
  const auto r = joint_ratings(
      3,
      {{0, 1, Trinomial{70, 10, 20}}, {1, 2, Trinomial{70, 10, 20}}, {0, 2, Trinomial{85, 10, 5}}});
  EXPECT_GT(r[0].elo, r[1].elo + 100);
  EXPECT_GT(r[1].elo, r[2].elo + 100);
  EXPECT_NEAR(r[0].elo - r[1].elo, r[1].elo - r[2].elo, 30);
  for (const auto& x : r) {
    EXPECT_GT(x.margin, 10);
    EXPECT_LT(x.margin, 100);
  }
  // A participant that won everything still gets a finite rating.
  const auto perfect = joint_ratings(2, {{0, 1, Trinomial{20, 0, 0}}});
  EXPECT_TRUE(std::isfinite(perfect[0].elo));
}

}  // namespace
}  // namespace inarow::arena
