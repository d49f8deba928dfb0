#include "inarow/server/match_core.h"

#include <gtest/gtest.h>

namespace inarow::server {
namespace {

using namespace std::chrono_literals;

MatchSetup ttt_setup(Millis initial = 0ms, Millis increment = 0ms) {
  MatchSetup s;
  s.id = "m1";
  s.variant = Variant::tictactoe();
  s.kind = v1::MATCH_KIND_SEEK;
  s.rated = true;
  s.initial = initial;
  s.increment = increment;
  s.seats[0] = Seat{"pa", "alice", false, "", {}};
  s.seats[1] = Seat{"pb", "bob", false, "", {}};
  return s;
}

// Play moves alternately; every one must be accepted. Returns all events.
MatchCore::Events play(MatchCore& m, std::initializer_list<const char*> moves, TimePoint t) {
  MatchCore::Events all;
  for (const char* mv : moves) {
    auto e = m.move(m.to_act(), mv, t);
    EXPECT_TRUE(e.has_value()) << mv << ": " << (e ? "" : e.error().message);
    if (e) all.insert(all.end(), e->begin(), e->end());
  }
  return all;
}

TEST(MatchCore, StartEventCarriesTheFullState) {
  MatchCore m(ttt_setup());
  auto events = m.start(TimePoint{});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].seq(), 1u);
  ASSERT_TRUE(events[0].has_started());
  const auto& st = events[0].started().state();
  EXPECT_EQ(st.match_id(), "m1");
  EXPECT_EQ(st.variant(), "tictactoe");
  EXPECT_EQ(st.first().name(), "alice");
  EXPECT_EQ(st.second().id(), "pb");
  EXPECT_EQ(st.to_move(), v1::SIDE_FIRST);
  EXPECT_EQ(st.last_seq(), 1u);
  EXPECT_EQ(st.moves_size(), 0);
}

TEST(MatchCore, ALineWinsWithItsCells) {
  MatchCore m(ttt_setup());
  m.start(TimePoint{});
  auto events = play(m, {"a1", "b1", "a2", "b2", "a3"}, TimePoint{});
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[4].move_made().move(), "a3");
  EXPECT_EQ(events[4].move_made().ply(), 5);
  EXPECT_EQ(events[4].move_made().side(), v1::SIDE_FIRST);
  EXPECT_TRUE(events[4].move_made().ends_game());
  for (int i = 0; i < 4; ++i)
    EXPECT_FALSE(events[i].move_made().ends_game()) << i;
  ASSERT_TRUE(events[5].has_ended());
  EXPECT_EQ(events[5].seq(), 7u);
  EXPECT_EQ(events[5].ended().result(), v1::RESULT_FIRST_WINS);
  EXPECT_EQ(events[5].ended().reason(), v1::END_REASON_LINE);
  std::vector<std::string> line(events[5].ended().winning_line().begin(),
                                events[5].ended().winning_line().end());
  std::sort(line.begin(), line.end());
  EXPECT_EQ(line, (std::vector<std::string>{"a1", "a2", "a3"}));
  EXPECT_TRUE(m.over());
  auto late = m.move(Side::second, "c1", TimePoint{});
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, ProtocolError::match_over);
}

TEST(MatchCore, FullBoardIsADraw) {
  MatchCore m(ttt_setup());
  m.start(TimePoint{});
  auto events = play(m, {"b2", "a1", "c1", "a3", "a2", "c2", "b1", "b3", "c3"}, TimePoint{});
  ASSERT_EQ(events.size(), 10u);
  EXPECT_EQ(events.back().ended().result(), v1::RESULT_DRAW);
  EXPECT_EQ(events.back().ended().reason(), v1::END_REASON_BOARD_FULL);
  EXPECT_TRUE(events[8].move_made().ends_game());
  EXPECT_FALSE(events[7].move_made().ends_game());
}

