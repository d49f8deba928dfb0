// Three nodes of one cluster (one Redis, one store), clients spread across
// them: two people on different nodes are paired by seek and play to the
// end, a spectator on the third node sees every event in order, a private
// code made on one node is joined on another, a bot game runs on each, and
// a player who comes back on another node resumes where they were.
//
// The store is one SQLite file the three servers share (the PostgreSQL
// store's own tests hold it to the same answers); the nodes find each
// other, and each match's owner, through Redis alone.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "inarow/testing/eventually.h"
#include "inarow/testing/messages.h"
#include "inarow/testing/temp_dir.h"
#include "inarow/testing/test_server.h"
#include "inarow/testing/ws_client.h"
#include "redis_instance.h"

namespace inarow::testing {
namespace {

using namespace std::chrono_literals;

struct Cluster {
  explicit Cluster(const std::string& tag, std::chrono::milliseconds lease = 2s,
                   std::chrono::milliseconds grace = 2s) {
    RedisInstance* redis = RedisInstance::shared();
    if (!redis) return;
    for (int i = 0; i < 3; ++i) {
      server::ServerConfig config = test_config();
      config.store = (dir.path() / "inarow.db").string();
      config.store_busy_timeout = 5s;
      config.redis = redis->url();
      config.node_id = tag + "-" + std::string(1, static_cast<char>('a' + i));
      config.node_ttl = lease;
      config.reconnect_grace = grace;
      nodes[static_cast<std::size_t>(i)] = std::make_unique<TestServer>(config);
    }
  }
  std::uint16_t port(int i) const { return nodes[static_cast<std::size_t>(i)]->port(); }

