#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>
#include <vector>

#include "inarow/server/sqlite_store.h"
#include "inarow/server/store_writer.h"
#include "old_schemas.h"
#include "records.h"
#include "stores.h"

namespace inarow::server {
namespace {

using testing::query_rows;
using testing::query_text;
using testing::run_sql;
using testing::TempDb;

using namespace std::chrono_literals;

// Rows in the log table, read through a connection of the test's own.
int log_rows(const std::filesystem::path& path) {
  sqlite3* db = nullptr;
  int n = -1;
  if (sqlite3_open(path.string().c_str(), &db) == SQLITE_OK) {
    sqlite3_stmt* q = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM log", -1, &q, nullptr) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW) {
      n = sqlite3_column_int(q, 0);
    }
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  return n;
}

MatchRecord match(const std::string& id) {
  MatchRecord m;
  m.id = id;
  m.variant = "tictactoe";
  m.kind = 1;
  m.rated = true;
  m.initial_ms = 60000;
  m.increment_ms = 1000;
  m.first_id = "pa";
  m.second_id = "bot-easy";
  m.second_level = "easy";
  m.created_ms = 1700000000000;
  return m;
}

TEST(SqliteStore, WritesSurviveReopening) {
  const TempDb temp("inarow-store-test");
  const auto& path = temp.path();
  {
    auto store = open_sqlite_store(path.string());
    ASSERT_TRUE(store) << store.error();
    std::vector<StoreOp> ops = {
        store_op::SavePlayer{testing::person("pa", "alice", "hash-a")},
        store_op::SaveRating{"pa", "tictactoe", Rating{1612.5, 80.25, 0.059}, 4},
        store_op::CreateMatch{match("m1")},
        store_op::CreateMatch{match("m2")},
        store_op::AppendEvent{"m1", 1, "start"},
        store_op::AppendEvent{"m2", 1, "start2"},
        store_op::AppendEvent{"m1", 2, "b2"},
        store_op::AppendEvent{"m2", 2, "end2"},
        store_op::FinishMatch{
            "m2",
            1,
            3,
            1700000001000,
            {MoveRecord{1, "b2", 59000, 60000}, MoveRecord{2, "a1", 59000, 58500}}},
        store_op::AppendEvent{"m1", 3, "a1"},
    };
    auto written = (*store)->write(ops);
    ASSERT_TRUE(written) << written.error().message;
  }
  auto store = open_sqlite_store(path.string());
  ASSERT_TRUE(store) << store.error();
  auto player = (*store)->find_player_by_token("hash-a");
  ASSERT_TRUE(player);
  EXPECT_EQ(player->id, "pa");
  EXPECT_EQ(player->name, "alice");
  EXPECT_EQ(player->token_hash, "hash-a");
  EXPECT_DOUBLE_EQ(player->ratings.at("tictactoe").rating, 1612.5);
  EXPECT_DOUBLE_EQ(player->ratings.at("tictactoe").deviation, 80.25);
  EXPECT_EQ(player->games, (std::map<std::string, int>{{"tictactoe", 4}}));
  EXPECT_FALSE((*store)->find_player("bot-easy"));  // never saved

  auto live = (*store)->load_unfinished();
  ASSERT_EQ(live.size(), 1u);  // m2 has a result
  EXPECT_EQ(live[0].id, "m1");
  EXPECT_EQ(live[0].second_level, "easy");
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"start", "b2", "a1"}));

  auto m1 = (*store)->load_match("m1");  // live: its events, no record yet
  ASSERT_TRUE(m1);
  EXPECT_EQ(m1->result, 0);
  EXPECT_EQ(m1->events, (std::vector<std::string>{"start", "b2", "a1"}));
  EXPECT_TRUE(m1->moves.empty());
  auto m2 = (*store)->load_match("m2");  // finished: its record
  ASSERT_TRUE(m2);
  EXPECT_EQ(m2->result, 1);
  EXPECT_EQ(m2->reason, 3);
  EXPECT_EQ(m2->ended_ms, 1700000001000);
  ASSERT_EQ(m2->moves.size(), 2u);
  EXPECT_EQ(m2->moves[1].move, "a1");
  EXPECT_EQ(m2->moves[1].second_ms, 58500);
  EXPECT_FALSE((*store)->load_match("nope"));
}

