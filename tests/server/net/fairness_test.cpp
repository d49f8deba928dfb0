// Fairness and limits over real sockets: bots that play people are not kept
// waiting by bots that play bots, bot-vs-bot matches are capped and end when
// nobody watches them, every kind of match is capped per player, the match
// list comes in bounded pages and private games stay private.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "inarow/testing/messages.h"
#include "inarow/testing/test_server.h"
#include "inarow/testing/ws_client.h"

namespace inarow::testing {
namespace {

using Kind = v1::MatchEvent::KindCase;

v1::ClientMessage bot_match(const std::string& variant, const std::string& first,
                            const std::string& second) {
  v1::ClientMessage m;
  m.mutable_start_bot_match()->set_variant(variant);
  m.mutable_start_bot_match()->set_first_level(first);
  m.mutable_start_bot_match()->set_second_level(second);
  return m;
}

v1::ClientMessage list_matches(std::uint32_t limit = 0, const std::string& after = {}) {
  v1::ClientMessage m;
  m.mutable_list_matches()->set_limit(limit);
  m.mutable_list_matches()->set_after(after);
  return m;
}

// ------------------------------------------------------------ starvation

// One bot worker, twelve bot-vs-bot gomoku matches that each always have a
// search queued, then a person asks for a game against a bot that moves
// first. Its move must come before the bot-vs-bot queue drains: at most the
// search already running on the worker (and one whose move was already on
// its way) finish first. Before the people's lane, every queued bot-vs-bot
// search went first: twelve or more of their moves came before it.
TEST(Fairness, APersonsBotMovesBeforeTheBotVsBotQueue) {
  auto config = test_config();
  config.bot_threads = 1;
  config.max_bot_vs_bot_per_player = 12;
  config.max_bot_vs_bot_total = 12;
  TestServer server(config);
  WsClient c(server.port());
  c.hello("crowd");
  std::vector<std::string> bot_matches;
  for (int i = 0; i < 12; ++i) {
    bot_matches.push_back(expect_match_ack(c.request(bot_match("gomoku", "expert", "expert"))));
  }
  // The queue is full: every match has started and the bots are moving.
  // Moves found before the person asked but stored after their match
  // started count against it, so the bots must take their time: expert
  // thinks a second a move, except for the first move on an empty board,
  // which comes at once. Wait for all twelve first moves and one real
  // search. (With the quarter-second level and the first moves still
  // coming, a slow machine, the sanitizer builds, had several in flight.)
  int seen = 0;
  while (seen < 13) {
    auto m = c.next(10s);
    ASSERT_TRUE(m) << "the bot-vs-bot matches never moved";
    if (m->has_event() && m->event().has_move_made()) ++seen;
  }

  v1::ClientMessage play;
  play.mutable_play_bot()->set_variant("gomoku");
  play.mutable_play_bot()->set_level("easy");
  play.mutable_play_bot()->set_side(v1::SIDE_SECOND);  // the bot moves first
  const auto asked = std::chrono::steady_clock::now();
  const std::uint64_t rid = c.send(play);
  // The person's bot is queued as its match starts, just before the match's
  // `started` is stored and sent (the ack may come any time before that,
  // while the bots rightly go on). Moves after `started` and before the
  // person's bot's move are the bot-vs-bot searches that went first.
  bool started = false;
  int bot_vs_bot_moves_before = 0;
  for (;;) {
    auto m = c.next(30s);
    ASSERT_TRUE(m) << "no move from the person's bot";
    if (m->request_id() == rid) {
      EXPECT_TRUE(m->has_ack()) << m->DebugString();
      continue;
    }
    if (!m->has_event()) continue;
    const bool bot_vs_bot = std::find(bot_matches.begin(), bot_matches.end(),
                                      m->event().match_id()) != bot_matches.end();
    if (!bot_vs_bot && m->event().has_started()) started = true;
    if (!m->event().has_move_made()) continue;
    if (!bot_vs_bot) break;  // the person's bot moved
    if (started) ++bot_vs_bot_moves_before;
  }
  EXPECT_TRUE(started);
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - asked);
  std::printf("person's first bot move after %lld ms, %d bot-vs-bot moves before it\n",
              static_cast<long long>(waited.count()), bot_vs_bot_moves_before);
  EXPECT_LE(bot_vs_bot_moves_before, 2);
}

// ------------------------------------------------------------------- caps

TEST(Fairness, BotVsBotMatchesAreCappedPerPlayerAndOverall) {
  auto config = test_config();
  config.max_bot_vs_bot_per_player = 2;
  config.max_bot_vs_bot_total = 3;
  TestServer server(config);
  WsClient a(server.port());
  WsClient b(server.port());
  a.hello("ann");
  b.hello("ben");
  expect_match_ack(a.request(bot_match("gomoku", "hard", "hard")));
  const std::string second = expect_match_ack(a.request(bot_match("gomoku", "hard", "hard")));
  expect_error(a.request(bot_match("gomoku", "hard", "hard")), v1::ERROR_TOO_MANY_MATCHES);
  expect_match_ack(b.request(bot_match("gomoku", "hard", "hard")));
  // Three run: the server's cap, whoever asks.
  expect_error(b.request(bot_match("gomoku", "hard", "hard")), v1::ERROR_TOO_MANY_MATCHES);
  // A bad request is still answered as such.
  expect_error(a.request(bot_match("gomoku", "nobody", "hard")), v1::ERROR_UNKNOWN_LEVEL);
}

TEST(Fairness, GamesAgainstBotsAndPeopleAreCappedPerPlayer) {
  auto config = test_config();
  config.max_bot_matches_per_player = 2;
  config.max_human_matches_per_player = 1;
  TestServer server(config);
  WsClient a(server.port());
  WsClient b(server.port());
  a.hello("ann");
  b.hello("ben");
  const std::string first = expect_match_ack(a.play_bot("tictactoe", "easy"));
  expect_match_ack(a.play_bot("tictactoe", "easy"));
  expect_error(a.play_bot("tictactoe", "easy"), v1::ERROR_TOO_MANY_MATCHES);
  // One ends: there is room again.
  ASSERT_TRUE(a.request(resign_message(first)).has_ack());
  a.next_until([&](const v1::ServerMessage& m) {
    return m.has_event() && m.event().match_id() == first && m.event().has_ended();
  });
  expect_match_ack(a.play_bot("tictactoe", "easy"));

  // People: one live game each here. Games against bots do not count.
  ASSERT_TRUE(a.seek("tictactoe").has_ack());
  ASSERT_TRUE(b.seek("tictactoe").has_ack());
  auto started = a.next_until([](const v1::ServerMessage& m) {
    return m.has_event() && m.event().has_started() &&
           m.event().started().state().kind() == v1::MATCH_KIND_SEEK;
  });
  ASSERT_TRUE(started);
  expect_error(a.seek("tictactoe"), v1::ERROR_TOO_MANY_MATCHES);
  v1::ClientMessage create;
  create.mutable_create_private()->set_variant("tictactoe");
  expect_error(b.request(create), v1::ERROR_TOO_MANY_MATCHES);
  WsClient c(server.port());
  c.hello("cy");
  auto code = c.request(create);
  ASSERT_TRUE(code.has_ack());
  v1::ClientMessage join;
  join.mutable_join_private()->set_code(code.ack().code());
  expect_error(a.request(join), v1::ERROR_TOO_MANY_MATCHES);
  // Refused, the code is still good for someone with room.
  WsClient d(server.port());
  d.hello("dee");
  expect_match_ack(d.request(join));
}

// ------------------------------------------------------------ abandonment

TEST(Fairness, ABotVsBotMatchNobodyWatchesIsAbortedUnrated) {
  auto config = test_config();
  config.unwatched_grace = 200ms;
  TestServer server(config);
  WsClient starter(server.port());
  WsClient fan(server.port());
  starter.hello("starter");
  fan.hello("fan");
  // Bots that take their time, so that the game cannot end by itself before
  // the grace runs out: expert thinks a second a move (hard bots now reach
  // their depth in milliseconds, and two of them once finished a game
  // between the fan leaving and the abort).
  const std::string match =
      expect_match_ack(starter.request(bot_match("gomoku", "expert", "expert")));
  ASSERT_TRUE(fan.request(watch_message(match)).has_match_state());
  starter.drop();
  // The fan still watches: the bots play on well past the grace.
  for (int moves = 0; moves < 4;) {
    auto e = fan.next_event(10s);
    ASSERT_FALSE(e.has_ended()) << e.DebugString();
    if (e.has_move_made()) ++moves;
  }
  // The fan goes too: the match ends by itself, aborted and unrated.
  fan.close();
  WsClient later(server.port());
  later.hello("later");
  bool listed = true;
  for (int i = 0; i < 200 && listed; ++i) {
    auto list = later.request(list_matches());
    ASSERT_TRUE(list.has_match_list());
    listed = false;
    for (const auto& s : list.match_list().matches())
      listed |= s.match_id() == match;
    if (listed) later.next(50ms);  // nothing is expected: a bounded pause between polls
  }
  ASSERT_FALSE(listed) << "the unwatched match is still live";
  const v1::ClientMessage replay = watch_message(match, /*after_seq=*/1);
  const std::uint64_t rid = later.send(replay);
  auto state = later.next_until(
      [&](const v1::ServerMessage& m) { return m.request_id() == rid && m.has_match_state(); });
  ASSERT_TRUE(state);
  EXPECT_EQ(state->match_state().result(), v1::RESULT_ABORTED);
  EXPECT_EQ(state->match_state().end_reason(), v1::END_REASON_ABANDONED);
}

// ------------------------------------------------------------ the list

TEST(Fairness, TheMatchListComesInBoundedPagesWithoutPrivateGames) {
  auto config = test_config();
  config.list_page_size = 3;
  TestServer server(config);
  std::vector<std::unique_ptr<WsClient>> people;
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    auto& c = people.emplace_back(std::make_unique<WsClient>(server.port()));
    c->hello("p" + std::to_string(i));
    ids.push_back(expect_match_ack(c->play_bot("tictactoe", "easy")));  // the person to move
  }
  // A private game between two more: live, but not listed.
  WsClient host(server.port());
  WsClient guest(server.port());
  host.hello("host");
  guest.hello("guest");
  v1::ClientMessage create;
  create.mutable_create_private()->set_variant("tictactoe");
  const std::string code = host.request(create).ack().code();
  v1::ClientMessage join;
  join.mutable_join_private()->set_code(code);
  const std::string private_id = expect_match_ack(guest.request(join));

