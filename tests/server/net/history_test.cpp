// The game history over real sockets: a player's games newest first, paged
// by cursor, with their rating changes; a game's whole record and its
// exports (our text, Piskvork's .psq) over the protocol and over HTTP;
// private games for their players only; and every bad request's typed
// error, which changes nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "inarow/engine/game.h"
#include "inarow/engine/notation.h"
#include "inarow/server/sqlite_store.h"
#include "inarow/testing/messages.h"
#include "inarow/testing/temp_dir.h"
#include "inarow/testing/test_server.h"
#include "inarow/testing/ws_client.h"

namespace inarow::testing {
namespace {

using Kind = v1::MatchEvent::KindCase;

v1::ClientMessage list_games_message(const std::string& player_id = {}, std::uint32_t limit = 0,
                                     const std::string& before = {}) {
  v1::ClientMessage m;
  m.mutable_list_games()->set_player_id(player_id);
  m.mutable_list_games()->set_limit(limit);
  m.mutable_list_games()->set_before(before);
  return m;
}

v1::ClientMessage get_game_message(const std::string& match_id) {
  v1::ClientMessage m;
  m.mutable_get_game()->set_match_id(match_id);
  return m;
}

std::vector<std::string> ids_of(const v1::GameList& list) {
  std::vector<std::string> out;
  for (const auto& g : list.games())
    out.push_back(g.match_id());
  return out;
}

// A tic-tac-toe game against the easy bot: one move, then resignation.
// The match's end event (with its rating changes) comes back.
v1::MatchEvent lose_to_the_bot(WsClient& c, std::string& match_id) {
  match_id = expect_match_ack(c.play_bot("tictactoe", "easy", v1::SIDE_FIRST, 60'000, 1'000));
  wait_event(c, match_id, Kind::kStarted);
  expect_ack(c.move(match_id, "b2"));
  wait_event(c, match_id, Kind::kMoveMade);  // ours
  wait_event(c, match_id, Kind::kMoveMade);  // the bot's
  expect_ack(c.request(resign_message(match_id)));
  return wait_event(c, match_id, Kind::kEnded);
}

// Two people paired by seeking (untimed); `a` plays first. Plays `moves`
// alternately and waits for the end at both.
std::string play_people(WsClient& a, WsClient& b, const std::string& variant,
                        const std::vector<std::string>& moves) {
  expect_ack(a.seek(variant));
  expect_ack(b.seek(variant));
  const std::string id = a.next_until([](const v1::ServerMessage& s) {
                            return s.has_event() && s.event().has_started();
                          })
                             ->event()
                             .match_id();
  wait_event(b, id, Kind::kStarted);
  for (std::size_t i = 0; i < moves.size(); ++i) {
    WsClient& mover = i % 2 == 0 ? a : b;
    expect_ack(mover.move(id, moves[i]));
  }
  wait_event(a, id, Kind::kEnded);
  wait_event(b, id, Kind::kEnded);
  return id;
}

std::string utc(std::int64_t unix_ms) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return out;
}

void expect_same_rating(const v1::Rating& a, const v1::Rating& b) {
  EXPECT_DOUBLE_EQ(a.rating(), b.rating());
  EXPECT_DOUBLE_EQ(a.deviation(), b.deviation());
}

TEST(History, MyGamesComeNewestFirstInPagesWithTheirRatingChanges) {
  TestServer server;
  WsClient c(server.port());
  c.hello("ann");
  std::string ids[3];
  v1::MatchEvent ends[3];
  for (int i = 0; i < 3; ++i) {
    ends[i] = lose_to_the_bot(c, ids[i]);
    // Each ends in a millisecond of its own: games that end together are
    // listed by id, which says nothing of which came first.
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }

  const auto first = c.request(list_games_message({}, 2));
  ASSERT_TRUE(first.has_game_list()) << first.DebugString();
  EXPECT_EQ(first.game_list().player_id(), c.player_id());
  EXPECT_EQ(ids_of(first.game_list()), (std::vector<std::string>{ids[2], ids[1]}));
  ASSERT_FALSE(first.game_list().next().empty());
  const auto second = c.request(list_games_message({}, 2, first.game_list().next()));
  ASSERT_TRUE(second.has_game_list()) << second.DebugString();
  EXPECT_EQ(ids_of(second.game_list()), (std::vector<std::string>{ids[0]}));
  EXPECT_TRUE(second.game_list().next().empty());
  // One page of all, asked of the same player by id.
  const auto all = c.request(list_games_message(c.player_id()));
  ASSERT_TRUE(all.has_game_list()) << all.DebugString();
  ASSERT_EQ(ids_of(all.game_list()), (std::vector<std::string>{ids[2], ids[1], ids[0]}));
  EXPECT_TRUE(all.game_list().next().empty());

  for (int i = 0; i < 3; ++i) {
    const v1::GameSummary& g = all.game_list().games(2 - i);
    EXPECT_EQ(g.variant(), "tictactoe");
    EXPECT_EQ(g.kind(), v1::MATCH_KIND_BOT);
    EXPECT_TRUE(g.rated());
    EXPECT_EQ(g.time_control().initial_ms(), 60'000);
    EXPECT_EQ(g.time_control().increment_ms(), 1'000);
    EXPECT_EQ(g.first().id(), c.player_id());
    EXPECT_EQ(g.first().name(), "ann");
    EXPECT_FALSE(g.first().bot());
    EXPECT_TRUE(g.second().bot());
    EXPECT_EQ(g.result(), v1::RESULT_SECOND_WINS);
    EXPECT_EQ(g.end_reason(), v1::END_REASON_RESIGNATION);
    EXPECT_EQ(g.plies(), 2);
    EXPECT_GE(g.ended_ms(), g.created_ms());
    // The changes the end announced, as the history keeps them.
    ASSERT_EQ(g.ratings_size(), 2);
    ASSERT_EQ(ends[i].ended().ratings_size(), 2);
    for (int s = 0; s < 2; ++s) {
      EXPECT_EQ(g.ratings(s).player_id(), ends[i].ended().ratings(s).player_id());
      expect_same_rating(g.ratings(s).before(), ends[i].ended().ratings(s).before());
      expect_same_rating(g.ratings(s).after(), ends[i].ended().ratings(s).after());
    }
    expect_same_rating(g.first().rating(), ends[i].ended().ratings(0).before());
    EXPECT_LT(g.ratings(0).after().rating(), g.ratings(0).before().rating());  // a loss
  }
  // Each game starts from the rating the one before left.
  EXPECT_DOUBLE_EQ(all.game_list().games(2).ratings(0).before().rating(), 1500.0);
  expect_same_rating(all.game_list().games(1).ratings(0).before(),
                     all.game_list().games(2).ratings(0).after());
  expect_same_rating(all.game_list().games(0).ratings(0).before(),
                     all.game_list().games(1).ratings(0).after());
}

TEST(History, AGameRecordAndItsTextExport) {
  TestServer server;
  WsClient a(server.port()), b(server.port());
  a.hello("alice");
  b.hello("bob");
  const std::string id = play_people(a, b, "tictactoe", {"a1", "b1", "a2", "b2", "a3"});

  const auto answer = b.request(get_game_message(id));
  ASSERT_TRUE(answer.has_game_record()) << answer.DebugString();
  const v1::GameRecord& r = answer.game_record();
  EXPECT_EQ(r.game().match_id(), id);
  EXPECT_EQ(r.game().kind(), v1::MATCH_KIND_SEEK);
  EXPECT_EQ(r.game().first().name(), "alice");
  EXPECT_EQ(r.game().second().name(), "bob");
  EXPECT_EQ(r.game().result(), v1::RESULT_FIRST_WINS);
  EXPECT_EQ(r.game().end_reason(), v1::END_REASON_LINE);
  EXPECT_EQ(r.game().plies(), 5);
  EXPECT_EQ(r.notation(), "a1b1a2b2a3");
  ASSERT_EQ(r.moves_size(), 5);
  EXPECT_EQ(r.moves(4).ply(), 5);
  EXPECT_EQ(r.moves(4).move(), "a3");
  EXPECT_EQ(r.moves(4).first_ms(), 0);  // untimed
  EXPECT_TRUE(r.psq().empty());         // not a five-in-a-row board
  ASSERT_EQ(r.game().ratings_size(), 2);
  const long before = std::lround(r.game().ratings(0).before().rating());
  const long after = std::lround(r.game().ratings(0).after().rating());
  const long b_after = std::lround(r.game().ratings(1).after().rating());
  ASSERT_EQ(before, 1500);
  const std::string text = "Game: " + id +
                           "\n"
                           "Variant: tictactoe\n"
                           "First: alice\n"
                           "Second: bob\n"
                           "Result: 1-0, alice wins by a line\n"
                           "Rated: yes\n"
                           "Rating first: 1500 -> " +
                           std::to_string(after) + " (+" + std::to_string(after - 1500) +
                           ")\n"
                           "Rating second: 1500 -> " +
                           std::to_string(b_after) + " (" + std::to_string(b_after - 1500) +
                           ")\n"
                           "Time control: none\n"
                           "Date: " +
                           utc(r.game().ended_ms()) +
                           "\n"
                           "Plies: 5\n"
                           "\n"
                           "1. a1 b1\n"
                           "2. a2 b2\n"
                           "3. a3\n"
                           "\n"
                           "Position: a1b1a2b2a3\n";
  EXPECT_EQ(r.text(), text);
  // The position line is one the engine reads back, to the same end.
  auto variant = Variant::parse("tictactoe");
  ASSERT_TRUE(variant);
  auto replayed = Game::parse(*variant, "a1b1a2b2a3");
  ASSERT_TRUE(replayed);
  EXPECT_TRUE(replayed->over());

  // Over HTTP: the same text as a download, the page as the game's link,
  // and no .psq for tic-tac-toe.
  const auto txt = http_get(server.port(), "/game/" + id + ".txt");
  EXPECT_EQ(txt.status, 200);
  EXPECT_EQ(txt.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(txt.body, text);
  const auto psq = http_get(server.port(), "/game/" + id + ".psq");
  EXPECT_EQ(psq.status, 404);
  EXPECT_EQ(psq.body, "no .psq record for tictactoe: five in a row without gravity only\n");
  const auto page = http_get(server.port(), "/game/" + id);
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("/assets/app.js"), std::string::npos);
  const auto missing = http_get(server.port(), "/game/nope.txt");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, "no game \"nope\"\n");
}

// Piskvork's record, read back as Piskvork reads it: the header's size,
// then x,y,time lines (1-based, y from the top) up to the names and -1.
struct Psq {
  int width = 0, height = 0;
  std::vector<std::pair<int, int>> moves;
  std::vector<std::string> trailer;
};
Psq read_psq(const std::string& text) {
  Psq p;
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    const auto end = text.find('\n', at);
    lines.push_back(text.substr(at, end - at));
    at = end == std::string::npos ? text.size() : end + 1;
  }
  EXPECT_FALSE(lines.empty());
  if (lines.empty()) return p;
  EXPECT_EQ(std::sscanf(lines[0].c_str(), "Piskvorky %dx%d, 11:11, 0", &p.width, &p.height), 2)
      << lines[0];
  std::size_t i = 1;
  for (; i < lines.size(); ++i) {
    int x = 0, y = 0, ms = 0;
    char tail = 0;
    if (std::sscanf(lines[i].c_str(), "%d,%d,%d%c", &x, &y, &ms, &tail) != 3) break;
    p.moves.emplace_back(x, y);
  }
  for (; i < lines.size(); ++i)
    p.trailer.push_back(lines[i]);
  return p;
}

TEST(History, AGomokuGameExportsAPsqRecordThatReadsBack) {
  TestServer server;
  WsClient a(server.port()), b(server.port());
  a.hello("alice");
  b.hello("bob");
  const std::vector<std::string> moves = {"h8", "a1", "h9", "a2", "h10", "a3", "h11", "o15", "h12"};
  const std::string id = play_people(a, b, "gomoku", moves);
  const auto answer = a.request(get_game_message(id));
  ASSERT_TRUE(answer.has_game_record()) << answer.DebugString();
  const std::string expected =
      "Piskvorky 15x15, 11:11, 0\n"
      "8,8,0\n1,15,0\n8,7,0\n1,14,0\n8,6,0\n1,13,0\n8,5,0\n15,1,0\n8,4,0\n"
      "alice\nbob\n-1\n";
  EXPECT_EQ(answer.game_record().psq(), expected);
  const auto http = http_get(server.port(), "/game/" + id + ".psq");
  EXPECT_EQ(http.status, 200);
  EXPECT_EQ(http.body, expected);

  // Read back: the same moves, to the same five in a row.
  const Psq psq = read_psq(http.body);
  EXPECT_EQ(psq.width, 15);
  EXPECT_EQ(psq.height, 15);
  EXPECT_EQ(psq.trailer, (std::vector<std::string>{"alice", "bob", "-1"}));
  auto variant = Variant::parse("gomoku");
  ASSERT_TRUE(variant);
  std::string notation;
  for (auto [x, y] : psq.moves)
    notation += format_cell(*variant, variant->cell(x - 1, psq.height - y));
  EXPECT_EQ(notation, answer.game_record().notation());
  auto game = Game::parse(*variant, notation);
  ASSERT_TRUE(game) << notation;
  EXPECT_TRUE(game->over());
}

TEST(History, PrivateGamesAreForTheirPlayersOnly) {
  TestServer server;
  WsClient a(server.port()), b(server.port()), c(server.port());
  a.hello("alice");
  b.hello("bob");
  c.hello("carol");
  const auto created = a.request(create_private_message("tictactoe"));
  ASSERT_TRUE(created.has_ack()) << created.DebugString();
  const std::string secret =
      expect_match_ack(b.request(join_private_message(created.ack().code())));
  wait_event(a, secret, Kind::kStarted);
  expect_ack(a.request(resign_message(secret)));
  wait_event(a, secret, Kind::kEnded);
  const std::string open = play_people(a, b, "tictactoe", {"a1", "b1", "a2", "b2", "a3"});

  // Alice and Bob see both; Carol sees the public one only.
  const auto mine = a.request(list_games_message());
  EXPECT_EQ(ids_of(mine.game_list()), (std::vector<std::string>{open, secret}));
  const auto bobs_view = b.request(list_games_message(a.player_id()));
  EXPECT_EQ(ids_of(bobs_view.game_list()), (std::vector<std::string>{open, secret}));
  const auto carols_view = c.request(list_games_message(a.player_id(), 1));
  ASSERT_TRUE(carols_view.has_game_list()) << carols_view.DebugString();
  EXPECT_EQ(ids_of(carols_view.game_list()), (std::vector<std::string>{open}));
  EXPECT_TRUE(carols_view.game_list().next().empty());  // the private one is not a page

  const auto theirs = b.request(get_game_message(secret));
  ASSERT_TRUE(theirs.has_game_record()) << theirs.DebugString();
  EXPECT_EQ(theirs.game_record().game().kind(), v1::MATCH_KIND_PRIVATE);
  const auto refused = c.request(get_game_message(secret));
  expect_error(refused, v1::ERROR_UNKNOWN_MATCH, "no game \"" + secret + "\"");
  EXPECT_EQ(refused.error().match_id(), secret);
  EXPECT_EQ(http_get(server.port(), "/game/" + secret + ".txt").status, 404);
  EXPECT_EQ(http_get(server.port(), "/game/" + open + ".txt").status, 200);
}

// Alice, Bob, Carol and Dave on a server whose store holds ten games of
// Alice's that ended in the same millisecond: every other one private with
// Bob (s0, s2, ...), the rest public with Carol (s1, s3, ...).
struct SameMillisecond {
  TempDir dir;
  server::ServerConfig config = test_config();
  std::string tokens[4];  // Alice, Bob, Carol, Dave
  std::string ids[4];

