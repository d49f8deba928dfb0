// The swap2 opening in a match: who acts, whose clock runs, when the players
// change sides, and what stays as it was (the setup's seats, the opening's
// stones).
#include <gtest/gtest.h>

#include "inarow/server/match_core.h"

namespace inarow::server {
namespace {

using namespace std::chrono_literals;

const TimePoint t0{};

MatchSetup swap2_setup() {
  MatchSetup s;
  s.id = "m1";
  s.variant = *Variant::parse("gomoku-swap2");
  s.kind = v1::MATCH_KIND_SEEK;
  s.rated = true;
  s.initial = 60000ms;
  s.increment = 1000ms;
  s.seats[0] = Seat{"pa", "alice", false, "", {}};  // the proposer
  s.seats[1] = Seat{"pb", "bob", false, "", {}};
  return s;
}

// Alice places the three opening stones at 1, 2 and 3 seconds.
MatchCore proposed() {
  MatchCore m(swap2_setup());
  m.start(t0);
  int at = 1;
  for (const char* cell : {"h8", "i9", "h9"}) {
    auto e = m.move(Side::first, cell, t0 + std::chrono::seconds(at++));
    EXPECT_TRUE(e) << cell << ": " << (e ? "" : e.error().message);
  }
  return m;
}

TEST(Swap2Match, TheProposerPlacesThreeStonesOnOneTurnOfTheClock) {
  MatchCore m(swap2_setup());
  auto started = m.start(t0);
  const auto& opening = started[0].started().state().opening();
  EXPECT_EQ(opening.step(), v1::OPENING_STEP_PLACE_THREE);
  EXPECT_EQ(opening.to_act(), v1::SIDE_FIRST);

  const v1::Side stones[] = {v1::SIDE_FIRST, v1::SIDE_SECOND, v1::SIDE_FIRST};
  const v1::OpeningStep steps[] = {v1::OPENING_STEP_PLACE_THREE, v1::OPENING_STEP_PLACE_THREE,
                                   v1::OPENING_STEP_CHOOSE};
  const v1::Side acts[] = {v1::SIDE_FIRST, v1::SIDE_FIRST, v1::SIDE_SECOND};
  int i = 0;
  for (const char* cell : {"h8", "i9", "h9"}) {
    auto e = m.move(Side::first, cell, t0 + std::chrono::seconds(i + 1));
    ASSERT_TRUE(e) << e.error().message;
    const v1::MoveMade& made = e->at(0).move_made();
    EXPECT_EQ(made.side(), stones[i]) << cell;  // the stones alternate sides
    EXPECT_EQ(made.ply(), i + 1);
    EXPECT_EQ(made.opening().step(), steps[i]) << cell;
    EXPECT_EQ(made.opening().to_act(), acts[i]) << cell;
    ++i;
  }
  // Three seconds used, one increment for the turn: the chooser's clock runs.
  const v1::Clocks c = m.clocks(t0 + 3s);
  EXPECT_EQ(c.first_ms(), 58000);
  EXPECT_EQ(c.second_ms(), 60000);
  EXPECT_EQ(c.running(), v1::SIDE_SECOND);
  EXPECT_EQ(m.to_act(), Side::second);

  auto stone = m.move(Side::second, "j10", t0 + 4s);
  ASSERT_FALSE(stone);
  EXPECT_EQ(stone.error().code, ProtocolError::bad_request);  // choose first
  auto early = m.move(Side::first, "j10", t0 + 4s);
  ASSERT_FALSE(early);
  EXPECT_EQ(early.error().code, ProtocolError::not_your_turn);
  auto not_theirs = m.choose_opening(Side::first, Side::first, t0 + 4s);
  ASSERT_FALSE(not_theirs);
  EXPECT_EQ(not_theirs.error().code, ProtocolError::not_your_turn);
  EXPECT_EQ(m.game().ply(), 3);
}

TEST(Swap2Match, NoChoiceWhileStonesAreDue) {
  MatchCore m(swap2_setup());
  m.start(t0);
  auto e = m.choose_opening(Side::first, Side::first, t0);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, ProtocolError::bad_request);
  auto other = m.choose_opening(Side::second, Side::first, t0);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, ProtocolError::not_your_turn);
}