TEST(MatchCore, BadMovesChangeNothing) {
  MatchCore m(ttt_setup());
  m.start(TimePoint{});
  play(m, {"b2"}, TimePoint{});
  auto out_of_turn = m.move(Side::first, "a1", TimePoint{});
  ASSERT_FALSE(out_of_turn);
  EXPECT_EQ(out_of_turn.error().code, ProtocolError::not_your_turn);
  auto occupied = m.move(Side::second, "b2", TimePoint{});
  ASSERT_FALSE(occupied);
  EXPECT_EQ(occupied.error().code, ProtocolError::illegal_move);
  auto off_board = m.move(Side::second, "d4", TimePoint{});
  ASSERT_FALSE(off_board);
  EXPECT_EQ(off_board.error().code, ProtocolError::illegal_move);
  auto garbage = m.move(Side::second, "??", TimePoint{});
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().code, ProtocolError::illegal_move);
  EXPECT_EQ(m.game().ply(), 1);
  EXPECT_EQ(m.last_seq(), 2u);
}

TEST(MatchCore, ResignGivesTheOpponentTheWin) {
  MatchCore m(ttt_setup());
  m.start(TimePoint{});
  play(m, {"b2", "a1"}, TimePoint{});  // before both sides moved it would be an abort
  auto e = m.resign(Side::first, TimePoint{});
  ASSERT_TRUE(e);
  ASSERT_EQ(e->size(), 1u);
  EXPECT_EQ(e->at(0).ended().result(), v1::RESULT_SECOND_WINS);
  EXPECT_EQ(e->at(0).ended().reason(), v1::END_REASON_RESIGNATION);
}

TEST(MatchCore, DrawOfferDeclinedThenAccepted) {
  MatchCore m(ttt_setup());
  m.start(TimePoint{});
  play(m, {"b2", "a1"}, TimePoint{});  // an agreement before both sides moved is an abort
  ASSERT_TRUE(m.offer_draw(Side::first, TimePoint{}));
  EXPECT_EQ(m.draw_offered_by(), Side::first);
  auto self_answer = m.answer_draw(Side::first, true, TimePoint{});
  ASSERT_FALSE(self_answer);
  EXPECT_EQ(self_answer.error().code, ProtocolError::no_offer);
  auto declined = m.answer_draw(Side::second, false, TimePoint{});
  ASSERT_TRUE(declined);
  EXPECT_TRUE(declined->at(0).has_draw_declined());
  EXPECT_FALSE(m.draw_offered_by());
  ASSERT_TRUE(m.offer_draw(Side::second, TimePoint{}));
  auto accepted = m.answer_draw(Side::first, true, TimePoint{});
  ASSERT_TRUE(accepted);
  EXPECT_EQ(accepted->back().ended().result(), v1::RESULT_DRAW);
  EXPECT_EQ(accepted->back().ended().reason(), v1::END_REASON_AGREEMENT);
}

TEST(MatchCore, AMoveByTheOtherSideDeclinesADrawOffer) {
  MatchCore m(ttt_setup());
  m.start(TimePoint{});
  ASSERT_TRUE(m.offer_draw(Side::first, TimePoint{}));
  play(m, {"b2"}, TimePoint{});  // the offerer's own move keeps the offer
  EXPECT_EQ(m.draw_offered_by(), Side::first);
  play(m, {"a1"}, TimePoint{});
  EXPECT_FALSE(m.draw_offered_by());
}

