#include "inarow/client/controller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "inarow/testing/temp_dir.h"

namespace inarow::client {
namespace {

class ControllerTest : public ::testing::Test {
 protected:
  // Script mode, line format, unless a test asks for other options.
  explicit ControllerTest(ControllerOptions options = {true, false, {}, "ws://test/ws", "ada"})
      : controller_(std::move(options), Profile{},
                    Controller::Hooks{
                        [this](v1::ClientMessage m) { sent_.push_back(std::move(m)); },
                        [this](const std::string& text) { out_ += text; },
                        [this] { quit_ = true; },
                        [this](const Profile& p) { saved_ = p; },
                        [this] { ++reconnects_; },
                    }) {}

  void greet() {
    controller_.on_connected();
    ASSERT_EQ(sent_.size(), 1u);
    ASSERT_TRUE(sent_[0].has_hello());
    v1::ServerMessage m;
    m.set_request_id(sent_[0].request_id());
    m.mutable_welcome()->set_player_id("p1");
    m.mutable_welcome()->set_name("ada");
    m.mutable_welcome()->set_token("secret");
    sent_.clear();
    deliver(m);
  }

  v1::ServerMessage error(std::uint64_t request, v1::ErrorCode code) {
    v1::ServerMessage m;
    m.set_request_id(request);
    m.mutable_error()->set_code(code);
    m.mutable_error()->set_message("refused");
    return m;
  }

  void deliver(const v1::ServerMessage& m) {
    controller_.on_message(m, std::chrono::steady_clock::now());
  }

  v1::ServerMessage started_event(std::uint64_t seq = 1) {
    v1::ServerMessage m;
    auto* e = m.mutable_event();
    e->set_match_id("m1");
    e->set_seq(seq);
    auto* s = e->mutable_started()->mutable_state();
    s->set_match_id("m1");
    s->set_variant("tictactoe");
    s->set_kind(v1::MATCH_KIND_BOT);
    s->mutable_first()->set_id("p1");
    s->mutable_first()->set_name("ada");
    s->mutable_second()->set_id("bot-easy");
    s->mutable_second()->set_name("easy bot");
    s->set_to_move(v1::SIDE_FIRST);
    s->set_last_seq(seq);
    return m;
  }

  v1::ServerMessage move_event(std::uint64_t seq, v1::Side side, const std::string& move) {
    v1::ServerMessage m;
    auto* e = m.mutable_event();
    e->set_match_id("m1");
    e->set_seq(seq);
    e->mutable_move_made()->set_side(side);
    e->mutable_move_made()->set_move(move);
    e->mutable_move_made()->set_ply(static_cast<int>(seq - 1));
    return m;
  }

  v1::ServerMessage ack(std::uint64_t request) {
    v1::ServerMessage m;
    m.set_request_id(request);
    m.mutable_ack()->set_match_id("m1");
    return m;
  }

