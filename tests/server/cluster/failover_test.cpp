// A node lost under load. Three inarow-server processes make one cluster on a
// private PostgreSQL and a private redis-server; 50 matches between people
// (connect four, 100 players) are all made on the first node, their players
// spread over the three, and a thread per match plays them. Then the first
// node is killed (SIGKILL) or stopped (SIGTERM) while moves are flowing:
//
// - every match goes on on another node: after the kill within the lease
//   and a bounded margin, after the stop at once (well before a lease
//   would have run out);
// - no acknowledged move is lost: each is in the match as it resumes, and
//   in the store at the end;
// - every client comes back to a surviving node with its token and the
//   last event it saw, and gets the events it missed, in order, before the
//   match's state;
// - every match is played on to its end, and was taken over exactly once.
//
// A player is a client as a browser is: when its connection closes, or a
// move is refused because the match moved, it reconnects (to another node
// when the one it was on is gone) and resumes.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <signal.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../store/postgres_cluster.h"
#include "inarow/engine/game.h"
#include "inarow/engine/notation.h"
#include "inarow/testing/eventually.h"
#include "inarow/testing/messages.h"
#include "inarow/testing/process.h"
#include "inarow/testing/ws_client.h"
#include "redis_instance.h"

namespace inarow::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

constexpr int kMatches = 50;
constexpr const char* kVariant = "connect4";
// No move ends a match before both its players have come back after the
// fault, and none goes past this ply before it: every match is live when
// its node goes.
constexpr std::size_t kPliesBeforeFault = 24;
// The fault comes once every match has this many acknowledged moves.
constexpr std::size_t kAckedBeforeFault = 8;

Millis since(Clock::time_point from, Clock::time_point to = Clock::now()) {
  return std::chrono::duration_cast<Millis>(to - from);
}

// ---------------------------------------------------------------- the cluster

struct Cluster {
  std::string store;  // the database's URI
  std::unique_ptr<RedisInstance> redis;
  std::array<std::unique_ptr<ServerProcess>, 3> nodes;
  std::uint16_t port(int i) const { return nodes[static_cast<std::size_t>(i)]->port(); }
};

// The value of an unlabelled sample in /metrics text (-1 if absent).
std::int64_t sample(std::uint16_t port, const std::string& name) {
  const std::string metrics = http_get(port, "/metrics").body;
  const auto at = metrics.find("\n" + name + " ");
  if (at == std::string::npos) return -1;
  return std::stoll(metrics.substr(at + name.size() + 2));
}

// The nodes' log lines about match `id` and about nodes gone, for a failure.
std::string logs_about(const Cluster& c, const std::string& id) {
  std::string out;
  for (std::size_t n = 0; n < c.nodes.size(); ++n) {
    std::istringstream in(c.nodes[n]->log());
    for (std::string line; std::getline(in, line);) {
      if (line.find(id) != std::string::npos || line.find("is gone") != std::string::npos ||
          line.find("handed over") != std::string::npos) {
        out += std::string("node-") + static_cast<char>('a' + n) + ": " + line + "\n";
      }
    }
  }
  return out;
}

// Rows of `sql` on `uri`, every column as text; an empty list (and a test
// failure) if the query fails.
std::vector<std::vector<std::string>> rows(const std::string& uri, const std::string& sql,
                                           const std::vector<std::string>& params = {}) {
  std::vector<std::vector<std::string>> out;
  PGconn* c = PQconnectdb(uri.c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    ADD_FAILURE() << PQerrorMessage(c);
    PQfinish(c);
    return out;
  }
  std::vector<const char*> values;
  for (const auto& p : params)
    values.push_back(p.c_str());
  PGresult* r = PQexecParams(c, sql.c_str(), static_cast<int>(values.size()), nullptr,
                             values.data(), nullptr, nullptr, 0);
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    ADD_FAILURE() << sql << ": " << PQresultErrorMessage(r);
  } else {
    for (int i = 0; i < PQntuples(r); ++i) {
      std::vector<std::string> row;
      for (int j = 0; j < PQnfields(r); ++j)
        row.emplace_back(PQgetvalue(r, i, j));
      out.push_back(std::move(row));
    }
  }
  PQclear(r);
  PQfinish(c);
  return out;
}

