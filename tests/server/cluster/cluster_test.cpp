// Three nodes of one cluster (one Redis, one store), clients spread across
// them: two people on different nodes are paired by seek and play to the
// end, a spectator on the third node sees every event in order, a private
// code made on one node is joined on another, a bot game runs on each (and
// every node shows a bot's measured Elo), and a player who comes back on
// another node resumes where they were, after the end too. The lobby is one:
// every node lists the whole pool and accepts a seek made on another, the
// cap on live matches holds across nodes, and a dead node's seeks go with
// it.
//
// The store is one SQLite file the three servers share (the PostgreSQL
// store's own tests hold it to the same answers); the nodes find each
// other, and each match's owner, through Redis alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "inarow/bots/ladder.h"
#include "inarow/server/directory.h"
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
                   std::chrono::milliseconds grace = 2s,
                   const std::function<void(server::ServerConfig&)>& more = {}) {
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
      if (more) more(config);
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

// The answer to a join of private game `code`, once the code is known
// where it is asked (it reaches the other nodes' directory on its own thread).
v1::ServerMessage join(WsClient& who, const std::string& code) {
  v1::ServerMessage joined;
  eventually(
      [&] {
        joined = who.request(join_private_message(code));
        return !(joined.has_error() && joined.error().code() == v1::ERROR_UNKNOWN_CODE);
      },
      5s);
  return joined;
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
  const auto ladder = bots::load_ladder(std::string(INAROW_WEIGHTS_DIR) + "/connect4_levels.txt");
  ASSERT_TRUE(ladder) << ladder.error().describe();
  const auto easy = std::find_if(ladder->rungs.begin(), ladder->rungs.end(),
                                 [](const bots::LadderRung& r) { return r.level == "easy"; });
  ASSERT_NE(easy, ladder->rungs.end());
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
    // Every node shows the level's measured Elo, the file's.
    v1::ClientMessage ask;
    ask.mutable_get_profile()->set_name("easy bot");
    const auto profile = person.request(ask);
    ASSERT_TRUE(profile.has_profile()) << profile.DebugString();
    const auto& measured = profile.profile().measured();
    const auto m = std::find_if(measured.begin(), measured.end(), [](const v1::LevelMeasure& x) {
      return x.variant() == "connect4";
    });
    ASSERT_NE(m, measured.end()) << profile.DebugString();
    EXPECT_EQ(m->level(), "easy");
    EXPECT_EQ(m->elo(), easy->elo);
    EXPECT_EQ(m->margin(), easy->margin);
    EXPECT_EQ(m->anchor(), ladder->anchor());
    EXPECT_EQ(m->games(), static_cast<std::uint32_t>(ladder->games));
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

// ---- The lobby across the nodes ----

v1::SeekList list_seeks(WsClient& c) {
  auto reply = c.request(list_seeks_message());
  EXPECT_TRUE(reply.has_seek_list()) << reply.DebugString();
  return reply.seek_list();
}

// The list `c` gets once `match` holds (asked again until it does).
v1::SeekList list_once(WsClient& c, const std::function<bool(const v1::SeekList&)>& match) {
  v1::SeekList list;
  EXPECT_TRUE(eventually(
      [&] {
        list = list_seeks(c);
        return match(list);
      },
      10s))
      << list.DebugString();
  return list;
}

// The directory the nodes share (the servers' own key prefix).
std::unique_ptr<server::Directory> shared_directory(std::unique_ptr<server::Redis>& redis) {
  auto opened = server::open_redis(RedisInstance::shared()->url(), server::RedisOptions{});
  if (!opened) {
    ADD_FAILURE() << opened.error();
    return nullptr;
  }
  redis = std::move(*opened);
  return std::make_unique<server::Directory>(*redis);
}

// Each node lists the seeks of all three, in the order they came, a page
// at a time, with the fields one node gives; a follower hears of seeks
// made on other nodes; a seek made on one node is accepted on another.
TEST(Cluster, EveryNodeListsTheWholePoolAndAcceptsASeekMadeOnAnother) {
  ASSERT_NE(RedisInstance::shared(), nullptr) << RedisInstance::shared_error();
  Cluster cluster("list", 2s, 2s, [](server::ServerConfig& c) { c.list_page_size = 2; });
  WsClient ada(cluster.port(2));
  WsClient bob(cluster.port(1));
  WsClient cy(cluster.port(0));
  ada.hello("Ada");
  bob.hello("Bob");
  cy.hello("Cy");
  const v1::ServerMessage followed = cy.request(list_seeks_message(true));
  ASSERT_TRUE(followed.has_seek_list()) << followed.DebugString();
  EXPECT_EQ(followed.seek_list().total(), 0u);

  // Three seeks that do not pair, one on each node, each in the pool
  // before the next is made (Cy keeps following: asked, he would not).
  expect_ack(ada.request(seek_message("connect4", 120'000, 1'000, false)));
  list_once(bob, [](const v1::SeekList& l) { return l.total() == 1; });
  expect_ack(bob.request(seek_message("gomoku", 0, 0, true)));
  list_once(ada, [](const v1::SeekList& l) { return l.total() == 2; });
  expect_ack(cy.request(seek_message("tictactoe", 0, 0, true)));

  // Node 0's follower heard of Ada's seek (made on node 2).
  auto pushed = cy.next_until([](const v1::ServerMessage& m) {
    return m.has_seek_list() && m.request_id() == 0 && m.seek_list().seeks_size() > 0;
  });
  ASSERT_TRUE(pushed);
  EXPECT_EQ(pushed->seek_list().seeks(0).player().id(), ada.player_id());

  for (int node = 0; node < 3; ++node) {
    WsClient c(cluster.port(node));
    c.hello("Lister" + std::to_string(node));
    const v1::SeekList seen = list_once(c, [](const v1::SeekList& l) { return l.total() == 3; });
    ASSERT_EQ(seen.seeks_size(), 2) << "a page of two, node " << node;
    EXPECT_EQ(seen.players_online(), 2u);  // this node's: the lister and one seeker
    EXPECT_EQ(seen.games_in_play(), 0u);
    expect_new_players_casual_seek(seen.seeks(0), "list-c/s1", ada.player_id(), "Ada");
    const v1::OpenSeek& t = seen.seeks(1);
    EXPECT_EQ(t.seek_id(), "list-b/s1");
    EXPECT_EQ(t.player().id(), bob.player_id());
    EXPECT_EQ(t.player().name(), "Bob");
    EXPECT_EQ(t.variant(), "gomoku");
    EXPECT_TRUE(t.rated());
  }

  // Cy, on node 0, accepts Ada's seek, made on node 2: the seeker plays
  // first, on the seek's terms; Cy's own seek goes.
  const std::string match = expect_match_ack(cy.request(accept_message("list-c/s1")));
  for (WsClient* c : {&ada, &cy}) {
    const auto started = wait_event(*c, match, v1::MatchEvent::kStarted);
    const auto& st = started.started().state();
    EXPECT_EQ(st.kind(), v1::MATCH_KIND_SEEK);
    EXPECT_EQ(st.variant(), "connect4");
    EXPECT_FALSE(st.rated());
    EXPECT_EQ(st.time_control().initial_ms(), 120'000);
    EXPECT_EQ(st.first().id(), ada.player_id());
    EXPECT_EQ(st.second().id(), cy.player_id());
  }
  // The match plays: Ada's move goes to node 0, its owner.
  ASSERT_TRUE(ada.move(match, "4").has_ack());
  const v1::SeekList after = list_seeks(bob);
  ASSERT_EQ(after.seeks_size(), 1);
  EXPECT_EQ(after.total(), 1u);
  EXPECT_EQ(after.seeks(0).seek_id(), "list-b/s1");
  expect_error(bob.request(accept_message("list-c/s1")), v1::ERROR_UNKNOWN_SEEK,
               "no open seek 'list-c/s1': it was taken or withdrawn");
  expect_error(bob.request(accept_message("list-b/s1")), v1::ERROR_OWN_SEEK,
               "you cannot accept your own seek");
  // Ada's seek is gone from her node too: she may seek again.
  expect_ack(ada.request(seek_message("connect4", 0, 0, true)));
}

// A player at the cap (--max-human-matches 1) through a match another
// node owns: their seek, made before, pairs with nobody, an accept on
// either side is refused with ERROR_TOO_MANY_MATCHES, and a new seek too,
// though their own node holds no match of theirs; nothing is made and
// both seeks stay until that match ends, when they pair.
TEST(Cluster, APlayerAtTheCapIsNotPairedOrAcceptedOnAnyNode) {
  ASSERT_NE(RedisInstance::shared(), nullptr) << RedisInstance::shared_error();
  Cluster cluster("cap", 2s, 2s,
                  [](server::ServerConfig& c) { c.max_human_matches_per_player = 1; });
  WsClient xena(cluster.port(0));
  WsClient yan(cluster.port(1));
  WsClient zoe(cluster.port(2));
  xena.hello("Xena");
  yan.hello("Yan");
  zoe.hello("Zoe");
  expect_ack(xena.request(seek_message("tictactoe", 0, 0, true)));
  // Then Xena joins Zoe's private game: node 2 owns it, and she is at the cap.
  auto code = zoe.request(create_private_message("tictactoe"));
  ASSERT_TRUE(code.has_ack()) << code.DebugString();
  v1::ServerMessage joined;
  ASSERT_TRUE(eventually(
      [&] {
        joined = xena.request(join_private_message(code.ack().code()));
        return !joined.has_error();
      },
      5s))
      << joined.DebugString();
  const std::string first = expect_match_ack(joined);
  wait_event(xena, first, v1::MatchEvent::kStarted);

  // Yan's seek is in the pool once acknowledged; node 1 tried to pair it
  // first, and passed Xena's over.
  expect_ack(yan.request(seek_message("tictactoe", 0, 0, true)));
  v1::SeekList open = list_seeks(yan);
  ASSERT_EQ(open.seeks_size(), 2) << open.DebugString();
  EXPECT_EQ(open.seeks(0).seek_id(), "cap-a/s1");
  EXPECT_EQ(open.seeks(1).seek_id(), "cap-b/s1");

  expect_error(yan.request(accept_message("cap-a/s1")), v1::ERROR_TOO_MANY_MATCHES,
               "the seeker already has 1 live games against people, the most allowed");
  expect_error(xena.request(accept_message("cap-b/s1")), v1::ERROR_TOO_MANY_MATCHES,
               "you already have 1 live games against people, the most allowed");
  open = list_seeks(zoe);
  EXPECT_EQ(open.total(), 2u) << open.DebugString();
  // Nothing was made: no start for Yan, though both nodes paired again
  // meanwhile (every second).
  EXPECT_FALSE(yan.next_until(
      [](const v1::ServerMessage& m) { return m.has_event() && m.event().has_started(); }, 2500ms));
  EXPECT_EQ(list_seeks(xena).total(), 2u);

  // Withdrawn, Xena's seek cannot be made again: node 0 holds none of her
  // matches, the pool counts them.
  v1::ClientMessage cancel;
  cancel.mutable_cancel_seek();
  expect_ack(xena.request(cancel));
  expect_error(xena.request(seek_message("tictactoe", 0, 0, true)), v1::ERROR_TOO_MANY_MATCHES,
               "you already have 1 live games against people, the most allowed");
  open = list_seeks(xena);
  ASSERT_EQ(open.seeks_size(), 1) << open.DebugString();
  EXPECT_EQ(open.seeks(0).seek_id(), "cap-b/s1");

  // The first match ends: Xena is below the cap, and seeks and pairs.
  ASSERT_TRUE(xena.request(resign_message(first)).has_ack());
  ASSERT_TRUE(eventually(
      [&] { return !xena.request(seek_message("tictactoe", 0, 0, true)).has_error(); }, 5s));
  const auto another = [&](const v1::ServerMessage& m) {
    return m.has_event() && m.event().has_started() && m.event().match_id() != first;
  };
  auto x_next = xena.next_until(another, 10s);
  auto y_next = yan.next_until(another, 10s);
  ASSERT_TRUE(x_next && y_next);
  EXPECT_EQ(y_next->event().match_id(), x_next->event().match_id());
  EXPECT_EQ(x_next->event().started().state().first().id(), yan.player_id());  // he waited longer
  EXPECT_EQ(list_seeks(zoe).total(), 0u);
}

// A private game counts its players' matches on every node, and holds the
// new match for both before it starts: a player at the cap through
// another node's match can neither join one nor have theirs joined, and a
// match just started counts at once (no other node pairs them meanwhile).
TEST(Cluster, APrivateGameCountsThePlayersMatchesOnEveryNode) {
  ASSERT_NE(RedisInstance::shared(), nullptr) << RedisInstance::shared_error();
  Cluster cluster("priv", 2s, 2s,
                  [](server::ServerConfig& c) { c.max_human_matches_per_player = 1; });
  WsClient ann(cluster.port(0));
  WsClient bob(cluster.port(1));
  WsClient cid(cluster.port(2));
  ann.hello("Ann");
  bob.hello("Bob");
  cid.hello("Cid");
  // Ann (node 0) joins Bob's game: node 1 owns the match, and she is at the cap.
  auto bobs = bob.request(create_private_message("tictactoe"));
  ASSERT_TRUE(bobs.has_ack()) << bobs.DebugString();
  const std::string first = expect_match_ack(join(ann, bobs.ack().code()));
  wait_event(ann, first, v1::MatchEvent::kStarted);

  // At once, with no wait for a count to land: Ann cannot join Cid's game
  // on node 2, nor Cid Ann's own, though neither node holds her match.
  auto cids = cid.request(create_private_message("tictactoe"));
  ASSERT_TRUE(cids.has_ack()) << cids.DebugString();
  expect_error(join(ann, cids.ack().code()), v1::ERROR_TOO_MANY_MATCHES,
               "you already have 1 live games against people, the most allowed");
  auto anns = ann.request(create_private_message("tictactoe"));
  ASSERT_TRUE(anns.has_ack()) << anns.DebugString();
  expect_error(join(cid, anns.ack().code()), v1::ERROR_TOO_MANY_MATCHES,
               "the game's creator already has 1 live games against people, the most allowed");
  // Nor does a seek of hers pair with Cid's.
  expect_error(ann.request(seek_message("tictactoe", 0, 0, true)), v1::ERROR_TOO_MANY_MATCHES,
               "you already have 1 live games against people, the most allowed");

  // Both games are still open: once Ann's match ends, Cid joins hers.
  ASSERT_TRUE(ann.request(resign_message(first)).has_ack());
  v1::ServerMessage joined;
  ASSERT_TRUE(eventually(
      [&] {
        joined = cid.request(join_private_message(anns.ack().code()));
        return !joined.has_error();
      },
      5s))
      << joined.DebugString();
  const std::string second = expect_match_ack(joined);
  EXPECT_NE(second, first);
  wait_event(ann, second, v1::MatchEvent::kStarted);
  wait_event(cid, second, v1::MatchEvent::kStarted);
}

// A rematch between people is held as a private game's join is: accepted
// by a player at the cap through another node's match, it is refused, and
// the offer stays until that match ends.
TEST(Cluster, ARematchCountsThePlayersMatchesOnEveryNode) {
  ASSERT_NE(RedisInstance::shared(), nullptr) << RedisInstance::shared_error();
  Cluster cluster("again", 2s, 2s,
                  [](server::ServerConfig& c) { c.max_human_matches_per_player = 1; });
  WsClient ann(cluster.port(0));
  WsClient bob(cluster.port(1));
  WsClient cid(cluster.port(2));
  ann.hello("Ann");
  bob.hello("Bob");
  cid.hello("Cid");
  // Ann and Bob play on node 1, and Bob offers a rematch.
  auto bobs = bob.request(create_private_message("tictactoe"));
  ASSERT_TRUE(bobs.has_ack()) << bobs.DebugString();
  const std::string first = expect_match_ack(join(ann, bobs.ack().code()));
  wait_event(ann, first, v1::MatchEvent::kStarted);
  ASSERT_TRUE(ann.request(resign_message(first)).has_ack());
  wait_event(bob, first, v1::MatchEvent::kEnded);
  expect_ack(bob.request(rematch_message(first)));
  wait_event(ann, first, v1::MatchEvent::kRematchOffered);

  // Ann is at the cap through Cid's game on node 2: node 1 refuses her.
  auto cids = cid.request(create_private_message("tictactoe"));
  ASSERT_TRUE(cids.has_ack()) << cids.DebugString();
  const std::string other = expect_match_ack(join(ann, cids.ack().code()));
  wait_event(ann, other, v1::MatchEvent::kStarted);
  expect_error(ann.request(rematch_message(first)), v1::ERROR_TOO_MANY_MATCHES,
               "you already have 1 live games against people, the most allowed");

  // That game over, the offer stands, and she takes it.
  ASSERT_TRUE(ann.request(resign_message(other)).has_ack());
  v1::ServerMessage again;
  ASSERT_TRUE(eventually(
      [&] {
        again = ann.request(rematch_message(first));
        return !again.has_error();
      },
      5s))
      << again.DebugString();
  const std::string rematch = expect_match_ack(again);
  EXPECT_NE(rematch, first);
  wait_event(bob, rematch, v1::MatchEvent::kStarted);
}

// A player away at the end who comes back on a node that never saw the
// match: the ended match still lingers on its owner, and the directory
// names that node, so the player gets the end and can ask for a rematch.
TEST(Cluster, APlayerBackOnAnotherNodeAfterTheEndGetsItAndARematch) {
  ASSERT_NE(RedisInstance::shared(), nullptr) << RedisInstance::shared_error();
  Cluster cluster("after", 2s, 20s);
  WsClient ann(cluster.port(0));
  auto bob = std::make_unique<WsClient>(cluster.port(1));
  ann.hello("Ann");
  bob->hello("Bob");
  auto anns = ann.request(create_private_message("tictactoe"));
  ASSERT_TRUE(anns.has_ack()) << anns.DebugString();
  const std::string match = expect_match_ack(join(*bob, anns.ack().code()));
  wait_event(ann, match, v1::MatchEvent::kStarted);
  EXPECT_EQ(wait_event(*bob, match, v1::MatchEvent::kStarted).seq(), 1u);
  const std::string token = bob->token();
  bob->drop();
  bob.reset();
  // His going is an event of the match (seq 2); the end comes after it.
  const v1::MatchEvent away = wait_event(ann, match, v1::MatchEvent::kPresence);
  EXPECT_FALSE(away.presence().connected());
  ASSERT_TRUE(ann.request(resign_message(match)).has_ack());
  wait_event(ann, match, v1::MatchEvent::kEnded);

  WsClient back(cluster.port(2));
  EXPECT_TRUE(back.resume(token, {{match, 1}}).resumed());
  const v1::MatchEvent missed = event_of(back, match);
  EXPECT_TRUE(missed.has_presence()) << missed.DebugString();
  EXPECT_EQ(missed.seq(), 2u);
  const v1::MatchEvent ended = event_of(back, match);
  ASSERT_TRUE(ended.has_ended()) << ended.DebugString();
  EXPECT_EQ(ended.seq(), 3u);
  EXPECT_EQ(ended.ended().reason(), v1::END_REASON_RESIGNATION);

  expect_ack(back.request(rematch_message(match)));
  wait_event(ann, match, v1::MatchEvent::kRematchOffered);
  const std::string rematch = expect_match_ack(ann.request(rematch_message(match)));
  EXPECT_NE(rematch, match);
  wait_event(back, rematch, v1::MatchEvent::kStarted);
}

// A node that dies leaves its seeks in the pool (it never says goodbye):
// once its entry runs out they are gone from every node's list, and a seek
// that would have paired with one finds nobody. The dead node is a
// directory entry with a seek and no process, as kill -9 leaves one.
TEST(Cluster, TheSeeksOfANodeThatDiedGoFromTheListAndNeverPair) {
  ASSERT_NE(RedisInstance::shared(), nullptr) << RedisInstance::shared_error();
  Cluster cluster("dead");
  std::unique_ptr<server::Redis> redis;
  auto directory = shared_directory(redis);
  ASSERT_NE(directory, nullptr);
  WsClient yan(cluster.port(1));
  yan.hello("Yan");
  std::string gone_id;
  {
    WsClient gone(cluster.port(0));
    gone.hello("Gone");
    gone_id = gone.player_id();
  }
  // Yan's seek, withdrawn, gives the terms a dead node's seek for the same
  // game would have.
  expect_ack(yan.request(seek_message("tictactoe", 0, 0, true)));
  std::vector<server::SharedSeek> open;
  ASSERT_TRUE(eventually(
      [&] {
        auto seeks = directory->seeks();
        open = seeks ? *seeks : std::vector<server::SharedSeek>{};
        return open.size() == 1;
      },
      5s));
  v1::ClientMessage cancel;
  cancel.mutable_cancel_seek();
  ASSERT_TRUE(yan.request(cancel).has_ack());

  auto registered = directory->register_node("dead-x", "127.0.0.1:1", 3s);
  ASSERT_TRUE(registered) << registered.error();
  v1::OpenSeek entry;
  entry.set_seek_id("dead-x/s1");
  entry.mutable_player()->set_id(gone_id);
  entry.mutable_player()->set_name("Gone");
  entry.set_variant("tictactoe");
  entry.set_rated(true);
  const server::SharedSeek orphan{"dead-x/s1",
                                  gone_id,
                                  "dead-x",
                                  open[0].terms,
                                  1500.0,
                                  open[0].since_ms,
                                  entry.SerializeAsString()};
  auto added = directory->add_seek(orphan);
  ASSERT_TRUE(added && *added);
  // Listed while its node's entry lives, on any node.
  v1::SeekList seen = list_once(yan, [](const v1::SeekList& l) { return l.total() == 1; });
  ASSERT_EQ(seen.seeks_size(), 1);
  EXPECT_EQ(seen.seeks(0).SerializeAsString(), entry.SerializeAsString());

  // The node sends no heartbeat: its entry runs out (3 s).
  ASSERT_TRUE(eventually(
      [&] {
        auto live = redis->command({"EXISTS", "inarow:node:dead-x"});
        return live && live->integer == 0;
      },
      10s));
  expect_ack(yan.request(seek_message("tictactoe", 0, 0, true)));
  seen = list_seeks(yan);  // node 1 tried to pair Yan's seek first
  ASSERT_EQ(seen.seeks_size(), 1) << seen.DebugString();
  EXPECT_EQ(seen.total(), 1u);
  EXPECT_EQ(seen.seeks(0).player().id(), yan.player_id());
  for (int node : {0, 2}) {
    WsClient c(cluster.port(node));
    c.hello("Lister" + std::to_string(node));
    EXPECT_EQ(list_seeks(c).total(), 1u) << node;
  }
  auto seeks = directory->seeks();
  ASSERT_TRUE(seeks) << seeks.error();
  ASSERT_EQ(seeks->size(), 1u);
  EXPECT_EQ((*seeks)[0].player_id, yan.player_id());
  EXPECT_FALSE(yan.next_until(
      [](const v1::ServerMessage& m) { return m.has_event() && m.event().has_started(); }, 1s));
}

// A node that stops (SIGTERM) clears the locations it set and takes its
// seeks out of the pool: its people are nowhere until they come back.
TEST(Cluster, ANodeThatStopsClearsItsPlayersLocationsAndSeeks) {
  ASSERT_NE(RedisInstance::shared(), nullptr) << RedisInstance::shared_error();
  Cluster cluster("leave");
  std::unique_ptr<server::Redis> redis;
  auto directory = shared_directory(redis);
  ASSERT_NE(directory, nullptr);
  WsClient ada(cluster.port(0));
  WsClient bob(cluster.port(1));
  ada.hello("Ada");
  bob.hello("Bob");
  expect_ack(ada.request(seek_message("connect4", 0, 0, true)));
  const auto location = [&](const std::string& player) {
    auto where = directory->location(player);
    return where && *where ? **where : std::string("nowhere");
  };
  ASSERT_TRUE(eventually([&] { return location(ada.player_id()) == "leave-a"; }, 5s));
  ASSERT_TRUE(eventually([&] { return location(bob.player_id()) == "leave-b"; }, 5s));
  list_once(bob, [](const v1::SeekList& l) { return l.total() == 1; });

  cluster.nodes[0]->stop();
  EXPECT_EQ(location(ada.player_id()), "nowhere");
  EXPECT_EQ(location(bob.player_id()), "leave-b");
  EXPECT_EQ(list_seeks(bob).total(), 0u);
}

}  // namespace
}  // namespace inarow::testing
