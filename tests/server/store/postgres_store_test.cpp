// The PostgreSQL store's own promises (the interface's are in
// conformance_test.cpp): a database reopened keeps everything and its
// schema (created once, its version checked), a newer schema is refused,
// two servers starting at once set it up once, finished matches' events
// are pruned, a schema-1 database is migrated (once, by nodes starting
// together), two nodes on one database take turns on a match one of them
// takes over (whichever order their transactions commit in, the old
// owner's writes after the take-over are refused), an unreachable server
// is a clear error at open (host and port, never the password), and a
// server restarted under a running store fails the call that finds its
// connection gone, then works again.
#include "inarow/server/postgres_store.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "postgres_cluster.h"
#include "records.h"

namespace inarow::server {
namespace {

using inarow::testing::PostgresCluster;
using testing::bot;
using testing::person;

class PostgresStore : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = PostgresCluster::shared();
    ASSERT_NE(cluster_, nullptr) << PostgresCluster::shared_error();
    auto db = cluster_->create_database();
    ASSERT_TRUE(db) << db.error();
    uri_ = *db;
  }
  std::unique_ptr<Store> open(PostgresOptions options = {}) {
    auto store = open_postgres_store(uri_, options);
    EXPECT_TRUE(store) << store.error();
    return store ? std::move(*store) : nullptr;
  }
  std::string sql(const std::string& query) {
    auto r = PostgresCluster::query(uri_, query);
    EXPECT_TRUE(r) << query << ": " << r.error();
    return r ? *r : "";
  }
  // Waits until `n` sessions on the database wait for a lock: true, or
  // false after ten seconds.
  bool lock_waits(int n) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (sql("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
              "AND wait_event_type = 'Lock'") == std::to_string(n)) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  PostgresCluster* cluster_ = nullptr;
  std::string uri_;
};

MatchRecord match(const std::string& id, std::int64_t created_ms) {
  MatchRecord m;
  m.id = id;
  m.variant = "tictactoe";
  m.kind = 1;
  m.rated = true;
  m.first_id = "pa";
  m.second_id = "bot-easy";
  m.second_level = "easy";
  m.created_ms = created_ms;
  return m;
}

TEST_F(PostgresStore, AReopenedDatabaseKeepsEverythingAndItsSchema) {
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->write(std::vector<StoreOp>{
        store_op::SavePlayer{person("pa", "Alice", "t-a")},
        store_op::SavePlayer{bot("bot-easy", "Easy bot")},
        store_op::SaveRating{"pa", "tictactoe", Rating{1612.5, 80.25, 0.059}, 4},
        store_op::SaveAccount{"pa", "alice", "$argon2id$a", 1000},
        store_op::AddDevice{"pa", "d-2", 2000}, store_op::CreateMatch{match("m1", 1)},
        store_op::CreateMatch{match("m2", 2)}, store_op::AppendEvent{"m1", 1, "start", 11},
        store_op::AppendEvent{"m2", 1, "start2", 12},
        store_op::FinishMatch{"m2", 1, 3, 50, {MoveRecord{1, "b2", 59000, 60000}}},
        store_op::ClockFrom{"m1", 1, 40}, store_op::Alive{45}}));
  }
  EXPECT_EQ(sql("SELECT string_agg(version::text, ',') FROM schema_version"), "2");
  const std::string players_table = sql("SELECT 'players'::regclass::oid::text");
  auto store = open();
  ASSERT_TRUE(store);
  // Not created again: the same tables, one version row.
  EXPECT_EQ(sql("SELECT 'players'::regclass::oid::text"), players_table);
  EXPECT_EQ(sql("SELECT COUNT(*) FROM schema_version"), "1");
  auto alice = store->find_player_by_token("d-2");
  ASSERT_TRUE(alice);
  EXPECT_EQ(alice->id, "pa");
  EXPECT_EQ(alice->ratings.at("tictactoe").rating, 1612.5);
  EXPECT_EQ(alice->games.at("tictactoe"), 4);
  EXPECT_EQ(alice->name_key, "alice");
  EXPECT_EQ(store->last_alive_ms(), 45);
  auto live = store->load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].id, "m1");
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"start"}));
  EXPECT_EQ(live[0].event_ms, (std::vector<std::int64_t>{40}));
  auto m2 = store->load_match("m2");
  ASSERT_TRUE(m2);
  ASSERT_EQ(m2->moves.size(), 1u);
  EXPECT_EQ(m2->moves[0].move, "b2");
  // m1 was restored (its clock_from row was read back): ending it drops the row.
  ASSERT_TRUE(store->write(std::vector<StoreOp>{store_op::FinishMatch{"m1", 2, 1, 60, {}}}));
  EXPECT_EQ(sql("SELECT COUNT(*) FROM clock_from"), "0");
  // The columns compare bytes, whatever the database's locale.
  EXPECT_EQ(sql("SELECT collation_name FROM information_schema.columns WHERE table_name = "
                "'matches' AND column_name = 'id'"),
            "C");
}