// Finished matches' events are dropped from the log; live ones' never are.
TEST(SqliteStore, PrunesTheLogOfFinishedMatchesOnly) {
  const TempDb temp("inarow-store-prune");
  const auto& path = temp.path();
  auto store = open_sqlite_store(path.string(), SqliteOptions{.prune_every = {}});
  ASSERT_TRUE(store) << store.error();
  ASSERT_TRUE((*store)->write(std::vector<StoreOp>{
      store_op::CreateMatch{match("m1")}, store_op::AppendEvent{"m1", 1, "a"},
      store_op::CreateMatch{match("m2")}, store_op::AppendEvent{"m2", 1, "x"},
      store_op::AppendEvent{"m1", 2, "b"}, store_op::AppendEvent{"m2", 2, "y"}}));
  // m1 ends: its rows before m2's first row can go, m2's stay.
  ASSERT_TRUE((*store)->write(std::vector<StoreOp>{store_op::AppendEvent{"m1", 3, "c"},
                                                   store_op::FinishMatch{"m1", 1, 1, 5, {}}}));
  auto live = (*store)->load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(log_rows(path), 4);  // a went; x, b, y, c wait for m2
  ASSERT_TRUE((*store)->write(std::vector<StoreOp>{store_op::FinishMatch{"m2", 2, 1, 6, {}}}));
  EXPECT_TRUE((*store)->load_unfinished().empty());
  EXPECT_EQ(log_rows(path), 0);
  auto m1 = (*store)->load_match("m1");
  ASSERT_TRUE(m1);
  EXPECT_EQ(m1->result, 1);
}

// A store written by schema 1 (events keyed by match, moves as made) opens:
// live matches keep their events, finished ones their records.
TEST(SqliteStore, MigratesASchemaOneStore) {
  const TempDb temp("inarow-store-migrate");
  const auto& path = temp.path();
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.string().c_str(), &db), SQLITE_OK);
    const char* v1 = R"sql(
      CREATE TABLE players (id TEXT PRIMARY KEY, name TEXT NOT NULL, token_hash TEXT NOT NULL,
                            bot INTEGER NOT NULL);
      CREATE TABLE matches (id TEXT PRIMARY KEY, variant TEXT NOT NULL, kind INTEGER NOT NULL,
        rated INTEGER NOT NULL, initial_ms INTEGER NOT NULL, increment_ms INTEGER NOT NULL,
        first_id TEXT NOT NULL, second_id TEXT NOT NULL, first_level TEXT NOT NULL,
        second_level TEXT NOT NULL, result INTEGER NOT NULL DEFAULT 0,
        reason INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL,
        ended_ms INTEGER NOT NULL DEFAULT 0);
      CREATE INDEX matches_by_result ON matches (result);
      CREATE TABLE events (match_id TEXT NOT NULL, seq INTEGER NOT NULL, blob BLOB NOT NULL,
                           PRIMARY KEY (match_id, seq)) WITHOUT ROWID;
      CREATE TABLE moves (match_id TEXT NOT NULL, ply INTEGER NOT NULL, move TEXT NOT NULL,
        first_ms INTEGER NOT NULL, second_ms INTEGER NOT NULL, PRIMARY KEY (match_id, ply))
        WITHOUT ROWID;
      INSERT INTO matches VALUES ('mlive', 'tictactoe', 1, 0, 0, 0, 'pa', 'pb', '', '', 0, 0, 2, 0);
      INSERT INTO matches VALUES ('mdone', 'tictactoe', 1, 0, 0, 0, 'pa', 'pb', '', '', 1, 1, 1, 3);
      INSERT INTO events VALUES ('mlive', 2, 'second'), ('mlive', 1, 'first'), ('mdone', 1, 'old');
      INSERT INTO moves VALUES ('mdone', 1, 'b2', 0, 0), ('mlive', 1, 'a1', 0, 0);
    )sql";
    ASSERT_EQ(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  auto store = open_sqlite_store(path.string());
  ASSERT_TRUE(store) << store.error();
  auto live = (*store)->load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].id, "mlive");
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"first", "second"}));
  auto done = (*store)->load_match("mdone");
  ASSERT_TRUE(done);
  ASSERT_EQ(done->moves.size(), 1u);
  EXPECT_EQ(done->moves[0].move, "b2");
  // The live match goes on in the new log, and its record replaces what
  // schema 1 kept of it while it was live.
  ASSERT_TRUE((*store)->write(
      std::vector<StoreOp>{store_op::AppendEvent{"mlive", 3, "third"},
                           store_op::FinishMatch{"mlive", 2, 1, 9, {MoveRecord{1, "c3", 0, 0}}}}));
  auto finished = (*store)->load_match("mlive");
  ASSERT_TRUE(finished);
  ASSERT_EQ(finished->moves.size(), 1u);
  EXPECT_EQ(finished->moves[0].move, "c3");
  store->reset();
  // Opened again, it is not migrated twice.
  auto again = open_sqlite_store(path.string());
  ASSERT_TRUE(again) << again.error();
  EXPECT_TRUE((*again)->load_unfinished().empty());
}