// ---------------------------------------------------------------- the players

// One player of a match: its connection, token and the last event it saw.
struct Seat {
  std::unique_ptr<WsClient> ws;
  std::uint16_t port = 0;  // of the node it is connected to
  Clock::time_point connected_at;
  std::string token;
  std::string player_id;
  v1::Side side = v1::SIDE_UNSPECIFIED;
  std::uint64_t seen = 0;
  std::size_t plies = 0;  // moves it was told of by their events
  int resumes = 0;
};

// A move acknowledged to its player: it must be in the match from then on.
struct Acked {
  std::size_t ply = 0;  // 1-based
  std::string move;
  Clock::time_point at;         // when the acknowledgement came
  Clock::time_point connected;  // when the mover's connection was made
};

// A match and its two players, played by one thread; the test reads the
// atomics while it plays, the rest once it is done.
struct Table {
  std::string id;
  std::array<Seat, 2> seats;
  std::vector<std::string> kept;  // every move heard of (acknowledged or published), by ply
  std::vector<Acked> acked;
  bool over = false;
  v1::Result result = v1::RESULT_UNSPECIFIED;
  std::vector<std::string> problems;
  std::atomic<std::size_t> acked_count{0};
  std::atomic<bool> failed{false};
  void problem(const std::string& what) {
    problems.push_back(id + ": " + what);
    failed = true;
  }
};

// What the players share with the test: where the survivors are, whether
// the fault came, and how long anything may take.
struct Field {
  std::vector<std::uint16_t> survivors;  // ports
  std::atomic<bool> faulted{false};
  Millis lease{0};
  // The longest a player waits for an answer, an event or a close: a
  // dead node's links close when its entry lapses (one lease) and the
  // next look sees it (a third more).
  Millis patience() const { return 4 * lease + 10s; }
  Clock::time_point deadline;
};

// One event as `seat` sees it. Every event has the next seq: none is
// missed, none comes twice.
void take(Table& t, Seat& seat, const v1::MatchEvent& e) {
  if (e.match_id() != t.id || e.seq() == 0) return;  // another match's, or unnumbered news
  if (e.seq() != seat.seen + 1) {
    t.problem("seat " + seat.player_id + " got seq " + std::to_string(e.seq()) + " after " +
              std::to_string(seat.seen));
  }
  seat.seen = std::max<std::uint64_t>(seat.seen, e.seq());
  if (e.has_move_made()) {
    const auto ply = static_cast<std::size_t>(e.move_made().ply());
    seat.plies = std::max(seat.plies, ply);
    if (ply == t.kept.size() + 1) {
      t.kept.push_back(e.move_made().move());
    } else if (ply == 0 || ply > t.kept.size() + 1 || t.kept[ply - 1] != e.move_made().move()) {
      t.problem("event of ply " + std::to_string(ply) + " (" + e.move_made().move() +
                ") does not fit " + std::to_string(t.kept.size()) + " moves kept");
    }
  }
  if (e.has_ended()) {
    t.over = true;
    t.result = e.ended().result();
  }
}

// A match's state as a player resumes it: every move kept (so every move
// acknowledged) in its place, its events all seen; moves stored but not
// yet heard of are kept from now on.
void take_state(Table& t, Seat& seat, const v1::MatchState& s) {
  for (std::size_t i = 0; i < t.kept.size(); ++i) {
    if (static_cast<int>(i) >= s.moves_size() || s.moves(static_cast<int>(i)) != t.kept[i]) {
      t.problem("resumed without move " + std::to_string(i + 1) + " (" + t.kept[i] + "): has " +
                std::to_string(s.moves_size()) + " moves");
      return;
    }
  }
  if (s.last_seq() != seat.seen || static_cast<std::size_t>(s.moves_size()) != seat.plies) {
    t.problem("state at seq " + std::to_string(s.last_seq()) + " with " +
              std::to_string(s.moves_size()) + " moves; events seen up to " +
              std::to_string(seat.seen) + " with " + std::to_string(seat.plies));
  }
  for (int i = static_cast<int>(t.kept.size()); i < s.moves_size(); ++i)
    t.kept.push_back(s.moves(i));
  if (s.result() != v1::RESULT_UNSPECIFIED) {
    t.over = true;
    t.result = s.result();
  }
}

