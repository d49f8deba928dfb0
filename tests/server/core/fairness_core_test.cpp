// Ratings that cannot be farmed: games that end before both sides have
// moved are aborted (unrated), a takeback makes a rated game unrated, and
// the Glicko-2 deviation never exceeds where everyone starts.
#include <gtest/gtest.h>

#include <array>

#include "inarow/server/match_core.h"
#include "inarow/server/rating.h"

namespace inarow::server {
namespace {

using namespace std::chrono_literals;

MatchSetup rated_ttt(Millis initial = 0ms) {
  MatchSetup s;
  s.id = "m1";
  s.variant = Variant::tictactoe();
  s.kind = v1::MATCH_KIND_BOT;
  s.rated = true;
  s.initial = initial;
  s.seats[0] = Seat{"pa", "alice", false, "", {}};
  s.seats[1] = Seat{"bot", "bot", true, "beginner", {}};
  return s;
}

TEST(Aborted, AResignationBeforeAnyMoveIsAnAbort) {
  MatchCore m(rated_ttt());
  m.start(TimePoint{});
  auto e = m.resign(Side::first, TimePoint{});
  ASSERT_TRUE(e);
  ASSERT_EQ(e->size(), 1u);
  EXPECT_EQ(e->at(0).ended().result(), v1::RESULT_ABORTED);
  EXPECT_EQ(e->at(0).ended().reason(), v1::END_REASON_RESIGNATION);
  EXPECT_EQ(m.result(), v1::RESULT_ABORTED);
  EXPECT_EQ(m.state(std::nullopt, TimePoint{}).result(), v1::RESULT_ABORTED);
}

TEST(Aborted, AFlagOrAnAbsenceBeforeTheSecondSideMovedIsAnAbort) {
  const TimePoint t0{};
  MatchCore flagged(rated_ttt(1000ms));
  flagged.start(t0);
  ASSERT_TRUE(flagged.move(Side::first, "b2", t0 + 100ms));
  // The second side (a bot queued behind others, say) never moved.
  auto flag = flagged.check_flag(t0 + 1100ms);
  ASSERT_EQ(flag.size(), 1u);
  EXPECT_EQ(flag[0].ended().result(), v1::RESULT_ABORTED);
  EXPECT_EQ(flag[0].ended().reason(), v1::END_REASON_TIMEOUT);

  MatchCore gone(rated_ttt());
  gone.start(t0);
  auto abandoned = gone.abandon(Side::first, t0);
  ASSERT_EQ(abandoned.size(), 1u);
  EXPECT_EQ(abandoned[0].ended().result(), v1::RESULT_ABORTED);
  EXPECT_EQ(abandoned[0].ended().reason(), v1::END_REASON_ABANDONED);
}

TEST(Aborted, OnceBothSidesMovedTheResultStands) {
  const TimePoint t0{};
  MatchCore m(rated_ttt(1000ms));
  m.start(t0);
  ASSERT_TRUE(m.move(Side::first, "b2", t0 + 100ms));
  ASSERT_TRUE(m.move(Side::second, "a1", t0 + 200ms));
  auto flag = m.check_flag(t0 + 100ms + 1000ms + 1000ms);
  ASSERT_EQ(flag.size(), 1u);
  EXPECT_EQ(flag[0].ended().result(), v1::RESULT_SECOND_WINS);
  EXPECT_EQ(flag[0].ended().reason(), v1::END_REASON_TIMEOUT);
}

TEST(Aborted, AbortEndsWithoutAResult) {
  MatchCore m(rated_ttt());
  m.start(TimePoint{});
  ASSERT_TRUE(m.move(Side::first, "b2", TimePoint{}));
  ASSERT_TRUE(m.move(Side::second, "a1", TimePoint{}));
  auto e = m.abort(v1::END_REASON_ABANDONED, TimePoint{});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].seq(), 4u);
  EXPECT_EQ(e[0].ended().result(), v1::RESULT_ABORTED);
  EXPECT_EQ(e[0].ended().reason(), v1::END_REASON_ABANDONED);
  EXPECT_TRUE(m.abort(v1::END_REASON_ABANDONED, TimePoint{}).empty());  // once
}

TEST(Takebacks, ATakebackMakesARatedGameUnratedAndSoDoesItsReplay) {
  MatchCore m(rated_ttt());
  m.start(TimePoint{});
  ASSERT_TRUE(m.move(Side::first, "b2", TimePoint{}));
  ASSERT_TRUE(m.move(Side::second, "a1", TimePoint{}));
  EXPECT_TRUE(m.state(std::nullopt, TimePoint{}).rated());
  ASSERT_TRUE(m.request_takeback(Side::first, TimePoint{}));
  auto done = m.answer_takeback(Side::second, true, TimePoint{});
  ASSERT_TRUE(done);
  ASSERT_EQ(done->size(), 1u);
  EXPECT_EQ(done->at(0).takeback_done().undone(), 2);
  EXPECT_TRUE(done->at(0).takeback_done().unrated());
  EXPECT_FALSE(m.setup().rated);
  EXPECT_FALSE(m.state(std::nullopt, TimePoint{}).rated());

  // A second takeback in the now unrated game says nothing new.
  ASSERT_TRUE(m.move(Side::first, "b2", TimePoint{}));
  ASSERT_TRUE(m.request_takeback(Side::first, TimePoint{}));
  auto again = m.answer_takeback(Side::second, true, TimePoint{});
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->at(0).takeback_done().unrated());

  // Restored from its log, the match is unrated too.
  MatchCore restored(rated_ttt());
  for (const auto& e : m.log())
    ASSERT_TRUE(restored.replay(e));
  EXPECT_FALSE(restored.setup().rated);
}

TEST(Takebacks, ADeclinedTakebackKeepsTheGameRated) {
  MatchCore m(rated_ttt());
  m.start(TimePoint{});
  ASSERT_TRUE(m.move(Side::first, "b2", TimePoint{}));
  ASSERT_TRUE(m.request_takeback(Side::first, TimePoint{}));
  ASSERT_TRUE(m.answer_takeback(Side::second, false, TimePoint{}));
  EXPECT_TRUE(m.setup().rated);
}

TEST(Glicko2Clamp, TheDeviationNeverExceedsTheStart) {
  // With no games the deviation grows by the volatility, up to 350 and no more.
  EXPECT_EQ(glicko2_update({1500.0, 350.0, 0.06}, {}).deviation, 350.0);
  EXPECT_EQ(glicko2_update({1500.0, 349.99, 0.06}, {}).deviation, 350.0);
  EXPECT_EQ(glicko2_update({1500.0, 300.0, 2.0}, {}).deviation, 350.0);
  // Below the ceiling nothing changes: sqrt(200^2 + (0.06 * 173.7178)^2).
  EXPECT_NEAR(glicko2_update({1500.0, 200.0, 0.06}, {}).deviation, 200.2714, 0.0001);
}

TEST(Glicko2Clamp, FarmingWinsAgainstNewcomersNeverWidensTheDeviation) {
  // The farm: one player beats a fresh 1500/350 newcomer over and over. The
  // volatility rises with every surprising win; before the clamp the
  // deviation then rose above 350.
  Rating bot;
  const GameResult win{Rating{}, 1.0};
  double most = 0.0;
  for (int i = 0; i < 4101; ++i) {
    bot = glicko2_update(bot, std::span(&win, 1));
    most = std::max(most, bot.deviation);
  }
  EXPECT_LE(most, kStartDeviation);
  EXPECT_EQ(kStartDeviation, 350.0);
}

}  // namespace
}  // namespace inarow::server