// A store written by schema 2 (a finished game's moves as rows of `moves`)
// opens: its records still read, and games that end from now on file their
// record in their match row, under the partial live index.
TEST(SqliteStore, MigratesASchemaTwoStore) {
  const TempDb temp("inarow-store-migrate2");
  const auto& path = temp.path();
  run_sql(path, std::string(testing::kSchema2Tables) + R"sql(
    INSERT INTO matches VALUES ('mdone', 'tictactoe', 1, 1, 60000, 0, 'pa', 'pb', '', '', 2, 1, 1, 3, 1);
    INSERT INTO matches VALUES ('mlive', 'tictactoe', 1, 0, 0, 0, 'pa', 'pb', '', '', 0, 0, 2, 0, 2);
    INSERT INTO log (id, match_id, seq, blob) VALUES (2, 'mlive', 1, 'first'), (3, 'mlive', 2, 'second');
    INSERT INTO moves VALUES ('mdone', 1, 'b2', 59000, 60000), ('mdone', 2, 'a1', 59000, 58000);
    PRAGMA user_version=2;
  )sql");
  {
    auto store = open_sqlite_store(path.string());
    ASSERT_TRUE(store) << store.error();
    auto done = (*store)->load_match("mdone");
    ASSERT_TRUE(done);
    EXPECT_EQ(done->result, 2);
    EXPECT_TRUE(done->rated);
    ASSERT_EQ(done->moves.size(), 2u);
    EXPECT_EQ(done->moves[1].move, "a1");
    EXPECT_EQ(done->moves[1].second_ms, 58000);
    auto live = (*store)->load_unfinished();
    ASSERT_EQ(live.size(), 1u);
    EXPECT_EQ(live[0].events, (std::vector<std::string>{"first", "second"}));
    EXPECT_EQ(live[0].generation, 0);
    ASSERT_TRUE((*store)->write(std::vector<StoreOp>{
        store_op::AppendEvent{"mlive", 3, "third"},
        store_op::FinishMatch{"mlive",
                              1,
                              2,
                              9,
                              {MoveRecord{1, "c3", 1000, 2000}, MoveRecord{2, "a1", 900, 2000},
                               MoveRecord{3, "b2", 900, 1800}}}}));
  }
  EXPECT_EQ(query_text(path, "PRAGMA user_version"), "7");
  EXPECT_NE(query_text(path, "SELECT sql FROM sqlite_master WHERE name = 'matches'")
                .find("WITHOUT ROWID"),
            std::string::npos);
  EXPECT_NE(query_text(path, "SELECT sql FROM sqlite_master WHERE name = 'matches_live'")
                .find("WHERE result = 0"),
            std::string::npos);
  EXPECT_EQ(query_text(path, "SELECT record FROM matches WHERE id = 'mlive'"),
            "1 c3 1000 2000\n2 a1 900 2000\n3 b2 900 1800\n");
  EXPECT_EQ(query_text(path, "SELECT COUNT(*) FROM moves WHERE match_id = 'mlive'"), "0");
  // Opened again: not migrated twice, both records read.
  auto again = open_sqlite_store(path.string());
  ASSERT_TRUE(again) << again.error();
  EXPECT_TRUE((*again)->load_unfinished().empty());
  auto finished = (*again)->load_match("mlive");
  ASSERT_TRUE(finished);
  ASSERT_EQ(finished->moves.size(), 3u);
  EXPECT_EQ(finished->moves[2].ply, 3);
  EXPECT_EQ(finished->moves[2].move, "b2");
  EXPECT_EQ(finished->moves[2].first_ms, 900);
  EXPECT_EQ(finished->moves[2].second_ms, 1800);
  ASSERT_EQ((*again)->load_match("mdone")->moves.size(), 2u);
}