TEST_F(PostgresStore, RefusesADatabaseFromANewerSchema) {
  ASSERT_TRUE(open());
  sql("UPDATE schema_version SET version = 3");
  auto store = open_postgres_store(uri_);
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().find("its schema (3) is newer than this server's (2)"), std::string::npos)
      << store.error();
  EXPECT_NE(store.error().find("127.0.0.1"), std::string::npos) << store.error();
}

// `n` stores opened on `uri` at once, as nodes starting together would:
// each one's error ("" when it opened).
std::vector<std::string> open_together(const std::string& uri, std::size_t n) {
  std::vector<std::thread> starting;
  std::vector<std::string> errors(n);
  for (std::size_t i = 0; i < n; ++i) {
    starting.emplace_back([&, i] {
      auto store = open_postgres_store(uri);
      if (!store) errors[i] = store.error();
    });
  }
  for (auto& t : starting)
    t.join();
  return errors;
}

TEST_F(PostgresStore, TwoServersStartingAtOnceSetTheSchemaUpOnce) {
  for (const auto& e : open_together(uri_, 4))
    EXPECT_EQ(e, "");
  EXPECT_EQ(sql("SELECT COUNT(*) FROM schema_version"), "1");
}

TEST_F(PostgresStore, PrunesTheLogOfFinishedMatchesOnly) {
  auto store = open(PostgresOptions{.prune_every = {}});
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->write(std::vector<StoreOp>{
      store_op::CreateMatch{match("m1", 1)}, store_op::AppendEvent{"m1", 1, "a"},
      store_op::CreateMatch{match("m2", 2)}, store_op::AppendEvent{"m2", 1, "x"},
      store_op::AppendEvent{"m1", 2, "b"}, store_op::AppendEvent{"m2", 2, "y"}}));
  ASSERT_TRUE(store->write(std::vector<StoreOp>{store_op::AppendEvent{"m1", 3, "c"},
                                                store_op::FinishMatch{"m1", 1, 1, 5, {}}}));
  auto live = store->load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(sql("SELECT COUNT(*) FROM log"), "4");  // a went; x, b, y, c wait for m2
  ASSERT_TRUE(store->write(std::vector<StoreOp>{store_op::FinishMatch{"m2", 2, 1, 6, {}}}));
  EXPECT_TRUE(store->load_unfinished().empty());
  EXPECT_EQ(sql("SELECT COUNT(*) FROM log"), "0");
  // Ids go on growing after a prune: a new match's events are its own.
  ASSERT_TRUE(store->write(std::vector<StoreOp>{store_op::CreateMatch{match("m3", 3)},
                                                store_op::AppendEvent{"m3", 1, "n"}}));
  EXPECT_EQ(store->load_unfinished().at(0).events, (std::vector<std::string>{"n"}));
  EXPECT_EQ(store->load_match("m3")->events, (std::vector<std::string>{"n"}));
}

