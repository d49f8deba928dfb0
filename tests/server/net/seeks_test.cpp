// The open-seeks lobby over real sockets: a seek is listed to others with
// its exact fields and the counts of players online and games in play;
// accepting it starts the match at once; a seek leaves the list when its
// player cancels, leaves or is paired, and a follower of the list hears each
// change; rated seeks pair only with rated ones; every bad request gets its
// typed error and changes nothing. And the number watching a match reaches
// its players and spectators whenever it changes.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "inarow/testing/messages.h"
#include "inarow/testing/test_server.h"
#include "inarow/testing/ws_client.h"

namespace inarow::testing {
namespace {

using Kind = v1::MatchEvent::KindCase;

v1::ClientMessage cancel_message() {
  v1::ClientMessage m;
  m.mutable_cancel_seek();
  return m;
}

v1::SeekList list_seeks(WsClient& c) {
  auto reply = c.request(list_seeks_message());
  EXPECT_TRUE(reply.has_seek_list()) << reply.DebugString();
  return reply.seek_list();
}

// The next pushed list (request id 0) that `match` accepts.
v1::SeekList wait_list(WsClient& c, const std::function<bool(const v1::SeekList&)>& match) {
  auto m = c.next_until([&](const v1::ServerMessage& s) {
    return s.has_seek_list() && s.request_id() == 0 && match(s.seek_list());
  });
  EXPECT_TRUE(m) << "no such seek list came";
  return m ? m->seek_list() : v1::SeekList{};
}

// The next Spectators event of `match_id`: its count.
int wait_watchers(WsClient& c, const std::string& match_id) {
  auto e = wait_event(c, match_id, Kind::kSpectators);
  return e.has_spectators() ? static_cast<int>(e.spectators().count()) : -1;
}

TEST(Seeks, ListedWithExactFieldsThenAcceptedAtOnce) {
  TestServer server;
  WsClient ada(server.port());
  const auto ada_welcome = ada.hello("ada");
  EXPECT_EQ(ada_welcome.players_online(), 1u);
  EXPECT_EQ(ada_welcome.games_in_play(), 0u);
  WsClient bob(server.port(), /*text=*/true);
  const auto bob_welcome = bob.hello("bob");
  EXPECT_EQ(bob_welcome.players_online(), 2u);
  EXPECT_EQ(bob_welcome.games_in_play(), 0u);

  expect_ack(ada.request(seek_message("connect4", 120'000, 1'000, false)));
  const v1::SeekList seen = list_seeks(bob);
  ASSERT_EQ(seen.seeks_size(), 1);
  EXPECT_EQ(seen.total(), 1u);
  EXPECT_EQ(seen.players_online(), 2u);
  EXPECT_EQ(seen.games_in_play(), 0u);
  expect_new_players_casual_seek(seen.seeks(0), "s1", ada.player_id(), "ada");

  // Accepted: the seeker plays first, on the seek's terms. The accepter's
  // own seek goes: they have their game.
  expect_ack(bob.request(seek_message("gomoku", 0, 0, true)));
  ASSERT_EQ(list_seeks(bob).total(), 2u);
  const std::string id = expect_match_ack(bob.request(accept_message("s1")));
  for (WsClient* c : {&ada, &bob}) {
    const auto started = wait_event(*c, id, Kind::kStarted);
    const auto& st = started.started().state();
    EXPECT_EQ(st.kind(), v1::MATCH_KIND_SEEK);
    EXPECT_EQ(st.variant(), "connect4");
    EXPECT_FALSE(st.rated());
    EXPECT_EQ(st.time_control().initial_ms(), 120'000);
    EXPECT_EQ(st.time_control().increment_ms(), 1'000);
    EXPECT_EQ(st.first().id(), ada.player_id());
    EXPECT_EQ(st.second().id(), bob.player_id());
    EXPECT_EQ(st.spectators(), 0u);
  }
  // The seek is gone (so is ada's seeking: she may seek again).
  const v1::SeekList after = list_seeks(bob);
  EXPECT_EQ(after.seeks_size(), 0);
  EXPECT_EQ(after.total(), 0u);
  EXPECT_EQ(after.players_online(), 2u);
  EXPECT_EQ(after.games_in_play(), 1u);
  expect_error(bob.request(accept_message("s1")), v1::ERROR_UNKNOWN_SEEK,
               "no open seek 's1': it was taken or withdrawn");
  expect_ack(ada.request(seek_message("gomoku", 0, 0, std::nullopt)));
  const v1::SeekList again = list_seeks(bob);
  ASSERT_EQ(again.seeks_size(), 1);
  EXPECT_EQ(again.seeks(0).seek_id(), "s3");
  EXPECT_TRUE(again.seeks(0).rated());  // no rated field: rated, as before it existed

  // A newcomer's welcome has the counts.
  WsClient carl(server.port());
  const auto carl_welcome = carl.hello("carl");
  EXPECT_EQ(carl_welcome.players_online(), 3u);
  EXPECT_EQ(carl_welcome.games_in_play(), 1u);
}

TEST(Seeks, FollowersHearOfSeeksAddedRemovedAndPairedAndOfTheCounts) {
  TestServer server;
  WsClient carl(server.port());
  carl.hello("carl");
  const auto first = carl.request(list_seeks_message(true));
  ASSERT_TRUE(first.has_seek_list());
  EXPECT_EQ(first.seek_list().seeks_size(), 0);
  EXPECT_EQ(first.seek_list().players_online(), 1u);

  // Someone comes online.
  auto ada = std::make_unique<WsClient>(server.port());
  ada->hello("ada");
  wait_list(carl, [](const v1::SeekList& l) { return l.players_online() == 2; });

  // A seek, then its cancel.
  expect_ack(ada->request(seek_message("tictactoe", 0, 0, true)));
  auto added = wait_list(carl, [](const v1::SeekList& l) { return l.seeks_size() == 1; });
  EXPECT_EQ(added.seeks(0).player().name(), "ada");
  EXPECT_EQ(added.seeks(0).variant(), "tictactoe");
  EXPECT_TRUE(added.seeks(0).rated());
  expect_ack(ada->request(cancel_message()));
  wait_list(carl, [](const v1::SeekList& l) { return l.seeks_size() == 0; });
  expect_error(ada->request(cancel_message()), v1::ERROR_BAD_REQUEST, "not seeking");

  // A seek whose player leaves.
  expect_ack(ada->request(seek_message("tictactoe", 0, 0, true)));
  wait_list(carl, [](const v1::SeekList& l) { return l.seeks_size() == 1; });
  ada->close();
  ada.reset();
  const auto left = wait_list(carl, [](const v1::SeekList& l) { return l.seeks_size() == 0; });
  EXPECT_EQ(left.players_online(), 1u);
  EXPECT_EQ(left.total(), 0u);

  // Two seeks the matchmaker pairs: gone from the list, one more game in play.
  WsClient bob(server.port());
  bob.hello("bob");
  WsClient dan(server.port());
  dan.hello("dan");
  expect_ack(bob.request(seek_message("connect4", 0, 0, std::nullopt)));
  wait_list(carl, [](const v1::SeekList& l) { return l.seeks_size() == 1; });
  expect_ack(dan.request(seek_message("connect4", 0, 0, true)));
  const auto paired = wait_list(carl, [](const v1::SeekList& l) { return l.games_in_play() == 1; });
  EXPECT_EQ(paired.seeks_size(), 0);
  EXPECT_EQ(paired.players_online(), 3u);
  const auto started = bob.next_event();
  ASSERT_TRUE(started.has_started());
  EXPECT_TRUE(started.started().state().rated());

  // The game ends: none in play.
  expect_ack(bob.request(resign_message(started.match_id())));
  wait_list(carl, [](const v1::SeekList& l) { return l.games_in_play() == 0; });
}

TEST(Seeks, RatedSeeksPairOnlyWithRatedAndCasualWithCasual) {
  TestServer server;
  WsClient ada(server.port());
  ada.hello("ada");
  WsClient bob(server.port());
  bob.hello("bob");
  WsClient carl(server.port());
  carl.hello("carl");
  WsClient dan(server.port());
  dan.hello("dan");
  WsClient eve(server.port());
  eve.hello("eve");

  expect_ack(ada.request(seek_message("connect4", 0, 0, std::nullopt)));  // rated
  expect_ack(bob.request(seek_message("connect4", 0, 0, false)));         // casual
  const auto both = list_seeks(carl);
  ASSERT_EQ(both.seeks_size(), 2);  // same variant and clock, yet not paired
  EXPECT_EQ(both.seeks(0).player().name(), "ada");
  EXPECT_TRUE(both.seeks(0).rated());
  EXPECT_EQ(both.seeks(1).player().name(), "bob");
  EXPECT_FALSE(both.seeks(1).rated());

  // A casual seek pairs with the casual one.
  expect_ack(dan.request(seek_message("connect4", 0, 0, false)));
  const auto casual = dan.next_event();
  ASSERT_TRUE(casual.has_started());
  EXPECT_FALSE(casual.started().state().rated());
  EXPECT_EQ(casual.started().state().first().id(), bob.player_id());
  EXPECT_EQ(casual.started().state().second().id(), dan.player_id());
  const auto rest = list_seeks(carl);
  ASSERT_EQ(rest.seeks_size(), 1);
  EXPECT_EQ(rest.seeks(0).player().name(), "ada");

  // A rated one with the rated one.
  expect_ack(eve.request(seek_message("connect4", 0, 0, true)));
  const auto rated = eve.next_event();
  ASSERT_TRUE(rated.has_started());
  EXPECT_TRUE(rated.started().state().rated());
  EXPECT_EQ(rated.started().state().first().id(), ada.player_id());
  EXPECT_EQ(list_seeks(carl).seeks_size(), 0);
}

TEST(Seeks, BadRequestsGetTypedErrorsAndChangeNothing) {
  auto config = test_config();
  config.max_human_matches_per_player = 1;
  TestServer server(config);

  // Not greeted.
  WsClient stranger(server.port());
  expect_error(stranger.request(list_seeks_message(true)), v1::ERROR_HELLO_REQUIRED,
               "say hello first");
  expect_error(stranger.request(accept_message("s1")), v1::ERROR_HELLO_REQUIRED, "say hello first");

  WsClient ada(server.port());
  ada.hello("ada");
  WsClient bob(server.port());
  bob.hello("bob");
  expect_ack(ada.request(seek_message("gomoku", 60'000, 0, true)));
  const auto before = list_seeks(bob);
  ASSERT_EQ(before.seeks_size(), 1);
  const std::string seek_id = before.seeks(0).seek_id();

  expect_error(bob.request(accept_message("s99")), v1::ERROR_UNKNOWN_SEEK,
               "no open seek 's99': it was taken or withdrawn");
  expect_error(bob.request(accept_message("")), v1::ERROR_UNKNOWN_SEEK,
               "no open seek '': it was taken or withdrawn");
  expect_error(ada.request(accept_message(seek_id)), v1::ERROR_OWN_SEEK,
               "you cannot accept your own seek");
  // A seek with a bad variant or clock is refused as it always was.
  expect_error(bob.request(seek_message("chess", 0, 0, false)), v1::ERROR_UNKNOWN_VARIANT);
  expect_error(bob.request(seek_message("gomoku", -1, 0, true)), v1::ERROR_BAD_REQUEST);
  // A second seek of the same player.
  expect_error(ada.request(seek_message("tictactoe", 0, 0, false)), v1::ERROR_ALREADY_SEEKING,
               "already seeking a game");

  // The accepter at the cap: bob plays carl.
  WsClient carl(server.port());
  carl.hello("carl");
  v1::ClientMessage create;
  create.mutable_create_private()->set_variant("tictactoe");
  const auto code = carl.request(create);
  ASSERT_TRUE(code.has_ack());
  v1::ClientMessage join;
  join.mutable_join_private()->set_code(code.ack().code());
  const std::string bob_match = expect_match_ack(bob.request(join));
  expect_error(bob.request(accept_message(seek_id)), v1::ERROR_TOO_MANY_MATCHES,
               "you already have 1 live games against people, the most allowed");

  // The seeker at the cap: ada plays dan meanwhile; erin cannot accept.
  WsClient dan(server.port());
  dan.hello("dan");
  const auto code2 = dan.request(create);
  ASSERT_TRUE(code2.has_ack());
  join.mutable_join_private()->set_code(code2.ack().code());
  expect_match_ack(ada.request(join));
  WsClient erin(server.port());
  erin.hello("erin");
  expect_error(erin.request(accept_message(seek_id)), v1::ERROR_TOO_MANY_MATCHES,
               "the seeker already has 1 live games against people, the most allowed");

  // Nothing changed: the same seek, listed the same.
  auto after = list_seeks(erin);
  ASSERT_EQ(after.seeks_size(), 1);
  EXPECT_EQ(after.seeks(0).SerializeAsString(), before.seeks(0).SerializeAsString());
  EXPECT_EQ(after.games_in_play(), 2u);
  // And bob's game goes on.
  expect_ack(carl.request(move_message(bob_match, "b2")));
}

TEST(Seeks, TheMatchmakerPairsNobodyOverTheLimitAndPairsThemWhenAGameEnds) {
  auto config = test_config();
  config.max_human_matches_per_player = 1;
  TestServer server(config);
  WsClient ada(server.port());
  ada.hello("ada");
  WsClient bob(server.port());
  bob.hello("bob");
  WsClient carl(server.port());
  carl.hello("carl");

  // Ada seeks, then reaches her limit in a private game with carl.
  expect_ack(ada.request(seek_message("gomoku", 60'000, 0, true)));
  const auto code = carl.request(create_private_message("tictactoe"));
  ASSERT_TRUE(code.has_ack());
  const std::string private_game =
      expect_match_ack(ada.request(join_private_message(code.ack().code())));
  wait_event(ada, private_game, Kind::kStarted);

  // Bob's seek fits hers. Dan's and erin's, in another pool, are the
  // witness: the pass that pairs them has ada and bob in its queue too.
  expect_ack(bob.request(seek_message("gomoku", 60'000, 0, true)));
  WsClient dan(server.port());
  dan.hello("dan");
  WsClient erin(server.port());
  erin.hello("erin");
  expect_ack(dan.request(seek_message("connect4", 60'000, 0, true)));
  expect_ack(erin.request(seek_message("connect4", 60'000, 0, true)));
  const auto started = [](WsClient& c, const std::string& other_than) {
    auto m = c.next_until([&](const v1::ServerMessage& s) {
      return s.has_event() && s.event().has_started() && s.event().match_id() != other_than;
    });
    EXPECT_TRUE(m) << "no game started";
    return m ? m->event().started().state() : v1::MatchState{};
  };
  EXPECT_EQ(started(dan, "").variant(), "connect4");
  const auto waiting = list_seeks(carl);
  ASSERT_EQ(waiting.total(), 2u);
  EXPECT_EQ(waiting.seeks(0).player().id(), ada.player_id());
  EXPECT_EQ(waiting.seeks(1).player().id(), bob.player_id());
  EXPECT_EQ(waiting.games_in_play(), 2u);

  // Her game ends: a later pass pairs them, the longer seeker first.
  expect_ack(ada.request(resign_message(private_game)));
  const auto game = started(bob, "");
  EXPECT_EQ(game.variant(), "gomoku");
  EXPECT_EQ(game.first().id(), ada.player_id());
  EXPECT_EQ(game.second().id(), bob.player_id());
  EXPECT_EQ(started(ada, private_game).match_id(), game.match_id());
  EXPECT_EQ(list_seeks(carl).total(), 0u);
}

TEST(Seeks, SpectatorsAreCountedForPlayersAndWatchers) {
  TestServer server;
  WsClient ada(server.port());
  ada.hello("ada");
  WsClient bob(server.port());
  bob.hello("bob");
  expect_ack(ada.request(seek_message("tictactoe", 0, 0, false)));
  const std::string id =
      expect_match_ack(bob.request(accept_message(list_seeks(bob).seeks(0).seek_id())));
  wait_event(ada, id, Kind::kStarted);
  wait_event(bob, id, Kind::kStarted);

  WsClient carl(server.port());
  carl.hello("carl");
  const auto carl_state = carl.request(watch_message(id));
  ASSERT_TRUE(carl_state.has_match_state());
  EXPECT_EQ(carl_state.match_state().spectators(), 1u);
  EXPECT_EQ(wait_watchers(ada, id), 1);
  EXPECT_EQ(wait_watchers(bob, id), 1);

  auto dan = std::make_unique<WsClient>(server.port(), /*text=*/true);
  dan->hello("dan");
  const auto dan_state = dan->request(watch_message(id));
  ASSERT_TRUE(dan_state.has_match_state());
  EXPECT_EQ(dan_state.match_state().spectators(), 2u);
  EXPECT_EQ(wait_watchers(ada, id), 2);
  EXPECT_EQ(wait_watchers(bob, id), 2);
  EXPECT_EQ(wait_watchers(carl, id), 2);

  // A player's own view of its match: the count too.
  const auto ada_state = ada.request(watch_message(id));
  ASSERT_TRUE(ada_state.has_match_state());
  EXPECT_EQ(ada_state.match_state().spectators(), 2u);

  v1::ClientMessage unwatch;
  unwatch.mutable_unwatch()->set_match_id(id);
  expect_ack(carl.request(unwatch));
  EXPECT_EQ(wait_watchers(ada, id), 1);
  EXPECT_EQ(wait_watchers(bob, id), 1);
  EXPECT_EQ(wait_watchers(*dan, id), 1);

  dan->drop();
  dan.reset();
  EXPECT_EQ(wait_watchers(ada, id), 0);
  EXPECT_EQ(wait_watchers(bob, id), 0);

  // The count is news, not the game: the next numbered event is the move.
  expect_ack(ada.request(move_message(id, "b2")));
  const auto move = wait_event(bob, id, Kind::kMoveMade);
  EXPECT_EQ(move.seq(), 2u);
}

}  // namespace
}  // namespace inarow::testing
