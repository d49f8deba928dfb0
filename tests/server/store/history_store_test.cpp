// The game history in the stores: a player's finished games newest first,
// paged by a (ended_ms, id) cursor, with each rated game's rating changes
// and the players' names; a schema-4 store migrated (to schema 7). Both
// stores are held to the same answers.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "inarow/server/memory_store.h"
#include "inarow/server/sqlite_store.h"
#include "old_schemas.h"
#include "records.h"
#include "stores.h"

namespace inarow::server {
namespace {

using testing::ids_of;
using testing::page_through;
using testing::query_rows;
using testing::run_sql;
using testing::TempDb;

MatchRecord game(const std::string& id, const std::string& first, const std::string& second,
                 std::int64_t created_ms) {
  MatchRecord m;
  m.id = id;
  m.variant = "tictactoe";
  m.kind = 1;
  m.rated = true;
  m.first_id = first;
  m.second_id = second;
  m.created_ms = created_ms;
  return m;
}

store_op::FinishMatch finish(const std::string& id, std::int64_t ended_ms, int plies) {
  store_op::FinishMatch f{id, 1, 1, ended_ms, {}};
  const char* cells[] = {"a1", "b1", "a2", "b2", "a3"};
  for (int p = 1; p <= plies; ++p)
    f.moves.push_back(MoveRecord{p, cells[p - 1], 1000 - p, 2000 - p});
  return f;
}

// Alice and Bob (and a bot): six finished games with end times out of
// creation order, two of them ending at the same millisecond, one live
// game, and one game Alice has no part in.
std::vector<StoreOp> history_ops() {
  std::vector<StoreOp> ops = {
      store_op::SavePlayer{testing::person("pa", "alice", "h-a")},
      store_op::SavePlayer{testing::person("pb", "bob", "h-b")},
      store_op::SavePlayer{testing::bot("bot-easy", "Easy bot")},
      store_op::SavePlayer{testing::person("pc", "carol", "h-c")},
  };
  const char* ids[] = {"g1", "g2", "g3", "g4", "g5", "g6"};
  const std::int64_t ended[] = {5000, 3000, 7000, 7000, 1000, 9000};
  for (int i = 0; i < 6; ++i) {
    const bool alice_first = i % 2 == 0;
    const std::string other = i == 3 ? "bot-easy" : "pb";
    ops.push_back(store_op::CreateMatch{
        game(ids[i], alice_first ? "pa" : other, alice_first ? other : "pa", 100 + i)});
  }
  ops.push_back(store_op::CreateMatch{game("live", "pa", "pb", 200)});
  ops.push_back(store_op::CreateMatch{game("other", "pb", "pc", 300)});
  for (int i = 0; i < 6; ++i) {
    auto f = finish(ids[i], ended[i], i % 5 + 1);
    if (i == 0) {  // rated, with its changes
      f.ratings = std::array<RatingDelta, 2>{
          RatingDelta{Rating{1500, 350, 0.06}, Rating{1662.3125, 290.5, 0.06}},
          RatingDelta{Rating{1500, 350, 0.06}, Rating{1337.6875, 290.5, 0.06}}};
    }
    ops.push_back(f);
  }
  ops.push_back(finish("other", 8000, 2));
  return ops;
}

// What both stores must answer after history_ops.
void expect_history(Store& store) {
  auto all = store.list_games("pa", "pa", std::nullopt, 10);
  ASSERT_TRUE(all);
  // Newest first by end time; g3 and g4 end together: the greater id first.
  EXPECT_EQ(ids_of(*all), (std::vector<std::string>{"g6", "g4", "g3", "g1", "g2", "g5"}));
  EXPECT_EQ((*all)[0].plies, 1);  // g6: i = 5, 5 % 5 + 1
  EXPECT_EQ((*all)[3].plies, 1);  // g1
  EXPECT_EQ((*all)[2].plies, 3);  // g3
  EXPECT_TRUE((*all)[0].moves.empty());
  EXPECT_EQ((*all)[1].first_name, "Easy bot");  // g4: Alice second against the bot
  EXPECT_TRUE((*all)[1].first_bot);
  EXPECT_EQ((*all)[1].second_name, "alice");
  EXPECT_FALSE((*all)[1].second_bot);
  EXPECT_EQ((*all)[3].ended_ms, 5000);

  // g1's rating changes; the others have none.
  ASSERT_TRUE((*all)[3].ratings);
  EXPECT_DOUBLE_EQ((*(*all)[3].ratings)[0].before.rating, 1500);
  EXPECT_DOUBLE_EQ((*(*all)[3].ratings)[0].after.rating, 1662.3125);
  EXPECT_DOUBLE_EQ((*(*all)[3].ratings)[0].after.deviation, 290.5);
  EXPECT_DOUBLE_EQ((*(*all)[3].ratings)[1].after.rating, 1337.6875);
  EXPECT_FALSE((*all)[0].ratings);

  // Pages of two, each from the last one's cursor, give the same order.
  std::vector<std::string> paged;
  std::optional<GameCursor> cursor;
  int pages = 0;
  for (;;) {
    auto page = store.list_games("pa", "pa", cursor, 2);
    ASSERT_TRUE(page);
    if (page->empty()) break;
    ++pages;
    for (const auto& g : *page)
      paged.push_back(g.id);
    cursor = GameCursor{page->back().ended_ms, page->back().id};
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(paged, ids_of(*all));
  // A cursor between the two games that ended together.
  auto after_g4 = store.list_games("pa", "pa", GameCursor{7000, "g4"}, 2);
  ASSERT_TRUE(after_g4);
  EXPECT_EQ(ids_of(*after_g4), (std::vector<std::string>{"g3", "g1"}));

  // Bob's games include the one without Alice; Carol has one.
  auto bob = store.list_games("pb", "pb", std::nullopt, 3);
  ASSERT_TRUE(bob);
  EXPECT_EQ(ids_of(*bob), (std::vector<std::string>{"g6", "other", "g3"}));
  auto carol = store.list_games("pc", "pc", std::nullopt, 10);
  ASSERT_TRUE(carol);
  EXPECT_EQ(ids_of(*carol), (std::vector<std::string>{"other"}));
  EXPECT_FALSE(store.list_games("nobody", "nobody", std::nullopt, 10));

  // The whole record of one game, with names and ratings.
  auto g1 = store.load_match("g1");
  ASSERT_TRUE(g1);
  EXPECT_EQ(g1->moves.size(), 1u);
  EXPECT_EQ(g1->first_name, "alice");
  EXPECT_EQ(g1->second_name, "bob");
  ASSERT_TRUE(g1->ratings);
  EXPECT_DOUBLE_EQ((*g1->ratings)[1].before.deviation, 350);
}

TEST(HistoryStore, SqliteListsAPlayersGamesNewestFirstByCursor) {
  const TempDb temp("inarow-history-store");
  const auto& path = temp.path();
  {
    auto store = open_sqlite_store(path.string());
    ASSERT_TRUE(store) << store.error();
    auto ops = history_ops();
    ASSERT_TRUE((*store)->write(ops));
    expect_history(**store);
  }
  // Reopened: the same answers from the file.
  auto store = open_sqlite_store(path.string());
  ASSERT_TRUE(store) << store.error();
  expect_history(**store);
  // Each seat's page is read from its index, in order, without sorting.
  const std::string plan = query_rows(
      path,
      "EXPLAIN QUERY PLAN SELECT id FROM matches m WHERE m.first_id = 'pa' AND m.result != 0 "
      "AND (m.ended_ms, m.id) < (9000, 'g9') ORDER BY m.ended_ms DESC, m.id DESC LIMIT 2");
  EXPECT_NE(plan.find("matches_by_first"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << plan;
}

TEST(HistoryStore, MemoryStoreAnswersAsTheSqliteStoreDoes) {
  MemoryStore store;
  auto ops = history_ops();
  ASSERT_TRUE(store.write(ops));
  expect_history(store);
}

// Ten games of Alice's that all end in the same millisecond, every other
// one private (against Bob), the rest public (against Carol).
std::vector<StoreOp> same_millisecond_ops() {
  std::vector<StoreOp> ops = {
      store_op::SavePlayer{testing::person("pa", "alice", "h-a")},
      store_op::SavePlayer{testing::person("pb", "bob", "h-b")},
      store_op::SavePlayer{testing::person("pc", "carol", "h-c")},
      store_op::SavePlayer{testing::person("pd", "dave", "h-d")},
  };
  for (int i = 0; i < 10; ++i) {
    const std::string id = "s" + std::to_string(i);
    MatchRecord m = game(id, "pa", i % 2 == 0 ? "pb" : "pc", 100 + i);
    if (i % 2 == 0) m.kind = kPrivateMatchKind;
    ops.push_back(store_op::CreateMatch{m});
    ops.push_back(finish(id, 4000, 1));
  }
  return ops;
}

// A private game is listed only to its two players; a page of what another
// viewer may see is full, and its cursor goes on where it stopped, also
// between games that ended in the same millisecond.
void expect_private_games_for_their_players(Store& store) {
  const std::vector<std::string> all = {"s9", "s8", "s7", "s6", "s5", "s4", "s3", "s2", "s1", "s0"};
  const std::vector<std::string> open = {"s9", "s7", "s5", "s3", "s1"};
  for (std::size_t limit : {1u, 2u, 3u, 10u}) {
    EXPECT_EQ(page_through(store, "pa", "pa", limit), all) << limit;
    EXPECT_EQ(page_through(store, "pa", "pb", limit), all) << limit;  // Bob played the private ones
    EXPECT_EQ(page_through(store, "pa", "pc", limit), open) << limit;
    EXPECT_EQ(page_through(store, "pa", "pd", limit), open) << limit;
    EXPECT_EQ(page_through(store, "pa", "", limit), open) << limit;  // nobody
  }
  auto first = store.list_games("pa", "pd", std::nullopt, 2);
  ASSERT_TRUE(first);
  EXPECT_EQ(ids_of(*first), (std::vector<std::string>{"s9", "s7"}));
  // Bob's games are all private: Dave sees none, and Bob is still a player.
  auto bobs = store.list_games("pb", "pd", std::nullopt, 5);
  ASSERT_TRUE(bobs);
  EXPECT_TRUE(bobs->empty());
  EXPECT_EQ(page_through(store, "pb", "pb", 2),
            (std::vector<std::string>{"s8", "s6", "s4", "s2", "s0"}));
  EXPECT_EQ(page_through(store, "pb", "pa", 2),
            (std::vector<std::string>{"s8", "s6", "s4", "s2", "s0"}));
}

TEST(HistoryStore, PrivateGamesAreListedToTheirPlayersOnlyInFullPages) {
  const TempDb temp("inarow-history-private");
  const auto& path = temp.path();
  {
    auto store = open_sqlite_store(path.string());
    ASSERT_TRUE(store) << store.error();
    auto ops = same_millisecond_ops();
    ASSERT_TRUE((*store)->write(ops));
    expect_private_games_for_their_players(**store);
  }
  MemoryStore memory;
  auto ops = same_millisecond_ops();
  ASSERT_TRUE(memory.write(ops));
  expect_private_games_for_their_players(memory);
  // The viewer's rule does not cost the index: each seat's page is still
  // read from it, in order, without sorting.
  for (const char* seat : {"first", "second"}) {
    const std::string plan = query_rows(
        path, (std::string("EXPLAIN QUERY PLAN SELECT id FROM matches m WHERE m.") + seat +
               "_id = ?1 AND m.result != 0 AND (m.ended_ms, m.id) < (?2, ?3) AND "
               "(m.kind != ?5 OR (?6 != '' AND ?6 IN (m.first_id, m.second_id))) "
               "ORDER BY m.ended_ms DESC, m.id DESC LIMIT ?4")
                  .c_str());
    EXPECT_NE(plan.find(std::string("matches_by_") + seat), std::string::npos) << plan;
    EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << plan;
  }
}

// A bot that played itself sits on both seats: its game is listed once.
TEST(HistoryStore, ABotAgainstItselfIsListedOnce) {
  auto sqlite = open_sqlite_store(":memory:");
  ASSERT_TRUE(sqlite) << sqlite.error();
  MemoryStore memory;
  for (Store* store : {sqlite->get(), static_cast<Store*>(&memory)}) {
    std::vector<StoreOp> ops = {
        store_op::SavePlayer{testing::bot("bot-easy", "Easy bot")},
        store_op::CreateMatch{game("b1", "bot-easy", "bot-easy", 1)},
        finish("b1", 10, 2),
    };
    ASSERT_TRUE(store->write(ops));
    auto games = store->list_games("bot-easy", "bot-easy", std::nullopt, 5);
    ASSERT_TRUE(games);
    EXPECT_EQ(ids_of(*games), (std::vector<std::string>{"b1"}));
  }
}

// Players who changed sides in the opening are filed by the sides they
// finished with, in both stores; a game without a swap keeps its seats.
TEST(HistoryStore, AFinishedSwapFilesThePlayersByTheirNewSides) {
  auto sqlite = open_sqlite_store(":memory:");
  ASSERT_TRUE(sqlite) << sqlite.error();
  MemoryStore memory;
  for (Store* store : {sqlite->get(), static_cast<Store*>(&memory)}) {
    MatchRecord swapped = game("s1", "pa", "bot-easy", 1);
    swapped.second_level = "easy";
    store_op::FinishMatch end = finish("s1", 10, 4);
    end.swapped = true;
    std::vector<StoreOp> ops = {
        store_op::SavePlayer{testing::person("pa", "alice", "h-a")},
        store_op::SavePlayer{testing::bot("bot-easy", "Easy bot")},
        store_op::CreateMatch{swapped},
        store_op::CreateMatch{game("k1", "pa", "bot-easy", 2)},
        end,
        finish("k1", 20, 4),
    };
    ASSERT_TRUE(store->write(ops));
    const auto s1 = store->load_match("s1");
    ASSERT_TRUE(s1);
    EXPECT_EQ(s1->first_id, "bot-easy");
    EXPECT_EQ(s1->second_id, "pa");
    EXPECT_EQ(s1->first_level, "easy");
    EXPECT_EQ(s1->second_level, "");
    EXPECT_EQ(s1->first_name, "Easy bot");
    const auto k1 = store->load_match("k1");
    ASSERT_TRUE(k1);
    EXPECT_EQ(k1->first_id, "pa");
    EXPECT_EQ(k1->second_id, "bot-easy");
  }
}

// A store written by schema 4 opens at schema 7: its finished games list
// (without rating changes, which schema 4 did not keep), its live match
// still restores, and a game that ends now files its changes.
TEST(HistoryStore, MigratesASchemaFourStore) {
  const TempDb temp("inarow-history-migrate4");
  const auto& path = temp.path();
  run_sql(path, std::string(testing::kSchema4Tables) + R"sql(
    INSERT INTO players VALUES ('pa', 'alice', 'h', 0), ('pb', 'bob', 'h', 0);
    INSERT INTO matches VALUES ('m1', 'tictactoe', 1, 1, 0, 0, 'pa', 'pb', '', '', 1, 1, 1, 50, 1,
                                '1 b2 0 0' || char(10) || '2 a1 0 0' || char(10));
    INSERT INTO matches VALUES ('m2', 'tictactoe', 1, 1, 0, 0, 'pb', 'pa', '', '', 0, 0, 2, 0, 1,
                                NULL);
    INSERT INTO log (id, match_id, seq, blob, at_ms) VALUES (1, 'm2', 1, 'start', 77);
    PRAGMA user_version=4;
  )sql");
  {
    auto store = open_sqlite_store(path.string());
    ASSERT_TRUE(store) << store.error();
    auto live = (*store)->load_unfinished();
    ASSERT_EQ(live.size(), 1u);
    EXPECT_EQ(live[0].events, (std::vector<std::string>{"start"}));
    EXPECT_EQ(live[0].event_ms, (std::vector<std::int64_t>{77}));
    auto games = (*store)->list_games("pa", "pa", std::nullopt, 10);
    ASSERT_TRUE(games);
    ASSERT_EQ(ids_of(*games), (std::vector<std::string>{"m1"}));
    EXPECT_EQ((*games)[0].plies, 2);
    EXPECT_FALSE((*games)[0].ratings);
    auto f = finish("m2", 60, 3);
    f.ratings = std::array<RatingDelta, 2>{
        RatingDelta{Rating{1500, 200, 0.06}, Rating{1480.5, 190.25, 0.06}},
        RatingDelta{Rating{1600, 100, 0.06}, Rating{1601.5, 99.5, 0.06}}};
    ASSERT_TRUE((*store)->write(std::vector<StoreOp>{f}));
  }
  EXPECT_EQ(query_rows(path, "PRAGMA user_version"), "7\n");
  EXPECT_EQ(query_rows(path,
                       "SELECT id, first_rating_before, first_rd_before, first_rating_after, "
                       "first_rd_after, second_rating_before, second_rd_before, "
                       "second_rating_after, second_rd_after FROM matches ORDER BY id"),
            "m1|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL\n"
            "m2|1500.0|200.0|1480.5|190.25|1600.0|100.0|1601.5|99.5\n");
  EXPECT_EQ(query_rows(path,
                       "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE "
                       "'matches_by_%' ORDER BY name"),
            "matches_by_first\nmatches_by_second\n");
  // Opened again: not migrated twice.
  auto again = open_sqlite_store(path.string());
  ASSERT_TRUE(again) << again.error();
  auto games = (*again)->list_games("pa", "pa", std::nullopt, 10);
  ASSERT_TRUE(games);
  ASSERT_EQ(ids_of(*games), (std::vector<std::string>{"m2", "m1"}));
  ASSERT_TRUE((*games)[0].ratings);
  EXPECT_DOUBLE_EQ((*(*games)[0].ratings)[1].after.rating, 1601.5);
  EXPECT_EQ((*games)[0].first_name, "bob");
}

}  // namespace
}  // namespace inarow::server