TEST(Swap2Match, TakingTheFirstSideSwapsThePlayersAndTheirClocks) {
  MatchCore m = proposed();
  const auto before = m.last_seq();
  auto e = m.choose_opening(Side::second, Side::first, t0 + 5s);
  ASSERT_TRUE(e) << e.error().message;
  ASSERT_EQ(e->size(), 1u);
  const v1::OpeningChosen& chosen = e->at(0).opening_chosen();
  EXPECT_EQ(e->at(0).seq(), before + 1);
  EXPECT_EQ(chosen.by(), v1::SIDE_SECOND);
  EXPECT_EQ(chosen.side(), v1::SIDE_FIRST);
  EXPECT_FALSE(chosen.place_two());
  EXPECT_TRUE(chosen.swapped());
  EXPECT_EQ(chosen.first().name(), "bob");
  EXPECT_EQ(chosen.second().name(), "alice");
  EXPECT_FALSE(chosen.has_opening());  // over: the sides move in turn

  // Bob thought 2 s and gains the increment; his time is now the first
  // side's. Alice, now second, moves (ply 4) on her own clock.
  EXPECT_EQ(e->at(0).clocks().first_ms(), 59000);
  EXPECT_EQ(e->at(0).clocks().second_ms(), 58000);
  EXPECT_EQ(e->at(0).clocks().running(), v1::SIDE_SECOND);
  EXPECT_TRUE(m.swapped());
  EXPECT_EQ(m.to_act(), Side::second);
  EXPECT_EQ(m.side_of(Side::first), Side::second);  // alice started first
  EXPECT_EQ(m.seat(Side::first).name, "bob");
  EXPECT_EQ(m.seated().seats[0].player_id, "pb");
  EXPECT_EQ(m.setup().seats[0].player_id, "pa");  // the setup never changes

  const v1::MatchState st = m.state(Side::second, t0 + 5s);
  EXPECT_EQ(st.first().name(), "bob");
  EXPECT_EQ(st.your_side(), v1::SIDE_SECOND);
  EXPECT_FALSE(st.has_opening());
  EXPECT_EQ(st.to_move(), v1::SIDE_SECOND);

  auto reply = m.move(Side::second, "j10", t0 + 6s);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->at(0).move_made().side(), v1::SIDE_SECOND);
  EXPECT_FALSE(reply->at(0).move_made().has_opening());
  EXPECT_EQ(m.to_act(), Side::first);
}

TEST(Swap2Match, StayingSecondKeepsTheChoosersTurn) {
  MatchCore m = proposed();
  auto e = m.choose_opening(Side::second, Side::second, t0 + 5s);
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_FALSE(e->at(0).opening_chosen().swapped());
  EXPECT_EQ(e->at(0).opening_chosen().first().name(), "alice");
  // No clock pressed: the choice and the fourth stone are one turn.
  EXPECT_EQ(e->at(0).clocks().running(), v1::SIDE_SECOND);
  EXPECT_EQ(e->at(0).clocks().second_ms(), 58000);
  EXPECT_EQ(m.to_act(), Side::second);
  ASSERT_TRUE(m.move(Side::second, "j10", t0 + 6s));
  EXPECT_EQ(m.clocks(t0 + 6s).second_ms(), 58000);  // 3 s used, +1 s
}

TEST(Swap2Match, TwoMoreStonesHandTheChoiceBack) {
  MatchCore m = proposed();
  auto two = m.choose_opening(Side::second, std::nullopt, t0 + 5s);
  ASSERT_TRUE(two) << two.error().message;
  const v1::OpeningChosen& chosen = two->at(0).opening_chosen();
  EXPECT_TRUE(chosen.place_two());
  EXPECT_EQ(chosen.side(), v1::SIDE_UNSPECIFIED);
  EXPECT_EQ(chosen.opening().step(), v1::OPENING_STEP_PLACE_TWO);
  EXPECT_EQ(chosen.opening().to_act(), v1::SIDE_SECOND);

  auto white = m.move(Side::second, "j10", t0 + 6s);
  ASSERT_TRUE(white);
  EXPECT_EQ(white->at(0).move_made().side(), v1::SIDE_SECOND);
  auto black = m.move(Side::second, "k11", t0 + 7s);
  ASSERT_TRUE(black);
  EXPECT_EQ(black->at(0).move_made().side(), v1::SIDE_FIRST);
  EXPECT_EQ(black->at(0).move_made().opening().step(), v1::OPENING_STEP_CHOOSE_SIDE);
  EXPECT_EQ(black->at(0).move_made().opening().to_act(), v1::SIDE_FIRST);
  EXPECT_EQ(black->at(0).clocks().second_ms(), 57000);  // bob: 4 s and one increment
  EXPECT_EQ(black->at(0).clocks().running(), v1::SIDE_FIRST);

  // Only once.
  auto again = m.choose_opening(Side::first, std::nullopt, t0 + 8s);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ProtocolError::bad_request);

  // Alice takes the second side, and moves at once (ply 6) on her own time.
  auto side = m.choose_opening(Side::first, Side::second, t0 + 9s);
  ASSERT_TRUE(side) << side.error().message;
  EXPECT_TRUE(side->at(0).opening_chosen().swapped());
  EXPECT_EQ(side->at(0).opening_chosen().second().name(), "alice");
  EXPECT_EQ(side->at(0).clocks().second_ms(), 56000);  // alice: 58 s less 2
  EXPECT_EQ(side->at(0).clocks().first_ms(), 57000);   // bob's
  EXPECT_EQ(side->at(0).clocks().running(), v1::SIDE_SECOND);
  EXPECT_EQ(m.to_act(), Side::second);
  EXPECT_EQ(m.seat(Side::second).name, "alice");
  ASSERT_TRUE(m.move(Side::second, "g7", t0 + 10s));
}