  std::vector<v1::ClientMessage> sent_;
  std::string out_;
  bool quit_ = false;
  int reconnects_ = 0;
  Profile saved_;
  Controller controller_;
};

// For a person: boards, sentences and the bell.
class ControllerSound : public ControllerTest {
 protected:
  ControllerSound() : ControllerTest({false, true, {}, "ws://test/ws", "ada"}) {}
};

TEST_F(ControllerTest, ScriptLinesWaitForTheConnectionTheAnswerAndTheTurn) {
  controller_.on_line("bot tictactoe easy");
  controller_.on_line("wait turn");
  controller_.on_line("b2");
  controller_.on_line("wait turn");
  controller_.on_line("a3");
  EXPECT_TRUE(sent_.empty());  // not greeted yet
  greet();
  EXPECT_EQ(saved_.token, "secret");
  ASSERT_EQ(sent_.size(), 1u);
  ASSERT_TRUE(sent_[0].has_play_bot());
  EXPECT_EQ(sent_[0].play_bot().level(), "easy");
  const auto bot_request = sent_[0].request_id();

  deliver(started_event());
  EXPECT_EQ(sent_.size(), 1u);  // the request is not answered yet
  EXPECT_NE(out_.find("started match=m1 variant=tictactoe kind=bot"), std::string::npos) << out_;
  EXPECT_NE(out_.find("you=first"), std::string::npos);
  deliver(ack(bot_request));
  ASSERT_EQ(sent_.size(), 2u);  // our turn: b2 goes
  EXPECT_EQ(sent_[1].move().move(), "b2");

  deliver(move_event(2, v1::SIDE_FIRST, "b2"));
  deliver(ack(sent_[1].request_id()));
  EXPECT_EQ(sent_.size(), 2u);  // waiting for the bot's reply
  deliver(move_event(3, v1::SIDE_SECOND, "a1"));
  ASSERT_EQ(sent_.size(), 3u);
  EXPECT_EQ(sent_[2].move().move(), "a3");
  EXPECT_NE(out_.find("move match=m1 seq=3 ply=2 side=second move=a1"), std::string::npos);
}

TEST_F(ControllerTest, ReplayedEventsAreShownOnce) {
  greet();
  deliver(started_event());
  deliver(move_event(2, v1::SIDE_FIRST, "b2"));
  const std::string before = out_;
  deliver(move_event(2, v1::SIDE_FIRST, "b2"));
  EXPECT_EQ(out_, before);
}

TEST_F(ControllerTest, ResumeSendsTheLastSeqOfLiveMatches) {
  greet();
  deliver(started_event());
  deliver(move_event(2, v1::SIDE_FIRST, "b2"));
  controller_.on_disconnected("boom");
  EXPECT_NE(out_.find("disconnected reason=boom"), std::string::npos);
  controller_.on_line("board");  // waits for the connection
  const auto printed = out_.size();
  controller_.on_connected();
  ASSERT_TRUE(sent_.back().has_hello());
  EXPECT_EQ(sent_.back().hello().token(), "secret");
  ASSERT_EQ(sent_.back().hello().resume_size(), 1);
  EXPECT_EQ(sent_.back().hello().resume(0).match_id(), "m1");
  EXPECT_EQ(sent_.back().hello().resume(0).last_seq(), 2u);
  EXPECT_EQ(out_.find("board ", printed), std::string::npos);
}

TEST_F(ControllerTest, AnUnknownTokenStartsANewIdentity) {
  greet();
  controller_.on_disconnected("restart");
  controller_.on_connected();
  const auto hello = sent_.back();
  v1::ServerMessage m;
  m.set_request_id(hello.request_id());
  m.mutable_error()->set_code(v1::ERROR_BAD_TOKEN);
  deliver(m);
  ASSERT_TRUE(sent_.back().has_hello());
  EXPECT_TRUE(sent_.back().hello().token().empty());
  EXPECT_EQ(sent_.back().hello().name(), "ada");
}

TEST_F(ControllerTest, DrawAndUndoAnswerTheOpponentsOffer) {
  greet();
  deliver(started_event());
  v1::ServerMessage offer;
  offer.mutable_event()->set_match_id("m1");
  offer.mutable_event()->set_seq(2);
  offer.mutable_event()->mutable_draw_offered()->set_by(v1::SIDE_SECOND);
  deliver(offer);
  controller_.on_line("draw");
  ASSERT_FALSE(sent_.empty());
  ASSERT_TRUE(sent_.back().has_answer_draw());
  EXPECT_TRUE(sent_.back().answer_draw().accept());
  deliver(ack(sent_.back().request_id()));
  controller_.on_line("undo");
  EXPECT_TRUE(sent_.back().has_request_takeback());
}

TEST_F(ControllerTest, MatchCommandsOutsideAMatchAreRefusedLocally) {
  greet();
  controller_.on_line("resign");
  EXPECT_TRUE(sent_.empty());
  EXPECT_NE(out_.find("error code=NO_MATCH"), std::string::npos);
  controller_.on_line("quit");
  EXPECT_TRUE(quit_);
}

TEST_F(ControllerTest, AMatchTheServerNoLongerHasIsForgottenOnResume) {
  greet();
  deliver(started_event());
  controller_.on_line("wait end");
  controller_.on_line("list");
  controller_.on_disconnected("gone");
  sent_.clear();
  greet();  // the welcome lists no live match
  EXPECT_NE(out_.find("note message=\"match m1 is no longer live on the server\""),
            std::string::npos)
      << out_;
  ASSERT_EQ(sent_.size(), 1u);  // `wait end` is met: `list` goes
  EXPECT_TRUE(sent_[0].has_list_matches());
}

TEST_F(ControllerTest, WatchingOurOwnMatchKeepsOurSeat) {
  greet();
  deliver(started_event());
  v1::ServerMessage state;
  state.set_request_id(99);
  *state.mutable_match_state() = started_event().event().started().state();  // no your_side
  deliver(state);
  controller_.on_line("resign");
  ASSERT_FALSE(sent_.empty());
  EXPECT_TRUE(sent_.back().has_resign());
}

// A replay or export is forgotten once answered, by its record or by an
// error, and when the connection is lost.
TEST_F(ControllerTest, AnsweredGameRequestsAreForgotten) {
  greet();
  EXPECT_EQ(controller_.unanswered(), 0u);
  controller_.on_line("replay m9");
  ASSERT_EQ(sent_.size(), 1u);
  ASSERT_TRUE(sent_[0].has_get_game());
  EXPECT_EQ(controller_.unanswered(), 1u);
  v1::ServerMessage error;
  error.set_request_id(sent_[0].request_id());
  error.mutable_error()->set_code(v1::ERROR_UNKNOWN_MATCH);
  error.mutable_error()->set_message("no game \"m9\"");
  deliver(error);
  EXPECT_EQ(controller_.unanswered(), 0u);

  sent_.clear();
  controller_.on_line("replay m8");
  ASSERT_EQ(sent_.size(), 1u);
  v1::ServerMessage record;
  record.set_request_id(sent_[0].request_id());
  record.mutable_game_record()->mutable_game()->set_match_id("m8");
  record.mutable_game_record()->mutable_game()->set_variant("tictactoe");
  deliver(record);
  EXPECT_NE(out_.find("replay id=m8"), std::string::npos) << out_;
  EXPECT_EQ(controller_.unanswered(), 0u);

  sent_.clear();
  controller_.on_line("export m7");
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(controller_.unanswered(), 1u);
  controller_.on_disconnected("gone");
  EXPECT_EQ(controller_.unanswered(), 0u);
}

TEST_F(ControllerTest, MovesAreListedInPairs) {
  greet();
  controller_.on_line("moves");
  EXPECT_NE(out_.find("error code=NO_MATCH"), std::string::npos) << out_;
  deliver(started_event());
  deliver(move_event(2, v1::SIDE_FIRST, "b2"));
  deliver(move_event(3, v1::SIDE_SECOND, "a1"));
  deliver(move_event(4, v1::SIDE_FIRST, "c3"));
  out_.clear();
  controller_.on_line("moves");
  EXPECT_EQ(out_, "moves match=m1 ply=3 pairs=\"1. b2 a1  2. c3\"\n");
}

TEST_F(ControllerTest, PasswordsAreAskedForAndNeverRunAsCommands) {
  greet();
  controller_.on_line("password");
  EXPECT_TRUE(controller_.asking_secret());
  EXPECT_NE(out_.find("ask prompt=\"New password: \""), std::string::npos) << out_;
  EXPECT_TRUE(sent_.empty());
  controller_.on_line("resign");  // a password, whatever it looks like
  EXPECT_FALSE(controller_.asking_secret());
  ASSERT_EQ(sent_.size(), 1u);
  ASSERT_TRUE(sent_[0].has_set_password());
  EXPECT_EQ(sent_[0].set_password().password(), "resign");
  EXPECT_TRUE(sent_[0].set_password().old_password().empty());
  v1::ServerMessage ok;
  ok.set_request_id(sent_[0].request_id());
  ok.mutable_ack();
  deliver(ok);
  EXPECT_NE(out_.find("password-set name=ada"), std::string::npos) << out_;
  // Now an account: a change asks for the current password first.
  sent_.clear();
  out_.clear();
  controller_.on_line("password");
  controller_.on_line("old-secret-1");
  EXPECT_NE(out_.find("ask prompt=\"Current password: \"\nask prompt=\"New password: \""),
            std::string::npos)
      << out_;
  controller_.on_line("new-secret-2");
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0].set_password().old_password(), "old-secret-1");
  EXPECT_EQ(sent_[0].set_password().password(), "new-secret-2");
}