// The seat comes back on a surviving node (first the one `turn` picks) with
// its token and last seq: the welcome, the events it missed, then the
// state. Tried again on a close (its link to the dead node dropped, say);
// false, with a problem told, if that never works out.
bool resume(Table& t, Seat& seat, const Field& field, std::size_t turn) {
  for (std::size_t attempt = 0; Clock::now() < field.deadline; ++attempt) {
    const std::uint16_t port = field.survivors[(turn + attempt) % field.survivors.size()];
    if (attempt > 0) std::this_thread::sleep_for(50ms);
    try {
      seat.ws = std::make_unique<WsClient>(port);
    } catch (const std::exception& e) {
      t.problem(std::string("cannot connect to a survivor: ") + e.what());
      continue;
    }
    seat.port = port;
    seat.connected_at = Clock::now();
    ++seat.resumes;
    v1::ClientMessage hello;
    hello.mutable_hello()->set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
    hello.mutable_hello()->set_token(seat.token);
    auto* cursor = hello.mutable_hello()->add_resume();
    cursor->set_match_id(t.id);
    cursor->set_last_seq(seat.seen);
    const std::uint64_t rid = seat.ws->send(hello);
    bool welcomed = false;
    for (;;) {
      auto m = seat.ws->next(field.patience());
      if (!m) {
        if (seat.ws->closed()) break;  // try again
        t.problem("resuming on port " + std::to_string(port) + ": no state and no close");
        return false;
      }
      if (m->request_id() == rid && m->has_welcome()) {
        welcomed = true;
        if (!m->welcome().resumed() || m->welcome().player_id() != seat.player_id)
          t.problem("the token did not resume its player: " + m->DebugString());
        continue;
      }
      if (m->has_event()) {
        take(t, seat, m->event());
        continue;
      }
      if (m->has_match_state() && m->match_state().match_id() == t.id) {
        if (!welcomed) t.problem("a state before the welcome");
        take_state(t, seat, m->match_state());
        return true;
      }
      if (m->has_error()) {
        // The match moved again while this node reached it: come back.
        if (m->error().code() == v1::ERROR_INTERNAL) break;
        t.problem("resuming on port " + std::to_string(port) + ": " + m->DebugString());
        return false;
      }
    }
  }
  t.problem("the seat never resumed");
  return false;
}

// A move for `t`'s player to move: before the fault, one that ends nothing
// (the match must be live when its node goes); after, any.
std::string pick_move(const Game& game, bool any, std::mt19937& rng) {
  std::vector<std::string> moves;
  for (const Cell c : game.legal_moves()) {
    Game next = game;
    (void)next.play(c);
    if (any || !next.over()) moves.push_back(format_move(game.variant(), c));
  }
  if (moves.empty()) moves.push_back(format_move(game.variant(), game.legal_moves().front()));
  return moves[rng() % moves.size()];
}