  // Pages follow the match ids (which begin with the creation time, so
  // older matches come first; within a millisecond, by the id's random part).
  std::sort(ids.begin(), ids.end());
  WsClient viewer(server.port());
  viewer.hello("viewer");
  auto page1 = viewer.request(list_matches());
  ASSERT_TRUE(page1.has_match_list());
  EXPECT_EQ(page1.match_list().total(), 5u);
  ASSERT_EQ(page1.match_list().matches_size(), 3);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(page1.match_list().matches(i).match_id(), ids[i]);
  EXPECT_EQ(page1.match_list().next(), ids[2]);
  auto page2 = viewer.request(list_matches(0, page1.match_list().next()));
  EXPECT_EQ(page2.match_list().total(), 5u);
  ASSERT_EQ(page2.match_list().matches_size(), 2);
  EXPECT_EQ(page2.match_list().matches(0).match_id(), ids[3]);
  EXPECT_EQ(page2.match_list().matches(1).match_id(), ids[4]);
  EXPECT_EQ(page2.match_list().next(), "");
  // A smaller page on request; a larger one is cut to the server's.
  auto two = viewer.request(list_matches(2));
  ASSERT_EQ(two.match_list().matches_size(), 2);
  EXPECT_EQ(two.match_list().next(), ids[1]);
  EXPECT_EQ(viewer.request(list_matches(1000)).match_list().matches_size(), 3);