TEST_F(ControllerTest, LoginSignsInOnANewConnectionAndFallsBackOnAWrongPassword) {
  greet();
  controller_.on_line("login Ada L");
  controller_.on_line("wrong-horse");
  EXPECT_EQ(reconnects_, 1);
  EXPECT_TRUE(sent_.empty());
  controller_.on_line("list");  // waits for the sign-in's answer
  deliver(started_event());     // the old connection's: not ours any more
  controller_.on_disconnected("closed by us");
  EXPECT_EQ(out_.find("disconnected"), std::string::npos) << out_;
  controller_.on_connected();
  ASSERT_EQ(sent_.size(), 1u);
  const auto& hello = sent_[0].hello();
  EXPECT_EQ(hello.name(), "Ada L");
  EXPECT_EQ(hello.password(), "wrong-horse");
  EXPECT_TRUE(hello.token().empty());
  // Refused: the old identity says hello again on the same connection.
  deliver(error(sent_[0].request_id(), v1::ERROR_WRONG_PASSWORD));
  EXPECT_NE(out_.find("error code=WRONG_PASSWORD"), std::string::npos) << out_;
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_EQ(sent_[1].hello().token(), "secret");
  EXPECT_TRUE(sent_[1].hello().password().empty());
  v1::ServerMessage back;
  back.set_request_id(sent_[1].request_id());
  back.mutable_welcome()->set_player_id("p1");
  back.mutable_welcome()->set_name("ada");
  deliver(back);
  ASSERT_EQ(sent_.size(), 3u);
  EXPECT_TRUE(sent_[2].has_list_matches());                     // the line that waited
  EXPECT_EQ(out_.find("match=m1"), std::string::npos) << out_;  // the dropped event

  // The right password: this device gets the account's identity and a token of its own.
  v1::ServerMessage listed;
  listed.set_request_id(sent_[2].request_id());
  listed.mutable_match_list();
  deliver(listed);
  controller_.on_line("login Ada L");
  controller_.on_line("right-horse");
  EXPECT_EQ(reconnects_, 2);
  controller_.on_disconnected("closed by us");
  controller_.on_connected();
  ASSERT_EQ(sent_.size(), 4u);
  EXPECT_EQ(sent_[3].hello().password(), "right-horse");
  v1::ServerMessage in;
  in.set_request_id(sent_[3].request_id());
  in.mutable_welcome()->set_player_id("p7");
  in.mutable_welcome()->set_name("Ada L");
  in.mutable_welcome()->set_token("device-2");
  in.mutable_welcome()->set_account(true);
  in.mutable_welcome()->set_signed_in(true);
  deliver(in);
  EXPECT_NE(out_.find("welcome player=p7 name=\"Ada L\" resumed=no matches=0 account=yes "
                      "signed-in=yes"),
            std::string::npos)
      << out_;
  EXPECT_EQ(saved_.name, "Ada L");
  EXPECT_EQ(saved_.token, "device-2");
  controller_.on_line("list");
  EXPECT_TRUE(sent_.back().has_list_matches());
}