// A schema-1 database (no fencing generation) opens at schema 2, its
// matches at generation 0, migrated once by nodes that start together.
TEST_F(PostgresStore, MigratesASchemaOneDatabase) {
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->write(std::vector<StoreOp>{
        store_op::CreateMatch{match("m1", 1)}, store_op::AppendEvent{"m1", 1, "start", 11},
        store_op::CreateMatch{match("m2", 2)}, store_op::FinishMatch{"m2", 1, 3, 50, {}}}));
  }
  // Back to schema 1's shape.
  sql("ALTER TABLE matches DROP COLUMN generation");
  sql("UPDATE schema_version SET version = 1");
  for (const auto& e : open_together(uri_, 4))
    EXPECT_EQ(e, "");
  EXPECT_EQ(sql("SELECT string_agg(version::text, ',') FROM schema_version"), "2");
  EXPECT_EQ(sql("SELECT string_agg(id || ':' || generation, ',' ORDER BY id) FROM matches"),
            "m1:0,m2:0");
  auto store = open();
  ASSERT_TRUE(store);
  auto live = store->load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].id, "m1");
  EXPECT_EQ(live[0].generation, 0);
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"start"}));
  EXPECT_EQ(store->load_match("m2")->generation, 0);
  // Taken over from there like any other.
  ASSERT_TRUE(store->write(std::vector<StoreOp>{store_op::TakeOver{"m1", 1},
                                                store_op::AppendEvent{"m1", 2, "on", 12, 1}}));
  EXPECT_EQ(store->load_match("m1")->events, (std::vector<std::string>{"start", "on"}));
}

// A connection of the test's own, for a transaction held open while the
// stores write: it holds a row that a store's batch then waits for, after
// the batch's first ops (a take-over, or an old owner's write) have taken
// their match's row. So each interleaving of two nodes' transactions on
// one match is made to happen, not hoped for.
class Session {
 public:
  explicit Session(const std::string& uri) : c_(PQconnectdb(uri.c_str())) {}
  ~Session() { PQfinish(c_); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  // "" or the error.
  std::string run(const std::string& sql) {
    PGresult* r = PQexec(c_, sql.c_str());
    const ExecStatusType s = PQresultStatus(r);
    std::string error = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK
                            ? ""
                            : std::string("failed: ") + PQresultErrorMessage(r);
    PQclear(r);
    return error;
  }

 private:
  PGconn* c_;
};

// The fenced matches of a write ({"<committed>"} if it committed).
std::vector<std::string> fenced(const inarow::expected<void, StoreError>& written) {
  if (written) return {"<committed>"};
  return written.error().fenced;
}

// Two nodes, one after the other: node 1's writes before node 2's
// take-over are kept and read by node 2; after it they are refused and
// change nothing, and node 1 cannot take the match back with the
// generation it had.
TEST_F(PostgresStore, TwoNodesOneAfterTheOther) {
  auto node1 = open();
  auto node2 = open();
  ASSERT_TRUE(node1 && node2);
  MatchRecord m = match("m1", 1);
  m.generation = 1;
  ASSERT_TRUE(node1->write(
      std::vector<StoreOp>{store_op::CreateMatch{m}, store_op::AppendEvent{"m1", 1, "e1", 11, 1}}));
  ASSERT_TRUE(node1->write(std::vector<StoreOp>{store_op::AppendEvent{"m1", 2, "e2", 12, 1}}));
  ASSERT_TRUE(node2->write(std::vector<StoreOp>{store_op::TakeOver{"m1", 2}}));
  auto live = node2->load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].generation, 2);
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"e1", "e2"}));

  using Ids = std::vector<std::string>;
  EXPECT_EQ(fenced(node1->write(std::vector<StoreOp>{store_op::AppendEvent{"m1", 3, "x", 13, 1}})),
            Ids{"m1"});
  EXPECT_EQ(fenced(node1->write(std::vector<StoreOp>{store_op::ClockFrom{"m1", 2, 99, 1}})),
            Ids{"m1"});
  EXPECT_EQ(fenced(node1->write(std::vector<StoreOp>{
                store_op::FinishMatch{"m1", 1, 1, 50, {}, std::nullopt, false, 1}})),
            Ids{"m1"});
  EXPECT_EQ(fenced(node1->write(std::vector<StoreOp>{store_op::TakeOver{"m1", 2}})), Ids{"m1"});
  EXPECT_EQ(sql("SELECT string_agg(seq || ':' || at_ms, ',' ORDER BY id) FROM log"), "1:11,2:12");
  EXPECT_EQ(sql("SELECT COUNT(*) FROM clock_from"), "0");
  EXPECT_EQ(sql("SELECT result || ':' || generation FROM matches"), "0:2");
  ASSERT_TRUE(node2->write(std::vector<StoreOp>{store_op::AppendEvent{"m1", 3, "e3", 13, 2}}));
  EXPECT_EQ(node1->load_match("m1")->events, (std::vector<std::string>{"e1", "e2", "e3"}));
}