  TempDir dir;
  std::array<std::unique_ptr<TestServer>, 3> nodes;
};

// The value of an unlabelled sample in /metrics text ("0" if absent).
std::string sample(const std::string& metrics, const std::string& name) {
  const auto at = metrics.find("\n" + name + " ");
  if (at == std::string::npos) return "0";
  const auto start = at + name.size() + 2;
  return metrics.substr(start, metrics.find('\n', start) - start);
}

// The next event of `match` (skipping anything else).
v1::MatchEvent event_of(WsClient& client, const std::string& match) {
  auto m = client.next_until(
      [&](const v1::ServerMessage& s) { return s.has_event() && s.event().match_id() == match; },
      10s);
  EXPECT_TRUE(m) << "no event of " << match;
  return m ? m->event() : v1::MatchEvent{};
}

v1::MatchEvent started_event(WsClient& client) {
  auto m = client.next_until(
      [](const v1::ServerMessage& s) { return s.has_event() && s.event().has_started(); }, 10s);
  EXPECT_TRUE(m) << "no match started";
  return m ? m->event() : v1::MatchEvent{};
}

// First wins on the top row: a1 b1 c1 against a2 b2.
const std::vector<std::string> kFirstWins = {"a1", "a2", "b1", "b2", "c1"};

TEST(Cluster, PlayersOnTwoNodesArePairedAndPlayWhileTheThirdNodeWatches) {
  ASSERT_NE(RedisInstance::shared(), nullptr) << RedisInstance::shared_error();
  Cluster cluster("pair");
  WsClient ada(cluster.port(0));
  WsClient bob(cluster.port(1));
  WsClient fan(cluster.port(2));
  ada.hello("Ada");
  bob.hello("Bob");
  fan.hello("Fan");

  ASSERT_TRUE(ada.seek("tictactoe").has_ack());
  ASSERT_TRUE(bob.seek("tictactoe").has_ack());
  const v1::MatchEvent a_started = started_event(ada);
  const v1::MatchEvent b_started = started_event(bob);
  const std::string match = a_started.match_id();
  ASSERT_FALSE(match.empty());
  EXPECT_EQ(b_started.match_id(), match);
  // Each hears its own side.
  EXPECT_NE(a_started.started().state().your_side(), b_started.started().state().your_side());
  EXPECT_EQ(a_started.seq(), 1u);
  EXPECT_EQ(b_started.seq(), 1u);

  // The spectator on the third node watches from the start.
  auto state = fan.request(watch_message(match, 0));
  ASSERT_TRUE(state.has_match_state()) << state.DebugString();

  WsClient* first = a_started.started().state().your_side() == v1::SIDE_FIRST ? &ada : &bob;
  WsClient* second = first == &ada ? &bob : &ada;
  std::uint64_t seq = 1;
  for (std::size_t i = 0; i < kFirstWins.size(); ++i) {
    WsClient* mover = i % 2 == 0 ? first : second;
    auto ack = mover->move(match, kFirstWins[i]);
    ASSERT_TRUE(ack.has_ack()) << ack.DebugString();
  }
  // Every event, in order, with its sequence number, on all three nodes.
  for (WsClient* client : {&ada, &bob, &fan}) {
    // The players from the start; the spectator from the state it got.
    std::uint64_t last = client == &fan ? state.match_state().last_seq() : 1;
    int moves = 0;
    for (;;) {
      const v1::MatchEvent e = event_of(*client, match);
      if (e.seq() == 0 && !e.match_id().empty()) continue;  // unnumbered news (spectators)
      EXPECT_EQ(e.seq(), last + 1) << e.DebugString();
      last = e.seq();
      if (e.has_move_made()) ++moves;
      if (e.has_ended()) {
        EXPECT_EQ(e.ended().result(), v1::RESULT_FIRST_WINS) << e.DebugString();
        break;
      }
      if (e.match_id().empty()) break;  // none came
    }
    EXPECT_EQ(moves, 5);
    seq = std::max(seq, last);
  }
  EXPECT_GT(seq, 6u);
  // The match lived on one node; the others forwarded to it: at least the
  // remote player's two moves and the watch.
  std::uint64_t forwarded = 0, relayed = 0;
  for (int i = 0; i < 3; ++i) {
    const std::string metrics = http_get(cluster.port(i), "/metrics").body;
    forwarded += std::stoull(sample(metrics, "inarow_forwarded_total"));
    relayed += std::stoull(sample(metrics, "inarow_relayed_in_total"));
  }
  EXPECT_GE(forwarded, 3u);
  EXPECT_EQ(relayed, forwarded);
}

TEST(Cluster, APrivateCodeMadeOnOneNodeIsJoinedOnAnother) {
  ASSERT_NE(RedisInstance::shared(), nullptr) << RedisInstance::shared_error();
  Cluster cluster("code");
  WsClient maker(cluster.port(0));
  WsClient friend_(cluster.port(2));
  maker.hello("Maker");
  friend_.hello("Friend");
  v1::ClientMessage create;
  create.mutable_create_private()->set_variant("tictactoe");
  create.mutable_create_private()->set_side(v1::SIDE_FIRST);
  auto code = maker.request(create);
  ASSERT_TRUE(code.has_ack()) << code.DebugString();
  // The directory has it once the node has put it there.
  v1::ServerMessage joined;
  ASSERT_TRUE(eventually(
      [&] {
        joined = friend_.request(join_private_message(code.ack().code()));
        return !joined.has_error();
      },
      5s))
      << joined.DebugString();
  const std::string match = expect_match_ack(joined);
  const v1::MatchEvent mine = started_event(maker);
  EXPECT_EQ(mine.match_id(), match);
  EXPECT_EQ(mine.started().state().your_side(), v1::SIDE_FIRST);
  ASSERT_TRUE(maker.move(match, "b2").has_ack());
  ASSERT_TRUE(friend_.move(match, "a1").has_ack());
  // The friend, seated through the link it joined by, hears each event
  // once and in order, and no second state (its node, told it was seated,
  // attaches it again). The refused move's answer comes after all that.
  expect_error(friend_.move(match, "c3"), v1::ERROR_NOT_YOUR_TURN);
  std::uint64_t last = 0;
  while (auto m = friend_.next(0ms)) {
    EXPECT_FALSE(m->has_match_state()) << m->DebugString();
    if (m->has_event() && m->event().match_id() == match && m->event().seq() > 0) {
      EXPECT_EQ(m->event().seq(), last + 1) << m->event().DebugString();
      last = m->event().seq();
    }
  }
  EXPECT_EQ(last, 3u);
  // A code joined is gone, on every node.
  WsClient late(cluster.port(1));
  late.hello("Late");
  expect_error(late.request(join_private_message(code.ack().code())), v1::ERROR_UNKNOWN_CODE);
}

TEST(Cluster, ABotGameRunsOnEachNode) {
  ASSERT_NE(RedisInstance::shared(), nullptr) << RedisInstance::shared_error();
  Cluster cluster("bots");
  for (int i = 0; i < 3; ++i) {
    WsClient person(cluster.port(i));
    person.hello("Person" + std::to_string(i));
    const std::string match = expect_match_ack(person.play_bot("tictactoe", "easy"));
    ASSERT_TRUE(person.move(match, "b2").has_ack());
    // The bot answers.
    for (;;) {
      const v1::MatchEvent e = event_of(person, match);
      ASSERT_FALSE(e.match_id().empty());
      if (e.has_move_made() && e.move_made().ply() == 2) break;
    }
  }
}

TEST(Cluster, APlayerWhoComesBackOnAnotherNodeResumesTheirMatch) {
  ASSERT_NE(RedisInstance::shared(), nullptr) << RedisInstance::shared_error();
  Cluster cluster("resume");
  WsClient ada(cluster.port(0));
  auto bob = std::make_unique<WsClient>(cluster.port(1));
  ada.hello("Ada");
  bob->hello("Bob");
  ASSERT_TRUE(ada.seek("tictactoe").has_ack());
  ASSERT_TRUE(bob->seek("tictactoe").has_ack());
  const v1::MatchEvent a_started = started_event(ada);
  const v1::MatchEvent b_started = started_event(*bob);
  const std::string match = a_started.match_id();
  WsClient* first = a_started.started().state().your_side() == v1::SIDE_FIRST ? &ada : bob.get();
  ASSERT_TRUE(first->move(match, "b2").has_ack());
  const std::string token = bob->token();
  bob->drop();
  bob.reset();
  // Bob comes back on the third node, having seen only the start.
  WsClient back(cluster.port(2));
  EXPECT_TRUE(back.resume(token, {{match, 1}}).resumed());
  const v1::MatchEvent missed = event_of(back, match);
  EXPECT_EQ(missed.seq(), 2u) << missed.DebugString();
  auto state = back.next_until([](const v1::ServerMessage& m) { return m.has_match_state(); });
  ASSERT_TRUE(state);
  EXPECT_EQ(state->match_state().match_id(), match);
  EXPECT_EQ(state->match_state().your_side(), b_started.started().state().your_side());
}

// A node stopped (SIGTERM) hands its matches over: another node takes each
// over at once, not a lease later, from the store; its players, on the
// stopped node and on the others, are closed, come back and resume where
// they were; the game goes on to its end with every move in its place.
TEST(Cluster, ANodeThatStopsHandsItsMatchesOverAndThePlayersResume) {
  ASSERT_NE(RedisInstance::shared(), nullptr) << RedisInstance::shared_error();
  // A lease far longer than the test; a grace long enough for slow builds.
  Cluster cluster("handover", 30s, 10s);
  auto maker = std::make_unique<WsClient>(cluster.port(0));
  auto joiner = std::make_unique<WsClient>(cluster.port(1));
  maker->hello("Maker");
  joiner->hello("Joiner");
  v1::ClientMessage create;
  create.mutable_create_private()->set_variant("tictactoe");
  create.mutable_create_private()->set_side(v1::SIDE_FIRST);
  auto code = maker->request(create);
  ASSERT_TRUE(code.has_ack()) << code.DebugString();
  v1::ServerMessage joined;
  ASSERT_TRUE(eventually(
      [&] {
        joined = joiner->request(join_private_message(code.ack().code()));
        return !joined.has_error();
      },
      5s))
      << joined.DebugString();
  const std::string match = expect_match_ack(joined);
  ASSERT_TRUE(maker->move(match, "a1").has_ack());
  ASSERT_TRUE(joiner->move(match, "a2").has_ack());  // forwarded to node 0, its owner
  ASSERT_TRUE(maker->move(match, "b1").has_ack());
  // Both saw the start and three moves: seq 4.
  for (WsClient* c : {maker.get(), joiner.get()}) {
    std::uint64_t last = 0;
    while (last < 4) {
      const v1::MatchEvent e = event_of(*c, match);
      ASSERT_FALSE(e.match_id().empty());
      last = e.seq();
    }
  }
  const std::string maker_token = maker->token();
  const std::string joiner_token = joiner->token();

  // Node 0 stops (as on SIGTERM) while its clients are there: the maker
  // hears goodbye, the joiner's node closes the joiner (its match's owner
  // went); both come back at once.
  const auto stopped_at = std::chrono::steady_clock::now();
  std::thread stopping([&] { cluster.nodes[0]->stop(); });
  for (WsClient* c : {maker.get(), joiner.get()}) {
    EXPECT_FALSE(c->next_until([](const v1::ServerMessage&) { return false; }, 5s));
    EXPECT_TRUE(c->closed());
  }
  maker.reset();
  joiner.reset();

  WsClient maker_back(cluster.port(2));
  WsClient joiner_back(cluster.port(1));
  EXPECT_TRUE(maker_back.resume(maker_token, {{match, 4}}).resumed());
  EXPECT_TRUE(joiner_back.resume(joiner_token, {{match, 4}}).resumed());
  for (WsClient* c : {&maker_back, &joiner_back}) {
    const char* who = c == &maker_back ? "the maker" : "the joiner";
    auto state = c->next_until([](const v1::ServerMessage& m) { return m.has_match_state(); }, 10s);
    ASSERT_TRUE(state) << "no state after the hand-over for " << who;
    EXPECT_EQ(state->match_state().match_id(), match);
    EXPECT_EQ(state->match_state().moves_size(), 3) << state->DebugString();
  }
  const auto resumed_in = std::chrono::steady_clock::now() - stopped_at;
  // A hand-over, not a lease's expiry (30 s).
  EXPECT_LT(resumed_in, 10s);
  stopping.join();

  // The game goes on where it was, on its new owner: the joiner blocks the
  // top row's last cell, the maker wins on the diagonal.
  ASSERT_TRUE(joiner_back.move(match, "c1").has_ack());
  ASSERT_TRUE(maker_back.move(match, "b2").has_ack());
  ASSERT_TRUE(joiner_back.move(match, "c2").has_ack());
  ASSERT_TRUE(maker_back.move(match, "c3").has_ack());
  const v1::MatchEvent ended = wait_event(joiner_back, match, v1::MatchEvent::kEnded);
  EXPECT_EQ(ended.ended().result(), v1::RESULT_FIRST_WINS) << ended.DebugString();
  const std::uint64_t take_overs =
      std::stoull(sample(http_get(cluster.port(1), "/metrics").body, "inarow_take_overs_total")) +
      std::stoull(sample(http_get(cluster.port(2), "/metrics").body, "inarow_take_overs_total"));
  EXPECT_EQ(take_overs, 1u);
}

}  // namespace
}  // namespace inarow::testing