TEST_F(ControllerTest, LoginIsRefusedWhileSeatedInALiveMatch) {
  greet();
  deliver(started_event());
  out_.clear();
  controller_.on_line("login bob");
  EXPECT_NE(out_.find("error code=IN_MATCH"), std::string::npos) << out_;
  EXPECT_FALSE(controller_.asking_secret());
  controller_.on_line("b2");  // a move, not a password
  ASSERT_FALSE(sent_.empty());
  EXPECT_TRUE(sent_.back().has_move());
  EXPECT_EQ(reconnects_, 0);
}

TEST_F(ControllerTest, LoginRunsBeforeAWelcomeWhenTheNameIsAnAccounts) {
  controller_.on_connected();
  deliver(error(sent_[0].request_id(), v1::ERROR_NAME_TAKEN));
  controller_.on_line("login ada");  // not greeted, yet it runs
  EXPECT_TRUE(controller_.asking_secret());
  controller_.on_line("pw-of-ada-1");
  EXPECT_EQ(reconnects_, 1);
}

TEST_F(ControllerSound, APersonTypesTheNewPasswordTwiceAndMayCancel) {
  greet();
  controller_.on_line("password");
  EXPECT_EQ(controller_.prompt(std::chrono::steady_clock::now()), "New password: ");
  controller_.on_line("first-try-1");
  EXPECT_EQ(controller_.prompt(std::chrono::steady_clock::now()), "New password again: ");
  controller_.on_line("first-try-2");
  EXPECT_TRUE(sent_.empty());
  EXPECT_NE(out_.find("the two new passwords differ; nothing was changed"), std::string::npos)
      << out_;
  EXPECT_EQ(out_.find("first-try"), std::string::npos) << out_;  // never printed
  // Ctrl-D at the prompt cancels; a person stays.
  controller_.on_line("password");
  controller_.on_eof();
  EXPECT_FALSE(controller_.asking_secret());
  EXPECT_FALSE(quit_);
  EXPECT_EQ(controller_.prompt(std::chrono::steady_clock::now()), "inarow> ");
  EXPECT_TRUE(sent_.empty());
}

TEST_F(ControllerSound, TheBellRingsForAPersonOnTheStartTheOpponentsMoveAndTheEnd) {
  greet();
  auto rings = [&](const v1::ServerMessage& m) {
    out_.clear();
    deliver(m);
    return static_cast<int>(std::count(out_.begin(), out_.end(), '\a'));
  };
  EXPECT_EQ(rings(started_event()), 1);
  EXPECT_EQ(rings(move_event(2, v1::SIDE_FIRST, "b2")), 0);  // our own move
  EXPECT_EQ(rings(move_event(3, v1::SIDE_SECOND, "a1")), 1);
  // Turned off: silent, and remembered in the profile.
  controller_.on_line("sound off");
  EXPECT_FALSE(saved_.sound);
  EXPECT_NE(out_.find("Sounds off."), std::string::npos) << out_;
  EXPECT_EQ(rings(move_event(4, v1::SIDE_FIRST, "c3")), 0);
  EXPECT_EQ(rings(move_event(5, v1::SIDE_SECOND, "a2")), 0);
  controller_.on_line("sound on");
  EXPECT_TRUE(saved_.sound);
  v1::ServerMessage ended;
  ended.mutable_event()->set_match_id("m1");
  ended.mutable_event()->set_seq(6);
  ended.mutable_event()->mutable_ended()->set_result(v1::RESULT_SECOND_WINS);
  ended.mutable_event()->mutable_ended()->set_reason(v1::END_REASON_RESIGNATION);
  EXPECT_EQ(rings(ended), 1);
}