// Node 2's take-over in flight (its row taken, not committed yet) when
// node 1 writes with the old generation: node 1's write waits for it and,
// once it commits, is refused. Each fenced op in turn.
TEST_F(PostgresStore, AnOldOwnersWriteWaitsForATakeOverInFlightAndIsRefused) {
  auto node1 = open();
  auto node2 = open();
  ASSERT_TRUE(node1 && node2);
  const std::vector<std::pair<std::string, StoreOp>> writes = {
      {"append", store_op::AppendEvent{"append", 2, "stale", 99, 1}},
      {"clock", store_op::ClockFrom{"clock", 1, 99, 1}},
      {"finish", store_op::FinishMatch{"finish", 1, 1, 99, {}, std::nullopt, false, 1}},
  };
  for (const auto& entry : writes) {
    // Named references, not a structured binding: the threads' lambdas
    // capture them, which clang 14 (the asan preset's compiler) does not allow.
    const std::string& id = entry.first;
    const StoreOp& write = entry.second;
    MatchRecord m = match(id, 1);
    m.generation = 1;
    ASSERT_TRUE(node1->write(
        std::vector<StoreOp>{store_op::CreateMatch{m}, store_op::AppendEvent{id, 1, "e1", 11, 1}}));
    Session holder(uri_);
    ASSERT_EQ(holder.run("BEGIN"), "");
    ASSERT_EQ(holder.run("INSERT INTO players VALUES ('px-" + id + "', 'X', '', false)"), "");
    inarow::expected<void, StoreError> took = {}, wrote = {};
    std::thread take([&] {
      took = node2->write(std::vector<StoreOp>{store_op::TakeOver{id, 2},
                                               store_op::SavePlayer{person("px-" + id, "X", "")}});
    });
    ASSERT_TRUE(lock_waits(1)) << id << ": the take-over did not wait";
    std::thread old([&] { wrote = node1->write(std::vector<StoreOp>{write}); });
    EXPECT_TRUE(lock_waits(2)) << id << ": the old owner's write did not wait for the take-over";
    ASSERT_EQ(holder.run("ROLLBACK"), "");
    take.join();
    old.join();
    EXPECT_TRUE(took) << id << ": " << (took ? "" : took.error().message);
    EXPECT_EQ(fenced(wrote), std::vector<std::string>{id}) << id;
    auto after = node2->load_unfinished();
    ASSERT_FALSE(after.empty());
    EXPECT_EQ(after.back().id, id);
    EXPECT_EQ(after.back().generation, 2);
    EXPECT_EQ(after.back().events, (std::vector<std::string>{"e1"})) << id;
    EXPECT_EQ(after.back().event_ms, (std::vector<std::int64_t>{11})) << id;
  }
  EXPECT_EQ(sql("SELECT COUNT(*) FROM matches WHERE result = 0 AND generation = 2"), "3");
}

