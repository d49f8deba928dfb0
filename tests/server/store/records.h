// Records for the store tests, and SQL on a store file through a
// connection of the test's own.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "inarow/server/store.h"

namespace inarow::server::testing {

// A person (no bot, no ratings, no account) with the given token hash.
inline PlayerRecord person(const std::string& id, const std::string& name,
                           const std::string& token_hash) {
  PlayerRecord p;
  p.id = id;
  p.name = name;
  p.token_hash = token_hash;
  return p;
}

// A bot: no token.
inline PlayerRecord bot(const std::string& id, const std::string& name) {
  PlayerRecord p;
  p.id = id;
  p.name = name;
  p.bot = true;
  return p;
}

// The ids of games, in order.
inline std::vector<std::string> ids_of(const std::vector<MatchRecord>& games) {
  std::vector<std::string> out;
  for (const auto& g : games)
    out.push_back(g.id);
  return out;
}

// The player ids of a leaderboard page, in rank order.
inline std::vector<std::string> ids_of(const LeaderboardPage& page) {
  std::vector<std::string> out;
  for (const auto& e : page.entries)
    out.push_back(e.player_id);
  return out;
}

// Runs `sql` on the store file through a connection of the test's own.
inline void run_sql(const std::filesystem::path& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.string().c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

inline void run_sql(const std::filesystem::path& path, const std::string& sql) {
  run_sql(path, sql.c_str());
}

// The first column of the first row of `sql`, as text ("" for none).
inline std::string query_text(const std::filesystem::path& path, const char* sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open(path.string().c_str(), &db) == SQLITE_OK) {
    sqlite3_stmt* q = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &q, nullptr) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0)) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(q, 0));
    }
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  return out;
}

// Every row of `sql`, its columns joined by '|', rows by '\n'.
inline std::string query_rows(const std::filesystem::path& path, const char* sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open(path.string().c_str(), &db) == SQLITE_OK) {
    sqlite3_stmt* q = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &q, nullptr) == SQLITE_OK) {
      while (sqlite3_step(q) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(q); ++c) {
          if (c) out += '|';
          const auto* t = sqlite3_column_text(q, c);
          out += t ? reinterpret_cast<const char*>(t) : "NULL";
        }
        out += '\n';
      }
    }
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  return out;
}

// Every page of `player`'s games as `viewer` sees them, `limit` a page:
// each page but the last full, then the ids in the order given.
inline std::vector<std::string> page_through(Store& store, const std::string& player,
                                             const std::string& viewer, std::size_t limit) {
  std::vector<std::string> ids;
  std::optional<GameCursor> cursor;
  for (int pages = 0; pages < 30; ++pages) {
    auto page = store.list_games(player, viewer, cursor, limit);
    EXPECT_TRUE(page);
    if (!page || page->empty()) break;
    EXPECT_LE(page->size(), limit);
    for (const auto& g : *page)
      ids.push_back(g.id);
    if (page->size() < limit) break;
    cursor = GameCursor{page->back().ended_ms, page->back().id};
  }
  return ids;
}

}  // namespace inarow::server::testing
