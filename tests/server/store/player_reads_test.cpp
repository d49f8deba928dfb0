// Players read when they are needed: every store finds a player whole by
// id, by any token still valid and by an account's name key, keeps each
// rating's game count as SaveRating said it, and pages a variant's
// leaderboard best first (ties: more games, then the id). The SQLite store
// on a file (its own reader), in memory (the writer's connection) and the
// in-memory store are held to the same answers (reads while a writer
// commits are in conformance_test.cpp, for every store). A schema-5 store
// migrates to schema 6 with
// each rating's games counted from its finished matches.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "inarow/server/memory_store.h"
#include "inarow/server/sqlite_store.h"
#include "old_schemas.h"
#include "records.h"
#include "stores.h"

namespace inarow::server {
namespace {

using testing::query_rows;
using testing::query_text;
using testing::run_sql;

using testing::InMemoryStore;
using testing::SqliteFileStore;
using testing::SqliteMemoryStore;
using testing::temp_db;

template <class Made>
class PlayerReads : public ::testing::Test {
 protected:
  Store& store() { return made_.store(); }
  void write(std::vector<StoreOp> ops) {
    auto ok = store().write(ops);
    ASSERT_TRUE(ok) << ok.error();
  }

 private:
  Made made_;
};

using Stores = ::testing::Types<SqliteFileStore, SqliteMemoryStore, InMemoryStore>;
TYPED_TEST_SUITE(PlayerReads, Stores, testing::StoreNames);

// Alice: rated in two variants, an account with two more devices. Bob: a
// guest. A bot.
std::vector<StoreOp> alice_bob_and_a_bot() {
  return {store_op::SavePlayer{testing::person("pa", "Alice", "t-a")},
          store_op::SavePlayer{testing::person("pb", "Bob", "t-b")},
          store_op::SavePlayer{testing::bot("bot-easy", "Easy bot")},
          store_op::SaveRating{"pa", "tictactoe", Rating{1612.5, 80.25, 0.059}, 3},
          store_op::SaveRating{"pa", "connect4", Rating{1400.125, 200.5, 0.061}, 1},
          store_op::SaveAccount{"pa", "alice", "$argon2id$a", 1000},
          store_op::AddDevice{"pa", "d-2", 2000},
          store_op::AddDevice{"pa", "d-3", 3000}};
}

void expect_alice(const std::optional<PlayerRecord>& p) {
  ASSERT_TRUE(p);
  EXPECT_EQ(p->id, "pa");
  EXPECT_EQ(p->name, "Alice");
  EXPECT_EQ(p->token_hash, "t-a");
  EXPECT_FALSE(p->bot);
  ASSERT_EQ(p->ratings.size(), 2u);
  EXPECT_DOUBLE_EQ(p->ratings.at("tictactoe").rating, 1612.5);
  EXPECT_DOUBLE_EQ(p->ratings.at("tictactoe").deviation, 80.25);
  EXPECT_DOUBLE_EQ(p->ratings.at("tictactoe").volatility, 0.059);
  EXPECT_DOUBLE_EQ(p->ratings.at("connect4").rating, 1400.125);
  EXPECT_DOUBLE_EQ(p->ratings.at("connect4").deviation, 200.5);
  EXPECT_DOUBLE_EQ(p->ratings.at("connect4").volatility, 0.061);
  EXPECT_EQ(p->games, (std::map<std::string, int>{{"connect4", 1}, {"tictactoe", 3}}));
  EXPECT_EQ(p->name_key, "alice");
  EXPECT_EQ(p->password_hash, "$argon2id$a");
  EXPECT_EQ(p->account_since_ms, 1000);
  EXPECT_EQ(p->device_token_hashes, (std::vector<std::string>{"d-2", "d-3"}));
}

TYPED_TEST(PlayerReads, FindsAPlayerWholeById) {
  this->write(alice_bob_and_a_bot());
  expect_alice(this->store().find_player("pa"));

  auto bob = this->store().find_player("pb");
  ASSERT_TRUE(bob);
  EXPECT_EQ(bob->name, "Bob");
  EXPECT_EQ(bob->token_hash, "t-b");
  EXPECT_TRUE(bob->ratings.empty());
  EXPECT_TRUE(bob->games.empty());
  EXPECT_TRUE(bob->name_key.empty());
  EXPECT_TRUE(bob->password_hash.empty());
  EXPECT_EQ(bob->account_since_ms, 0);
  EXPECT_TRUE(bob->device_token_hashes.empty());

  auto bot = this->store().find_player("bot-easy");
  ASSERT_TRUE(bot);
  EXPECT_TRUE(bot->bot);
  EXPECT_EQ(bot->name, "Easy bot");
  EXPECT_EQ(bot->token_hash, "");

  EXPECT_FALSE(this->store().find_player("nobody"));
  EXPECT_FALSE(this->store().find_player(""));
}

TYPED_TEST(PlayerReads, FindsAPlayerByAnyTokenStillValid) {
  this->write(alice_bob_and_a_bot());
  expect_alice(this->store().find_player_by_token("t-a"));  // the first device's
  expect_alice(this->store().find_player_by_token("d-2"));
  expect_alice(this->store().find_player_by_token("d-3"));
  EXPECT_EQ(this->store().find_player_by_token("t-b")->id, "pb");
  EXPECT_FALSE(this->store().find_player_by_token("unknown"));
  EXPECT_FALSE(this->store().find_player_by_token(""));  // a bot's is ''

  // Alice changes her password on her third device: the first token and
  // the second device's name nobody now. Bob keeps his.
  this->write({store_op::RevokeDevices{"pa", "d-3"}});
  EXPECT_FALSE(this->store().find_player_by_token("t-a"));
  EXPECT_FALSE(this->store().find_player_by_token("d-2"));
  auto alice = this->store().find_player_by_token("d-3");
  ASSERT_TRUE(alice);
  EXPECT_EQ(alice->id, "pa");
  EXPECT_EQ(alice->token_hash, "");
  EXPECT_EQ(alice->device_token_hashes, (std::vector<std::string>{"d-3"}));
  EXPECT_FALSE(this->store().find_player_by_token(""));  // revoked: '' too
  EXPECT_EQ(this->store().find_player_by_token("t-b")->id, "pb");

  // Bob keeps his first device's token: his other device names nobody.
  this->write({store_op::SaveAccount{"pb", "bob", "$argon2id$b", 1000},
               store_op::AddDevice{"pb", "b-2", 2000}});
  EXPECT_EQ(this->store().find_player_by_token("b-2")->id, "pb");
  this->write({store_op::RevokeDevices{"pb", "t-b"}});
  EXPECT_FALSE(this->store().find_player_by_token("b-2"));
  auto bob = this->store().find_player_by_token("t-b");
  ASSERT_TRUE(bob);
  EXPECT_EQ(bob->id, "pb");
  EXPECT_EQ(bob->token_hash, "t-b");
  EXPECT_TRUE(bob->device_token_hashes.empty());
  EXPECT_EQ(this->store().find_player_by_token("d-3")->id, "pa");  // not Bob's to revoke
}

TYPED_TEST(PlayerReads, FindsAccountsByNameKeyOnly) {
  this->write(alice_bob_and_a_bot());
  // A guest whose name is Alice's too: not an account, never found by it.
  this->write({store_op::SavePlayer{testing::person("pc", "ALICE", "t-c")}});
  expect_alice(this->store().find_account("alice"));
  EXPECT_FALSE(this->store().find_account("bob"));    // a guest
  EXPECT_FALSE(this->store().find_account("Alice"));  // keys are as stored
  EXPECT_FALSE(this->store().find_account(""));
  // A change of password keeps the account, and its first date.
  this->write({store_op::SaveAccount{"pa", "alice", "$argon2id$b", 9000}});
  auto a = this->store().find_account("alice");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->password_hash, "$argon2id$b");
  EXPECT_EQ(a->account_since_ms, 1000);
  // Bob takes a password: found by his key from now on.
  this->write({store_op::SaveAccount{"pb", "bob", "$argon2id$c", 5000}});
  EXPECT_EQ(this->store().find_account("bob")->id, "pb");
}

TYPED_TEST(PlayerReads, RatingsAndGamesRoundTripPerVariant) {
  this->write({store_op::SavePlayer{testing::person("pa", "Alice", "t-a")},
               store_op::SaveRating{"pa", "tictactoe", Rating{1550, 300, 0.06}, 1},
               store_op::SaveRating{"pa", "gomoku", Rating{1450, 310, 0.06}, 1}});
  this->write({store_op::SaveRating{"pa", "tictactoe", Rating{1580.75, 250.5, 0.0599}, 2}});
  auto p = this->store().find_player("pa");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->games, (std::map<std::string, int>{{"gomoku", 1}, {"tictactoe", 2}}));
  EXPECT_DOUBLE_EQ(p->ratings.at("tictactoe").rating, 1580.75);
  EXPECT_DOUBLE_EQ(p->ratings.at("tictactoe").deviation, 250.5);
  EXPECT_DOUBLE_EQ(p->ratings.at("tictactoe").volatility, 0.0599);
  EXPECT_DOUBLE_EQ(p->ratings.at("gomoku").rating, 1450);
  // A rating without a game keeps its rating; its variant has no count.
  this->write({store_op::SaveRating{"pa", "connect4", Rating{1500, 350, 0.06}, 0}});
  p = this->store().find_player("pa");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->ratings.size(), 3u);
  EXPECT_EQ(p->games, (std::map<std::string, int>{{"gomoku", 1}, {"tictactoe", 2}}));
}