// A take-over in flight that fails: the old owner's write, which waited
// for it, goes through (the match is still its own).
TEST_F(PostgresStore, AnOldOwnersWriteGoesThroughWhenTheTakeOverItWaitedForFails) {
  auto node1 = open();
  auto node2 = open();
  ASSERT_TRUE(node1 && node2);
  MatchRecord m = match("m1", 1);
  m.generation = 1;
  ASSERT_TRUE(node1->write(
      std::vector<StoreOp>{store_op::CreateMatch{m}, store_op::AppendEvent{"m1", 1, "e1", 11, 1}}));
  Session holder(uri_);
  ASSERT_EQ(holder.run("BEGIN"), "");
  ASSERT_EQ(holder.run("INSERT INTO devices VALUES ('d-x', 'pq', 1)"), "");
  inarow::expected<void, StoreError> took = {}, wrote = {};
  std::thread take([&] {
    // The device's token is taken once the holder commits: this batch fails.
    took = node2->write(
        std::vector<StoreOp>{store_op::TakeOver{"m1", 2}, store_op::AddDevice{"pa", "d-x", 2}});
  });
  ASSERT_TRUE(lock_waits(1));
  std::thread old([&] {
    wrote = node1->write(std::vector<StoreOp>{store_op::AppendEvent{"m1", 2, "e2", 12, 1}});
  });
  EXPECT_TRUE(lock_waits(2));
  ASSERT_EQ(holder.run("COMMIT"), "");
  take.join();
  old.join();
  ASSERT_FALSE(took);
  EXPECT_TRUE(took.error().fenced.empty()) << took.error().message;
  EXPECT_TRUE(wrote) << (wrote ? "" : wrote.error().message);
  auto m1 = node2->load_match("m1");
  ASSERT_TRUE(m1);
  EXPECT_EQ(m1->generation, 1);
  EXPECT_EQ(m1->events, (std::vector<std::string>{"e1", "e2"}));
}

// Node 1's write in flight (its match's row taken, not committed yet)
// when node 2 takes the match over: the take-over waits for it, and node 2
// then reads the write it waited for. Node 1's next write is refused.
TEST_F(PostgresStore, ATakeOverWaitsForTheOldOwnersWriteInFlightAndReadsIt) {
  auto node1 = open();
  auto node2 = open();
  ASSERT_TRUE(node1 && node2);
  MatchRecord m = match("m1", 1);
  m.generation = 1;
  ASSERT_TRUE(node1->write(
      std::vector<StoreOp>{store_op::CreateMatch{m}, store_op::AppendEvent{"m1", 1, "e1", 11, 1}}));
  Session holder(uri_);
  ASSERT_EQ(holder.run("BEGIN"), "");
  ASSERT_EQ(holder.run("INSERT INTO players VALUES ('px', 'X', '', false)"), "");
  inarow::expected<void, StoreError> took = {}, wrote = {};
  std::thread old([&] {
    wrote = node1->write(std::vector<StoreOp>{store_op::AppendEvent{"m1", 2, "e2", 12, 1},
                                              store_op::SavePlayer{person("px", "X", "")}});
  });
  ASSERT_TRUE(lock_waits(1));
  std::thread take([&] { took = node2->write(std::vector<StoreOp>{store_op::TakeOver{"m1", 2}}); });
  EXPECT_TRUE(lock_waits(2)) << "the take-over did not wait for the write in flight";
  ASSERT_EQ(holder.run("ROLLBACK"), "");
  old.join();
  take.join();
  EXPECT_TRUE(wrote) << (wrote ? "" : wrote.error().message);
  EXPECT_TRUE(took) << (took ? "" : took.error().message);
  auto live = node2->load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].generation, 2);
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"e1", "e2"}));
  EXPECT_EQ(fenced(node1->write(std::vector<StoreOp>{store_op::AppendEvent{"m1", 3, "x", 13, 1}})),
            std::vector<std::string>{"m1"});
}