TEST(Swap2Match, NoDrawOffersOrTakebacksInTheOpening) {
  MatchCore m = proposed();
  for (Side s : {Side::first, Side::second}) {
    auto draw = m.offer_draw(s, t0 + 4s);
    ASSERT_FALSE(draw);
    EXPECT_EQ(draw.error().code, ProtocolError::bad_request);
    auto back = m.request_takeback(s, t0 + 4s);
    ASSERT_FALSE(back);
    EXPECT_EQ(back.error().code, ProtocolError::bad_request);
  }
  EXPECT_EQ(m.game().ply(), 3);
}

TEST(Swap2Match, TakebacksNeverUndoTheOpeningsStones) {
  MatchCore m = proposed();
  ASSERT_TRUE(m.choose_opening(Side::second, Side::second, t0 + 5s));
  ASSERT_TRUE(m.move(Side::second, "j10", t0 + 6s));
  // Alice's last stone is the opening's: nothing of hers to take back.
  auto refused = m.request_takeback(Side::first, t0 + 7s);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ProtocolError::bad_request);
  ASSERT_TRUE(m.move(Side::first, "g7", t0 + 8s));
  ASSERT_TRUE(m.request_takeback(Side::first, t0 + 9s));
  auto done = m.answer_takeback(Side::second, true, t0 + 10s);
  ASSERT_TRUE(done);
  EXPECT_EQ(m.game().ply(), 4);
}

TEST(Swap2Match, ResigningInTheOpeningAbortsUntilBothHaveActed) {
  MatchCore m = proposed();
  auto e = m.resign(Side::first, t0 + 4s);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->back().ended().result(), v1::RESULT_ABORTED);

  MatchCore chosen = proposed();
  ASSERT_TRUE(chosen.choose_opening(Side::second, Side::first, t0 + 5s));
  // Alice, now second, resigns: bob (first) wins.
  auto r = chosen.resign(chosen.side_of(Side::first), t0 + 6s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->back().ended().result(), v1::RESULT_FIRST_WINS);
  EXPECT_EQ(chosen.seated().seats[0].player_id, "pb");
}

TEST(Swap2Match, ReplayRebuildsTheSidesTheOpeningAndTheClocks) {
  MatchCore live = proposed();
  ASSERT_TRUE(live.choose_opening(Side::second, std::nullopt, t0 + 5s));
  ASSERT_TRUE(live.move(Side::second, "j10", t0 + 6s));
  ASSERT_TRUE(live.move(Side::second, "k11", t0 + 7s));
  ASSERT_TRUE(live.choose_opening(Side::first, Side::second, t0 + 9s));

  MatchCore restored(swap2_setup());
  for (const auto& e : live.log())
    ASSERT_TRUE(restored.replay(e)) << e.DebugString();
  EXPECT_TRUE(restored.swapped());
  EXPECT_EQ(restored.opening(), nullptr);
  EXPECT_EQ(restored.to_act(), Side::second);
  EXPECT_EQ(restored.seat(Side::second).name, "alice");
  restored.resume_clock(t0 + 9s);
  EXPECT_EQ(restored.clock().running(), Side::second);
  EXPECT_EQ(restored.clocks(t0 + 9s).second_ms(), live.clocks(t0 + 9s).second_ms());
  EXPECT_EQ(restored.clocks(t0 + 9s).first_ms(), live.clocks(t0 + 9s).first_ms());

  // Cut short in the middle of the opening, the replay resumes there.
  MatchCore midway(swap2_setup());
  for (std::size_t i = 0; i < 5; ++i)  // started, three stones, place-two
    ASSERT_TRUE(midway.replay(live.log()[i]));
  ASSERT_NE(midway.opening(), nullptr);
  EXPECT_EQ(midway.opening()->step(), Swap2::Step::place_two);
  EXPECT_EQ(midway.to_act(), Side::second);
}

TEST(Swap2Match, AGameWithoutAnOpeningHasNoChoice) {
  MatchSetup s = swap2_setup();
  s.variant = Variant::gomoku();
  MatchCore m(s);
  m.start(t0);
  EXPECT_EQ(m.opening(), nullptr);
  EXPECT_FALSE(m.state(std::nullopt, t0).has_opening());
  auto e = m.choose_opening(Side::first, Side::first, t0);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, ProtocolError::bad_request);
  auto made = m.move(Side::first, "h8", t0);
  ASSERT_TRUE(made);
  EXPECT_FALSE(made->at(0).move_made().has_opening());
}

}  // namespace
}  // namespace inarow::server