  SameMillisecond() {
    config.store = (dir.path() / "inarow.db").string();
    {
      TestServer server(config);
      const char* names[] = {"alice", "bob", "carol", "dave"};
      for (int i = 0; i < 4; ++i) {
        WsClient c(server.port());
        ids[i] = c.hello(names[i]).player_id();
        tokens[i] = c.token();
      }
    }
    auto store = server::open_sqlite_store(config.store);
    if (!store) {
      ADD_FAILURE() << store.error();
      return;
    }
    std::vector<server::StoreOp> ops;
    for (int i = 0; i < 10; ++i) {
      server::MatchRecord m;
      m.id = "s" + std::to_string(i);
      m.variant = "tictactoe";
      m.kind = i % 2 == 0 ? v1::MATCH_KIND_PRIVATE : v1::MATCH_KIND_SEEK;
      m.first_id = ids[0];
      m.second_id = ids[i % 2 == 0 ? 1 : 2];
      m.created_ms = 1'700'000'000'000;
      ops.push_back(server::store_op::CreateMatch{m});
      ops.push_back(server::store_op::FinishMatch{m.id,
                                                  v1::RESULT_FIRST_WINS,
                                                  v1::END_REASON_RESIGNATION,
                                                  1'700'000'060'000,
                                                  {server::MoveRecord{1, "b2", 0, 0}}});
    }
    EXPECT_TRUE((*store)->write(ops));
  }
};

// Every page of Alice's games as `c` asks for them, `limit` a page: the ids
// in the order given, each page but the last full and with a cursor.
std::vector<std::string> page_through(WsClient& c, const std::string& player, std::uint32_t limit) {
  std::vector<std::string> ids;
  std::string cursor;
  for (int pages = 0; pages < 20; ++pages) {
    const auto page = c.request(list_games_message(player, limit, cursor));
    EXPECT_TRUE(page.has_game_list()) << page.DebugString();
    for (const auto& g : page.game_list().games())
      ids.push_back(g.match_id());
    cursor = page.game_list().next();
    if (cursor.empty()) break;
    EXPECT_EQ(page.game_list().games_size(), static_cast<int>(limit)) << page.DebugString();
  }
  return ids;
}

TEST(History, PagesOfGamesThatEndedInTheSameMillisecondListEachOnce) {
  SameMillisecond seeded;
  TestServer server(seeded.config);
  WsClient alice(server.port()), dave(server.port());
  ASSERT_EQ(alice.resume(seeded.tokens[0]).player_id(), seeded.ids[0]);
  ASSERT_EQ(dave.resume(seeded.tokens[3]).player_id(), seeded.ids[3]);
  const std::vector<std::string> all = {"s9", "s8", "s7", "s6", "s5", "s4", "s3", "s2", "s1", "s0"};
  const std::vector<std::string> open = {"s9", "s7", "s5", "s3", "s1"};
  for (std::uint32_t limit : {1u, 2u, 3u, 4u}) {
    EXPECT_EQ(page_through(alice, {}, limit), all) << limit;
    EXPECT_EQ(page_through(dave, seeded.ids[0], limit), open) << limit;
  }
}

TEST(History, AnotherPlayerGetsFullPagesOfPublicGamesAndTheirPlayersSeeAll) {
  SameMillisecond seeded;
  TestServer server(seeded.config);
  WsClient alice(server.port()), bob(server.port()), carol(server.port()), dave(server.port());
  alice.resume(seeded.tokens[0]);
  bob.resume(seeded.tokens[1]);
  carol.resume(seeded.tokens[2]);
  dave.resume(seeded.tokens[3]);
  const std::string& a = seeded.ids[0];

  // Dave (no part in any): two public games a page, and a cursor to the rest.
  const auto first = dave.request(list_games_message(a, 2));
  ASSERT_TRUE(first.has_game_list()) << first.DebugString();
  EXPECT_EQ(ids_of(first.game_list()), (std::vector<std::string>{"s9", "s7"}));
  EXPECT_EQ(first.game_list().next(), "1700000060000.s7");
  const auto second = dave.request(list_games_message(a, 2, first.game_list().next()));
  ASSERT_TRUE(second.has_game_list()) << second.DebugString();
  EXPECT_EQ(ids_of(second.game_list()), (std::vector<std::string>{"s5", "s3"}));
  EXPECT_EQ(second.game_list().next(), "1700000060000.s3");
  const auto last = dave.request(list_games_message(a, 2, second.game_list().next()));
  ASSERT_TRUE(last.has_game_list()) << last.DebugString();
  EXPECT_EQ(ids_of(last.game_list()), (std::vector<std::string>{"s1"}));
  EXPECT_TRUE(last.game_list().next().empty());
  // Carol played the public ones only: the same.
  EXPECT_EQ(ids_of(carol.request(list_games_message(a, 5)).game_list()),
            (std::vector<std::string>{"s9", "s7", "s5", "s3", "s1"}));

  // Alice, and Bob who played the private ones, see all ten.
  const auto mine = alice.request(list_games_message({}, 4));
  ASSERT_TRUE(mine.has_game_list()) << mine.DebugString();
  EXPECT_EQ(ids_of(mine.game_list()), (std::vector<std::string>{"s9", "s8", "s7", "s6"}));
  EXPECT_EQ(mine.game_list().next(), "1700000060000.s6");
  const auto bobs = bob.request(list_games_message(a, 10));
  ASSERT_TRUE(bobs.has_game_list()) << bobs.DebugString();
  EXPECT_EQ(bobs.game_list().games_size(), 10);
  EXPECT_TRUE(bobs.game_list().next().empty());
  // Bob's own list, as Dave sees it: all private, so none.
  const auto none = dave.request(list_games_message(seeded.ids[1]));
  ASSERT_TRUE(none.has_game_list()) << none.DebugString();
  EXPECT_EQ(none.game_list().games_size(), 0);
  EXPECT_TRUE(none.game_list().next().empty());
}

// Over HTTP no player is behind the request: GET /matches/<id> of a private
// game, live or over, answers as for an id that does not exist, as
// /game/<id>.txt does; a public game's record, live or over, is served.
TEST(History, APrivateGameIsNoMatchOverHttp) {
  TestServer server;
  WsClient a(server.port()), b(server.port());
  a.hello("alice");
  b.hello("bob");
  const auto unknown = http_get(server.port(), "/matches/m0nosuchgame");
  ASSERT_EQ(unknown.status, 404);
  auto expect_unknown = [&](const std::string& id) {
    const auto reply = http_get(server.port(), "/matches/" + id);
    EXPECT_EQ(reply.status, 404) << reply.body;
    EXPECT_EQ(reply.content_type, unknown.content_type);
    EXPECT_EQ(reply.body, "{\"error\":\"no match " + id + "\"}");
    EXPECT_EQ(reply.body.find(a.player_id()), std::string::npos);
    EXPECT_EQ(http_get(server.port(), "/game/" + id + ".txt").status, 404);
  };
  EXPECT_EQ(unknown.body, "{\"error\":\"no match m0nosuchgame\"}");

  const auto created = a.request(create_private_message("tictactoe"));
  ASSERT_TRUE(created.has_ack()) << created.DebugString();
  const std::string secret =
      expect_match_ack(b.request(join_private_message(created.ack().code())));
  wait_event(a, secret, Kind::kStarted);
  expect_ack(a.move(secret, "b2"));
  wait_event(b, secret, Kind::kMoveMade);
  expect_unknown(secret);  // live
  expect_ack(a.request(resign_message(secret)));
  wait_event(a, secret, Kind::kEnded);
  wait_event(b, secret, Kind::kEnded);
  expect_unknown(secret);  // over

  // A public match: its record, live and over.
  const std::string open = expect_match_ack(a.play_bot("tictactoe", "easy", v1::SIDE_FIRST));
  wait_event(a, open, Kind::kStarted);
  expect_ack(a.move(open, "b2"));
  wait_event(a, open, Kind::kMoveMade);
  const auto live = http_get(server.port(), "/matches/" + open);
  EXPECT_EQ(live.status, 200) << live.body;
  EXPECT_NE(live.body.find("\"notation\":\"b2"), std::string::npos) << live.body;
  expect_ack(a.request(resign_message(open)));
  wait_event(a, open, Kind::kEnded);
  const auto over = http_get(server.port(), "/matches/" + open);
  EXPECT_EQ(over.status, 200) << over.body;
  EXPECT_NE(over.body.find("\"first\":\"" + a.player_id() + "\""), std::string::npos) << over.body;
}

TEST(History, BadRequestsGetTypedErrorsAndChangeNothing) {
  TestServer server;
  WsClient c(server.port());
  // Before hello, as any other request.
  expect_error(c.request(list_games_message()), v1::ERROR_HELLO_REQUIRED);
  c.hello("ann");
  std::string done;
  lose_to_the_bot(c, done);
  const auto before = c.request(list_games_message());
  ASSERT_TRUE(before.has_game_list()) << before.DebugString();

  expect_error(c.request(list_games_message({}, 101)), v1::ERROR_BAD_REQUEST,
               "limit 101 is over 100");
  for (const char* cursor :
       {"garbage", ".m1", "12.", "12.m 1", "-5.m1", "99999999999999999999.m1", "12.m\xc3\xa9"}) {
    const auto answer = c.request(list_games_message({}, 0, cursor));
    ASSERT_TRUE(answer.has_error()) << cursor;
    EXPECT_EQ(answer.error().code(), v1::ERROR_BAD_CURSOR) << cursor;
  }
  expect_error(c.request(list_games_message({}, 0, "garbage")), v1::ERROR_BAD_CURSOR,
               "not a cursor: \"garbage\"");
  expect_error(c.request(list_games_message("nobody")), v1::ERROR_UNKNOWN_PLAYER,
               "no player \"nobody\"");
  expect_error(c.request(get_game_message("nope")), v1::ERROR_UNKNOWN_MATCH, "no game \"nope\"");
  expect_error(c.request(get_game_message("")), v1::ERROR_UNKNOWN_MATCH, "no game \"\"");
  const std::string live =
      expect_match_ack(c.play_bot("tictactoe", "easy", v1::SIDE_FIRST, 60'000, 1'000));
  // The ack comes before the match is stored; its start comes after.
  wait_event(c, live, Kind::kStarted);
  const auto playing = c.request(get_game_message(live));
  expect_error(playing, v1::ERROR_MATCH_NOT_OVER,
               "game \"" + live + "\" is still being played: watch it");
  EXPECT_EQ(playing.error().match_id(), live);
  EXPECT_EQ(http_get(server.port(), "/game/" + live + ".txt").status, 409);

  // Nothing changed: the same list, and the live match still plays.
  const auto after = c.request(list_games_message());
  ASSERT_TRUE(after.has_game_list());
  EXPECT_EQ(after.game_list().SerializeAsString(), before.game_list().SerializeAsString());
  expect_ack(c.move(live, "b2"));
}

}  // namespace
}  // namespace inarow::testing
