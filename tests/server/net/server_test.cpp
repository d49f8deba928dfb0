// The server over real sockets: each test starts its own server on
// 127.0.0.1 with an ephemeral port and talks to it as clients would.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "inarow/engine/game.h"
#include "inarow/engine/notation.h"
#include "inarow/testing/eventually.h"
#include "inarow/testing/messages.h"
#include "inarow/testing/process.h"
#include "inarow/testing/temp_dir.h"
#include "inarow/testing/test_server.h"
#include "inarow/testing/ws_client.h"

namespace inarow::testing {
namespace {

using Kind = v1::MatchEvent::KindCase;

v1::MatchEvent expect_event(WsClient& c, Kind kind, std::uint64_t seq) {
  v1::MatchEvent e = c.next_event();
  EXPECT_EQ(e.kind_case(), kind) << e.DebugString();
  EXPECT_EQ(e.seq(), seq) << e.DebugString();
  return e;
}

v1::ClientMessage answer_draw_message(const std::string& id, bool accept) {
  v1::ClientMessage m;
  m.mutable_answer_draw()->set_match_id(id);
  m.mutable_answer_draw()->set_accept(accept);
  return m;
}
v1::ClientMessage takeback_message(const std::string& id) {
  v1::ClientMessage m;
  m.mutable_request_takeback()->set_match_id(id);
  return m;
}
v1::ClientMessage answer_takeback_message(const std::string& id, bool accept) {
  v1::ClientMessage m;
  m.mutable_answer_takeback()->set_match_id(id);
  m.mutable_answer_takeback()->set_accept(accept);
  return m;
}

// Two players paired by seeking; `a` seeks first and so plays first.
struct Paired {
  Paired(std::uint16_t port, const std::string& variant = "tictactoe", std::int64_t initial = 0,
         std::int64_t increment = 0)
      : a(port), b(port) {
    a.hello("alice");
    b.hello("bob");
    expect_ack(a.seek(variant, initial, increment));
    expect_ack(b.seek(variant, initial, increment));
    auto sa = a.next_event();
    auto sb = b.next_event();
    EXPECT_TRUE(sa.has_started());
    EXPECT_EQ(sa.seq(), 1u);
    EXPECT_EQ(sa.match_id(), sb.match_id());
    EXPECT_EQ(sa.started().state().first().id(), a.player_id());
    EXPECT_EQ(sa.started().state().second().id(), b.player_id());
    match = sa.match_id();
  }
  WsClient a, b;
  std::string match;
};

// Moves alternately starting with a (or b), checking both players see each one.
void play_moves(Paired& p, std::initializer_list<const char*> moves, std::uint64_t first_seq,
                bool a_first = true) {
  std::uint64_t seq = first_seq;
  int i = a_first ? 0 : 1;
  for (const char* mv : moves) {
    WsClient& mover = i % 2 == 0 ? p.a : p.b;
    expect_ack(mover.move(p.match, mv));
    for (WsClient* c : {&p.a, &p.b}) {
      auto e = expect_event(*c, Kind::kMoveMade, seq);
      EXPECT_EQ(e.move_made().move(), mv);
    }
    ++seq;
    ++i;
  }
}

// ---------------------------------------------------------------- hello

TEST(ServerHello, WelcomesWithAnIdAndAToken) {
  TestServer server;
  WsClient c(server.port());
  auto w = c.hello("alice");
  EXPECT_EQ(w.name(), "alice");
  EXPECT_EQ(w.player_id().size(), 17u);  // "p" + 16 hex digits
  EXPECT_EQ(w.token().size(), 32u);
  EXPECT_FALSE(w.resumed());
  EXPECT_EQ(w.protocol_version(), 1u);

  WsClient again(server.port());
  auto r = again.resume(w.token());
  EXPECT_TRUE(r.resumed());
  EXPECT_EQ(r.player_id(), w.player_id());
  EXPECT_EQ(r.name(), "alice");
  EXPECT_TRUE(r.token().empty());  // the secret is not repeated
}

TEST(ServerHello, JsonTextFramesAreAnsweredInJson) {
  TestServer server;
  WsClient c(server.port(), /*text=*/true);
  auto w = c.hello("jason");  // the harness checks every answer came as text
  EXPECT_EQ(w.name(), "jason");
  c.send_raw(R"({"requestId":"77","ping":{}})", true);
  auto pong = c.next();
  ASSERT_TRUE(pong);
  EXPECT_TRUE(pong->has_pong());
  EXPECT_EQ(pong->request_id(), 77u);
}

TEST(ServerHello, RefusesWhatIsNotAProperHello) {
  TestServer server;
  WsClient c(server.port());
  expect_error(c.request(ping_message()), v1::ERROR_HELLO_REQUIRED);

  v1::ClientMessage old;
  old.mutable_hello()->set_protocol_version(2);
  old.mutable_hello()->set_name("x");
  expect_error(c.request(old), v1::ERROR_BAD_VERSION);

  v1::ClientMessage bad_token;
  bad_token.mutable_hello()->set_protocol_version(1);
  bad_token.mutable_hello()->set_token("not-a-token");
  expect_error(c.request(bad_token), v1::ERROR_BAD_TOKEN);

  c.hello("late");
  v1::ClientMessage twice;
  twice.mutable_hello()->set_protocol_version(1);
  twice.mutable_hello()->set_name("again");
  expect_error(c.request(twice), v1::ERROR_ALREADY_GREETED);
  EXPECT_TRUE(c.request(ping_message()).has_pong());
}

TEST(ServerHello, MalformedAndUnknownMessagesGetTypedErrors) {
  TestServer server;
  WsClient c(server.port());
  c.hello("fuzz");
  c.send_raw(std::string("\xff\xff\xff\x0f garbage", 12), false);
  auto m1 = c.next();
  ASSERT_TRUE(m1);
  expect_error(*m1, v1::ERROR_MALFORMED);

  c.send_raw("{not json", true);
  auto m2 = c.next();
  ASSERT_TRUE(m2);
  expect_error(*m2, v1::ERROR_MALFORMED);

  c.send_raw(R"({"requestId":"5","teleport":{"to":"mars"}})", true);
  auto m3 = c.next();
  ASSERT_TRUE(m3);
  expect_error(*m3, v1::ERROR_UNKNOWN_MESSAGE);
  EXPECT_EQ(m3->request_id(), 5u);

  // Still connected and served.
  EXPECT_TRUE(c.request(ping_message()).has_pong());
}

// ---------------------------------------------------------------- people

TEST(ServerSeek, TwoPlayersPlayToAWin) {
  TestServer server;
  Paired p(server.port());
  play_moves(p, {"a1", "b1", "a2", "b2", "a3"}, 2);
  for (WsClient* c : {&p.a, &p.b}) {
    auto end = expect_event(*c, Kind::kEnded, 7);
    EXPECT_EQ(end.ended().result(), v1::RESULT_FIRST_WINS);
    EXPECT_EQ(end.ended().reason(), v1::END_REASON_LINE);
    EXPECT_EQ(end.ended().winning_line_size(), 3);
    // Rated: both start at 1500 and the winner gains what the loser loses.
    ASSERT_EQ(end.ended().ratings_size(), 2);
    EXPECT_EQ(end.ended().ratings(0).player_id(), p.a.player_id());
    EXPECT_DOUBLE_EQ(end.ended().ratings(0).before().rating(), 1500.0);
    EXPECT_NEAR(end.ended().ratings(0).after().rating(), 1662.31, 0.01);
    EXPECT_NEAR(end.ended().ratings(1).after().rating(), 1337.69, 0.01);
  }
  expect_error(p.b.move(p.match, "c3"), v1::ERROR_MATCH_OVER);

  // The record is served over HTTP, and the moves were counted.
  auto record = http_get(server.port(), "/matches/" + p.match);
  EXPECT_EQ(record.status, 200);
  EXPECT_EQ(record.content_type, "application/json");
  EXPECT_NE(record.body.find("\"notation\":\"a1b1a2b2a3\""), std::string::npos) << record.body;
  EXPECT_NE(record.body.find("\"result\":\"RESULT_FIRST_WINS\""), std::string::npos);
  auto metrics = http_get(server.port(), "/metrics");
  EXPECT_NE(metrics.body.find("\ninarow_moves_total 5\n"), std::string::npos) << metrics.body;
  EXPECT_NE(metrics.body.find("inarow_matches_started_total{kind=\"seek\"} 1\n"),
            std::string::npos);
  EXPECT_NE(metrics.body.find("inarow_errors_total{code=\"match_over\"} 1\n"), std::string::npos);
}

// After a player's first command in a match, its commands go straight to the
// match; once the match is forgotten (its grace over) that shortcut is gone
// too, and the answer is the hub's: no such match.
TEST(ServerSeek, AForgottenMatchTakesNoMoreCommands) {
  auto config = test_config();
  config.reconnect_grace = 200ms;
  TestServer server(config);
  Paired p(server.port());
  // The grace starts when the server ends the match: after this, and before
  // the players hear of it.
  const auto before_end = std::chrono::steady_clock::now();
  play_moves(p, {"a1", "b1", "a2", "b2", "a3"}, 2);
  for (WsClient* c : {&p.a, &p.b})
    expect_event(*c, Kind::kEnded, 7);
  const auto ended = std::chrono::steady_clock::now();
  expect_error(p.b.move(p.match, "c3"), v1::ERROR_MATCH_OVER);  // lingering
  // Until the grace is over the match lingers; then it is forgotten, and
  // nothing else is ever the answer.
  ASSERT_TRUE(eventually([&] {
    const auto answer = p.b.move(p.match, "c3");
    EXPECT_TRUE(answer.has_error()) << answer.DebugString();
    if (answer.error().code() == v1::ERROR_MATCH_OVER) {
      EXPECT_LT(std::chrono::steady_clock::now() - ended, config.reconnect_grace + 2s);
      return false;
    }
    expect_error(answer, v1::ERROR_UNKNOWN_MATCH);
    return true;
  }));
  EXPECT_GE(std::chrono::steady_clock::now() - before_end, config.reconnect_grace);
  expect_error(p.a.request(resign_message(p.match)), v1::ERROR_UNKNOWN_MATCH);
}

TEST(ServerSeek, TwoPlayersPlayToADraw) {
  TestServer server;
  Paired p(server.port());
  play_moves(p, {"b2", "a1", "c1", "a3", "a2", "c2", "b1", "b3", "c3"}, 2);
  for (WsClient* c : {&p.a, &p.b}) {
    auto end = expect_event(*c, Kind::kEnded, 11);
    EXPECT_EQ(end.ended().result(), v1::RESULT_DRAW);
    EXPECT_EQ(end.ended().reason(), v1::END_REASON_BOARD_FULL);
    EXPECT_NEAR(end.ended().ratings(0).after().rating(), 1500.0, 1e-9);
  }
}

TEST(ServerSeek, BadInputInAMatchChangesNothing) {
  TestServer server;
  Paired p(server.port());
  play_moves(p, {"b2"}, 2);
  expect_error(p.a.move(p.match, "a1"), v1::ERROR_NOT_YOUR_TURN);
  expect_error(p.b.move(p.match, "b2"), v1::ERROR_ILLEGAL_MOVE);
  expect_error(p.b.move(p.match, "z9"), v1::ERROR_ILLEGAL_MOVE);
  expect_error(p.b.move("m-nope", "a1"), v1::ERROR_UNKNOWN_MATCH);
  WsClient stranger(server.port());
  stranger.hello("eve");
  expect_error(stranger.move(p.match, "a1"), v1::ERROR_NOT_SEATED);
  expect_error(stranger.request(resign_message(p.match)), v1::ERROR_NOT_SEATED);
  expect_ack(p.b.seek("tictactoe"));
  expect_error(p.b.seek("tictactoe"), v1::ERROR_ALREADY_SEEKING);
  expect_error(p.b.seek("chess"), v1::ERROR_UNKNOWN_VARIANT);

  auto state = stranger.request(watch_message(p.match));
  ASSERT_TRUE(state.has_match_state()) << state.DebugString();
  EXPECT_EQ(state.match_state().moves_size(), 1);
  EXPECT_EQ(state.match_state().moves(0), "b2");
  EXPECT_EQ(state.match_state().last_seq(), 2u);
  EXPECT_EQ(state.match_state().to_move(), v1::SIDE_SECOND);
  // Nothing was broadcast for the failures: the next event is the next move.
  play_moves(p, {"a1"}, 3, /*a_first=*/false);
}

TEST(ServerSeek, SpectatorSeesTheStateThenEveryMove) {
  TestServer server;
  Paired p(server.port());
  play_moves(p, {"b2"}, 2);
  WsClient watcher(server.port());
  watcher.hello("carol");
  auto list = watcher.request([] {
    v1::ClientMessage m;
    m.mutable_list_matches();
    return m;
  }());
  ASSERT_TRUE(list.has_match_list());
  ASSERT_EQ(list.match_list().matches_size(), 1);
  EXPECT_EQ(list.match_list().matches(0).match_id(), p.match);
  EXPECT_EQ(list.match_list().matches(0).ply(), 1);
  EXPECT_EQ(list.match_list().matches(0).first().name(), "alice");

  auto state = watcher.request(watch_message(p.match, /*after=*/1));
  // after_seq 1: the move b2 (seq 2) is replayed first, then the state.
  ASSERT_TRUE(state.has_match_state());
  EXPECT_EQ(state.match_state().your_side(), v1::SIDE_UNSPECIFIED);
  EXPECT_EQ(state.match_state().last_seq(), 2u);
  auto replayed = expect_event(watcher, Kind::kMoveMade, 2);
  EXPECT_EQ(replayed.move_made().move(), "b2");

  play_moves(p, {"a1", "c3", "a3", "a2"}, 3, /*a_first=*/false);
  for (const char* mv : {"a1", "c3", "a3", "a2"}) {
    auto e = watcher.next_event();
    EXPECT_EQ(e.move_made().move(), mv);
  }
  expect_error(watcher.move(p.match, "b1"), v1::ERROR_NOT_SEATED);
  play_moves(p, {"b1"}, 7, /*a_first=*/false);
  auto last = watcher.next_event();
  EXPECT_EQ(last.seq(), 7u);
  EXPECT_EQ(last.move_made().move(), "b1");
}

TEST(ServerPrivate, FriendJoinsByCode) {
  TestServer server;
  WsClient a(server.port()), b(server.port());
  a.hello("host");
  b.hello("friend");
  v1::ClientMessage create;
  create.mutable_create_private()->set_variant("connect4");
  create.mutable_create_private()->set_side(v1::SIDE_SECOND);
  auto ack = a.request(create);
  expect_ack(ack);
  const std::string code = ack.ack().code();
  EXPECT_EQ(code.size(), 6u);

  v1::ClientMessage join;
  join.mutable_join_private()->set_code("NOPE42");
  expect_error(b.request(join), v1::ERROR_UNKNOWN_CODE);
  join.mutable_join_private()->set_code(code);
  expect_error(a.request(join), v1::ERROR_BAD_REQUEST);  // not one's own game
  auto joined = b.request(join);
  expect_ack(joined);
  const std::string match = joined.ack().match_id();
  for (WsClient* c : {&a, &b}) {
    auto e = expect_event(*c, Kind::kStarted, 1);
    EXPECT_EQ(e.match_id(), match);
    EXPECT_EQ(e.started().state().variant(), "connect4");
    EXPECT_EQ(e.started().state().kind(), v1::MATCH_KIND_PRIVATE);
    EXPECT_EQ(e.started().state().first().id(), b.player_id());  // the host chose second
  }
  expect_ack(b.move(match, "4"));
  EXPECT_EQ(expect_event(a, Kind::kMoveMade, 2).move_made().move(), "4");
  expect_error(b.request(join), v1::ERROR_UNKNOWN_CODE);  // a code is good once
}

TEST(ServerPeople, ResignDrawsAndTakebacks) {
  TestServer server;
  Paired p(server.port());
  play_moves(p, {"b2", "a1", "c3"}, 2);

  // Takeback: b asks with a to move, so its a1 and a's c3 go.
  expect_ack(p.b.request(takeback_message(p.match)));
  expect_error(p.b.request(answer_takeback_message(p.match, true)), v1::ERROR_NO_OFFER);
  expect_ack(p.a.request(answer_takeback_message(p.match, true)));
  for (WsClient* c : {&p.a, &p.b}) {
    expect_event(*c, Kind::kTakebackRequested, 5);
    auto done = expect_event(*c, Kind::kTakebackDone, 6);
    EXPECT_EQ(done.takeback_done().undone(), 2);
    ASSERT_EQ(done.takeback_done().moves_size(), 1);
    EXPECT_EQ(done.takeback_done().moves(0), "b2");
  }
  // Declined takeback.
  expect_ack(p.a.request(takeback_message(p.match)));
  expect_ack(p.b.request(answer_takeback_message(p.match, false)));
  for (WsClient* c : {&p.a, &p.b}) {
    expect_event(*c, Kind::kTakebackRequested, 7);
    expect_event(*c, Kind::kTakebackDeclined, 8);
  }
  // Draw offered and declined, then offered and accepted.
  expect_error(p.a.request(answer_draw_message(p.match, true)), v1::ERROR_NO_OFFER);
  expect_ack(p.a.request(offer_draw_message(p.match)));
  expect_ack(p.b.request(answer_draw_message(p.match, false)));
  expect_ack(p.b.request(offer_draw_message(p.match)));
  expect_ack(p.a.request(answer_draw_message(p.match, true)));
  for (WsClient* c : {&p.a, &p.b}) {
    expect_event(*c, Kind::kDrawOffered, 9);
    expect_event(*c, Kind::kDrawDeclined, 10);
    expect_event(*c, Kind::kDrawOffered, 11);
    auto end = expect_event(*c, Kind::kEnded, 12);
    EXPECT_EQ(end.ended().result(), v1::RESULT_DRAW);
    EXPECT_EQ(end.ended().reason(), v1::END_REASON_AGREEMENT);
  }
  expect_error(p.a.request(resign_message(p.match)), v1::ERROR_MATCH_OVER);

  Paired q(server.port());
  expect_ack(q.b.request(resign_message(q.match)));
  auto end = expect_event(q.a, Kind::kEnded, 2);
  EXPECT_EQ(end.ended().result(), v1::RESULT_ABORTED);  // resigned before any move
  EXPECT_EQ(end.ended().reason(), v1::END_REASON_RESIGNATION);
}

// ---------------------------------------------------------------- clocks

TEST(ServerClock, TheFlagFallsOnTheServersTimer) {
  TestServer server;
  Paired p(server.port(), "tictactoe", 400, 0);
  const auto t0 = std::chrono::steady_clock::now();
  expect_ack(p.a.move(p.match, "b2"));
  auto moved = expect_event(p.b, Kind::kMoveMade, 2);
  EXPECT_EQ(moved.clocks().running(), v1::SIDE_SECOND);
  EXPECT_LE(moved.clocks().first_ms(), 400);
  EXPECT_EQ(moved.clocks().second_ms(), 400);
  // b never moves.
  auto end = p.b.next_event(3s);
  const auto waited = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(end.has_ended()) << end.DebugString();
  EXPECT_EQ(end.seq(), 3u);
  EXPECT_EQ(end.ended().result(), v1::RESULT_ABORTED);  // b never moved
  EXPECT_EQ(end.ended().reason(), v1::END_REASON_TIMEOUT);
  EXPECT_EQ(end.clocks().second_ms(), 0);
  EXPECT_GE(waited, 350ms);
  EXPECT_LT(waited, 2s);
}

TEST(ServerClock, AnAbsentPlayerOfAnUntimedMatchForfeitsAfterTheGrace) {
  auto config = test_config();
  config.reconnect_grace = 300ms;
  TestServer server(config);
  Paired p(server.port());
  p.b.drop();
  auto gone = expect_event(p.a, Kind::kPresence, 2);
  EXPECT_EQ(gone.presence().side(), v1::SIDE_SECOND);
  EXPECT_FALSE(gone.presence().connected());
  auto end = expect_event(p.a, Kind::kEnded, 3);
  EXPECT_EQ(end.ended().result(), v1::RESULT_ABORTED);  // left before any move
  EXPECT_EQ(end.ended().reason(), v1::END_REASON_ABANDONED);
}

// ---------------------------------------------------------------- resume

TEST(ServerResume, ADroppedPlayerComesBackWithTheMissedEvents) {
  TestServer server;
  Paired p(server.port());
  play_moves(p, {"b2"}, 2);
  const std::string token = p.a.token();
  p.a.drop();
  auto gone = expect_event(p.b, Kind::kPresence, 3);
  EXPECT_FALSE(gone.presence().connected());
  expect_ack(p.b.move(p.match, "a1"));
  expect_event(p.b, Kind::kMoveMade, 4);

  WsClient back(server.port());
  auto w = back.resume(token, {{p.match, 2}});
  ASSERT_EQ(w.matches_size(), 1);
  EXPECT_EQ(w.matches(0), p.match);
  expect_event(back, Kind::kPresence, 3);
  auto missed = expect_event(back, Kind::kMoveMade, 4);
  EXPECT_EQ(missed.move_made().move(), "a1");
  auto state = back.next();
  ASSERT_TRUE(state && state->has_match_state());
  EXPECT_EQ(state->match_state().last_seq(), 4u);
  EXPECT_EQ(state->match_state().your_side(), v1::SIDE_FIRST);
  ASSERT_EQ(state->match_state().moves_size(), 2);
  EXPECT_EQ(state->match_state().moves(1), "a1");
  auto here = expect_event(back, Kind::kPresence, 5);
  EXPECT_TRUE(here.presence().connected());
  expect_event(p.b, Kind::kPresence, 5);

  expect_ack(back.move(p.match, "c3"));
  EXPECT_EQ(expect_event(p.b, Kind::kMoveMade, 6).move_made().move(), "c3");
}

// ---------------------------------------------------------------- bots

// Plays a bot to the end with random legal moves, following the game locally.
void play_bot_to_the_end(std::uint16_t port, const std::string& variant_name,
                         const std::string& level, v1::Side side, std::int64_t initial_ms,
                         std::uint64_t seed) {
  SCOPED_TRACE(variant_name + " vs " + level);
  WsClient c(port);
  c.hello("human");
  auto ack = c.play_bot(variant_name, level, side, initial_ms, initial_ms / 50);
  ASSERT_TRUE(ack.has_ack()) << ack.DebugString();
  const std::string match = ack.ack().match_id();
  const Variant variant = *Variant::parse(variant_name);
  Game game(variant);
  std::mt19937_64 rng(seed);
  const Side mine = side == v1::SIDE_SECOND ? Side::second : Side::first;
  std::uint64_t seq = 0;
  for (;;) {
    auto e = c.next_event(60s);
    ASSERT_EQ(e.seq(), seq + 1) << e.DebugString();
    seq = e.seq();
    if (e.has_ended()) {
      const auto outcome = game.outcome();
      const auto expected = outcome == inarow::Outcome::first_wins    ? v1::RESULT_FIRST_WINS
                            : outcome == inarow::Outcome::second_wins ? v1::RESULT_SECOND_WINS
                            : outcome == inarow::Outcome::draw        ? v1::RESULT_DRAW
                                                                      : v1::RESULT_UNSPECIFIED;
      if (e.ended().reason() == v1::END_REASON_TIMEOUT) {
        // The side to move ran out of time: its clock shows 0, the other wins.
        ASSERT_FALSE(game.over()) << "a flag fell after the game was decided";
        const bool first_flagged = game.to_move() == Side::first;
        EXPECT_EQ(first_flagged ? e.clocks().first_ms() : e.clocks().second_ms(), 0);
        EXPECT_EQ(e.ended().result(),
                  first_flagged ? v1::RESULT_SECOND_WINS : v1::RESULT_FIRST_WINS);
      } else {
        EXPECT_EQ(e.ended().result(), expected);
      }
      EXPECT_EQ(e.ended().ratings_size(), 2);
      return;
    }
    if (e.has_move_made()) {
      ASSERT_TRUE(game.play(e.move_made().move()));
    }
    const bool turn_passed = e.has_started() || e.has_move_made();
    if (turn_passed && !game.over() && game.to_move() == mine) {
      auto legal = game.legal_moves();
      const Cell cell = legal[rng() % legal.size()];
      auto reply = c.move(match, format_move(variant, cell));
      ASSERT_TRUE(reply.has_ack()) << reply.DebugString();
    }
  }
}

TEST(ServerBots, APersonPlaysBotsToTheEndInEveryVariant) {
  TestServer server;
  const auto port = server.port();
  std::uint64_t seed = 1;
  for (const char* level : {"beginner", "easy", "medium", "hard", "expert", "master"}) {
    play_bot_to_the_end(port, "tictactoe", level, v1::SIDE_FIRST, 0, seed++);
    play_bot_to_the_end(port, "tictactoe", level, v1::SIDE_SECOND, 5000, seed++);
  }
  for (const char* level : {"beginner", "easy", "medium"}) {
    play_bot_to_the_end(port, "connect4", level, v1::SIDE_FIRST, 5000, seed++);
  }
  play_bot_to_the_end(port, "gomoku", "beginner", v1::SIDE_SECOND, 5000, seed++);
  play_bot_to_the_end(port, "mnk:5,5,4", "easy", v1::SIDE_FIRST, 5000, seed++);
  play_bot_to_the_end(port, "mnk:6,5,4,gravity", "easy", v1::SIDE_SECOND, 5000, seed++);
}

TEST(ServerBots, ABotGrantsATakeback) {
  TestServer server;
  WsClient c(server.port());
  c.hello("sorry");
  auto ack = c.play_bot("tictactoe", "medium", v1::SIDE_FIRST);
  const std::string match = ack.ack().match_id();
  expect_event(c, Kind::kStarted, 1);
  expect_ack(c.move(match, "a1"));
  expect_event(c, Kind::kMoveMade, 2);
  expect_event(c, Kind::kMoveMade, 3);  // the bot's reply
  expect_ack(c.request(takeback_message(match)));
  expect_event(c, Kind::kTakebackRequested, 4);
  auto done = expect_event(c, Kind::kTakebackDone, 5);
  EXPECT_EQ(done.takeback_done().undone(), 2);
  EXPECT_EQ(done.takeback_done().moves_size(), 0);
  expect_ack(c.move(match, "b2"));
  EXPECT_EQ(expect_event(c, Kind::kMoveMade, 6).move_made().move(), "b2");
  expect_error(c.play_bot("tictactoe", "grandmaster"), v1::ERROR_UNKNOWN_LEVEL);
}

TEST(ServerBots, BotsPlayEachOtherWhileSomeoneWatches) {
  TestServer server;
  WsClient c(server.port());
  c.hello("fan");
  v1::ClientMessage start;
  start.mutable_start_bot_match()->set_variant("tictactoe");
  start.mutable_start_bot_match()->set_first_level("beginner");
  start.mutable_start_bot_match()->set_second_level("master");
  auto ack = c.request(start);
  expect_ack(ack);
  Game game(Variant::tictactoe());
  auto state = c.next_until([](const v1::ServerMessage& m) { return m.has_match_state(); });
  ASSERT_TRUE(state);
  for (const auto& mv : state->match_state().moves())
    ASSERT_TRUE(game.play(mv));
  std::uint64_t seq = state->match_state().last_seq();
  while (state->match_state().result() == v1::RESULT_UNSPECIFIED) {
    auto e = c.next_event(30s);
    ASSERT_EQ(e.seq(), seq + 1);
    seq = e.seq();
    if (e.has_ended()) {
      EXPECT_NE(e.ended().result(), v1::RESULT_FIRST_WINS);  // master never loses tic-tac-toe
      break;
    }
    ASSERT_TRUE(e.has_move_made());
    ASSERT_TRUE(game.play(e.move_made().move()));
  }
  EXPECT_TRUE(game.over());
}

// Every thread of this process: its name and its nice value.
std::vector<std::pair<std::string, int>> threads_and_nice() {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    const std::string stat = inarow::testing::read_file(task.path() / "stat");
    const auto paren = stat.rfind(')');
    // A thread that ended while we looked is not listed.
    if (!std::getline(comm, name) || paren == std::string::npos) continue;
    // After "pid (comm) ": the state is field 3, the nice value field 19.
    std::istringstream fields(stat.substr(paren + 2));
    std::string field;
    int i = 3;
    while (i <= 19 && fields >> field)
      ++i;
    if (i != 20) continue;
    out.emplace_back(name, std::stoi(field));
  }
  return out;
}

TEST(ServerBots, BotWorkersRunNicerThanThePeoplesThreads) {
  auto config = test_config();
  config.threads = 2;
  config.bot_threads = 3;
  config.bot_nice = 7;
  TestServer server(config);
  std::vector<int> bots, others;
  for (const auto& [name, nice] : threads_and_nice())
    (name == "inarow-bot" ? bots : others).push_back(nice);
  EXPECT_EQ(bots, (std::vector<int>{7, 7, 7}));
  // The I/O threads, the store writer, this one: as they were, at the nice
  // value this process was started with (a niced CI run starts above 0).
  errno = 0;
  const int base = getpriority(PRIO_PROCESS, 0);
  ASSERT_EQ(errno, 0);
  ASSERT_GE(others.size(), 4u);
  EXPECT_EQ(std::count(others.begin(), others.end(), base), static_cast<long>(others.size()));
}

// ---------------------------------------------------------------- limits

TEST(ServerLimits, AFrameOverTheLimitClosesWith1009) {
  auto config = test_config();
  config.max_frame_bytes = 1024;
  TestServer server(config);
  WsClient c(server.port());
  c.hello("big");
  c.send_raw(std::string(4000, 'x'), false);
  EXPECT_FALSE(c.next(3s));
  EXPECT_TRUE(c.closed());
  EXPECT_EQ(c.close_code(), 1009);
}

TEST(ServerLimits, AFloodIsRateLimitedThenDisconnected) {
  auto config = test_config();
  config.rate_per_second = 1;
  config.rate_burst = 5;
  config.rate_strikes = 3;
  TestServer server(config);
  WsClient c(server.port());
  for (int i = 0; i < 12; ++i)
    c.send(ping_message());
  int answered = 0;
  int limited = 0;
  while (auto m = c.next(3s)) {
    if (m->has_error() && m->error().code() == v1::ERROR_RATE_LIMITED) {
      ++limited;
    } else {
      ++answered;  // hello_required: the budget let it through
    }
  }
  // Answers to the five admitted messages come back from the lobby and may
  // lose the race with the close; the three refusals never do.
  EXPECT_LE(answered, 5);
  EXPECT_EQ(limited, 3);
  EXPECT_TRUE(c.closed());
  EXPECT_EQ(c.close_code(), 1008);
}

TEST(ServerLimits, TooManyConnectionsFromOneAddress) {
  auto config = test_config();
  config.max_connections_per_ip = 2;
  TestServer server(config);
  WsClient a(server.port()), b(server.port());
  a.hello("a");
  b.hello("b");
  WsClient c(server.port());
  auto m = c.next();
  ASSERT_TRUE(m);
  expect_error(*m, v1::ERROR_TOO_MANY_CONNECTIONS);
  EXPECT_FALSE(c.next(3s));
  EXPECT_EQ(c.close_code(), 1008);
  EXPECT_EQ(server.server().metrics().connections_rejected.load(), 1u);
  // Once one leaves (the server has let its connection go), there is room again.
  a.close();
  ASSERT_TRUE(eventually([&] { return server.server().metrics().connections_open.load() == 1; }));
  WsClient d(server.port());
  EXPECT_EQ(d.hello("d").name(), "d");
}

// ---------------------------------------------------------------- http

TEST(ServerHttp, HealthMetricsAndUnknownPaths) {
  TestServer server;
  auto health = http_get(server.port(), "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, "ok\n");
  WsClient c(server.port());
  c.hello("m");
  auto metrics = http_get(server.port(), "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("\ninarow_connections 1\n"), std::string::npos) << metrics.body;
  EXPECT_NE(metrics.body.find("# TYPE inarow_store_commit_seconds histogram"), std::string::npos);
  EXPECT_EQ(http_get(server.port(), "/matches/nope").status, 404);
  EXPECT_EQ(http_get(server.port(), "/nowhere").status, 404);
}

// ---------------------------------------------------------------- store

TEST(ServerStore, ARestartedServerRestoresAnUnfinishedMatch) {
  TempDir dir;
  const auto db = dir.path() / "restore.db";
  auto config = test_config();
  config.store = db.string();
  std::string token, match;
  {
    TestServer server(config);
    WsClient c(server.port());
    token = c.hello("patient").token();
    auto ack = c.play_bot("tictactoe", "beginner", v1::SIDE_FIRST);
    match = ack.ack().match_id();
    expect_event(c, Kind::kStarted, 1);
    expect_ack(c.move(match, "b2"));
    expect_event(c, Kind::kMoveMade, 2);
    expect_event(c, Kind::kMoveMade, 3);
  }
  TestServer server(config);
  WsClient c(server.port());
  auto w = c.resume(token);
  ASSERT_EQ(w.matches_size(), 1);
  EXPECT_EQ(w.matches(0), match);
  auto state = c.next_until([](const v1::ServerMessage& m) { return m.has_match_state(); });
  ASSERT_TRUE(state);
  ASSERT_EQ(state->match_state().moves_size(), 2);
  EXPECT_EQ(state->match_state().moves(0), "b2");
  EXPECT_EQ(state->match_state().to_move(), v1::SIDE_FIRST);
  // A live match's record is what its logged events say so far.
  auto live = http_get(server.port(), "/matches/" + match);
  EXPECT_EQ(live.status, 200);
  EXPECT_NE(live.body.find("\"notation\":\"b2" + state->match_state().moves(1) + "\""),
            std::string::npos)
      << live.body;
  EXPECT_NE(live.body.find("\"result\":\"RESULT_UNSPECIFIED\""), std::string::npos) << live.body;

  // The game goes on to its end.
  Game game(Variant::tictactoe());
  for (const auto& mv : state->match_state().moves())
    ASSERT_TRUE(game.play(mv));
  bool turn_passed = true;
  for (;;) {
    if (turn_passed && !game.over() && game.to_move() == Side::first) {
      const Cell cell = game.legal_moves().front();
      expect_ack(c.move(match, format_move(game.variant(), cell)));
    }
    auto e = c.next_event(10s);
    if (e.has_ended()) break;
    turn_passed = e.has_move_made();
    if (e.has_move_made()) {
      ASSERT_TRUE(game.play(e.move_made().move()));
    }
  }
  EXPECT_TRUE(game.over());
  auto record = http_get(server.port(), "/matches/" + match);
  EXPECT_NE(record.body.find("\"notation\":\"" + game.notation() + "\""), std::string::npos)
      << record.body;
}

// A commit that fails is never acknowledged: the mover gets an error, the
// opponent hears nothing, the match refuses further commands, and a
// restarted server resumes it from its last stored move.
TEST(ServerStore, AMoveThatCannotBeStoredIsNotAcknowledged) {
  TempDir dir;
  const auto db = dir.path() / "store-fail.db";
  auto config = test_config();
  config.store = db.string();
  config.store_busy_timeout = 200ms;
  std::string token_a, match;
  {
    TestServer server(config);
    WsClient a(server.port()), b(server.port());
    token_a = a.hello("alice").token();
    b.hello("bob");
    expect_ack(a.seek("tictactoe"));
    expect_ack(b.seek("tictactoe"));
    match = expect_event(a, Kind::kStarted, 1).match_id();
    expect_event(b, Kind::kStarted, 1);
    expect_ack(a.move(match, "a1"));
    expect_event(a, Kind::kMoveMade, 2);
    expect_event(b, Kind::kMoveMade, 2);

    // Another connection holds the database's write lock past the timeout.
    sqlite3* other = nullptr;
    ASSERT_EQ(sqlite3_open(db.string().c_str(), &other), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
    expect_error(b.move(match, "b1"), v1::ERROR_INTERNAL);
    EXPECT_FALSE(a.next(300ms)) << "the opponent was told of a move that was not stored";
    sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(other);

    expect_error(b.move(match, "b1"), v1::ERROR_INTERNAL);  // paused
    expect_error(a.request(resign_message(match)), v1::ERROR_INTERNAL);
  }
  TestServer server(config);
  WsClient a(server.port());
  auto w = a.resume(token_a);
  ASSERT_EQ(w.matches_size(), 1);
  EXPECT_EQ(w.matches(0), match);
  auto state = a.next_until([](const v1::ServerMessage& m) { return m.has_match_state(); });
  ASSERT_TRUE(state);
  ASSERT_EQ(state->match_state().moves_size(), 1);
  EXPECT_EQ(state->match_state().moves(0), "a1");
  EXPECT_EQ(state->match_state().to_move(), v1::SIDE_SECOND);
}

// ---------------------------------------------------------------- shutdown

TEST(ServerProcess, SigtermSaysGoodbyeAndExitsCleanly) {
  TempDir dir;
  ServerOptions options;
  options.store = (dir.path() / "shutdown.db").string();
  ServerProcess server(options);
  {
    WsClient c(server.port());
    c.hello("bye");
    auto ack = c.play_bot("tictactoe", "easy");
    expect_ack(ack);
    expect_event(c, Kind::kStarted, 1);
    ASSERT_EQ(kill(server.pid(), SIGTERM), 0);
    auto bye = c.next_until([](const v1::ServerMessage& m) { return m.has_bye(); });
    ASSERT_TRUE(bye);
    EXPECT_FALSE(c.next(3s));
    EXPECT_TRUE(c.closed());
    EXPECT_EQ(c.close_code(), 1001);  // going away
  }
  const auto status = server.wait_exit();
  ASSERT_TRUE(status) << "still running:\n" << server.log();
  EXPECT_EQ(*status, 0) << server.log();  // exited by itself, with 0
  EXPECT_NE(server.log().find("stopped: store flushed"), std::string::npos) << server.log();
}

}  // namespace
}  // namespace inarow::testing
