// The PostgreSQL store's own promises (the interface's are in
// conformance_test.cpp): a database reopened keeps everything and its
// schema (created once, its version checked), a newer schema is refused,
// two servers starting at once set it up once, finished matches' events
// are pruned, an unreachable server is a clear error at open (host and
// port, never the password), and a server restarted under a running store
// fails the call that finds its connection gone, then works again.
#include "inarow/server/postgres_store.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

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
  EXPECT_EQ(sql("SELECT string_agg(version::text, ',') FROM schema_version"), "1");
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
  sql("UPDATE schema_version SET version = 2");
  auto store = open_postgres_store(uri_);
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().find("its schema (2) is newer than this server's (1)"), std::string::npos)
      << store.error();
  EXPECT_NE(store.error().find("127.0.0.1"), std::string::npos) << store.error();
}

TEST_F(PostgresStore, TwoServersStartingAtOnceSetTheSchemaUpOnce) {
  std::vector<std::thread> starting;
  std::vector<std::string> errors(4);
  for (std::size_t i = 0; i < errors.size(); ++i) {
    starting.emplace_back([&, i] {
      auto store = open_postgres_store(uri_);
      if (!store) errors[i] = store.error();
    });
  }
  for (auto& t : starting)
    t.join();
  for (const auto& e : errors)
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
  EXPECT_NE(down.error().find("PostgreSQL store"), std::string::npos) << down.error();
  EXPECT_FALSE(store->write(std::vector<StoreOp>{store_op::Alive{3}}));
  EXPECT_FALSE(store->find_player("pa"));

  ASSERT_TRUE(cluster_->start());
  // The first write after the restart may find its connection gone (and
  // fails, writing nothing); the next connects again and commits.
  auto first = store->write(std::vector<StoreOp>{store_op::Alive{4}});
  if (!first) {
    EXPECT_NE(first.error().find("PostgreSQL store"), std::string::npos);
  }
  auto again = store->write(
      std::vector<StoreOp>{store_op::SavePlayer{person("pb", "Bob", "t-b")}, store_op::Alive{5}});
  ASSERT_TRUE(again) << again.error();
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
  EXPECT_NE(first.error().find("PostgreSQL store:"), std::string::npos) << first.error();
  auto second = store->write(std::vector<StoreOp>{store_op::Alive{3}});
  ASSERT_TRUE(second) << second.error();
  EXPECT_EQ(store->last_alive_ms(), 3);
  EXPECT_EQ(sql("SELECT at_ms FROM alive"), "3");
}

}  // namespace
}  // namespace inarow::server