TEST_F(ControllerSound, SoundIsKeptInTheProfile) {
  const inarow::testing::TempDir temp;
  const auto dir = temp.path() / "profile";  // not there yet: saving makes it
  Profile p{"ada", "tok", false};
  ASSERT_TRUE(save_profile(dir, p));
  EXPECT_FALSE(load_profile(dir).sound);
  p.sound = true;
  ASSERT_TRUE(save_profile(dir, p));
  EXPECT_TRUE(load_profile(dir).sound);
  EXPECT_TRUE(load_profile(dir / "missing").sound);  // on by default
}

// ---------------------------------------------------------------- swap2

// A gomoku-swap2 match against a bot that proposes: the bot is seated first
// and places three stones; ada, second, chooses.
class Swap2Test : public ControllerTest {
 protected:
  Swap2Test() = default;
  explicit Swap2Test(ControllerOptions options) : ControllerTest(std::move(options)) {}

  static void set_opening(v1::OpeningState* o, v1::OpeningStep step, v1::Side to_act) {
    o->set_step(step);
    o->set_to_act(to_act);
  }

  v1::MatchState swap2_state(std::uint64_t seq = 1) {
    v1::MatchState s;
    s.set_match_id("m1");
    s.set_variant("gomoku-swap2");
    s.set_kind(v1::MATCH_KIND_BOT);
    s.mutable_first()->set_id("bot-easy");
    s.mutable_first()->set_name("easy bot");
    s.mutable_second()->set_id("p1");
    s.mutable_second()->set_name("ada");
    s.set_to_move(v1::SIDE_FIRST);
    s.set_last_seq(seq);
    set_opening(s.mutable_opening(), v1::OPENING_STEP_PLACE_THREE, v1::SIDE_FIRST);
    return s;
  }

  v1::ServerMessage swap2_started() {
    v1::ServerMessage m;
    m.mutable_event()->set_match_id("m1");
    m.mutable_event()->set_seq(1);
    *m.mutable_event()->mutable_started()->mutable_state() = swap2_state();
    return m;
  }

  // A stone: its side by its ply, as always; in the opening, who acts next.
  v1::ServerMessage stone(std::uint64_t seq, int ply, const std::string& move,
                          v1::OpeningStep step = v1::OPENING_STEP_UNSPECIFIED,
                          v1::Side to_act = v1::SIDE_UNSPECIFIED) {
    v1::ServerMessage m = move_event(seq, ply % 2 == 1 ? v1::SIDE_FIRST : v1::SIDE_SECOND, move);
    m.mutable_event()->mutable_move_made()->set_ply(ply);
    if (step != v1::OPENING_STEP_UNSPECIFIED)
      set_opening(m.mutable_event()->mutable_move_made()->mutable_opening(), step, to_act);
    return m;
  }

  // The bot's three stones: then ada chooses.
  void three_stones() {
    deliver(stone(2, 1, "h8", v1::OPENING_STEP_PLACE_THREE, v1::SIDE_FIRST));
    deliver(stone(3, 2, "h9", v1::OPENING_STEP_PLACE_THREE, v1::SIDE_FIRST));
    deliver(stone(4, 3, "i8", v1::OPENING_STEP_CHOOSE, v1::SIDE_SECOND));
  }

  // A choice, with the players in their sides after it.
  v1::ServerMessage chosen(std::uint64_t seq, v1::Side by, v1::Side side, bool swapped,
                           std::optional<v1::OpeningState> opening = std::nullopt) {
    v1::ServerMessage m;
    auto* e = m.mutable_event();
    e->set_match_id("m1");
    e->set_seq(seq);
    auto* c = e->mutable_opening_chosen();
    c->set_by(by);
    c->set_side(side);
    c->set_place_two(side == v1::SIDE_UNSPECIFIED);
    c->set_swapped(swapped);
    auto* ada = swapped ? c->mutable_first() : c->mutable_second();
    auto* bot = swapped ? c->mutable_second() : c->mutable_first();
    ada->set_id("p1");
    ada->set_name("ada");
    bot->set_id("bot-easy");
    bot->set_name("easy bot");
    if (opening) *c->mutable_opening() = *opening;
    return m;
  }
};

class Swap2Pretty : public Swap2Test {
 protected:
  Swap2Pretty() : Swap2Test({false, true, {}, "ws://test/ws", "ada"}) {}
};

