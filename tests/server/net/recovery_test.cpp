// Recovery after a crash. First the clock: the player to move is charged the
// part of the turn they used before the server stopped, by the store's own
// times (exact), and never the time it was down. Then the whole: a real
// inarow-server killed with SIGKILL under load (people against people and
// against bots, moves acknowledged), restarted on the same store, keeps every
// acknowledged move and lets every client resume and play on.
#include "inarow/server/recovery.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "inarow/engine/game.h"
#include "inarow/engine/notation.h"
#include "inarow/server/match_actor.h"
#include "inarow/server/match_core.h"
#include "inarow/server/memory_store.h"
#include "inarow/server/sqlite_store.h"
#include "inarow/server/store_writer.h"
#include "inarow/testing/eventually.h"
#include "inarow/testing/fake_connection.h"
#include "inarow/testing/process.h"
#include "inarow/testing/run_until.h"
#include "inarow/testing/temp_dir.h"
#include "inarow/testing/ws_client.h"

namespace inarow::server {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;
using inarow::testing::FakeConnection;
using inarow::testing::ServerOptions;
using inarow::testing::ServerProcess;
using inarow::testing::TempDir;
using inarow::testing::WsClient;

// ---------------------------------------------------------------- the clock

MatchSetup timed_setup(const std::string& id) {
  MatchSetup s;
  s.id = id;
  s.variant = *Variant::parse("connect4");
  s.kind = v1::MATCH_KIND_SEEK;
  s.rated = false;
  s.initial = 60000ms;
  s.increment = 2000ms;
  s.seats[0] = Seat{"alice", "alice", false, {}, {}};
  s.seats[1] = Seat{"bob", "bob", false, {}, {}};
  return s;
}

MatchRecord created(const MatchSetup& s) {
  MatchRecord rec;
  rec.id = s.id;
  rec.variant = s.variant.name;
  rec.kind = s.kind;
  rec.initial_ms = s.initial.count();
  rec.increment_ms = s.increment.count();
  rec.first_id = s.seats[0].player_id;
  rec.second_id = s.seats[1].player_id;
  rec.created_ms = 1'700'000'000'000;
  return rec;
}

// A match as a server would have stored it: started at wall time t0, alice
// moved 3,000 ms later (her clock 60,000 - 3,000 + 2,000), then bob thought.
constexpr std::int64_t kT0 = 1'700'000'000'000;
std::vector<StoreOp> stored_match(const MatchSetup& s) {
  MatchCore core(s);
  const TimePoint t = SteadyClock::now();
  auto started = core.start(t);
  auto moved = core.move(Side::first, "4", t + 3000ms);
  EXPECT_TRUE(moved);
  std::vector<StoreOp> ops{store_op::CreateMatch{created(s)}};
  ops.push_back(store_op::AppendEvent{s.id, 1, started[0].SerializeAsString(), kT0});
  for (const auto& e : *moved)
    ops.push_back(store_op::AppendEvent{s.id, e.seq(), e.SerializeAsString(), kT0 + 3000});
  return ops;
}

TEST(RecoveryClock, TheStoreKeepsEachEventsTimeAndTheLastHeartbeatAcrossAReopen) {
  TempDir dir;
  const std::string path = (dir.path() / "s.db").string();
  const MatchSetup s = timed_setup("m-clock");
  {
    auto store = open_sqlite_store(path);
    ASSERT_TRUE(store) << store.error();
    ASSERT_TRUE((*store)->write(stored_match(s)));
    // Bob thinks for 7,345 ms; the last heartbeat before the crash says so.
    ASSERT_TRUE((*store)->write(std::vector<StoreOp>{store_op::Alive{kT0 + 3000 + 7345}}));
  }
  auto store = open_sqlite_store(path);
  ASSERT_TRUE(store) << store.error();
  EXPECT_EQ((*store)->last_alive_ms(), kT0 + 10345);
  auto live = (*store)->load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].event_ms, (std::vector<std::int64_t>{kT0, kT0 + 3000}));
  EXPECT_EQ(last_known_alive(**store, live), kT0 + 10345);
  EXPECT_EQ(used_before_stop(live[0], kT0 + 10345), 7345ms);
  // A heartbeat older than the last event: charged up to the event only.
  EXPECT_EQ(used_before_stop(live[0], kT0 + 2000), 0ms);
}

