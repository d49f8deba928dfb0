#include "inarow/server/matchmaker.h"

#include <gtest/gtest.h>

namespace inarow::server {
namespace {

using namespace std::chrono_literals;

const Variant kTicTacToe = Variant::tictactoe();
const Variant kConnect4 = Variant::connect4();
const ClockSetting kUntimed{};
const ClockSetting kBlitz{std::chrono::minutes(3), std::chrono::seconds(2)};

// An untimed seek of this variant.
Seeker seek(std::string player, const Variant& variant, double rating, TimePoint since,
            bool rated = true, std::string seek_id = {}) {
  return {std::move(player), variant, kUntimed, rating, since, rated, std::move(seek_id)};
}

TEST(Matchmaker, PairsCloseRatingsAtOnceOldestFirst) {
  Matchmaker mm({100.0, 50.0, 1000.0});
  const TimePoint t0{};
  ASSERT_TRUE(mm.add(seek("a", kTicTacToe, 1500.0, t0)));
  ASSERT_TRUE(mm.add(seek("b", kTicTacToe, 1580.0, t0 + 1ms)));
  EXPECT_FALSE(mm.add(seek("a", kTicTacToe, 1500.0, t0)));  // already seeking
  auto pairs = mm.pair(t0 + 1ms);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].first.player_id, "a");
  EXPECT_EQ(pairs[0].second.player_id, "b");
  EXPECT_EQ(mm.size(), 0u);
}

TEST(Matchmaker, ASeekerThatCannotPlayIsPassedOverAndKept) {
  Matchmaker mm;
  const TimePoint t0{};
  mm.add(seek("a", kTicTacToe, 1500.0, t0));
  mm.add(seek("b", kTicTacToe, 1500.0, t0 + 1ms));
  mm.add(seek("c", kTicTacToe, 1520.0, t0 + 2ms));
  const auto not_b = [](const Seeker& s) { return s.player_id != "b"; };
  auto pairs = mm.pair(t0 + 2ms, not_b);  // a would take b, the closest
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].first.player_id, "a");
  EXPECT_EQ(pairs[0].second.player_id, "c");
  ASSERT_EQ(mm.size(), 1u);
  EXPECT_TRUE(mm.seeking("b"));
  EXPECT_TRUE(mm.pair(t0 + 60s, not_b).empty());
  EXPECT_TRUE(mm.seeking("b"));
}

TEST(Matchmaker, WindowWidensWithWaiting) {
  Matchmaker mm({100.0, 50.0, 1000.0});
  const TimePoint t0{};
  mm.add(seek("a", kTicTacToe, 1500.0, t0));
  mm.add(seek("b", kTicTacToe, 1800.0, t0));
  EXPECT_TRUE(mm.pair(t0 + 1s).empty());  // windows 150 < 300
  EXPECT_DOUBLE_EQ(mm.window(seek("a", kTicTacToe, 1500.0, t0), t0 + 4s), 300.0);
  auto pairs = mm.pair(t0 + 4s);  // both windows reach 300
  ASSERT_EQ(pairs.size(), 1u);
}

TEST(Matchmaker, DifferentPoolsNeverPairAndClosestRatingWins) {
  Matchmaker mm;
  const TimePoint t0{};
  mm.add(seek("a", kConnect4, 1500.0, t0));
  mm.add(seek("b", kTicTacToe, 1500.0, t0));
  mm.add(seek("c", kConnect4, 1590.0, t0));
  mm.add(seek("d", kConnect4, 1510.0, t0));
  auto pairs = mm.pair(t0);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].first.player_id, "a");
  EXPECT_EQ(pairs[0].second.player_id, "d");
  EXPECT_TRUE(mm.seeking("b"));
  EXPECT_TRUE(mm.seeking("c"));
  EXPECT_TRUE(mm.remove("b"));
  EXPECT_FALSE(mm.remove("b"));
}

TEST(Matchmaker, OtherClocksOrRulesNeverPair) {
  Matchmaker mm;
  const TimePoint t0{};
  mm.add({"a", Variant::gomoku(), kBlitz, 1500.0, t0});
  mm.add({"b", Variant::gomoku(), kUntimed, 1500.0, t0});
  mm.add({"c", Variant::gomoku_standard(), kBlitz, 1500.0, t0});  // same board, exactly five
  EXPECT_TRUE(mm.pair(t0 + 60s).empty());
  mm.add({"d", Variant::gomoku(), kBlitz, 1900.0, t0 + 1s});
  auto pairs = mm.pair(t0 + 60s);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].first.player_id, "a");
  EXPECT_EQ(pairs[0].second.player_id, "d");
  EXPECT_EQ(pairs[0].second.clock, kBlitz);
  EXPECT_EQ(mm.size(), 2u);
}

TEST(Matchmaker, RatedAndCasualSeeksNeverPair) {
  Matchmaker mm;
  const TimePoint t0{};
  mm.add(seek("a", kConnect4, 1500.0, t0, true, "s1"));
  mm.add(seek("b", kConnect4, 1500.0, t0, false, "s2"));
  EXPECT_TRUE(mm.pair(t0 + 60s).empty());  // even with the widest windows
  mm.add(seek("c", kConnect4, 1700.0, t0 + 1s, false, "s3"));
  auto pairs = mm.pair(t0 + 60s);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].first.player_id, "b");
  EXPECT_EQ(pairs[0].second.player_id, "c");
  EXPECT_FALSE(pairs[0].first.rated);
  ASSERT_EQ(mm.size(), 1u);
  EXPECT_EQ(mm.seekers()[0].player_id, "a");
  EXPECT_TRUE(Seeker{}.rated);  // a seek is rated unless it says otherwise
}

TEST(Matchmaker, SeeksAreListedOldestFirstAndTakenById) {
  Matchmaker mm;
  const TimePoint t0{};
  mm.add(seek("a", Variant::gomoku(), 1500.0, t0, true, "s1"));
  mm.add(seek("b", kTicTacToe, 2400.0, t0 + 1s, true, "s2"));
  mm.add(seek("c", Variant::gomoku(), 1200.0, t0 + 2s, true, "s3"));
  ASSERT_EQ(mm.seekers().size(), 3u);
  EXPECT_EQ(mm.seekers()[0].seek_id, "s1");
  EXPECT_EQ(mm.seekers()[2].seek_id, "s3");
  ASSERT_NE(mm.find("s2"), nullptr);
  EXPECT_EQ(mm.find("s2")->player_id, "b");
  EXPECT_EQ(mm.find("s9"), nullptr);
  auto taken = mm.take("s3");
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->player_id, "c");
  EXPECT_FALSE(mm.take("s3"));
  EXPECT_FALSE(mm.seeking("c"));
  EXPECT_EQ(mm.size(), 2u);
  EXPECT_TRUE(mm.pair(t0 + 2s).empty());  // a and b: different pools
}

}  // namespace
}  // namespace inarow::server