TEST_F(Swap2Test, TheChooserTakesBlackAndTheSidesSwap) {
  greet();
  out_.clear();
  deliver(swap2_started());
  controller_.on_line("wait turn");  // a script: waits for the bot's three stones
  controller_.on_line("choose black");
  controller_.on_line("wait turn");
  controller_.on_line("board");
  EXPECT_TRUE(sent_.empty());
  three_stones();
  EXPECT_EQ(out_,
            "started match=m1 variant=gomoku-swap2 kind=bot rated=no time=untimed "
            "first=\"easy bot\" second=ada you=second\n"
            "turn match=m1 side=first you=no opening=place-three stone=first\n"
            "move match=m1 seq=2 ply=1 side=first move=h8\n"
            "turn match=m1 side=first you=no opening=place-three stone=second\n"
            "move match=m1 seq=3 ply=2 side=second move=h9\n"
            "turn match=m1 side=first you=no opening=place-three stone=first\n"
            "move match=m1 seq=4 ply=3 side=first move=i8\n"
            "turn match=m1 side=second you=yes opening=choose stone=second\n");
  ASSERT_EQ(sent_.size(), 1u);
  ASSERT_TRUE(sent_[0].has_choose_opening());
  EXPECT_EQ(sent_[0].choose_opening().match_id(), "m1");
  EXPECT_EQ(sent_[0].choose_opening().side(), v1::SIDE_FIRST);
  EXPECT_FALSE(sent_[0].choose_opening().place_two());

  // The event comes before the answer, as the server sends them.
  out_.clear();
  deliver(chosen(5, v1::SIDE_SECOND, v1::SIDE_FIRST, /*swapped=*/true));
  deliver(ack(sent_[0].request_id()));
  EXPECT_EQ(out_,
            "opening-chosen match=m1 seq=5 by=second choice=first swapped=yes you=first "
            "first=ada second=\"easy bot\"\n"
            "turn match=m1 side=second you=no\n");
  EXPECT_EQ(sent_.size(), 1u);  // `wait turn`: the bot moves first now
  out_.clear();
  deliver(stone(6, 4, "g7"));
  EXPECT_EQ(out_.substr(0, out_.find("board ")),
            "move match=m1 seq=6 ply=4 side=second move=g7\n"
            "turn match=m1 side=first you=yes\n");
  // The stones keep their marks by ply: ada now plays the X stones the bot placed.
  EXPECT_NE(out_.find("board  9  .  .  .  .  .  .  .  O  .  .  .  .  .  .  .  9\n"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("board  8  .  .  .  .  .  .  .  X  X  .  .  .  .  .  .  8\n"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("board  7  .  .  .  .  .  . [O] .  .  .  .  .  .  .  .  7\n"),
            std::string::npos)
      << out_;
  controller_.on_line("h10");
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_EQ(sent_[1].move().move(), "h10");
}

TEST_F(Swap2Test, ChooseIsRefusedLocallyWhenNoChoiceIsPending) {
  greet();
  controller_.on_line("choose first");
  EXPECT_EQ(out_.substr(out_.rfind("error")),
            "error code=NO_MATCH message=\"you are not playing a match\"\n");
  deliver(swap2_started());
  deliver(stone(2, 1, "h8", v1::OPENING_STEP_PLACE_THREE, v1::SIDE_FIRST));
  out_.clear();
  controller_.on_line("choose black");  // the bot still places its stones
  controller_.on_line("choose two");
  EXPECT_EQ(out_,
            "error code=NO_CHOICE message=\"no choice to make: waiting for the opening stones\"\n"
            "error code=NO_CHOICE message=\"no choice to make: waiting for the opening stones\"\n");
  deliver(stone(3, 2, "h9", v1::OPENING_STEP_PLACE_THREE, v1::SIDE_FIRST));
  deliver(stone(4, 3, "i8", v1::OPENING_STEP_CHOOSE, v1::SIDE_SECOND));
  controller_.on_line("choose white");  // ada keeps O and moves on
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0].choose_opening().side(), v1::SIDE_SECOND);
  out_.clear();
  deliver(chosen(5, v1::SIDE_SECOND, v1::SIDE_SECOND, /*swapped=*/false));
  deliver(ack(sent_[0].request_id()));
  EXPECT_EQ(out_,
            "opening-chosen match=m1 seq=5 by=second choice=second swapped=no you=second "
            "first=\"easy bot\" second=ada\n"
            "turn match=m1 side=second you=yes\n");
  out_.clear();
  controller_.on_line("choose first");  // the opening is over
  EXPECT_EQ(out_, "error code=NO_CHOICE message=\"no choice to make: the opening is over\"\n");
  EXPECT_EQ(sent_.size(), 1u);
}

TEST_F(Swap2Test, ChooseInAGameWithoutAnOpeningSendsNothing) {
  greet();
  deliver(started_event());  // tictactoe
  out_.clear();
  controller_.on_line("choose first");
  EXPECT_EQ(out_,
            "error code=NO_CHOICE message=\"no choice to make: this game has no swap2 "
            "opening\"\n");
  EXPECT_TRUE(sent_.empty());
}