TEST(RecoveryClock, TheLatestEventCountsAsAlive) {
  MemoryStore store;
  const MatchSetup s = timed_setup("m-alive");
  ASSERT_TRUE(store.write(stored_match(s)));
  ASSERT_TRUE(store.write(std::vector<StoreOp>{store_op::Alive{kT0 + 1000}}));
  auto live = store.load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(last_known_alive(store, live), kT0 + 3000);  // bob's turn began then
  EXPECT_EQ(used_before_stop(live[0], last_known_alive(store, live)), 0ms);
}

TEST(RecoveryClock, EventsWithoutATimeAreChargedNothing) {
  MemoryStore store;
  const MatchSetup s = timed_setup("m-old");
  auto ops = stored_match(s);
  for (auto& op : ops) {
    if (auto* e = std::get_if<store_op::AppendEvent>(&op)) e->at_ms = 0;  // a schema-3 row
  }
  ASSERT_TRUE(store.write(ops));
  auto live = store.load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(used_before_stop(live[0], kT0 + 50'000), 0ms);
}

// A schema-3 store (a log without times) migrates on open: its rows are
// "time not known", new rows get theirs.
TEST(RecoveryClock, ASchema3LogGainsTimesOnOpen) {
  TempDir dir;
  const std::string path = (dir.path() / "v3.db").string();
  const MatchSetup s = timed_setup("m-v3");
  {
    auto store = open_sqlite_store(path);
    ASSERT_TRUE(store) << store.error();
    ASSERT_TRUE((*store)->write(stored_match(s)));
  }
  {
    // Take the store back to schema 3's shape: no at_ms column, no new tables.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const char* back =
        "BEGIN; CREATE TABLE log3 (id INTEGER PRIMARY KEY, match_id TEXT NOT NULL, seq INTEGER "
        "NOT NULL, blob BLOB NOT NULL); INSERT INTO log3 SELECT id, match_id, seq, blob FROM log; "
        "DROP TABLE log; ALTER TABLE log3 RENAME TO log; DROP TABLE alive; DROP TABLE clock_from; "
        "PRAGMA user_version=3; COMMIT;";
    ASSERT_EQ(sqlite3_exec(db, back, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  auto store = open_sqlite_store(path);
  ASSERT_TRUE(store) << store.error();
  auto live = (*store)->load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].event_ms, (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ((*store)->last_alive_ms(), 0);
  MatchCore core(s);
  for (const auto& blob : live[0].events) {
    v1::MatchEvent e;
    ASSERT_TRUE(e.ParseFromString(blob));
    ASSERT_TRUE(core.replay(e));
  }
  auto more = core.move(Side::second, "4", SteadyClock::now());
  ASSERT_TRUE(more);
  ASSERT_TRUE((*store)->write(std::vector<StoreOp>{
      store_op::AppendEvent{s.id, 3, (*more)[0].SerializeAsString(), kT0 + 9000}}));
  EXPECT_EQ((*store)->load_unfinished()[0].event_ms, (std::vector<std::int64_t>{0, 0, kT0 + 9000}));
}

// The restore proper: a match actor resumed from the store shows the player
// to move exactly the time they used less, give or take the milliseconds
// between the resume and the look (measured, and allowed, here).
class RecoveryActorTest : public ::testing::Test {
 protected:
  RecoveryActorTest() {
    services_ = std::make_shared<MatchServices>(ioc_, bot_workers_, config_, writer_, metrics_);
  }
  ~RecoveryActorTest() override {
    writer_.flush();
    bot_workers_.join();
  }

  // Restore `rec` as recovery does and return bob's clock as a spectator
  // sees it, with the milliseconds that passed from the resume to the look.
  std::pair<std::int64_t, std::int64_t> bob_clock_after_restore(const MatchRecord& rec,
                                                                Millis used) {
    auto actor = std::make_shared<MatchActor>(services_, timed_setup(rec.id));
    EXPECT_TRUE(actor->restore(rec));
    const auto before = SteadyClock::now();
    actor->resume(used);
    auto watcher = std::make_shared<FakeConnection>();
    actor->attach(watcher, std::nullopt, std::nullopt, 1);
    std::optional<v1::ServerMessage> state;
    inarow::testing::run_until(ioc_, [&] { return (state = watcher->answer(1)).has_value(); });
    const auto slack = std::chrono::duration_cast<Millis>(SteadyClock::now() - before).count();
    EXPECT_TRUE(state && state->has_match_state());
    actor->shutdown();
    inarow::testing::run_until(
        ioc_, [] { return false; }, 20ms);
    return {state ? state->match_state().clocks().second_ms() : -1, slack};
  }

  ServerConfig config_;
  Metrics metrics_;
  MemoryStore writer_store_;
  StoreWriter writer_{writer_store_};
  asio::io_context ioc_;
  asio::thread_pool bot_workers_{1};
  std::shared_ptr<MatchServices> services_;
};

TEST_F(RecoveryActorTest, ThePlayerToMoveComesBackWithTheTimeTheyUsedLess) {
  MemoryStore store;
  const MatchSetup s = timed_setup("m-restore");
  ASSERT_TRUE(store.write(stored_match(s)));
  ASSERT_TRUE(store.write(std::vector<StoreOp>{store_op::Alive{kT0 + 3000 + 25'000}}));
  auto live = store.load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  const Millis used = used_before_stop(live[0], last_known_alive(store, live));
  ASSERT_EQ(used, 25'000ms);
  auto [bob_ms, slack] = bob_clock_after_restore(live[0], used);
  // Bob had 60,000 at his turn's start; he had used 25,000 of it.
  EXPECT_LE(bob_ms, 35'000);
  EXPECT_GE(bob_ms, 35'000 - slack - 1);
  // Before: the restore gave the 25 s back (60,000).
  auto [bob_uncharged, slack2] = bob_clock_after_restore(live[0], 0ms);
  EXPECT_GE(bob_uncharged, 60'000 - slack2 - 1);
}

// Restored once (ClockFrom says from when the clocks hold), then crashed
// again: the second restore charges the time since the first resume only,
// not the first downtime, and not the first charge twice.
TEST_F(RecoveryActorTest, ASecondCrashChargesNeitherTheFirstDowntimeNorTheFirstChargeAgain) {
  TempDir dir;
  const std::string path = (dir.path() / "twice.db").string();
  const MatchSetup s = timed_setup("m-twice");
  const std::int64_t crash1 = kT0 + 3000 + 4000;  // bob used 4 s
  const std::int64_t resumed = crash1 + 600'000;  // ten minutes down
  {
    auto store = open_sqlite_store(path);
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->write(stored_match(s)));
    ASSERT_TRUE((*store)->write(std::vector<StoreOp>{store_op::Alive{crash1}}));
  }
  {
    auto store = open_sqlite_store(path);
    ASSERT_TRUE(store);
    auto live = (*store)->load_unfinished();
    ASSERT_EQ(live.size(), 1u);
    const Millis used = used_before_stop(live[0], last_known_alive(**store, live));
    EXPECT_EQ(used, 4000ms);
    // What restore_from_store writes for it, then 2.5 s more of bob's
    // thinking and a heartbeat, then the second crash.
    ASSERT_TRUE((*store)->write(std::vector<StoreOp>{
        store_op::ClockFrom{s.id, 2, resumed - used.count()}, store_op::Alive{resumed + 2500}}));
  }
  auto store = open_sqlite_store(path);
  ASSERT_TRUE(store);
  auto live = (*store)->load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].event_ms.back(), resumed - 4000);
  EXPECT_EQ(used_before_stop(live[0], last_known_alive(**store, live)), 6500ms);
  // Once the match ends it is not restored, whatever its ClockFrom said.
  ASSERT_TRUE((*store)->write(
      std::vector<StoreOp>{store_op::FinishMatch{s.id, v1::RESULT_DRAW, 0, resumed + 3000, {}}}));
  EXPECT_TRUE((*store)->load_unfinished().empty());
}

TEST(RecoveryClock, TheWriterBeatsWhileIdle) {
  MemoryStore store;
  const auto before =
      std::chrono::duration_cast<Millis>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  StoreWriter writer(store);
  writer.heartbeat(20ms);
  // Three beats at 20 ms apart with nothing submitted.
  inarow::testing::eventually([&] { return store.commits() >= 3; }, 5s, 5ms);
  EXPECT_GE(store.commits(), 3u);
  EXPECT_GE(store.last_alive_ms(), before);
  writer.stop();
  // No heartbeat, no commits of its own.
  MemoryStore quiet;
  StoreWriter silent(quiet);
  silent.submit({store_op::Alive{5}});
  silent.flush();
  EXPECT_EQ(quiet.commits(), 1u);
  EXPECT_EQ(quiet.last_alive_ms(), 5);
}

// ---------------------------------------------------------------- kill -9

// inarow-server as a child that the test can kill with SIGKILL: no goodbye,
// no flush, no checkpoint. Every ack waits for its fdatasync, as in
// production.
std::unique_ptr<ServerProcess> server_child(const std::string& store) {
  ServerOptions options;
  options.store = store;
  options.no_sync = false;
  options.extra_args = {"--bot-threads", "1"};
  return std::make_unique<ServerProcess>(std::move(options));
}

// One seat of a match as a client sees it: its token, the last event seq it
// saw, and the moves it was told are kept (acknowledged or published).
struct Client {
  std::unique_ptr<WsClient> ws;
  std::string token;
  std::string player_id;
  v1::Side side = v1::SIDE_UNSPECIFIED;
  std::uint64_t seen = 0;
};

struct Table {
  std::string match;
  std::string variant;
  std::vector<Client> seats;      // one (against a bot) or two (people)
  std::vector<std::string> kept;  // every move acknowledged or published, in ply order
  bool over = false;
  v1::Clocks clocks;  // the last event's
};

// One event as `seat` sees it: the moves are added to `kept` when new (a
// bot's, or an opponent's).
void take(Client& seat, Table& t, const v1::MatchEvent& e) {
  if (e.match_id() != t.match) return;
  seat.seen = std::max<std::uint64_t>(seat.seen, e.seq());
  t.clocks = e.clocks();
  if (e.has_move_made()) {
    const std::size_t ply = static_cast<std::size_t>(e.move_made().ply());
    if (ply == t.kept.size() + 1) t.kept.push_back(e.move_made().move());
  }
  if (e.has_ended()) t.over = true;
}

// Read `seat`'s events up to and including `seq`.
void follow(Client& seat, Table& t, std::uint64_t seq, std::chrono::milliseconds timeout = 10s) {
  while (seat.seen < seq) {
    auto m = seat.ws->next_until([](const v1::ServerMessage& x) { return x.has_event(); }, timeout);
    if (!m) throw std::runtime_error("no event");
    take(seat, t, m->event());
  }
}

// Plays `t` one move: the seat to move (a person) sends a random legal move;
// once acknowledged it is kept; everyone then follows it (and a bot's reply).
// False when the connection went away (the kill) or the match is over.
bool play_one(Table& t, std::mt19937& rng) {
  if (t.over) return false;
  Game game(*Variant::parse(t.variant));
  for (const auto& mv : t.kept)
    if (!game.play(mv)) throw std::runtime_error("kept move does not replay: " + mv);
  if (game.over()) return false;
  const v1::Side to_move = game.to_move() == Side::first ? v1::SIDE_FIRST : v1::SIDE_SECOND;
  Client* mover = nullptr;
  for (auto& s : t.seats)
    if (s.side == to_move) mover = &s;
  if (!mover) {  // the bot's turn: its move comes as an event
    follow(t.seats[0], t, t.seats[0].seen + 1);
    return true;
  }
  auto legal = game.legal_moves();
  const std::string mv = format_move(game.variant(), legal[rng() % legal.size()]);
  // Paced under the per-connection rate limit.
  std::this_thread::sleep_for(40ms);
  // The answer, taking the events that come before it (a request that dies
  // with the server is no failure here).
  const std::uint64_t id = mover->ws->send(inarow::testing::move_message(t.match, mv));
  for (;;) {
    auto r = mover->ws->next(10s);
    if (!r) {
      if (mover->ws->closed()) return false;
      throw std::runtime_error("no answer to a move");
    }
    if (r->has_event()) {
      take(*mover, t, r->event());
      continue;
    }
    if (r->request_id() != id) continue;
    if (!r->has_ack()) throw std::runtime_error("move refused: " + r->DebugString());
    break;
  }
  if (t.kept.size() == static_cast<std::size_t>(game.ply())) t.kept.push_back(mv);
  // Acknowledged: it must survive anything now.
  if (t.kept.size() != static_cast<std::size_t>(game.ply()) + 1 || t.kept.back() != mv) {
    throw std::runtime_error("acknowledged move not the one published: " + mv);
  }
  const std::uint64_t target = mover->seen;
  for (auto& s : t.seats)
    follow(s, t, target);
  return !t.over;
}

std::int64_t query_int(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::int64_t v = -1;
  // Read-write: a read-only connection cannot rebuild the WAL index the
  // killed server left, and would read an older snapshot.
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      v = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return v;
}

TEST(RecoveryCrash, KilledUnderLoadKeepsEveryAcknowledgedMoveAndEveryMatchResumes) {
  TempDir dir;
  const std::string store = (dir.path() / "crash.db").string();
  auto server = server_child(store);
  const std::uint16_t port = server->port();

  // People against people (gomoku, 5 minutes each: random moves rarely end
  // it), people against bots (connect four, untimed), and one timed table
  // whose player to move thinks through the crash.
  std::vector<Table> tables;
  auto seat = [&](const std::string& name) {
    Client s;
    s.ws = std::make_unique<WsClient>(port);
    auto w = s.ws->hello(name);
    s.token = w.token();
    s.player_id = w.player_id();
    return s;
  };
  auto started = [](Client& s, Table& t) {
    auto m = s.ws->next_until([](const v1::ServerMessage& x) { return x.has_event(); }, 10s);
    if (!m || !m->event().has_started()) throw std::runtime_error("no start");
    const auto& st = m->event().started().state();
    t.match = st.match_id();
    s.seen = m->event().seq();
    s.side = st.first().id() == s.player_id ? v1::SIDE_FIRST : v1::SIDE_SECOND;
  };
  for (int i = 0; i < 4; ++i) {
    Table t;
    t.variant = "gomoku";
    t.seats.push_back(seat("p" + std::to_string(i) + "a"));
    t.seats.push_back(seat("p" + std::to_string(i) + "b"));
    // Pairs form one at a time, so each seek meets its own partner.
    ASSERT_TRUE(t.seats[0].ws->seek("gomoku", 300'000, 0).has_ack());
    ASSERT_TRUE(t.seats[1].ws->seek("gomoku", 300'000, 0).has_ack());
    started(t.seats[0], t);
    started(t.seats[1], t);
    tables.push_back(std::move(t));
  }
  for (int i = 0; i < 4; ++i) {
    Table t;
    t.variant = "connect4";
    t.seats.push_back(seat("b" + std::to_string(i)));
    auto ack =
        t.seats[0].ws->play_bot("connect4", "easy", i % 2 ? v1::SIDE_SECOND : v1::SIDE_FIRST);
    ASSERT_TRUE(ack.has_ack()) << ack.DebugString();
    started(t.seats[0], t);
    tables.push_back(std::move(t));
  }
  Table clocked;
  clocked.variant = "connect4";
  clocked.seats.push_back(seat("thinker-a"));
  clocked.seats.push_back(seat("thinker-b"));
  ASSERT_TRUE(clocked.seats[0].ws->seek("connect4", 120'000, 0).has_ack());
  ASSERT_TRUE(clocked.seats[1].ws->seek("connect4", 120'000, 0).has_ack());
  started(clocked.seats[0], clocked);
  started(clocked.seats[1], clocked);

  // Load: a thread per table plays until the server dies under it.
  std::atomic<int> acked{0};
  std::atomic<bool> failed{false};
  std::atomic<bool> killed{false};
  std::vector<std::string> errors;
  std::mutex errors_mutex;
  std::vector<std::thread> players;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    players.emplace_back([&, i] {
      std::mt19937 rng(static_cast<unsigned>(i + 1));
      try {
        while (play_one(tables[i], rng))
          acked.fetch_add(1);
      } catch (const std::exception& e) {
        // After the kill a read fails: only an error before it is one.
        if (!killed) {
          failed = true;
          std::lock_guard lock(errors_mutex);
          errors.push_back(tables[i].match + ": " + e.what());
        }
      }
    });
  }
  // The clocked table: one move each, then the second player thinks.
  std::mt19937 rng(99);
  ASSERT_TRUE(play_one(clocked, rng));
  ASSERT_TRUE(play_one(clocked, rng));
  ASSERT_TRUE(play_one(clocked, rng));  // the first player's second move: the second thinks
  const v1::Side thinker = v1::SIDE_SECOND;
  const std::int64_t left_at_turn = clocked.clocks.second_ms();  // as the turn began
  ASSERT_EQ(clocked.clocks.running(), thinker);
  // Wait for load, and for the thinker to think 2.5 s.
  const auto think_from = SteadyClock::now();
  const auto deadline = SteadyClock::now() + 20s;
  while ((acked.load() < 150 || SteadyClock::now() - think_from < 2500ms) &&
         SteadyClock::now() < deadline && !failed) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_FALSE(failed) << errors.front();
  const int acked_before_kill = acked.load();
  killed = true;
  server->kill();
  for (auto& t : players)
    t.join();
  ASSERT_TRUE(errors.empty()) << errors.front();
  EXPECT_GE(acked_before_kill, 150) << "not enough load before the kill";

  // What the dead server's store says of the thinker's turn.
  const std::int64_t alive = std::max(query_int(store, "SELECT at_ms FROM alive"),
                                      query_int(store, "SELECT MAX(at_ms) FROM log"));
  const std::int64_t turn_at = query_int(
      store, "SELECT at_ms FROM log WHERE match_id = '" + clocked.match + "' ORDER BY id DESC");
  ASSERT_GT(turn_at, 0);
  const std::int64_t charged = alive - turn_at;
  // It thought at least 2.5 s before the kill; heartbeats come every second
  // and the other tables wrote until the end.
  EXPECT_GE(charged, 1500);
  EXPECT_LE(charged,
            2500 + std::chrono::duration_cast<Millis>(SteadyClock::now() - think_from).count());

  // Restart on the same store; everyone comes back with token and cursor.
  const auto restart_from = SteadyClock::now();
  server = server_child(store);
  const std::uint16_t port2 = server->port();
  tables.push_back(std::move(clocked));
  for (Table& t : tables) {
    for (Client& s : t.seats) {
      s.ws = std::make_unique<WsClient>(port2);
      auto w = s.ws->resume(s.token, {{t.match, s.seen}});
      ASSERT_TRUE(w.resumed());
      if (std::find(w.matches().begin(), w.matches().end(), t.match) == w.matches().end()) {
        // Over before the kill: its record holds every move.
        const auto record = inarow::testing::http_get(port2, "/matches/" + t.match);
        ASSERT_EQ(record.status, 200) << t.match;
        std::string notation;
        for (const auto& mv : t.kept)
          notation += mv;
        EXPECT_NE(record.body.find("\"notation\":\"" + notation), std::string::npos) << record.body;
        EXPECT_EQ(record.body.find("RESULT_UNSPECIFIED"), std::string::npos) << record.body;
        t.over = true;
        continue;
      }
      auto st =
          s.ws->next_until([](const v1::ServerMessage& x) { return x.has_match_state(); }, 10s);
      ASSERT_TRUE(st) << t.match;
      const v1::MatchState& state = st->match_state();
      // Every move anyone was told of is there, in order.
      ASSERT_GE(static_cast<std::size_t>(state.moves_size()), t.kept.size()) << t.match;
      for (std::size_t i = 0; i < t.kept.size(); ++i)
        ASSERT_EQ(state.moves(static_cast<int>(i)), t.kept[i]) << t.match << " ply " << i + 1;
      EXPECT_GE(state.last_seq(), s.seen);
      for (int i = static_cast<int>(t.kept.size()); i < state.moves_size(); ++i)
        t.kept.push_back(state.moves(i));  // stored but unacknowledged at the kill: kept now
      s.seen = state.last_seq();
      t.over = state.result() != v1::RESULT_UNSPECIFIED;
      if (&t == &tables.back() && s.side == thinker) {
        // The thinker's clock: the turn's start less what was used, by the
        // store's times exactly, less what ran since the restart.
        const auto since_restart =
            std::chrono::duration_cast<Millis>(SteadyClock::now() - restart_from).count();
        EXPECT_LE(state.clocks().second_ms(), left_at_turn - charged)
            << "charged " << charged << " alive " << alive << " turn " << turn_at;
        EXPECT_GE(state.clocks().second_ms(), left_at_turn - charged - since_restart - 1)
            << "charged " << charged << " alive " << alive << " turn " << turn_at;
        EXPECT_EQ(state.clocks().running(), thinker);
      }
    }
  }
  // Play on: every live table takes three more moves.
  for (Table& t : tables) {
    std::mt19937 r(7);
    for (int i = 0; i < 3 && !t.over; ++i) {
      // Presence events may come first; play_one follows by seq.
      ASSERT_NO_THROW(play_one(t, r)) << t.match;
    }
  }
}

}  // namespace
}  // namespace inarow::server
