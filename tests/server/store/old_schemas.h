// The tables of earlier schemas, as those versions of the server made them,
// for the migration tests to fill with rows of their own and then open.
#pragma once

namespace inarow::server::testing {

// Schema 2: matches without their record column; a finished game's moves
// are rows of `moves`.
inline constexpr const char* kSchema2Tables = R"sql(
  CREATE TABLE players (id TEXT PRIMARY KEY, name TEXT NOT NULL, token_hash TEXT NOT NULL,
                        bot INTEGER NOT NULL);
  CREATE TABLE ratings (player_id TEXT NOT NULL, variant TEXT NOT NULL, rating REAL NOT NULL,
    deviation REAL NOT NULL, volatility REAL NOT NULL, PRIMARY KEY (player_id, variant))
    WITHOUT ROWID;
  CREATE TABLE matches (id TEXT PRIMARY KEY, variant TEXT NOT NULL, kind INTEGER NOT NULL,
    rated INTEGER NOT NULL, initial_ms INTEGER NOT NULL, increment_ms INTEGER NOT NULL,
    first_id TEXT NOT NULL, second_id TEXT NOT NULL, first_level TEXT NOT NULL,
    second_level TEXT NOT NULL, result INTEGER NOT NULL DEFAULT 0,
    reason INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL,
    ended_ms INTEGER NOT NULL DEFAULT 0, log_from INTEGER NOT NULL DEFAULT 0);
  CREATE INDEX matches_live ON matches (result, log_from);
  CREATE TABLE log (id INTEGER PRIMARY KEY, match_id TEXT NOT NULL, seq INTEGER NOT NULL,
                    blob BLOB NOT NULL);
  CREATE TABLE moves (match_id TEXT NOT NULL, ply INTEGER NOT NULL, move TEXT NOT NULL,
    first_ms INTEGER NOT NULL, second_ms INTEGER NOT NULL, PRIMARY KEY (match_id, ply))
    WITHOUT ROWID;
)sql";

// Schema 4: the record in the match row, the log's wall times, the alive
// beat and restored clocks; no rating changes per game yet.
inline constexpr const char* kSchema4Tables = R"sql(
  CREATE TABLE matches (
    id TEXT PRIMARY KEY, variant TEXT NOT NULL, kind INTEGER NOT NULL, rated INTEGER NOT NULL,
    initial_ms INTEGER NOT NULL, increment_ms INTEGER NOT NULL, first_id TEXT NOT NULL,
    second_id TEXT NOT NULL, first_level TEXT NOT NULL, second_level TEXT NOT NULL,
    result INTEGER NOT NULL DEFAULT 0, reason INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL, ended_ms INTEGER NOT NULL DEFAULT 0,
    log_from INTEGER NOT NULL DEFAULT 0, record TEXT) WITHOUT ROWID;
  CREATE TABLE players (id TEXT PRIMARY KEY, name TEXT NOT NULL, token_hash TEXT NOT NULL,
                        bot INTEGER NOT NULL);
  CREATE TABLE ratings (player_id TEXT NOT NULL, variant TEXT NOT NULL, rating REAL NOT NULL,
    deviation REAL NOT NULL, volatility REAL NOT NULL, PRIMARY KEY (player_id, variant))
    WITHOUT ROWID;
  CREATE INDEX matches_live ON matches (log_from) WHERE result = 0;
  CREATE TABLE log (id INTEGER PRIMARY KEY, match_id TEXT NOT NULL, seq INTEGER NOT NULL,
                    blob BLOB NOT NULL, at_ms INTEGER NOT NULL DEFAULT 0);
  CREATE TABLE alive (id INTEGER PRIMARY KEY CHECK (id = 1), at_ms INTEGER NOT NULL);
  CREATE TABLE clock_from (match_id TEXT PRIMARY KEY, seq INTEGER NOT NULL,
                           at_ms INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE moves (match_id TEXT NOT NULL, ply INTEGER NOT NULL, move TEXT NOT NULL,
    first_ms INTEGER NOT NULL, second_ms INTEGER NOT NULL, PRIMARY KEY (match_id, ply))
    WITHOUT ROWID;
)sql";

// Schema 5 adds to schema 4's tables: both sides' rating changes in the match
// row, the per-seat history indexes, accounts and devices.
inline constexpr const char* kSchema5Additions = R"sql(
  ALTER TABLE matches ADD COLUMN first_rating_before REAL;
  ALTER TABLE matches ADD COLUMN first_rd_before REAL;
  ALTER TABLE matches ADD COLUMN first_rating_after REAL;
  ALTER TABLE matches ADD COLUMN first_rd_after REAL;
  ALTER TABLE matches ADD COLUMN second_rating_before REAL;
  ALTER TABLE matches ADD COLUMN second_rd_before REAL;
  ALTER TABLE matches ADD COLUMN second_rating_after REAL;
  ALTER TABLE matches ADD COLUMN second_rd_after REAL;
  CREATE INDEX matches_by_first ON matches (first_id, ended_ms, id) WHERE result != 0;
  CREATE INDEX matches_by_second ON matches (second_id, ended_ms, id) WHERE result != 0;
  CREATE TABLE accounts (player_id TEXT PRIMARY KEY, name_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL, created_ms INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE devices (token_hash TEXT PRIMARY KEY, player_id TEXT NOT NULL,
    created_ms INTEGER NOT NULL) WITHOUT ROWID;
)sql";

// Schema 6 adds to schema 5's: each rating's games, and the indexes that
// find a player by token, a player's devices and a variant's best ratings.
inline constexpr const char* kSchema6Additions = R"sql(
  ALTER TABLE ratings ADD COLUMN games INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX players_by_token ON players (token_hash) WHERE token_hash != '';
  CREATE INDEX ratings_by_rank ON ratings (variant, rating DESC, games DESC, player_id);
  CREATE INDEX devices_by_player ON devices (player_id, created_ms);
)sql";

}  // namespace inarow::server::testing