// Gomoku's players, best first at min_games 2: carol (1700), the bot
// (1650), then three at 1600: erin (9 games) before alice and bob (4 each,
// by id). Dave has one game; frank plays connect4 only.
std::vector<StoreOp> ranked_ops() {
  std::vector<StoreOp> ops;
  auto rated = [&](const std::string& id, const std::string& name, double rating, int games,
                   bool bot = false) {
    ops.push_back(
        store_op::SavePlayer{bot ? testing::bot(id, name) : testing::person(id, name, "t-" + id)});
    ops.push_back(store_op::SaveRating{id, "gomoku", Rating{rating, 60.0 + games, 0.05}, games});
  };
  rated("p2", "bob", 1600, 4);
  rated("p1", "alice", 1600, 4);
  rated("p5", "erin", 1600, 9);
  rated("p4", "dave", 1800, 1);
  rated("p3", "carol", 1700, 5);
  rated("b1", "Gomoku bot", 1650, 7, true);
  ops.push_back(store_op::SavePlayer{testing::person("p6", "frank", "t-p6")});
  ops.push_back(store_op::SaveRating{"p6", "connect4", Rating{2000, 50, 0.05}, 10});
  return ops;
}

std::vector<std::string> ids_of(const LeaderboardPage& page) {
  std::vector<std::string> ids;
  for (const auto& e : page.entries)
    ids.push_back(e.player_id);
  return ids;
}

