#include "inarow/server/matchmaker.h"

#include <gtest/gtest.h>

namespace inarow::server {
namespace {

using namespace std::chrono_literals;

TEST(Matchmaker, PairsCloseRatingsAtOnceOldestFirst) {
  Matchmaker mm({100.0, 50.0, 1000.0});
  const TimePoint t0{};
  ASSERT_TRUE(mm.add({"a", "tictactoe/0+0", 1500.0, t0}));
  ASSERT_TRUE(mm.add({"b", "tictactoe/0+0", 1580.0, t0 + 1ms}));
  EXPECT_FALSE(mm.add({"a", "tictactoe/0+0", 1500.0, t0}));  // already seeking
  auto pairs = mm.pair(t0 + 1ms);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].first.player_id, "a");
  EXPECT_EQ(pairs[0].second.player_id, "b");
  EXPECT_EQ(mm.size(), 0u);
}

TEST(Matchmaker, WindowWidensWithWaiting) {
  Matchmaker mm({100.0, 50.0, 1000.0});
  const TimePoint t0{};
  mm.add({"a", "p", 1500.0, t0});
  mm.add({"b", "p", 1800.0, t0});
  EXPECT_TRUE(mm.pair(t0 + 1s).empty());  // windows 150 < 300
  EXPECT_DOUBLE_EQ(mm.window(Seeker{"a", "p", 1500.0, t0}, t0 + 4s), 300.0);
  auto pairs = mm.pair(t0 + 4s);  // both windows reach 300
  ASSERT_EQ(pairs.size(), 1u);
}

TEST(Matchmaker, DifferentPoolsNeverPairAndClosestRatingWins) {
  Matchmaker mm;
  const TimePoint t0{};
  mm.add({"a", "connect4/0+0", 1500.0, t0});
  mm.add({"b", "tictactoe/0+0", 1500.0, t0});
  mm.add({"c", "connect4/0+0", 1590.0, t0});
  mm.add({"d", "connect4/0+0", 1510.0, t0});
  auto pairs = mm.pair(t0);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].first.player_id, "a");
  EXPECT_EQ(pairs[0].second.player_id, "d");
  EXPECT_TRUE(mm.seeking("b"));
  EXPECT_TRUE(mm.seeking("c"));
  EXPECT_TRUE(mm.remove("b"));
  EXPECT_FALSE(mm.remove("b"));
}

}  // namespace
}  // namespace inarow::server