// Plays `t` to its end, resuming whichever seat lost its connection. No
// move ends it until both players have come back after the fault.
void play(Table& t, Field& field, std::mt19937 rng, std::size_t index) {
  const Variant variant = *Variant::parse(kVariant);
  while (!t.over) {
    if (Clock::now() > field.deadline) return t.problem("not over by the deadline");
    for (std::size_t s = 0; s < 2; ++s) {
      if (t.seats[s].ws->closed() && !resume(t, t.seats[s], field, index + s)) return;
    }
    if (t.over) return t.problem("ended while its players were away");
    Game game(variant);
    for (const auto& mv : t.kept) {
      if (!game.play(mv)) return t.problem("kept move does not replay: " + mv);
    }
    if (game.over()) return t.problem("the game is over but no end came");
    const bool back = t.seats[0].resumes > 0 && t.seats[1].resumes > 0;
    if (!field.faulted.load() && static_cast<std::size_t>(game.ply()) >= kPliesBeforeFault) {
      std::this_thread::sleep_for(20ms);  // far enough: the fault comes first
      continue;
    }
    const v1::Side to_move = game.to_move() == Side::first ? v1::SIDE_FIRST : v1::SIDE_SECOND;
    const int m = t.seats[0].side == to_move ? 0 : 1;
    Seat& mover = t.seats[static_cast<std::size_t>(m)];
    Seat& other = t.seats[static_cast<std::size_t>(1 - m)];
    const std::string mv = pick_move(game, back, rng);
    // Paced: fifty matches at once, on two cores.
    std::this_thread::sleep_for(back ? 10ms : 60ms);
    const std::uint64_t rid = mover.ws->send(move_message(t.id, mv));
    bool acked = false;
    for (;;) {
      auto r = mover.ws->next(field.patience());
      if (!r) {
        if (!mover.ws->closed()) return t.problem("no answer to a move and no close");
        break;  // gone: resumed at the top
      }
      if (r->has_event()) {
        take(t, mover, r->event());
        continue;
      }
      if (r->request_id() != rid) continue;
      if (r->has_ack()) {
        acked = true;
        break;
      }
      // The match moved, or its node is stopping: come back where it is.
      const auto code = r->error().code();
      if (code != v1::ERROR_INTERNAL && code != v1::ERROR_SHUTTING_DOWN)
        return t.problem("move " + mv + " refused: " + r->DebugString());
      mover.ws->drop();
      break;
    }
    if (!acked) continue;
    const auto ply = static_cast<std::size_t>(game.ply()) + 1;
    if (t.kept.size() + 1 == ply) t.kept.push_back(mv);
    if (t.kept.size() < ply || t.kept[ply - 1] != mv)
      return t.problem("acknowledged move " + mv + " is not the one published");
    t.acked.push_back({ply, mv, Clock::now(), mover.connected_at});
    t.acked_count.fetch_add(1);
    // Both are told of it by its event, or lose their connection.
    for (Seat* s : {&mover, &other}) {
      while (s->plies < ply) {
        auto e = s->ws->next_until([](const v1::ServerMessage& x) { return x.has_event(); },
                                   field.patience());
        if (!e) {
          if (!s->ws->closed()) return t.problem("an event never came and no close");
          break;
        }
        take(t, *s, e->event());
      }
    }
  }
}

// ---------------------------------------------------------------- the test

enum class Fault { kill, stop };

class Failover : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!PostgresCluster::shared()) FAIL() << PostgresCluster::shared_error();
  }

  // Three nodes on a fresh database and a Redis of their own, with leases
  // of `lease`; the nodes are a, b and c.
  static void start_cluster(Cluster& c, Millis lease) {
    auto db = PostgresCluster::shared()->create_database();
    ASSERT_TRUE(db) << db.error();
    c.store = *db;
    auto redis = RedisInstance::launch();
    ASSERT_TRUE(redis) << redis.error();
    c.redis = std::move(*redis);
    for (std::size_t i = 0; i < c.nodes.size(); ++i) {
      ServerOptions options;
      options.store = c.store;
      options.no_sync = false;
      options.extra_args = {"--redis",       c.redis->url(),
                            "--node-id",     std::string("node-") + static_cast<char>('a' + i),
                            "--node-ttl-ms", std::to_string(lease.count())};
      c.nodes[i] = std::make_unique<ServerProcess>(std::move(options));
    }
  }

  void run(Fault fault, Millis lease);
};