TYPED_TEST(PlayerReads, TheLeaderboardRanksByRatingThenGamesThenId) {
  this->write(ranked_ops());
  Store& store = this->store();
  auto all = store.leaderboard("gomoku", 2, 0, 10);
  EXPECT_EQ(all.total, 5u);
  ASSERT_EQ(ids_of(all), (std::vector<std::string>{"p3", "b1", "p5", "p1", "p2"}));
  const RankedPlayer& bot = all.entries[1];
  EXPECT_EQ(bot.name, "Gomoku bot");
  EXPECT_TRUE(bot.bot);
  EXPECT_DOUBLE_EQ(bot.rating.rating, 1650);
  EXPECT_DOUBLE_EQ(bot.rating.deviation, 67);
  EXPECT_DOUBLE_EQ(bot.rating.volatility, 0.05);
  EXPECT_EQ(bot.games, 7);
  EXPECT_EQ(all.entries[2].name, "erin");
  EXPECT_FALSE(all.entries[2].bot);
  EXPECT_EQ(all.entries[2].games, 9);
  EXPECT_EQ(all.entries[4].name, "bob");
  EXPECT_EQ(all.entries[4].games, 4);

  // Without a minimum, dave's one game counts, and his rating leads.
  auto any = store.leaderboard("gomoku", 0, 0, 10);
  EXPECT_EQ(any.total, 6u);
  EXPECT_EQ(ids_of(any), (std::vector<std::string>{"p4", "p3", "b1", "p5", "p1", "p2"}));
  // A minimum above everyone's count.
  auto none = store.leaderboard("gomoku", 10, 0, 10);
  EXPECT_EQ(none.total, 0u);
  EXPECT_TRUE(none.entries.empty());
  EXPECT_EQ(ids_of(store.leaderboard("gomoku", 5, 0, 10)),
            (std::vector<std::string>{"p3", "b1", "p5"}));

  // Pages from rank offset + 1; total counts them all on every page.
  auto page = store.leaderboard("gomoku", 2, 1, 2);
  EXPECT_EQ(page.total, 5u);
  EXPECT_EQ(ids_of(page), (std::vector<std::string>{"b1", "p5"}));
  page = store.leaderboard("gomoku", 2, 3, 2);
  EXPECT_EQ(ids_of(page), (std::vector<std::string>{"p1", "p2"}));
  page = store.leaderboard("gomoku", 2, 4, 100);
  EXPECT_EQ(ids_of(page), (std::vector<std::string>{"p2"}));
  page = store.leaderboard("gomoku", 2, 5, 2);
  EXPECT_EQ(page.total, 5u);
  EXPECT_TRUE(page.entries.empty());
  page = store.leaderboard("gomoku", 2, 0, 0);
  EXPECT_EQ(page.total, 5u);
  EXPECT_TRUE(page.entries.empty());
  page = store.leaderboard("gomoku", 2, 2, SIZE_MAX);
  EXPECT_EQ(ids_of(page), (std::vector<std::string>{"p5", "p1", "p2"}));
  page = store.leaderboard("gomoku", 2, SIZE_MAX, SIZE_MAX);
  EXPECT_EQ(page.total, 5u);
  EXPECT_TRUE(page.entries.empty());

  // Each variant its own.
  auto connect4 = store.leaderboard("connect4", 2, 0, 10);
  EXPECT_EQ(connect4.total, 1u);
  ASSERT_EQ(ids_of(connect4), (std::vector<std::string>{"p6"}));
  EXPECT_EQ(connect4.entries[0].name, "frank");
  EXPECT_EQ(connect4.entries[0].games, 10);
  EXPECT_DOUBLE_EQ(connect4.entries[0].rating.rating, 2000);
  auto nothing = store.leaderboard("tictactoe", 0, 0, 10);
  EXPECT_EQ(nothing.total, 0u);
  EXPECT_TRUE(nothing.entries.empty());

  // A new game moves a player: bob's fifth puts him before alice.
  this->write({store_op::SaveRating{"p2", "gomoku", Rating{1600, 64, 0.05}, 5}});
  EXPECT_EQ(ids_of(store.leaderboard("gomoku", 2, 3, 2)), (std::vector<std::string>{"p2", "p1"}));
}

