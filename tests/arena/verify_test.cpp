#include "inarow/arena/verify.h"

#include <gtest/gtest.h>

namespace inarow::arena {
namespace {

TEST(Verify, TunedPlaysStartOnOpeningsTheTunerDidNotSee) {
  TournamentConfig match;
  match.variant = Variant::connect4();
  match.seed = 7;
  match.openings.depth = 4;
  match.concurrency = 3;
  const VerifyPlan plan{*SprtConfig::parse("elo0=0,elo1=10"), 1000, 3, "/tmp/w.txt"};
  const TournamentConfig cfg = verification_config(match, plan);
  EXPECT_EQ(cfg.seed, 8u);  // not the tuner's openings
  EXPECT_EQ(cfg.games_per_pairing, 1000);
  EXPECT_EQ(cfg.openings.count, 500);  // one opening per pair
  EXPECT_EQ(cfg.openings.depth, 2);
  EXPECT_EQ(cfg.concurrency, 3);  // the rest is the tuning run's
  ASSERT_TRUE(cfg.sprt);
  EXPECT_EQ(cfg.sprt->elo1, 10);
  ASSERT_EQ(cfg.participants.size(), 2u);
  EXPECT_EQ(cfg.participants[0].name, "tuned");
  EXPECT_EQ(cfg.participants[0].bot.weights_path, "/tmp/w.txt");
  EXPECT_EQ(cfg.participants[0].bot.level.depth, 3);
  EXPECT_EQ(cfg.participants[1].name, "start");
  EXPECT_EQ(cfg.participants[1].bot.weights_path, start_weights_path("/tmp/w.txt"));
  EXPECT_EQ(cfg.participants[1].bot.level.depth, 3);
  EXPECT_EQ(start_weights_path("/tmp/w.txt"), "/tmp/w.txt.start.txt");
}

}  // namespace
}  // namespace inarow::arena
