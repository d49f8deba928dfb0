// The SQLite store's tables: schema 7, and the migrations from the schemas
// before it. open_sqlite_store runs them in one transaction.
#pragma once

#include <string>

namespace inarow::server::sqlite {

// Schema 3. Every write lands at a table's right edge or on a page a
// commit dirties anyway: the log is appended by rowid; a match row (its id
// begins with its creation time) is written when it is created and once more
// when it ends, and that second write carries the game's record (its moves,
// one line each) instead of a row per move in another table, which scattered
// over as many pages as there were live matches. The live-match index holds
// live matches only. A group commit therefore writes a few pages, not
// several per finished game. (Schema 2 kept the record in `moves`; finished
// matches from then are still read from there.)
//
// Schema 4 adds the times a restore charges the player to move by: each log
// row's wall time (`at_ms`, when its clocks were taken), the last heartbeat
// (`alive`, one row) and, per match restored, the time its last event's
// clocks hold from after the downtime (`clock_from`). Schema-3 rows get
// at_ms 0, "not known": a match whose last event has no time is charged
// nothing, as before.
//
// Schema 5 is for the game history: a finished rated game's rating changes
// (each side's rating and deviation before and after; NULL when unrated) in
// its match row, which the game's end writes anyway, and an index per seat
// over finished matches by (player, ended_ms, id), so that a player's games
// are listed newest first a page at a time from a cursor (keyset paging).
//
// Schema 6 is for players read when they are needed rather than all at
// start: each rating row counts its player's rated games in the variant
// (`games`, which SaveRating writes; a migration counts the finished
// matches once), so that neither a player nor the leaderboard scans the
// matches. Indexes find a player by token (players.token_hash, partial: a
// bot's and a revoked token are ''), a player's devices, and a variant's
// ratings best first (the leaderboard, a page at a time).
//
// Schema 7 is for nodes sharing a database: each match row keeps the
// fencing generation of the node that owns it (`generation`, which
// CreateMatch writes and TakeOver raises; store.h), against which a write
// that carries one is checked. The matches from before get 0, a single
// node's: never checked.
constexpr int kSchemaVersion = 7;

// What brings a store of the given shape to schema 7: the migrations it
// needs, then the tables and indexes (IF NOT EXISTS), then the version.
// `has_log_without_time`: a schema-2 or -3 log (no at_ms column).
// `has_matches_without_ratings`: a schema-3 or -4 matches table.
// `has_ratings_without_games`: a ratings table from schema 5 or before.
// `has_matches_without_generation`: a matches table from schema 6 or before.
std::string setup_script(bool has_schema1_events, bool has_schema2_matches,
                         bool has_log_without_time, bool has_matches_without_ratings,
                         bool has_ratings_without_games, bool has_matches_without_generation);

}  // namespace inarow::server::sqlite