// A schema-5 store, by hand: Alice and Bob played rated tictactoe twice and
// rated connect4 once; a live, an aborted and an unrated connect4 game do
// not count; a bot played itself (both seats count, as the rating book
// counted them); a gomoku game counts for nobody without a gomoku rating.
constexpr const char* kSchema5Rows = R"sql(
  INSERT INTO players VALUES ('pa', 'Alice', 't-a', 0), ('pb', 'Bob', 't-b', 0),
    ('pc', 'Carol', 't-c', 0), ('bot', 'Bot', '', 1);
  INSERT INTO ratings VALUES ('pa', 'tictactoe', 1600, 80, 0.06), ('pa', 'connect4', 1550, 90, 0.06),
    ('pb', 'tictactoe', 1400, 80, 0.06), ('pb', 'connect4', 1450, 90, 0.06),
    ('bot', 'tictactoe', 1700, 50, 0.06), ('pc', 'connect4', 1500, 350, 0.06);
  INSERT INTO matches (id, variant, kind, rated, initial_ms, increment_ms, first_id, second_id,
                       first_level, second_level, result, reason, created_ms, ended_ms)
    VALUES ('m1', 'tictactoe', 1, 1, 0, 0, 'pa', 'pb', '', '', 1, 1, 1, 10),
           ('m2', 'tictactoe', 1, 1, 0, 0, 'pb', 'pa', '', '', 3, 1, 2, 20),
           ('m3', 'connect4', 1, 1, 0, 0, 'pa', 'pb', '', '', 2, 1, 3, 30),
           ('m4', 'connect4', 1, 1, 0, 0, 'pa', 'pb', '', '', 0, 0, 4, 0),
           ('m5', 'connect4', 1, 1, 0, 0, 'pa', 'pb', '', '', 4, 2, 5, 50),
           ('m6', 'connect4', 1, 0, 0, 0, 'pa', 'pb', '', '', 1, 1, 6, 60),
           ('m7', 'tictactoe', 2, 1, 0, 0, 'bot', 'bot', 'easy', 'easy', 1, 1, 7, 70),
           ('m8', 'gomoku', 1, 1, 0, 0, 'pa', 'pb', '', '', 1, 1, 8, 80);
  INSERT INTO accounts VALUES ('pa', 'alice', '$argon2id$a', 100);
  INSERT INTO devices VALUES ('d-2', 'pa', 200);
  PRAGMA user_version=5;
)sql";