// A store written by schema 6 (matches without their fencing generation)
// opens at schema 7: its matches, live and finished, at generation 0, a
// single node's; its live match goes on unchecked, and can be taken over.
TEST(SqliteStore, MigratesASchemaSixStore) {
  const TempDb temp("inarow-store-migrate6");
  const auto& path = temp.path();
  run_sql(path, std::string(testing::kSchema4Tables) + testing::kSchema5Additions +
                    testing::kSchema6Additions + R"sql(
    INSERT INTO players VALUES ('pa', 'Alice', 't-a', 0), ('pb', 'Bob', 't-b', 0);
    INSERT INTO matches (id, variant, kind, rated, initial_ms, increment_ms, first_id, second_id,
                         first_level, second_level, result, reason, created_ms, ended_ms,
                         log_from, record)
      VALUES ('mdone', 'tictactoe', 1, 0, 0, 0, 'pa', 'pb', '', '', 1, 1, 1, 10, 1,
              '1 b2 0 0' || char(10)),
             ('mlive', 'tictactoe', 1, 0, 60000, 0, 'pa', 'pb', '', '', 0, 0, 2, 0, 3, NULL);
    INSERT INTO log (id, match_id, seq, blob, at_ms) VALUES
      (3, 'mlive', 1, 'first', 100), (4, 'mlive', 2, 'second', 200);
    INSERT INTO clock_from VALUES ('mlive', 2, 250);
    PRAGMA user_version=6;
  )sql");
  {
    auto store = open_sqlite_store(path.string());
    ASSERT_TRUE(store) << store.error();
    auto live = (*store)->load_unfinished();
    ASSERT_EQ(live.size(), 1u);
    EXPECT_EQ(live[0].id, "mlive");
    EXPECT_EQ(live[0].generation, 0);
    EXPECT_EQ(live[0].events, (std::vector<std::string>{"first", "second"}));
    EXPECT_EQ(live[0].event_ms, (std::vector<std::int64_t>{100, 250}));
    auto done = (*store)->load_match("mdone");
    ASSERT_TRUE(done);
    EXPECT_EQ(done->generation, 0);
    ASSERT_EQ(done->moves.size(), 1u);
    EXPECT_EQ(done->moves[0].move, "b2");
    // Unchecked, as before; then taken over, and an older owner refused.
    ASSERT_TRUE((*store)->write(std::vector<StoreOp>{store_op::AppendEvent{"mlive", 3, "third"}}));
    ASSERT_TRUE((*store)->write(std::vector<StoreOp>{store_op::TakeOver{"mlive", 1}}));
    auto stale =
        (*store)->write(std::vector<StoreOp>{store_op::AppendEvent{"mlive", 4, "stale", 0, 7}});
    ASSERT_FALSE(stale);
    EXPECT_EQ(stale.error().fenced, std::vector<std::string>{"mlive"});
  }
  EXPECT_EQ(query_text(path, "PRAGMA user_version"), "7");
  EXPECT_EQ(query_rows(path, "SELECT id, generation FROM matches ORDER BY id"),
            "mdone|0\nmlive|1\n");
  // Opened again: not migrated twice.
  auto again = open_sqlite_store(path.string());
  ASSERT_TRUE(again) << again.error();
  auto live = (*again)->load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].generation, 1);
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"first", "second", "third"}));
}

