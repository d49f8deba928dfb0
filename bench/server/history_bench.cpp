// history_bench: what one page of a player's game history costs in the
// SQLite store, on the first page and deep in the history, against the two
// ways it could have been done without schema 5's indexes: a scan of every
// match (schema 4 had no index by player) and OFFSET paging.
//
//   history_bench [games] [players]     (default 200000 games, 2000 players)
//
// With --players, what schema 6's reads of one player cost instead (by id,
// by token, by a device's token, by account name) and a page of the
// leaderboard, at the top and deep in it, against reading every player
// whole as the server did at start before schema 6:
//
//   history_bench --players [players]   (default 200000 players)
//
// Prints microseconds per page (median of the runs). Builds its store in
// the temporary directory and removes it.
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "inarow/server/sqlite_store.h"

using namespace inarow::server;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

template <class F>
double time_us(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// Steps a prepared statement to its end and finalizes it: its rows.
int step_all(sqlite3_stmt* q) {
  int n = 0;
  while (sqlite3_step(q) == SQLITE_ROW)
    ++n;
  sqlite3_finalize(q);
  return n;
}

// Rows of one page by raw SQL (the alternatives to the store's own query).
int page_rows(sqlite3* db, const char* sql, const std::string& player, int offset) {
  sqlite3_stmt* q = nullptr;
  sqlite3_prepare_v2(db, sql, -1, &q, nullptr);
  sqlite3_bind_text(q, 1, player.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(q, 2, offset);
  return step_all(q);
}

// Rows of `sql` (no binds), stepped to the end.
int all_rows(sqlite3* db, const char* sql) {
  sqlite3_stmt* q = nullptr;
  sqlite3_prepare_v2(db, sql, -1, &q, nullptr);
  return step_all(q);
}

// A store file of the bench's own in the temporary directory, none there yet.
std::filesystem::path fresh_path(const char* name) {
  const auto path = std::filesystem::temp_directory_path() /
                    (std::string(name) + "-" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(path);
  return path;
}

// The store, filled without waiting for the disk (null, said why, if it
// does not open).
std::unique_ptr<Store> open_to_fill(const std::filesystem::path& path) {
  auto store = open_sqlite_store(path.string(), SqliteOptions{.full_sync = false});
  if (!store) {
    std::fprintf(stderr, "%s\n", store.error().c_str());
    return nullptr;
  }
  return std::move(*store);
}

void remove_store(const std::filesystem::path& path) {
  for (const char* suffix : {"", "-wal", "-shm"})
    std::filesystem::remove(path.string() + suffix);
}

// --players: every player rated in one variant; every other one an account
// with a second device.
int players_bench(int players) {
  const auto path = fresh_path("inarow-players-bench");
  std::mt19937_64 rng(17);
  {
    auto store = open_to_fill(path);
    if (!store) return 1;
    std::vector<StoreOp> ops;
    for (int p = 0; p < players; ++p) {
      const std::string n = std::to_string(p);
      PlayerRecord r;
      r.id = "p" + n;
      r.name = "player " + n;
      r.token_hash = "t" + n;
      ops.push_back(store_op::SavePlayer{r});
      ops.push_back(store_op::SaveRating{
          r.id, "gomoku", Rating{1000.0 + static_cast<double>(rng() % 1000), 60, 0.06},
          static_cast<int>(rng() % 50)});
      if (p % 2 == 0) {
        ops.push_back(store_op::SaveAccount{r.id, "player" + n, "$argon2id$", p});
        ops.push_back(store_op::AddDevice{r.id, "d" + n, p});
      }
      if (ops.size() >= 5000) {
        (void)store->write(ops);
        ops.clear();
      }
    }
    (void)store->write(ops);
  }
  auto store = open_sqlite_store(path.string());
  if (!store) return 1;
  Store& s = **store;
  std::uniform_int_distribution<int> pick(0, players / 2 - 1);
  std::vector<double> by_id, by_token, by_device, by_name, count, top, deep;
  for (int i = 0; i < 2000; ++i) {
    const std::string n = std::to_string(2 * pick(rng));
    by_id.push_back(time_us([&] { (void)s.find_player("p" + n); }));
    by_token.push_back(time_us([&] { (void)s.find_player_by_token("t" + n); }));
    by_device.push_back(time_us([&] { (void)s.find_player_by_token("d" + n); }));
    by_name.push_back(time_us([&] { (void)s.find_account("player" + n); }));
  }
  for (int i = 0; i < 20; ++i) {
    count.push_back(time_us([&] { (void)s.leaderboard("gomoku", 10, 0, 0); }));
    top.push_back(time_us([&] { (void)s.leaderboard("gomoku", 10, 0, 50); }));
    deep.push_back(time_us([&] { (void)s.leaderboard("gomoku", 10, players / 2, 50); }));
  }
  // What the server read at start before schema 6 (load_players, less the
  // count of games from the matches, which this store has none of).
  sqlite3* raw = nullptr;
  sqlite3_open_v2(path.string().c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  const double all_us = time_us([&] {
    for (const char* table :
         {"SELECT id, name, token_hash, bot FROM players",
          "SELECT player_id, variant, rating, deviation, volatility FROM ratings",
          "SELECT player_id, name_key, password_hash, created_ms FROM accounts",
          "SELECT player_id, token_hash FROM devices ORDER BY created_ms"})
      all_rows(raw, table);
  });
  sqlite3_close(raw);
  std::printf("players=%d (half of them accounts with a second device)\n", players);
  std::printf("find_player (id):             %8.1f us\n", median(by_id));
  std::printf("find_player_by_token (first): %8.1f us\n", median(by_token));
  std::printf("find_player_by_token (device):%8.1f us\n", median(by_device));
  std::printf("find_account (name key):      %8.1f us\n", median(by_name));
  std::printf("leaderboard, its total only:  %8.1f us\n", median(count));
  std::printf("leaderboard, top 50:          %8.1f us\n", median(top));
  std::printf("leaderboard, 50 at rank %d:%*s%8.1f us\n", players / 2 + 1,
              std::max(0, 5 - static_cast<int>(std::to_string(players / 2 + 1).size())), "",
              median(deep));
  std::printf("every player whole (before):  %8.1f us\n", all_us);
  store->reset();
  remove_store(path);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--players") {
    return players_bench(argc > 2 ? std::atoi(argv[2]) : 200'000);
  }
  const int games = argc > 1 ? std::atoi(argv[1]) : 200'000;
  const int players = argc > 2 ? std::atoi(argv[2]) : 2'000;
  const auto path = fresh_path("inarow-history-bench");
  std::mt19937_64 rng(17);
  {
    auto store = open_to_fill(path);
    if (!store) return 1;
    std::vector<StoreOp> ops;
    for (int p = 0; p < players; ++p) {
      ops.push_back(store_op::SavePlayer{
          PlayerRecord{"p" + std::to_string(p), "player " + std::to_string(p), "h", false, {}}});
    }
    (void)store->write(ops);
    ops.clear();
    std::uniform_int_distribution<int> pick(0, players - 1);
    for (int g = 0; g < games; ++g) {
      MatchRecord m;
      char id[32];
      std::snprintf(id, sizeof id, "m%011x%04x", 1'700'000'000 + g, g & 0xffff);
      m.id = id;
      m.variant = "gomoku";
      m.kind = 1;
      m.rated = true;
      const int a = pick(rng);
      int b = pick(rng);
      if (b == a) b = (a + 1) % players;
      m.first_id = "p" + std::to_string(a);
      m.second_id = "p" + std::to_string(b);
      m.created_ms = 1'700'000'000'000 + g * 1000LL;
      ops.push_back(store_op::CreateMatch{m});
      store_op::FinishMatch f{m.id, 1 + g % 3, 1, m.created_ms + 500, {}};
      for (int ply = 1; ply <= 30; ++ply)
        f.moves.push_back(MoveRecord{ply, "h8", 60'000, 60'000});
      f.ratings = std::array<RatingDelta, 2>{};
      ops.push_back(std::move(f));
      if (ops.size() >= 2000) {
        (void)store->write(ops);
        ops.clear();
      }
    }
    (void)store->write(ops);
  }
  auto store = open_sqlite_store(path.string());
  if (!store) return 1;
  sqlite3* raw = nullptr;
  sqlite3_open_v2(path.string().c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);

  const std::string busy = "p0";
  std::vector<double> first, deep, scan, offset_deep;
  // Every page of one player (about 2 * games / players games): the first
  // page and the last pages.
  std::optional<GameCursor> cursor;
  int pages = 0;
  for (;;) {
    std::optional<std::vector<MatchRecord>> page;
    const double us = time_us([&] { page = (*store)->list_games(busy, busy, cursor, 20); });
    if (!page || page->empty()) break;
    (pages == 0 ? first : deep).push_back(us);
    cursor = GameCursor{page->back().ended_ms, page->back().id};
    ++pages;
  }
  for (int i = 0; i < 20; ++i)
    first.push_back(time_us([&] { (void)(*store)->list_games(busy, busy, std::nullopt, 20); }));
  // The same deep page by OFFSET over the indexes, and the first page by a
  // scan of every match (no index by player, as in schema 4).
  const int deep_offset = std::max(0, (pages - 1) * 20);
  const char* by_offset =
      "SELECT id FROM (SELECT id, ended_ms FROM matches WHERE first_id = ?1 AND result != 0 "
      "UNION ALL SELECT id, ended_ms FROM matches WHERE second_id = ?1 AND result != 0) "
      "ORDER BY ended_ms DESC, id DESC LIMIT 20 OFFSET ?2";
  const char* by_scan =
      "SELECT id FROM matches NOT INDEXED WHERE (first_id = ?1 OR second_id = ?1) AND "
      "result != 0 ORDER BY ended_ms DESC, id DESC LIMIT 20 OFFSET ?2";
  for (int i = 0; i < 10; ++i) {
    offset_deep.push_back(time_us([&] { page_rows(raw, by_offset, busy, deep_offset); }));
    scan.push_back(time_us([&] { page_rows(raw, by_scan, busy, 0); }));
  }
  std::printf("games=%d players=%d pages_of_one_player=%d (20 a page)\n", games, players, pages);
  std::printf("cursor, first page:           %8.1f us\n", median(first));
  std::printf("cursor, later pages:          %8.1f us (median of %zu)\n", median(deep),
              deep.size());
  std::printf("offset, last page:            %8.1f us\n", median(offset_deep));
  std::printf("no player index (a scan):     %8.1f us\n", median(scan));
  sqlite3_close(raw);
  store->reset();
  remove_store(path);
  return 0;
}