// `choose two`: ada places two more stones, and the bot takes a side.
TEST_F(Swap2Test, TwoMoreStonesThenTheProposerChooses) {
  greet();
  deliver(swap2_started());
  three_stones();
  controller_.on_line("choose two");
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_TRUE(sent_[0].choose_opening().place_two());
  EXPECT_EQ(sent_[0].choose_opening().side(), v1::SIDE_UNSPECIFIED);
  out_.clear();
  v1::OpeningState two;
  set_opening(&two, v1::OPENING_STEP_PLACE_TWO, v1::SIDE_SECOND);
  deliver(chosen(5, v1::SIDE_SECOND, v1::SIDE_UNSPECIFIED, false, two));
  deliver(ack(sent_[0].request_id()));
  EXPECT_EQ(out_,
            "opening-chosen match=m1 seq=5 by=second choice=two swapped=no you=second "
            "first=\"easy bot\" second=ada\n"
            "turn match=m1 side=second you=yes opening=place-two stone=second\n");
  out_.clear();
  controller_.on_line("choose first");  // stones are due
  EXPECT_EQ(out_,
            "error code=NO_CHOICE message=\"no choice to make yet: place two more stones (O "
            "then X), 0 placed\"\n");
  deliver(stone(6, 4, "g9", v1::OPENING_STEP_PLACE_TWO, v1::SIDE_SECOND));
  deliver(stone(7, 5, "j8", v1::OPENING_STEP_CHOOSE_SIDE, v1::SIDE_FIRST));
  EXPECT_NE(out_.find("turn match=m1 side=second you=yes opening=place-two stone=first\n"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("turn match=m1 side=first you=no opening=choose-side stone=second\n"),
            std::string::npos)
      << out_;
  out_.clear();
  controller_.on_line("choose first");
  EXPECT_EQ(out_,
            "error code=NO_CHOICE message=\"no choice to make: waiting for the opponent's "
            "opening choice\"\n");
  // The bot takes O: the players swap, and the bot moves.
  out_.clear();
  deliver(chosen(8, v1::SIDE_FIRST, v1::SIDE_SECOND, /*swapped=*/true));
  EXPECT_EQ(out_,
            "opening-chosen match=m1 seq=8 by=first choice=second swapped=yes you=first "
            "first=ada second=\"easy bot\"\n"
            "turn match=m1 side=second you=no\n");
  EXPECT_EQ(sent_.size(), 1u);
}

// A reconnecting player's state says where the opening stands.
TEST_F(Swap2Test, AResumedStateCarriesTheOpening) {
  greet();
  v1::ServerMessage m;
  auto& s = *m.mutable_match_state() = swap2_state(4);
  s.set_your_side(v1::SIDE_SECOND);
  s.set_to_move(v1::SIDE_SECOND);
  for (const char* move : {"h8", "h9", "i8"})
    s.add_moves(move);
  set_opening(s.mutable_opening(), v1::OPENING_STEP_CHOOSE, v1::SIDE_SECOND);
  deliver(m);
  EXPECT_EQ(out_.substr(out_.find("state ")),
            "state match=m1 variant=gomoku-swap2 kind=bot seq=4 ply=3 to-move=second you=second "
            "result=ongoing first=\"easy bot\" second=ada moves=h8,h9,i8 opening=choose\n"
            "turn match=m1 side=second you=yes opening=choose stone=second\n");
  controller_.on_line("choose two");
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_TRUE(sent_[0].choose_opening().place_two());
}

// For a person: what is asked, in the prompt and in words; the cards change
// with a swap.
TEST_F(Swap2Pretty, ThePromptSaysWhatTheOpeningAsks) {
  greet();
  auto prompt = [&] { return controller_.prompt(std::chrono::steady_clock::now()); };
  deliver(swap2_started());
  EXPECT_EQ(prompt(), "waiting for the opening stones> ");
  EXPECT_NE(out_.find("easy bot places the opening stones (0 of 3 placed)."), std::string::npos)
      << out_;
  three_stones();
  EXPECT_NE(out_.find("easy bot placed O at h9."), std::string::npos) << out_;
  EXPECT_EQ(prompt(), "choose first|second|two> ");
  EXPECT_NE(out_.find("Your choice: `choose first` to play X, `choose second` to play O, "
                      "or `choose two`"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("X easy bot    O ada (you) <"), std::string::npos) << out_;
  controller_.on_line("choose black");
  out_.clear();
  deliver(chosen(5, v1::SIDE_SECOND, v1::SIDE_FIRST, /*swapped=*/true));
  deliver(ack(sent_.back().request_id()));
  EXPECT_NE(out_.find("X ada (you)    O easy bot <"), std::string::npos) << out_;
  EXPECT_NE(out_.find("You chose to play X (first). The players swap sides: you now play X."),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("easy bot to move."), std::string::npos) << out_;
  EXPECT_EQ(prompt(), "waiting> ");
  deliver(stone(6, 4, "g7"));
  EXPECT_NE(out_.find("easy bot played g7."), std::string::npos) << out_;
  EXPECT_EQ(prompt(), "your move (X)> ");
}

// A level's bot's profile as the server sends it: rated in tic-tac-toe,
// measured in connect four only.
v1::ServerMessage hard_bot_profile(std::uint64_t request) {
  v1::ServerMessage m;
  m.set_request_id(request);
  auto* p = m.mutable_profile();
  p->set_player_id("bot-hard");
  p->set_name("hard bot");
  p->set_bot(true);
  auto* r = p->add_ratings();
  r->set_variant("tictactoe");
  r->mutable_rating()->set_rating(1611.6);
  r->mutable_rating()->set_deviation(80.2);
  r->set_games(3);
  auto* measured = p->add_measured();
  measured->set_variant("connect4");
  measured->set_level("hard");
  measured->set_elo(543.7);
  measured->set_margin(67.6);
  measured->set_anchor("beginner");
  measured->set_games(400);
  return m;
}

TEST_F(ControllerTest, ABotsProfileSaysWhatTheArenaMeasuredAndWhereNothing) {
  greet();
  controller_.on_line("profile hard bot");
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0].get_profile().name(), "hard bot");
  out_.clear();
  deliver(hard_bot_profile(sent_[0].request_id()));
  EXPECT_EQ(out_,
            "profile id=bot-hard name=\"hard bot\" kind=bot variants=1\n"
            "rating variant=tictactoe rating=1612 rd=80 games=3\n"
            "arena variant=tictactoe elo=- margin=- anchor=- games=-\n"
            "arena variant=connect4 elo=543.7 margin=67.6 anchor=beginner games=400\n");
}