// Makes the 50 matches on node a, plays them, brings node a down (`fault`)
// once every match has moves acknowledged, and checks what is above.
void Failover::run(Fault fault, Millis lease) {
  const auto test_start = Clock::now();
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(start_cluster(c, lease));

  // Every match is made on node a, which holds its private code: the maker
  // is there, the friend there, on b or on c.
  std::vector<Table> tables(kMatches);
  for (int i = 0; i < kMatches; ++i) {
    Table& t = tables[static_cast<std::size_t>(i)];
    const std::array<int, 2> at = {0, i % 3};
    for (std::size_t s = 0; s < 2; ++s) {
      Seat& seat = t.seats[s];
      seat.port = c.port(at[s]);
      seat.ws = std::make_unique<WsClient>(seat.port);
      seat.connected_at = Clock::now();
      auto w = seat.ws->hello("p" + std::to_string(i) + (s == 0 ? "maker" : "friend"));
      seat.token = w.token();
      seat.player_id = w.player_id();
    }
    v1::ClientMessage create = create_private_message(kVariant);
    create.mutable_create_private()->set_side(i % 2 ? v1::SIDE_SECOND : v1::SIDE_FIRST);
    create.mutable_create_private()->mutable_time_control()->set_initial_ms(600'000);
    auto code = t.seats[0].ws->request(create);
    ASSERT_TRUE(code.has_ack()) << code.DebugString();
    v1::ServerMessage joined;
    // The directory has the code once node a has put it there.
    ASSERT_TRUE(eventually(
        [&] {
          joined = t.seats[1].ws->request(join_private_message(code.ack().code()));
          return !joined.has_error();
        },
        10s))
        << joined.DebugString();
    t.id = expect_match_ack(joined);
    for (Seat& seat : t.seats) {
      auto m = seat.ws->next_until(
          [&](const v1::ServerMessage& x) { return x.has_event() && x.event().has_started(); },
          10s);
      ASSERT_TRUE(m) << "no start for " << t.id;
      seat.side = m->event().started().state().your_side();
      seat.seen = m->event().seq();
      ASSERT_EQ(seat.seen, 1u);
    }
  }
  ASSERT_TRUE(
      eventually([&] { return sample(c.port(0), "inarow_matches_owned") == kMatches; }, 10s))
      << "node a owns " << sample(c.port(0), "inarow_matches_owned") << " matches";

  Field field;
  field.survivors = {c.port(1), c.port(2)};
  field.lease = lease;
  field.deadline = Clock::now() + 150s;
  const auto load_from = Clock::now();
  std::vector<std::thread> players;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    players.emplace_back([&, i] {
      try {
        play(tables[i], field, std::mt19937(static_cast<unsigned>(i + 1)), i);
      } catch (const std::exception& e) {
        tables[i].problem(std::string("threw: ") + e.what());
      }
    });
  }
  auto acked = [&] {
    std::size_t sum = 0;
    for (const Table& t : tables)
      sum += t.acked_count.load();
    return sum;
  };
  // Moves flowing on every match, then node a goes.
  const bool loaded = eventually(
      [&] {
        return std::ranges::all_of(tables, [](const Table& t) {
          return t.failed.load() || t.acked_count.load() >= kAckedBeforeFault;
        });
      },
      60s, 5ms);
  const std::size_t acked_before = acked();
  const Millis loaded_for = since(load_from);
  Clock::time_point fault_at;
  if (fault == Fault::kill) {
    c.nodes[0]->kill();  // returns once it is dead: nothing it said comes after
    fault_at = Clock::now();
  } else {
    fault_at = Clock::now();
    ::kill(c.nodes[0]->pid(), SIGTERM);
  }
  field.faulted = true;
  for (auto& p : players)
    p.join();
  const Millis played_out_in = since(fault_at);
  if (fault == Fault::stop) {
    // A clean stop that handed every match over.
    EXPECT_EQ(c.nodes[0]->wait_exit(15s), 0) << c.nodes[0]->log();
    EXPECT_NE(c.nodes[0]->log().find("handed over 50 matches"), std::string::npos)
        << c.nodes[0]->log();
  }
  ASSERT_TRUE(loaded) << "the matches did not get going";

  int shown = 0;
  const Table* first_failed = nullptr;
  for (const Table& t : tables) {
    for (const auto& p : t.problems) {
      if (++shown <= 20) ADD_FAILURE() << p;
      if (!first_failed) first_failed = &t;
    }
  }
  ASSERT_EQ(shown, 0) << "problems in " << shown << " places; the nodes on " << first_failed->id
                      << ":\n"
                      << logs_about(c, first_failed->id);

  // Each match went on: the first move acknowledged on a connection made
  // after the fault (so by a node that owns the match now).
  std::vector<Millis> gaps;
  for (const Table& t : tables) {
    auto first =
        std::ranges::find_if(t.acked, [&](const Acked& a) { return a.connected > fault_at; });
    ASSERT_NE(first, t.acked.end()) << t.id << ": no move after the fault";
    gaps.push_back(since(fault_at, first->at));
    for (const Seat& seat : t.seats)
      EXPECT_GE(seat.resumes, 1) << t.id << ": a player was never told to come back";
  }
  std::ranges::sort(gaps);
  const Millis worst = gaps.back();
  if (fault == Fault::kill) {
    // The lease runs out at most one lease after the kill; a third of one
    // later a look finds it (or a client's retry, sooner); the margin is
    // for a loaded machine's take-overs and reconnections.
    EXPECT_LE(worst, lease + 3s);
  } else {
    // Handed over: no lease had to run out.
    EXPECT_LE(worst, lease / 4);
  }

  // Every acknowledged move was in the match as each player resumed it
  // (take_state); every match ended, and its record in the store holds
  // every move played, in order.
  std::size_t moves = 0;
  for (Table& t : tables) {
    EXPECT_TRUE(t.over) << t.id;
    EXPECT_NE(t.result, v1::RESULT_UNSPECIFIED) << t.id;
    moves += t.kept.size();
    v1::ClientMessage get;
    get.mutable_get_game()->set_match_id(t.id);
    WsClient reader(c.port(1));
    reader.resume(t.seats[0].token);
    auto record = reader.request(get, 10s);
    ASSERT_TRUE(record.has_game_record()) << record.DebugString();
    const auto& rec = record.game_record();
    EXPECT_EQ(rec.game().result(), t.result) << t.id;
    ASSERT_EQ(static_cast<std::size_t>(rec.moves_size()), t.kept.size()) << t.id;
    for (int i = 0; i < rec.moves_size(); ++i)
      EXPECT_EQ(rec.moves(i).move(), t.kept[static_cast<std::size_t>(i)])
          << t.id << " ply " << i + 1;
    for (const Acked& a : t.acked)
      EXPECT_EQ(rec.moves(static_cast<int>(a.ply - 1)).move(), a.move) << t.id << " ply " << a.ply;
    // Owned by a new node, once: one generation past the first.
    auto row = rows(c.store, "SELECT result, generation FROM matches WHERE id = $1", {t.id});
    ASSERT_EQ(row.size(), 1u) << t.id;
    EXPECT_NE(row[0][0], "0") << t.id;
    EXPECT_EQ(row[0][1], "2") << t.id;
  }
  // Each match taken over once, by b or c.
  EXPECT_EQ(
      sample(c.port(1), "inarow_take_overs_total") + sample(c.port(2), "inarow_take_overs_total"),
      kMatches);

  std::printf(
      "[ figures  ] %s, lease %lld ms: %zu moves acknowledged in %lld ms before it (%.0f/s); "
      "the matches went on after %lld ms (median) and %lld ms (worst); played out (%zu moves) "
      "%lld ms after it; %lld ms in all\n",
      fault == Fault::kill ? "SIGKILL" : "SIGTERM", static_cast<long long>(lease.count()),
      acked_before, static_cast<long long>(loaded_for.count()),
      1000.0 * static_cast<double>(acked_before) /
          static_cast<double>(std::max<long long>(1, loaded_for.count())),
      static_cast<long long>(gaps[gaps.size() / 2].count()), static_cast<long long>(worst.count()),
      moves, static_cast<long long>(played_out_in.count()),
      static_cast<long long>(since(test_start).count()));
}

// A lease of two seconds: short for a quick test, long enough for a loaded
// machine's renewals (every 667 ms) never to miss one.
TEST_F(Failover, AKilledNodesMatchesGoOnElsewhereWithEveryAcknowledgedMove) {
  run(Fault::kill, 2000ms);
}

// A lease of twenty seconds: had the matches waited for it, they would
// have gone on four times later than they must.
TEST_F(Failover, AStoppedNodeHandsItsMatchesOverAndTheyGoOnAtOnce) {
  run(Fault::stop, 20'000ms);
}

}  // namespace
}  // namespace inarow::testing
