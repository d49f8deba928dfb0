// The server on a PostgreSQL store (--store postgresql://...): a person
// plays a rated game against a bot to its end over a WebSocket on
// 127.0.0.1; the server stops and starts again on the same database, and
// the player's token brings back their rating and their count of games.
#include <gtest/gtest.h>

#include <string>

#include "inarow/testing/test_server.h"
#include "inarow/testing/ws_client.h"
#include "postgres_cluster.h"

namespace inarow::testing {
namespace {

using Kind = v1::MatchEvent::KindCase;

v1::ClientMessage profile_message() {
  v1::ClientMessage m;
  m.mutable_get_profile();
  return m;
}

const v1::VariantRating* rating_in(const v1::Profile& p, const std::string& variant) {
  for (const auto& r : p.ratings()) {
    if (r.variant() == variant) return &r;
  }
  return nullptr;
}

TEST(PostgresServer, APlayersRatingAndGamesOutliveARestart) {
  auto* cluster = PostgresCluster::shared();
  ASSERT_NE(cluster, nullptr) << PostgresCluster::shared_error();
  auto db = cluster->create_database();
  ASSERT_TRUE(db) << db.error();
  server::ServerConfig config = test_config();
  config.store = *db;
  ASSERT_EQ(config.store.rfind("postgresql://", 0), 0u);

  std::string token, id;
  v1::Rating after;
  {
    TestServer server(config);
    WsClient c(server.port());
    id = c.hello("Pat").player_id();
    token = c.token();
    // A rated tic-tac-toe game against the easy bot, played to its end:
    // a1, then resigned once both sides have moved (a loss, rated).
    const std::string match = expect_match_ack(c.play_bot("tictactoe", "easy"));
    expect_ack(c.move(match, "a1"));
    ASSERT_TRUE(c.next_until([&](const v1::ServerMessage& s) {
      return s.has_event() && s.event().match_id() == match && s.event().has_move_made() &&
             s.event().move_made().ply() == 2;
    })) << "the bot did not answer";
    expect_ack(c.request(resign_message(match)));
    auto end = c.next_until([&](const v1::ServerMessage& s) {
      return s.has_event() && s.event().match_id() == match &&
             s.event().kind_case() == Kind::kEnded;
    });
    ASSERT_TRUE(end);
    bool rated = false;
    for (const auto& change : end->event().ended().ratings()) {
      if (change.player_id() == id) {
        after = change.after();
        rated = true;
      }
    }
    ASSERT_TRUE(rated) << end->DebugString();
    EXPECT_LT(after.rating(), 1500.0);
  }  // stopped: the store flushed and closed

  TestServer again(config);
  WsClient back(again.port());
  const auto welcome = back.resume(token);
  EXPECT_EQ(welcome.player_id(), id);
  EXPECT_EQ(welcome.name(), "Pat");
  EXPECT_TRUE(welcome.resumed());
  auto p = back.request(profile_message());
  ASSERT_TRUE(p.has_profile()) << p.DebugString();
  const auto* r = rating_in(p.profile(), "tictactoe");
  ASSERT_NE(r, nullptr) << p.DebugString();
  EXPECT_EQ(r->rating().rating(), after.rating());
  EXPECT_EQ(r->rating().deviation(), after.deviation());
  EXPECT_EQ(r->games(), 1u);
}

}  // namespace
}  // namespace inarow::testing
