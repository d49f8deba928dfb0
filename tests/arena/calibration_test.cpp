// What calibrate writes is what the bots library (and so the server) reads:
// a ladder's text goes through bots::parse_ladder with every number kept.
#include "inarow/arena/calibration.h"

#include <gtest/gtest.h>

#include "inarow/bots/ladder.h"

namespace inarow::arena {
namespace {

TEST(Calibration, TheLadderTextIsWhatTheBotsRead) {
  Ladder ladder;
  ladder.variant = "mnk:9,9,4";
  ladder.games = 120;
  ladder.rungs = {{"beginner", 0.0, 0.0, 0.2},
                  {"easy", 212.4, 35.1, 0.4},
                  {"medium", -5.5, 40.0, 0.45},
                  {"master", 1234.5, 99.9, 0.9}};
  const std::string text = ladder.to_text();
  const auto read = bots::parse_ladder(text, "mnk:9,9,4_levels.txt");
  ASSERT_TRUE(read) << read.error().describe() << "\n" << text;
  EXPECT_EQ(read->variant, "mnk:9,9,4");
  EXPECT_EQ(read->games, 120);
  EXPECT_EQ(read->anchor(), "beginner");
  ASSERT_EQ(read->rungs.size(), ladder.rungs.size());
  for (std::size_t i = 0; i < ladder.rungs.size(); ++i) {
    EXPECT_EQ(read->rungs[i].level, ladder.rungs[i].level);
    EXPECT_EQ(read->rungs[i].elo, ladder.rungs[i].elo);
    EXPECT_EQ(read->rungs[i].margin, ladder.rungs[i].margin);
  }
}

}  // namespace
}  // namespace inarow::arena