// A record edited by hand into something that does not parse ends at the
// last good line; it never throws or invents moves.
TEST(SqliteStore, AGarbledRecordEndsAtItsLastGoodLine) {
  const TempDb temp("inarow-store-garbled");
  const auto& path = temp.path();
  {
    auto store = open_sqlite_store(path.string());
    ASSERT_TRUE(store) << store.error();
    ASSERT_TRUE((*store)->write(std::vector<StoreOp>{
        store_op::CreateMatch{match("m1")},
        store_op::FinishMatch{
            "m1", 1, 1, 5, {MoveRecord{1, "h10", -1, 0}, MoveRecord{2, "4", 5, 6}}}}));
    auto m1 = (*store)->load_match("m1");
    ASSERT_TRUE(m1);
    ASSERT_EQ(m1->moves.size(), 2u);
    EXPECT_EQ(m1->moves[0].move, "h10");
    EXPECT_EQ(m1->moves[0].first_ms, -1);
    EXPECT_EQ(m1->moves[1].move, "4");
  }
  run_sql(path, "UPDATE matches SET record = '1 b2 10 20\n2 a1 x 20\n3 c3 1 2\n' WHERE id = 'm1'");
  auto store = open_sqlite_store(path.string());
  ASSERT_TRUE(store) << store.error();
  auto m1 = (*store)->load_match("m1");
  ASSERT_TRUE(m1);
  ASSERT_EQ(m1->moves.size(), 1u);
  EXPECT_EQ(m1->moves[0].move, "b2");
  EXPECT_EQ(m1->moves[0].second_ms, 20);
}

TEST(SqliteStore, RefusesAStoreFromANewerSchema) {
  const TempDb temp("inarow-store-newer");
  const auto& path = temp.path();
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.string().c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  auto store = open_sqlite_store(path.string());
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().find("newer"), std::string::npos) << store.error();
}

// GET /matches/<id> reads a record on an I/O thread. A commit holds the
// store's writing connection through its fsync (here: through a wait for
// another connection's lock), and the read must not wait for it.
TEST(SqliteStore, ARecordIsReadWhileACommitWaits) {
  const TempDb temp("inarow-store-reader-test");
  const auto& path = temp.path();
  auto store = open_sqlite_store(path.string(), SqliteOptions{.busy_timeout = 5000ms});
  ASSERT_TRUE(store);
  ASSERT_TRUE((*store)->write(std::vector<StoreOp>{store_op::CreateMatch{match("m1")}}));

  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.string().c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  std::atomic<bool> started{false};
  bool written = false;
  std::thread writer([&] {
    started = true;
    written = (*store)->write(std::vector<StoreOp>{store_op::CreateMatch{match("m2")}}).has_value();
  });
  while (!started)
    std::this_thread::yield();
  // The writer takes its connection at once and then waits out the lock;
  // each of these reads comes while it waits.
  for (int i = 0; i < 20; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto m = (*store)->load_match("m1");
    const auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_TRUE(m);
    EXPECT_EQ(m->id, "m1");
    EXPECT_LT(took, 1000ms) << "read " << i << " waited for the commit";
  }
  EXPECT_FALSE((*store)->load_match("m2"));  // not committed yet
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  writer.join();
  EXPECT_TRUE(written);
  EXPECT_TRUE((*store)->load_match("m2"));  // committed, and the reader sees it
}

