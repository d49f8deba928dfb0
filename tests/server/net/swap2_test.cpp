// The swap2 opening over real sockets, against the server's bots: a bot
// places the three stones and a person takes a side, a person places them
// and a bot chooses by search, and every bad choice gets its typed error.
// The record of a game whose players swapped files them by the sides they
// finished with.
#include <gtest/gtest.h>

#include <string>

#include "inarow/testing/messages.h"
#include "inarow/testing/test_server.h"
#include "inarow/testing/ws_client.h"

namespace inarow::testing {
namespace {

using Kind = v1::MatchEvent::KindCase;

v1::ClientMessage choose(const std::string& match_id, v1::Side side) {
  v1::ClientMessage m;
  m.mutable_choose_opening()->set_match_id(match_id);
  m.mutable_choose_opening()->set_side(side);
  return m;
}

v1::ClientMessage place_two(const std::string& match_id) {
  v1::ClientMessage m;
  m.mutable_choose_opening()->set_match_id(match_id);
  m.mutable_choose_opening()->set_place_two(true);
  return m;
}

// The state a player's live match is resumed with on a new connection.
v1::MatchState state_on_resume(TestServer& server, const std::string& token) {
  WsClient again(server.port());
  const auto welcome = again.resume(token);
  EXPECT_EQ(welcome.matches_size(), 1);
  auto state = again.next_until([](const v1::ServerMessage& m) { return m.has_match_state(); });
  EXPECT_TRUE(state);
  return state ? state->match_state() : v1::MatchState{};
}

TEST(Swap2Server, ABotPlacesThreeStonesAndAPersonTakesTheFirstSide) {
  TestServer server;
  WsClient c(server.port());
  WsClient watcher(server.port());
  c.hello("ann");
  watcher.hello("sue");
  const std::string id =
      expect_match_ack(c.play_bot("gomoku-swap2", "easy", v1::SIDE_SECOND, 300'000, 0));
  const auto started = wait_event(c, id, Kind::kStarted).started().state();
  EXPECT_EQ(started.your_side(), v1::SIDE_SECOND);
  EXPECT_EQ(started.opening().step(), v1::OPENING_STEP_PLACE_THREE);
  EXPECT_EQ(started.opening().to_act(), v1::SIDE_FIRST);

  // The bot's three stones, first, second, first; then the choice is ann's.
  const v1::Side sides[] = {v1::SIDE_FIRST, v1::SIDE_SECOND, v1::SIDE_FIRST};
  v1::MoveMade last;
  for (int ply = 1; ply <= 3; ++ply) {
    last = wait_event(c, id, Kind::kMoveMade).move_made();
    EXPECT_EQ(last.ply(), ply);
    EXPECT_EQ(last.side(), sides[ply - 1]);
  }
  EXPECT_EQ(last.opening().step(), v1::OPENING_STEP_CHOOSE);
  EXPECT_EQ(last.opening().to_act(), v1::SIDE_SECOND);

  // Bad choices change nothing.
  expect_error(c.move(id, "a1"), v1::ERROR_BAD_REQUEST);  // a choice is due, not a stone
  v1::ClientMessage both = choose(id, v1::SIDE_FIRST);
  both.mutable_choose_opening()->set_place_two(true);
  expect_error(c.request(both), v1::ERROR_BAD_REQUEST);
  expect_error(c.request(choose(id, v1::SIDE_UNSPECIFIED)), v1::ERROR_BAD_REQUEST);
  expect_error(c.request(offer_draw_message(id)), v1::ERROR_BAD_REQUEST);
  expect_error(c.request(choose("nosuchmatch", v1::SIDE_FIRST)), v1::ERROR_UNKNOWN_MATCH);
  expect_error(watcher.request(choose(id, v1::SIDE_FIRST)), v1::ERROR_NOT_SEATED);

  expect_ack(c.request(choose(id, v1::SIDE_FIRST)));
  const auto chosen = wait_event(c, id, Kind::kOpeningChosen).opening_chosen();
  EXPECT_EQ(chosen.by(), v1::SIDE_SECOND);
  EXPECT_TRUE(chosen.swapped());
  EXPECT_EQ(chosen.first().id(), c.player_id());
  EXPECT_TRUE(chosen.second().bot());
  EXPECT_FALSE(chosen.has_opening());

  // The bot, second now, plays stone 4; then it is ann's turn as first.
  const auto reply = wait_event(c, id, Kind::kMoveMade).move_made();
  EXPECT_EQ(reply.ply(), 4);
  EXPECT_EQ(reply.side(), v1::SIDE_SECOND);
  expect_error(c.request(choose(id, v1::SIDE_SECOND)), v1::ERROR_BAD_REQUEST);  // it is over

  const auto watched = watcher.request(watch_message(id));
  ASSERT_TRUE(watched.has_match_state()) << watched.DebugString();
  EXPECT_EQ(watched.match_state().first().id(), c.player_id());
  EXPECT_FALSE(watched.match_state().has_opening());
  EXPECT_EQ(watched.match_state().to_move(), v1::SIDE_FIRST);

  // Back on a new connection, ann holds the first side.
  EXPECT_EQ(state_on_resume(server, c.token()).your_side(), v1::SIDE_FIRST);

  // She resigns as first: the bot wins as second, and her record says so.
  expect_ack(c.request(resign_message(id)));
  const auto ended = wait_event(c, id, Kind::kEnded).ended();
  EXPECT_EQ(ended.result(), v1::RESULT_SECOND_WINS);
  v1::ClientMessage list;
  list.mutable_list_games()->set_player_id(c.player_id());
  const auto games = c.request(list);
  ASSERT_TRUE(games.has_game_list()) << games.DebugString();
  ASSERT_EQ(games.game_list().games_size(), 1);
  const auto& game = games.game_list().games(0);
  EXPECT_EQ(game.variant(), "gomoku-swap2");
  EXPECT_EQ(game.first().id(), c.player_id());
  EXPECT_TRUE(game.second().bot());
  EXPECT_EQ(game.result(), v1::RESULT_SECOND_WINS);
}

TEST(Swap2Server, APersonPlacesThreeStonesAndABotChoosesBySearch) {
  TestServer server;
  WsClient c(server.port());
  c.hello("ann");
  const std::string id =
      expect_match_ack(c.play_bot("gomoku-swap2", "easy", v1::SIDE_FIRST, 300'000, 0));
  wait_event(c, id, Kind::kStarted);
  expect_error(c.request(choose(id, v1::SIDE_FIRST)), v1::ERROR_BAD_REQUEST);  // stones first
  for (const char* cell : {"h8", "i9", "h9"})
    expect_ack(c.move(id, cell));
  expect_error(c.move(id, "a1"), v1::ERROR_NOT_YOUR_TURN);  // the bot's choice now

  const auto chosen = wait_event(c, id, Kind::kOpeningChosen).opening_chosen();
  EXPECT_EQ(chosen.by(), v1::SIDE_SECOND);
  v1::Side mine = v1::SIDE_FIRST;
  if (chosen.place_two()) {
    EXPECT_FALSE(chosen.swapped());
    EXPECT_EQ(chosen.opening().step(), v1::OPENING_STEP_PLACE_TWO);
    EXPECT_EQ(wait_event(c, id, Kind::kMoveMade).move_made().side(), v1::SIDE_SECOND);
    const auto fifth = wait_event(c, id, Kind::kMoveMade).move_made();
    EXPECT_EQ(fifth.ply(), 5);
    EXPECT_EQ(fifth.opening().step(), v1::OPENING_STEP_CHOOSE_SIDE);
    expect_error(c.request(place_two(id)), v1::ERROR_BAD_REQUEST);  // offered once
    expect_ack(c.request(choose(id, v1::SIDE_SECOND)));
    const auto mine_chosen = wait_event(c, id, Kind::kOpeningChosen).opening_chosen();
    EXPECT_TRUE(mine_chosen.swapped());
    EXPECT_EQ(mine_chosen.second().id(), c.player_id());
    mine = v1::SIDE_SECOND;
    expect_ack(c.move(id, "g7"));  // ply 6, at once: the second side moves
    EXPECT_EQ(wait_event(c, id, Kind::kMoveMade).move_made().ply(), 6);
  } else {
    EXPECT_NE(chosen.side(), v1::SIDE_UNSPECIFIED);
    EXPECT_EQ(chosen.swapped(), chosen.side() == v1::SIDE_FIRST);
    mine = chosen.swapped() ? v1::SIDE_SECOND : v1::SIDE_FIRST;
    EXPECT_EQ(mine == v1::SIDE_FIRST ? chosen.first().id() : chosen.second().id(), c.player_id());
    if (mine == v1::SIDE_SECOND) {
      expect_ack(c.move(id, "g7"));  // ann, now second, plays stone 4
    }
    const auto fourth = wait_event(c, id, Kind::kMoveMade).move_made();
    EXPECT_EQ(fourth.ply(), 4);
    EXPECT_EQ(fourth.side(), v1::SIDE_SECOND);
  }
  const v1::MatchState state = state_on_resume(server, c.token());
  EXPECT_EQ(state.your_side(), mine);
  EXPECT_FALSE(state.has_opening());
}

}  // namespace
}  // namespace inarow::testing