TEST_F(ControllerTest, APersonsProfileHasNoArenaLines) {
  greet();
  controller_.on_line("profile");
  ASSERT_EQ(sent_.size(), 1u);
  v1::ServerMessage m = hard_bot_profile(sent_[0].request_id());
  m.mutable_profile()->set_player_id("p1");
  m.mutable_profile()->set_name("ada");
  m.mutable_profile()->set_bot(false);
  m.mutable_profile()->clear_measured();
  out_.clear();
  deliver(m);
  EXPECT_EQ(out_,
            "profile id=p1 name=ada kind=guest variants=1\n"
            "rating variant=tictactoe rating=1612 rd=80 games=3\n");
}

// For a person: the same in sentences, and the chosen level's measurement
// when they pick a bot.
class ControllerPretty : public ControllerTest {
 protected:
  ControllerPretty() : ControllerTest({false, true, {}, "ws://test/ws", "ada"}) {}
};

TEST_F(ControllerPretty, ABotsProfileSaysWhatTheArenaMeasuredAndWhereNothing) {
  greet();
  controller_.on_line("profile hard bot");
  ASSERT_EQ(sent_.size(), 1u);
  out_.clear();
  deliver(hard_bot_profile(sent_[0].request_id()));
  EXPECT_EQ(out_,
            "hard bot (bot, bot-hard):\n"
            "  tictactoe  1612 ±80  (3 rated games)\n"
            "    arena: not measured in tictactoe\n"
            "  connect4  arena: +544 Elo over beginner (±68, 400 games)\n");
}

TEST_F(ControllerPretty, PickingABotLevelSaysWhatTheArenaMeasuredInTheVariant) {
  greet();
  controller_.on_line("bot connect4 hard");
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_EQ(sent_[0].play_bot().level(), "hard");
  ASSERT_TRUE(sent_[1].has_get_profile());
  EXPECT_EQ(sent_[1].get_profile().name(), "hard bot");
  EXPECT_NE(sent_[1].request_id(), sent_[0].request_id());
  out_.clear();
  deliver(hard_bot_profile(sent_[1].request_id()));
  EXPECT_EQ(out_, "hard bot: arena: +544 Elo over beginner (±68, 400 games)\n");
  // Where the level has no measurement, it says so.
  controller_.on_line("bot tictactoe hard");
  ASSERT_EQ(sent_.size(), 4u);
  out_.clear();
  deliver(hard_bot_profile(sent_[3].request_id()));
  EXPECT_EQ(out_, "hard bot: arena: not measured in tictactoe\n");
  // An error to it (a server that does not know the level) is the bot's own
  // error's twin: not said twice.
  controller_.on_line("bot tictactoe hard");
  ASSERT_EQ(sent_.size(), 6u);
  out_.clear();
  deliver(error(sent_[5].request_id(), v1::ERROR_UNKNOWN_PLAYER));
  EXPECT_EQ(out_, "");
}

}  // namespace
}  // namespace inarow::client