TEST(PlayerReadsMigration, ASchemaFiveStoreCountsEachRatingsGames) {
  const auto path = temp_db("inarow-player-reads-migrate5");
  run_sql(path, std::string(testing::kSchema4Tables) + testing::kSchema5Additions + kSchema5Rows);
  {
    auto store = open_sqlite_store(path.string());
    ASSERT_TRUE(store) << store.error();
    auto alice = (*store)->find_player_by_token("d-2");
    ASSERT_TRUE(alice);
    EXPECT_EQ(alice->id, "pa");
    EXPECT_EQ(alice->games, (std::map<std::string, int>{{"connect4", 1}, {"tictactoe", 2}}));
    EXPECT_EQ(alice->name_key, "alice");
    EXPECT_EQ((*store)->find_player("bot")->games, (std::map<std::string, int>{{"tictactoe", 2}}));
    EXPECT_TRUE((*store)->find_player("pc")->games.empty());  // rated, but never played
    auto board = (*store)->leaderboard("tictactoe", 2, 0, 10);
    EXPECT_EQ(board.total, 3u);
    EXPECT_EQ(ids_of(board), (std::vector<std::string>{"bot", "pa", "pb"}));
    EXPECT_EQ((*store)->leaderboard("connect4", 1, 0, 10).total, 2u);
    // A game from now on counts as the rating book says.
    ASSERT_TRUE((*store)->write(
        std::vector<StoreOp>{store_op::SaveRating{"pa", "tictactoe", Rating{1610, 78, 0.06}, 3}}));
  }
  EXPECT_EQ(query_text(path, "PRAGMA user_version"), "6");
  EXPECT_EQ(query_rows(path, "SELECT player_id, variant, games FROM ratings ORDER BY 1, 2"),
            "bot|tictactoe|2\n"
            "pa|connect4|1\n"
            "pa|tictactoe|3\n"
            "pb|connect4|1\n"
            "pb|tictactoe|2\n"
            "pc|connect4|0\n");
  EXPECT_EQ(query_rows(path,
                       "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN "
                       "('players_by_token', 'ratings_by_rank', 'devices_by_player') ORDER BY 1"),
            "devices_by_player\nplayers_by_token\nratings_by_rank\n");
  // Opened again: not migrated twice (the count SaveRating wrote stays).
  auto again = open_sqlite_store(path.string());
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ((*again)->find_player("pa")->games.at("tictactoe"), 3);
}

// From further back: a schema-2 store (ratings, matches without records)
// migrates through every step and its ratings count their games too.
TEST(PlayerReadsMigration, ASchemaTwoStoreCountsEachRatingsGames) {
  const auto path = temp_db("inarow-player-reads-migrate2");
  run_sql(path, std::string(testing::kSchema2Tables) + R"sql(
    INSERT INTO players VALUES ('pa', 'Alice', 't-a', 0), ('pb', 'Bob', 't-b', 0);
    INSERT INTO ratings VALUES ('pa', 'tictactoe', 1600, 80, 0.06), ('pb', 'tictactoe', 1400, 80, 0.06);
    INSERT INTO matches VALUES ('m1', 'tictactoe', 1, 1, 0, 0, 'pa', 'pb', '', '', 2, 1, 1, 3, 1);
    INSERT INTO matches VALUES ('m2', 'tictactoe', 1, 1, 0, 0, 'pb', 'pa', '', '', 1, 1, 2, 4, 1);
    INSERT INTO matches VALUES ('m3', 'tictactoe', 1, 1, 0, 0, 'pa', 'pb', '', '', 0, 0, 3, 0, 2);
    PRAGMA user_version=2;
  )sql");
  {
    auto store = open_sqlite_store(path.string());
    ASSERT_TRUE(store) << store.error();
    EXPECT_EQ((*store)->find_player("pa")->games, (std::map<std::string, int>{{"tictactoe", 2}}));
    EXPECT_EQ((*store)->find_player_by_token("t-b")->games,
              (std::map<std::string, int>{{"tictactoe", 2}}));
  }
  EXPECT_EQ(query_text(path, "PRAGMA user_version"), "6");
}

}  // namespace
}  // namespace inarow::server