  // The private game: not watchable without its code, as if it were not there.
  expect_error(viewer.request(watch_message(private_id)), v1::ERROR_UNKNOWN_MATCH);
  expect_error(viewer.request(watch_message(private_id, 0, "WRONG1")), v1::ERROR_UNKNOWN_MATCH);
  auto seen = viewer.request(watch_message(private_id, 0, code));
  ASSERT_TRUE(seen.has_match_state()) << seen.DebugString();
  EXPECT_EQ(seen.match_state().kind(), v1::MATCH_KIND_PRIVATE);
  // Public ones need no code.
  EXPECT_TRUE(viewer.request(watch_message(ids[0])).has_match_state());
}

// ------------------------------------------------------------ ratings

// A person who resigns or leaves before both sides have moved gives nobody
// rating points: the match is aborted. Takebacks against a bot make the game
// unrated, so its end rates nobody either.
TEST(Fairness, EarlyEndsAndTakebacksRateNobody) {
  TestServer server;
  WsClient a(server.port());
  a.hello("ann");
  const std::string early = expect_match_ack(a.play_bot("tictactoe", "easy"));
  ASSERT_TRUE(a.request(resign_message(early)).has_ack());
  auto ended = a.next_until([&](const v1::ServerMessage& m) {
    return m.has_event() && m.event().match_id() == early && m.event().has_ended();
  });
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->event().ended().result(), v1::RESULT_ABORTED);
  EXPECT_EQ(ended->event().ended().reason(), v1::END_REASON_RESIGNATION);
  EXPECT_EQ(ended->event().ended().ratings_size(), 0);

  const std::string game = expect_match_ack(a.play_bot("tictactoe", "easy"));
  ASSERT_TRUE(a.move(game, "b2").has_ack());
  a.next_until([&](const v1::ServerMessage& m) {
    return m.has_event() && m.event().match_id() == game && m.event().has_move_made() &&
           m.event().move_made().side() == v1::SIDE_SECOND;
  });
  v1::ClientMessage takeback;
  takeback.mutable_request_takeback()->set_match_id(game);
  ASSERT_TRUE(a.request(takeback).has_ack());
  auto done = a.next_until([&](const v1::ServerMessage& m) {
    return m.has_event() && m.event().match_id() == game && m.event().has_takeback_done();
  });
  ASSERT_TRUE(done);
  EXPECT_TRUE(done->event().takeback_done().unrated());
  ASSERT_TRUE(a.move(game, "b2").has_ack());
  a.next_until([&](const v1::ServerMessage& m) {
    return m.has_event() && m.event().match_id() == game && m.event().has_move_made() &&
           m.event().move_made().side() == v1::SIDE_SECOND;
  });
  ASSERT_TRUE(a.request(resign_message(game)).has_ack());
  auto end = a.next_until([&](const v1::ServerMessage& m) {
    return m.has_event() && m.event().match_id() == game && m.event().has_ended();
  });
  ASSERT_TRUE(end);
  EXPECT_EQ(end->event().ended().result(), v1::RESULT_SECOND_WINS);  // both sides moved
  EXPECT_EQ(end->event().ended().ratings_size(), 0);                 // but unrated
}

}  // namespace
}  // namespace inarow::testing
