// Players read when they are needed, from a store made by an older schema:
// a schema-5 or schema-2 SQLite store migrates to schema 7 with each
// rating's games counted from its finished matches. What every store must
// answer (the reads by id, token and name key, the leaderboard) is in
// conformance_test.cpp.
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

using testing::ids_of;
using testing::TempDb;

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
  const TempDb temp("inarow-player-reads-migrate5");
  const auto& path = temp.path();
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
  EXPECT_EQ(query_text(path, "PRAGMA user_version"), "7");
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
  const TempDb temp("inarow-player-reads-migrate2");
  const auto& path = temp.path();
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
  EXPECT_EQ(query_text(path, "PRAGMA user_version"), "7");
}

}  // namespace
}  // namespace inarow::server