TEST(MatchCore, TakebackUndoesOwnMoveAndTheReply) {
  MatchCore m(ttt_setup());
  m.start(TimePoint{});
  play(m, {"b2", "a1", "c3"}, TimePoint{});
  // Second asks after first's reply: its a1 and first's c3 go.
  ASSERT_TRUE(m.request_takeback(Side::second, TimePoint{}));
  auto done = m.answer_takeback(Side::first, true, TimePoint{});
  ASSERT_TRUE(done);
  ASSERT_TRUE(done->at(0).has_takeback_done());
  EXPECT_EQ(done->at(0).takeback_done().undone(), 2);
  ASSERT_EQ(done->at(0).takeback_done().moves_size(), 1);
  EXPECT_EQ(done->at(0).takeback_done().moves(0), "b2");
  EXPECT_EQ(m.game().ply(), 1);
  EXPECT_EQ(m.to_act(), Side::second);
  // First asks right after its own move: one ply goes.
  ASSERT_TRUE(m.request_takeback(Side::first, TimePoint{}));
  auto declined = m.answer_takeback(Side::second, false, TimePoint{});
  ASSERT_TRUE(declined);
  EXPECT_TRUE(declined->at(0).has_takeback_declined());
  ASSERT_TRUE(m.request_takeback(Side::first, TimePoint{}));
  ASSERT_TRUE(m.answer_takeback(Side::second, true, TimePoint{}));
  EXPECT_EQ(m.game().ply(), 0);
  auto nothing = m.request_takeback(Side::second, TimePoint{});
  ASSERT_FALSE(nothing);
  EXPECT_EQ(nothing.error().code, ProtocolError::bad_request);
  auto no_request = m.answer_takeback(Side::first, true, TimePoint{});
  ASSERT_FALSE(no_request);
  EXPECT_EQ(no_request.error().code, ProtocolError::no_offer);
}

TEST(MatchCore, ClocksRideOnEveryEventAndTheFlagFalls) {
  const TimePoint t0{};
  MatchCore m(ttt_setup(1000ms, 200ms));
  m.start(t0);
  auto e = m.move(Side::first, "b2", t0 + 300ms);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->at(0).clocks().first_ms(), 900);  // 1000 - 300 + 200
  EXPECT_EQ(e->at(0).clocks().second_ms(), 1000);
  EXPECT_EQ(e->at(0).clocks().running(), v1::SIDE_SECOND);
  EXPECT_EQ(m.until_flag(t0 + 300ms), 1000ms);
  EXPECT_TRUE(m.check_flag(t0 + 1299ms).empty());
  auto flag = m.check_flag(t0 + 1300ms);
  ASSERT_EQ(flag.size(), 1u);
  // The second side never moved: the match is aborted, not won.
  EXPECT_EQ(flag[0].ended().result(), v1::RESULT_ABORTED);
  EXPECT_EQ(flag[0].ended().reason(), v1::END_REASON_TIMEOUT);
  EXPECT_EQ(flag[0].clocks().second_ms(), 0);
  EXPECT_EQ(flag[0].clocks().running(), v1::SIDE_UNSPECIFIED);
}

TEST(MatchCore, ReplayRebuildsTheSameMatch) {
  const TimePoint t0{};
  MatchCore live(ttt_setup(60000ms, 0ms));
  live.start(t0);
  play(live, {"b2", "a1"}, t0 + 100ms);
  ASSERT_TRUE(live.offer_draw(Side::first, t0 + 200ms));
  ASSERT_TRUE(live.request_takeback(Side::first, t0 + 200ms));
  ASSERT_TRUE(live.answer_takeback(Side::second, true, t0 + 300ms));
  play(live, {"c3"}, t0 + 400ms);

  MatchCore restored(ttt_setup(60000ms, 0ms));
  for (const auto& e : live.log())
    ASSERT_TRUE(restored.replay(e));
  EXPECT_EQ(restored.game().notation(), live.game().notation());
  EXPECT_EQ(restored.last_seq(), live.last_seq());
  EXPECT_EQ(restored.to_act(), live.to_act());
  EXPECT_EQ(restored.draw_offered_by(), live.draw_offered_by());
  restored.resume_clock(t0);
  EXPECT_EQ(restored.clock().remaining(Side::first, t0),
            live.clock().remaining(Side::first, t0 + 400ms));
  v1::MatchEvent gap = live.log().back();
  gap.set_seq(99);
  EXPECT_FALSE(restored.replay(gap));
}

TEST(MatchCore, GravityMovesAreColumns) {
  MatchSetup s = ttt_setup();
  s.variant = Variant::connect4();
  MatchCore m(s);
  m.start(TimePoint{});
  auto events = play(m, {"4", "4", "4"}, TimePoint{});
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2].move_made().move(), "4");
  EXPECT_EQ(m.game().column_height(3), 3);
}

}  // namespace
}  // namespace inarow::server
