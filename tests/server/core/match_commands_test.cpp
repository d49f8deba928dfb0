#include "inarow/server/match_commands.h"

#include <gtest/gtest.h>

namespace inarow::server {
namespace {

using namespace std::chrono_literals;
using Message = v1::ClientMessage;

Message with_match(Message::BodyCase body, const std::string& id) {
  Message m;
  switch (body) {
    case Message::kMove:
      m.mutable_move()->set_match_id(id);
      m.mutable_move()->set_move("b2");
      break;
    case Message::kResign:
      m.mutable_resign()->set_match_id(id);
      break;
    case Message::kOfferDraw:
      m.mutable_offer_draw()->set_match_id(id);
      break;
    case Message::kAnswerDraw:
      m.mutable_answer_draw()->set_match_id(id);
      m.mutable_answer_draw()->set_accept(true);
      break;
    case Message::kRequestTakeback:
      m.mutable_request_takeback()->set_match_id(id);
      break;
    case Message::kAnswerTakeback:
      m.mutable_answer_takeback()->set_match_id(id);
      m.mutable_answer_takeback()->set_accept(true);
      break;
    default:
      break;
  }
  return m;
}

constexpr Message::BodyCase kSeated[] = {
    Message::kMove,       Message::kResign,          Message::kOfferDraw,
    Message::kAnswerDraw, Message::kRequestTakeback, Message::kAnswerTakeback};

TEST(MatchCommands, EverySeatedCommandIsInTheTableWithItsMatchId) {
  for (auto body : kSeated) {
    const Message m = with_match(body, "m-" + std::to_string(static_cast<int>(body)));
    const MatchCommand* c = find_match_command(m);
    ASSERT_NE(c, nullptr) << static_cast<int>(body);
    EXPECT_EQ(c->body, body);
    EXPECT_EQ(c->match_id(m), "m-" + std::to_string(static_cast<int>(body)));
    EXPECT_EQ(c->bot_grants, body == Message::kRequestTakeback) << c->name;
  }
}

TEST(MatchCommands, NothingElseIsAMatchCommand) {
  Message m;
  EXPECT_EQ(find_match_command(m), nullptr);  // no body
  m.mutable_ping();
  EXPECT_EQ(find_match_command(m), nullptr);
  m.mutable_seek();
  EXPECT_EQ(find_match_command(m), nullptr);
  m.mutable_watch()->set_match_id("m1");
  EXPECT_EQ(find_match_command(m), nullptr);
  m.mutable_hello();
  EXPECT_EQ(find_match_command(m), nullptr);
}

MatchSetup setup() {
  MatchSetup s;
  s.id = "m1";
  s.variant = *Variant::parse("tictactoe");
  s.seats[0].player_id = "a";
  s.seats[1].player_id = "b";
  return s;
}

TEST(MatchCommands, EachAppliesItsOwnChange) {
  const auto now = SteadyClock::now();
  MatchCore core(setup());
  core.start(now);
  auto moved = find_match_command(with_match(Message::kMove, "m1"))
                   ->apply(core, Side::first, with_match(Message::kMove, "m1"), now);
  ASSERT_TRUE(moved);
  ASSERT_EQ(moved->size(), 1u);
  EXPECT_EQ(moved->front().move_made().move(), "b2");

  auto offered = find_match_command(with_match(Message::kOfferDraw, "m1"))
                     ->apply(core, Side::second, with_match(Message::kOfferDraw, "m1"), now);
  ASSERT_TRUE(offered);
  EXPECT_EQ(core.draw_offered_by(), Side::second);
  auto accepted = find_match_command(with_match(Message::kAnswerDraw, "m1"))
                      ->apply(core, Side::first, with_match(Message::kAnswerDraw, "m1"), now);
  ASSERT_TRUE(accepted);
  EXPECT_TRUE(core.over());
  EXPECT_EQ(core.end_reason(), v1::END_REASON_AGREEMENT);
  EXPECT_EQ(core.result(), v1::RESULT_ABORTED);  // agreed before the second side moved

  auto late = find_match_command(with_match(Message::kResign, "m1"))
                  ->apply(core, Side::first, with_match(Message::kResign, "m1"), now);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, ProtocolError::match_over);
}

TEST(MatchCommands, AnsweringNothingIsAnError) {
  const auto now = SteadyClock::now();
  MatchCore core(setup());
  core.start(now);
  for (auto body : {Message::kAnswerDraw, Message::kAnswerTakeback}) {
    auto r = find_match_command(with_match(body, "m1"))
                 ->apply(core, Side::first, with_match(body, "m1"), now);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ProtocolError::no_offer);
  }
}

}  // namespace
}  // namespace inarow::server