// The writer's connection leaves checkpoints to a thread of its own: the
// WAL's pages must reach the database file, and the WAL stop growing once it
// is long (a restart), or a server that runs for days fills the disk and its
// memory maps an ever larger WAL index.
TEST(SqliteStore, CheckpointsCopyTheWalBackAndKeepItBounded) {
  const TempDb temp("inarow-store-checkpoint-test");
  const auto& path = temp.path();
  const auto size = [&](const char* suffix) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(path.string() + suffix, ec);
    return ec ? std::uintmax_t{0} : n;
  };
  constexpr std::uintmax_t kMiB = 1 << 20;
  auto store = open_sqlite_store(path.string(), SqliteOptions{.full_sync = false});
  ASSERT_TRUE(store) << store.error();
  ASSERT_TRUE((*store)->write(std::vector<StoreOp>{store_op::CreateMatch{match("m1")}}));
  const std::string blob(64 * 1024, 'x');
  std::uint64_t seq = 0;
  const auto append = [&](std::uintmax_t bytes) {
    for (std::uintmax_t n = 0; n < bytes; n += blob.size())
      ASSERT_TRUE((*store)->write(std::vector<StoreOp>{store_op::AppendEvent{"m1", ++seq, blob}}));
  };
  // 8 MiB: past the 1,000 pages at which a passive checkpoint starts.
  append(8 * kMiB);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (size("") < 4 * kMiB && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  EXPECT_GE(size(""), 4 * kMiB) << "the WAL was not copied back into the database";
  // 72 MiB more: the WAL restarts from its start past 8,000 pages (32 MiB).
  append(72 * kMiB);
  EXPECT_LT(size("-wal"), 48 * kMiB) << "the WAL kept growing";
}

TEST(SqliteStore, AFailedBatchWritesNothing) {
  auto store = open_sqlite_store(":memory:");
  ASSERT_TRUE(store);
  std::vector<StoreOp> ops = {store_op::CreateMatch{match("m1")},
                              store_op::CreateMatch{match("m1")}};  // duplicate key
  EXPECT_FALSE((*store)->write(ops));
  EXPECT_FALSE((*store)->load_match("m1"));
}

TEST(StoreWriter, CallsBackInOrderOnceDurable) {
  auto store = open_sqlite_store(":memory:");
  ASSERT_TRUE(store);
  std::atomic<int> commits{0};
  std::vector<int> order;
  std::mutex mutex;
  {
    StoreWriter writer(**store, [&](double, std::size_t, bool ok) {
      EXPECT_TRUE(ok);
      ++commits;
    });
    writer.submit({store_op::CreateMatch{match("m1")}});
    for (int i = 1; i <= 200; ++i) {
      writer.submit({store_op::AppendEvent{"m1", static_cast<std::uint64_t>(i), "e"}},
                    [&, i](StoreWriter::Outcome outcome) {
                      EXPECT_EQ(outcome, StoreWriter::Outcome::ok);
                      std::lock_guard lock(mutex);
                      order.push_back(i);
                    });
    }
    writer.flush();
    EXPECT_EQ(order.size(), 200u);
  }
  for (int i = 0; i < 200; ++i)
    ASSERT_EQ(order[i], i + 1);
  EXPECT_GE(commits.load(), 1);
  EXPECT_LE(commits.load(), 201);
  auto live = (*store)->load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].events.size(), 200u);
}

}  // namespace
}  // namespace inarow::server