TEST(PostgresStoreOpen, AnUnreachableServerIsAClearErrorWithoutThePassword) {
  // A port nobody listens on: bound and closed again.
  std::uint16_t port = 0;
  {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t n = sizeof a;
    ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(::getsockname(s, reinterpret_cast<sockaddr*>(&a), &n), 0);
    port = ntohs(a.sin_port);
    ::close(s);
  }
  const std::string uri =
      "postgresql://inarow:s3cr3t-pw@127.0.0.1:" + std::to_string(port) + "/nothing";
  auto store =
      open_postgres_store(uri, PostgresOptions{.connect_timeout = std::chrono::seconds(2)});
  ASSERT_FALSE(store);
  EXPECT_NE(
      store.error().find("cannot connect to PostgreSQL at 127.0.0.1 port " + std::to_string(port)),
      std::string::npos)
      << store.error();
  EXPECT_EQ(store.error().find("s3cr3t"), std::string::npos) << store.error();
  // A keyword string too; and one that does not parse, without echoing it.
  auto keywords = open_postgres_store("host=127.0.0.1 port=" + std::to_string(port) +
                                      " dbname=x user=u password=s3cr3t-pw connect_timeout=2");
  ASSERT_FALSE(keywords);
  EXPECT_NE(keywords.error().find("127.0.0.1 port " + std::to_string(port)), std::string::npos);
  EXPECT_EQ(keywords.error().find("s3cr3t"), std::string::npos) << keywords.error();
  auto garbled = open_postgres_store("postgresql://u:s3cr3t-pw@127.0.0.1:5432/x?bogus=%zz");
  ASSERT_FALSE(garbled);
  EXPECT_EQ(garbled.error().find("s3cr3t"), std::string::npos) << garbled.error();
  EXPECT_EQ(postgres_store_label(uri), "PostgreSQL at 127.0.0.1 port " + std::to_string(port) +
                                           ", database nothing, user inarow");
}

// Last in this file: it restarts the process's cluster.
TEST_F(PostgresStore, AWriteAfterTheServerRestartedFailsCleanlyThenWorksAgain) {
  auto store = open(PostgresOptions{.readers = 2});
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->write(std::vector<StoreOp>{store_op::SavePlayer{person("pa", "Alice", "t-a")},
                                                store_op::Alive{1}}));
  ASSERT_TRUE(store->find_player("pa"));
  ASSERT_TRUE(store->find_player("pa"));  // both readers used

  cluster_->stop();
  // Down: writes fail, and so do reads, each with an answer, not a hang.
  auto down = store->write(std::vector<StoreOp>{store_op::Alive{2}});
  ASSERT_FALSE(down);
  EXPECT_NE(down.error().message.find("PostgreSQL store"), std::string::npos)
      << down.error().message;
  EXPECT_TRUE(down.error().fenced.empty());
  EXPECT_FALSE(store->write(std::vector<StoreOp>{store_op::Alive{3}}));
  EXPECT_FALSE(store->find_player("pa"));

  ASSERT_TRUE(cluster_->start());
  // The first write after the restart may find its connection gone (and
  // fails, writing nothing); the next connects again and commits.
  auto first = store->write(std::vector<StoreOp>{store_op::Alive{4}});
  if (!first) {
    EXPECT_NE(first.error().message.find("PostgreSQL store"), std::string::npos);
  }
  auto again = store->write(
      std::vector<StoreOp>{store_op::SavePlayer{person("pb", "Bob", "t-b")}, store_op::Alive{5}});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(store->last_alive_ms(), 5);
  // Each reader connects again on its next read.
  std::optional<PlayerRecord> bob;
  for (int i = 0; i < 3 && !bob; ++i)
    bob = store->find_player("pb");
  ASSERT_TRUE(bob);
  EXPECT_EQ(bob->name, "Bob");
  EXPECT_EQ(store->find_player("pa")->name, "Alice");
  EXPECT_EQ(store->find_player_by_token("t-a")->id, "pa");
}

// The connection found lost by the failing write, not before: a write
// after a restart the store had not seen fails once, then commits.
TEST_F(PostgresStore, AWriteOnAConnectionTheRestartClosedFailsOnceThenCommits) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->write(std::vector<StoreOp>{store_op::Alive{1}}));
  ASSERT_TRUE(cluster_->restart());
  auto first = store->write(std::vector<StoreOp>{store_op::Alive{2}});
  ASSERT_FALSE(first);
  EXPECT_NE(first.error().message.find("PostgreSQL store:"), std::string::npos)
      << first.error().message;
  auto second = store->write(std::vector<StoreOp>{store_op::Alive{3}});
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(store->last_alive_ms(), 3);
  EXPECT_EQ(sql("SELECT at_ms FROM alive"), "3");
}

}  // namespace
}  // namespace inarow::server
