// Rematches over real sockets: against a bot the new match starts at once
// with the sides swapped; between people one player offers and the other's
// own rematch accepts; offers are declined or lapse when a player leaves or
// starts another match; every bad request gets its typed error and changes
// nothing. And a bot answers a draw offer at once: it accepts a proven draw
// and declines anything else.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "inarow/testing/messages.h"
#include "inarow/testing/test_server.h"
#include "inarow/testing/ws_client.h"

namespace inarow::testing {
namespace {

using Kind = v1::MatchEvent::KindCase;

server::ServerConfig rematch_config() {
  auto config = test_config();
  // Ended matches linger this long (and can be rematched meanwhile): long
  // enough that no test races it.
  config.reconnect_grace = 60s;
  return config;
}

// Events from two matches, whose order between them is not defined: waits
// for each (match id, kind), in any order; the first of each comes back.
std::vector<v1::MatchEvent> wait_events(WsClient& c,
                                        const std::vector<std::pair<std::string, Kind>>& wanted,
                                        std::chrono::milliseconds timeout = 10s) {
  std::vector<v1::MatchEvent> found(wanted.size());
  std::vector<bool> seen(wanted.size(), false);
  std::size_t left = wanted.size();
  while (left > 0) {
    auto m = c.next(timeout);
    if (!m) {
      ADD_FAILURE() << left << " of the events never came";
      break;
    }
    if (!m->has_event()) continue;
    for (std::size_t i = 0; i < wanted.size(); ++i) {
      if (!seen[i] && m->event().match_id() == wanted[i].first &&
          m->event().kind_case() == wanted[i].second) {
        seen[i] = true;
        found[i] = m->event();
        --left;
        break;
      }
    }
  }
  return found;
}

// Ends a match by resignation; the asker waits for its end.
void resign_and_wait(WsClient& c, const std::string& match_id) {
  expect_ack(c.request(resign_message(match_id)));
  wait_event(c, match_id, Kind::kEnded);
}

// A private game between two people: `a` creates it (first, unrated), `b` joins.
struct Pair {
  std::string match_id;
  std::string code;
};
Pair private_game(WsClient& a, WsClient& b) {
  v1::ClientMessage create;
  create.mutable_create_private()->set_variant("tictactoe");
  create.mutable_create_private()->mutable_time_control()->set_initial_ms(300'000);
  create.mutable_create_private()->mutable_time_control()->set_increment_ms(2'000);
  const auto created = a.request(create);
  EXPECT_TRUE(created.has_ack()) << created.DebugString();
  Pair p{expect_match_ack(b.request(join_private_message(created.ack().code()))),
         created.ack().code()};
  wait_event(a, p.match_id, Kind::kStarted);
  wait_event(b, p.match_id, Kind::kStarted);
  return p;
}

// ------------------------------------------------------------------ bots

TEST(Rematch, AgainstABotItStartsAtOnceWithTheSidesSwapped) {
  TestServer server(rematch_config());
  WsClient c(server.port());
  WsClient spectator(server.port());
  c.hello("ann");
  spectator.hello("sue");
  const std::string old_id =
      expect_match_ack(c.play_bot("tictactoe", "easy", v1::SIDE_FIRST, 60'000, 500));
  const auto started = wait_event(c, old_id, Kind::kStarted);
  EXPECT_EQ(started.started().state().your_side(), v1::SIDE_FIRST);
  const auto watched = spectator.request(watch_message(old_id));
  ASSERT_TRUE(watched.has_match_state()) << watched.DebugString();
  expect_ack(c.move(old_id, "b2"));
  wait_event(c, old_id, Kind::kMoveMade);  // ours
  wait_event(c, old_id, Kind::kMoveMade);  // the bot's
  resign_and_wait(c, old_id);

  const std::string new_id = expect_match_ack(c.request(rematch_message(old_id)));
  ASSERT_FALSE(new_id.empty());
  EXPECT_NE(new_id, old_id);
  // The player hears of the old match's rematch and sees the new one start,
  // and the bot open it.
  const auto events = wait_events(
      c, {{new_id, Kind::kStarted}, {old_id, Kind::kRematchStarted}, {new_id, Kind::kMoveMade}});
  EXPECT_EQ(events[1].rematch_started().match_id(), new_id);
  const auto now = events[0].started().state();
  EXPECT_EQ(now.your_side(), v1::SIDE_SECOND);
  EXPECT_EQ(now.kind(), v1::MATCH_KIND_BOT);
  EXPECT_EQ(now.variant(), "tictactoe");
  EXPECT_TRUE(now.rated());
  EXPECT_EQ(now.time_control().initial_ms(), 60'000);
  EXPECT_EQ(now.time_control().increment_ms(), 500);
  EXPECT_EQ(now.second().id(), c.player_id());
  EXPECT_TRUE(now.first().bot());
  EXPECT_EQ(now.first().id(), started.started().state().second().id());  // the same bot level
  // The bot has the first move now.
  EXPECT_EQ(events[2].move_made().side(), v1::SIDE_FIRST);
  EXPECT_EQ(events[2].move_made().ply(), 1);

  // The old match's player and spectator hear where the game went on.
  const auto news = wait_event(spectator, old_id, Kind::kRematchStarted);
  EXPECT_EQ(news.rematch_started().match_id(), new_id);
  EXPECT_EQ(news.seq(), 0u);
  const auto follow = spectator.request(watch_message(new_id));
  ASSERT_TRUE(follow.has_match_state()) << follow.DebugString();
  EXPECT_EQ(follow.match_state().second().id(), c.player_id());

  // Once made, a match's rematch is not made again: the error names it.
  const auto again = c.request(rematch_message(old_id));
  expect_error(again, v1::ERROR_REMATCH_MADE,
               "the rematch of this match was already made: " + new_id);
  EXPECT_EQ(again.error().match_id(), new_id);
}

TEST(Rematch, AgainstABotItCountsAgainstTheCapOnBotGames) {
  auto config = rematch_config();
  config.max_bot_matches_per_player = 1;
  TestServer server(config);
  WsClient c(server.port());
  c.hello("ann");
  const std::string old_id = expect_match_ack(c.play_bot("tictactoe", "easy"));
  wait_event(c, old_id, Kind::kStarted);
  resign_and_wait(c, old_id);
  const std::string other = expect_match_ack(c.play_bot("connect4", "easy"));
  const auto refused = c.request(rematch_message(old_id));
  expect_error(refused, v1::ERROR_TOO_MANY_MATCHES,
               "you already have 1 live games against bots, the most allowed");
  EXPECT_EQ(refused.error().match_id(), old_id);
  // Nothing was made: with room again the rematch is still there to make.
  wait_event(c, other, Kind::kStarted);
  resign_and_wait(c, other);
  const std::string new_id = expect_match_ack(c.request(rematch_message(old_id)));
  EXPECT_EQ(wait_event(c, new_id, Kind::kStarted).started().state().your_side(), v1::SIDE_SECOND);
}

// ---------------------------------------------------------------- people

TEST(Rematch, BetweenPeopleTheOtherPlayersRematchAcceptsTheOffer) {
  TestServer server(rematch_config());
  WsClient a(server.port());
  WsClient b(server.port());
  WsClient spectator(server.port());
  a.hello("ann");
  b.hello("ben");
  spectator.hello("sue");
  const Pair game = private_game(a, b);
  // A private game is watched with its code; so is its rematch.
  ASSERT_TRUE(spectator.request(watch_message(game.match_id, 0, game.code)).has_match_state());
  resign_and_wait(a, game.match_id);

  // Ann offers: an ack for the ended match, and the news to everyone there.
  EXPECT_EQ(expect_match_ack(a.request(rematch_message(game.match_id))), game.match_id);
  const auto offered = wait_event(b, game.match_id, Kind::kRematchOffered);
  EXPECT_EQ(offered.rematch_offered().by(), v1::SIDE_FIRST);
  EXPECT_EQ(offered.seq(), 0u);
  wait_event(spectator, game.match_id, Kind::kRematchOffered);
  // A second offer from her is refused.
  expect_error(a.request(rematch_message(game.match_id)), v1::ERROR_BAD_REQUEST,
               "you already offered a rematch");

  // Ben accepts with his own rematch.
  const std::string new_id = expect_match_ack(b.request(rematch_message(game.match_id)));
  ASSERT_NE(new_id, game.match_id);
  const auto a_events =
      wait_events(a, {{new_id, Kind::kStarted}, {game.match_id, Kind::kRematchStarted}});
  const auto for_a = a_events[0].started().state();
  EXPECT_EQ(a_events[1].rematch_started().match_id(), new_id);
  const auto for_b = wait_event(b, new_id, Kind::kStarted).started().state();
  EXPECT_EQ(for_a.your_side(), v1::SIDE_SECOND);
  EXPECT_EQ(for_b.your_side(), v1::SIDE_FIRST);
  EXPECT_EQ(for_a.first().id(), b.player_id());
  EXPECT_EQ(for_a.second().id(), a.player_id());
  EXPECT_EQ(for_a.kind(), v1::MATCH_KIND_PRIVATE);
  EXPECT_FALSE(for_a.rated());
  EXPECT_EQ(for_a.time_control().initial_ms(), 300'000);
  EXPECT_EQ(for_a.time_control().increment_ms(), 2'000);
  EXPECT_EQ(
      wait_event(spectator, game.match_id, Kind::kRematchStarted).rematch_started().match_id(),
      new_id);
  ASSERT_TRUE(spectator.request(watch_message(new_id, 0, game.code)).has_match_state());
  // Ben moves first now.
  expect_error(a.move(new_id, "a1"), v1::ERROR_NOT_YOUR_TURN);
  expect_ack(b.move(new_id, "b2"));
}

TEST(Rematch, ADeclinedOfferIsOffAndEitherMayOfferAgain) {
  TestServer server(rematch_config());
  WsClient a(server.port());
  WsClient b(server.port());
  a.hello("ann");
  b.hello("ben");
  const Pair game = private_game(a, b);
  resign_and_wait(b, game.match_id);
  // Nothing to decline yet.
  expect_error(b.request(rematch_message(game.match_id, true)), v1::ERROR_NO_OFFER,
               "no rematch offer to decline");
  expect_ack(a.request(rematch_message(game.match_id)));
  wait_event(b, game.match_id, Kind::kRematchOffered);
  // Ann cannot decline her own offer.
  expect_error(a.request(rematch_message(game.match_id, true)), v1::ERROR_NO_OFFER);
  EXPECT_EQ(expect_match_ack(b.request(rematch_message(game.match_id, true))), game.match_id);
  const auto declined = wait_event(a, game.match_id, Kind::kRematchDeclined);
  EXPECT_EQ(declined.rematch_declined().by(), v1::SIDE_SECOND);
  EXPECT_FALSE(declined.rematch_declined().lapsed());
  // Ben's rematch is now an offer of his own, not an acceptance.
  EXPECT_EQ(expect_match_ack(b.request(rematch_message(game.match_id))), game.match_id);
  EXPECT_EQ(wait_event(a, game.match_id, Kind::kRematchOffered).rematch_offered().by(),
            v1::SIDE_SECOND);
}

TEST(Rematch, AnOfferLapsesWhenAPlayerLeaves) {
  TestServer server(rematch_config());
  WsClient a(server.port());
  auto b = std::make_unique<WsClient>(server.port());
  a.hello("ann");
  b->hello("ben");
  const Pair game = private_game(a, *b);
  resign_and_wait(a, game.match_id);
  expect_ack(b->request(rematch_message(game.match_id)));
  wait_event(a, game.match_id, Kind::kRematchOffered);
  b->close();
  const auto lapsed = wait_event(a, game.match_id, Kind::kRematchDeclined);
  EXPECT_EQ(lapsed.rematch_declined().by(), v1::SIDE_SECOND);
  EXPECT_TRUE(lapsed.rematch_declined().lapsed());
  // No offer stands, and Ann's own would go to nobody.
  expect_error(a.request(rematch_message(game.match_id, true)), v1::ERROR_NO_OFFER);
  expect_error(a.request(rematch_message(game.match_id)), v1::ERROR_OPPONENT_GONE,
               "your opponent is not here: a rematch needs both players");
}

TEST(Rematch, AnOfferLapsesWhenAPlayerStartsAnotherMatch) {
  TestServer server(rematch_config());
  WsClient a(server.port());
  WsClient b(server.port());
  a.hello("ann");
  b.hello("ben");
  const Pair game = private_game(a, b);
  resign_and_wait(a, game.match_id);
  expect_ack(a.request(rematch_message(game.match_id)));
  wait_event(b, game.match_id, Kind::kRematchOffered);
  const std::string elsewhere = expect_match_ack(b.play_bot("connect4", "easy"));
  const auto lapsed = wait_event(a, game.match_id, Kind::kRematchDeclined);
  EXPECT_EQ(lapsed.rematch_declined().by(), v1::SIDE_SECOND);
  EXPECT_TRUE(lapsed.rematch_declined().lapsed());
  // Ben's rematch now is an offer, not the acceptance of a lapsed one.
  EXPECT_EQ(expect_match_ack(b.request(rematch_message(game.match_id))), game.match_id);
  wait_event(a, game.match_id, Kind::kRematchOffered);
  (void)elsewhere;
}

TEST(Rematch, BadRequestsGetTypedErrorsAndChangeNothing) {
  auto config = rematch_config();
  config.max_human_matches_per_player = 1;
  TestServer server(config);
  WsClient a(server.port());
  WsClient b(server.port());
  WsClient c(server.port());
  a.hello("ann");
  b.hello("ben");
  c.hello("cat");
  const Pair game = private_game(a, b);

  const auto unknown = a.request(rematch_message("nope"));
  expect_error(unknown, v1::ERROR_UNKNOWN_MATCH, "no match nope");
  EXPECT_EQ(unknown.error().match_id(), "nope");
  expect_error(a.request(rematch_message(game.match_id)), v1::ERROR_MATCH_NOT_OVER,
               "the match is still being played");
  resign_and_wait(a, game.match_id);
  expect_error(c.request(rematch_message(game.match_id)), v1::ERROR_NOT_SEATED,
               "you do not play in this match");
  expect_error(c.request(rematch_message(game.match_id, true)), v1::ERROR_NOT_SEATED);

  // Ben plays Cat meanwhile: at his cap of one live game against people,
  // his rematch (accepting Ann's offer) is refused.
  const Pair other = private_game(c, b);
  expect_ack(a.request(rematch_message(game.match_id)));
  wait_event(b, game.match_id, Kind::kRematchOffered);
  const auto refused = b.request(rematch_message(game.match_id));
  expect_error(refused, v1::ERROR_TOO_MANY_MATCHES,
               "you already have 1 live games against people, the most allowed");
  EXPECT_EQ(refused.error().match_id(), game.match_id);
  // Nothing changed: the offer stands, and with Ben's game over his
  // rematch accepts it.
  resign_and_wait(b, other.match_id);
  const std::string new_id = expect_match_ack(b.request(rematch_message(game.match_id)));
  EXPECT_EQ(wait_event(a, new_id, Kind::kStarted).started().state().your_side(), v1::SIDE_SECOND);
  const auto made = c.request(rematch_message(game.match_id));
  expect_error(made, v1::ERROR_NOT_SEATED);
  const auto twice = b.request(rematch_message(game.match_id));
  expect_error(twice, v1::ERROR_REMATCH_MADE);
  EXPECT_EQ(twice.error().match_id(), new_id);
}

// ------------------------------------------------------------- draw offers

// Tic-tac-toe after the centre and a corner is a draw, and a master bot's
// search proves it in a moment: the offer is accepted at once.
TEST(DrawOfferToABot, AProvenDrawIsAccepted) {
  TestServer server(rematch_config());
  WsClient c(server.port());
  c.hello("ann");
  const std::string id = expect_match_ack(c.play_bot("tictactoe", "master"));
  expect_ack(c.move(id, "b2"));
  wait_event(c, id, Kind::kMoveMade);
  const auto reply = wait_event(c, id, Kind::kMoveMade);
  EXPECT_EQ(reply.move_made().side(), v1::SIDE_SECOND);
  expect_ack(c.request(offer_draw_message(id)));
  const auto ended = wait_event(c, id, Kind::kEnded);
  EXPECT_EQ(ended.ended().result(), v1::RESULT_DRAW);
  EXPECT_EQ(ended.ended().reason(), v1::END_REASON_AGREEMENT);
}

// Connect four's first player wins: the bot, second, has no draw to prove
// and declines; the game goes on.
TEST(DrawOfferToABot, AnythingElseIsDeclined) {
  TestServer server(rematch_config());
  WsClient c(server.port());
  c.hello("ann");
  const std::string id = expect_match_ack(c.play_bot("connect4", "easy"));
  expect_ack(c.move(id, "4"));
  wait_event(c, id, Kind::kMoveMade);
  wait_event(c, id, Kind::kMoveMade);
  expect_ack(c.request(offer_draw_message(id)));
  const auto declined = wait_event(c, id, Kind::kDrawDeclined);
  EXPECT_EQ(declined.draw_declined().by(), v1::SIDE_SECOND);
  expect_ack(c.move(id, "4"));
  const auto ours = wait_event(c, id, Kind::kMoveMade);
  EXPECT_EQ(ours.move_made().side(), v1::SIDE_FIRST);
  EXPECT_EQ(wait_event(c, id, Kind::kMoveMade).move_made().side(), v1::SIDE_SECOND);
}

// Offered while the bot is to move: its move waits for its answer (or, if
// it had moved already, the offer stands on the person's turn); either way
// the decline and the bot's move both come.
TEST(DrawOfferToABot, OfferedOnTheBotsTurnTheAnswerAndTheMoveBothCome) {
  TestServer server(rematch_config());
  WsClient c(server.port());
  c.hello("ann");
  const std::string id = expect_match_ack(c.play_bot("connect4", "hard", v1::SIDE_SECOND));
  EXPECT_EQ(wait_event(c, id, Kind::kMoveMade).move_made().side(), v1::SIDE_FIRST);
  expect_ack(c.move(id, "1"));
  expect_ack(c.request(offer_draw_message(id)));
  bool declined = false;
  bool bot_moved = false;
  while (!declined || !bot_moved) {
    auto m = c.next(10s);
    ASSERT_TRUE(m) << "declined " << declined << ", bot moved " << bot_moved;
    if (!m->has_event() || m->event().match_id() != id) continue;
    if (m->event().has_draw_declined()) {
      EXPECT_EQ(m->event().draw_declined().by(), v1::SIDE_FIRST);
      declined = true;
    }
    if (m->event().has_move_made() && m->event().move_made().ply() == 3) bot_moved = true;
    EXPECT_FALSE(m->event().has_ended()) << m->DebugString();
  }
}

}  // namespace
}  // namespace inarow::testing
