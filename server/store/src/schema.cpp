#include "schema.h"

namespace inarow::server::sqlite {

namespace {

// The matches table under its name in `name` (a migration builds it aside).
std::string matches_table(const char* name) {
  return std::string("CREATE TABLE IF NOT EXISTS ") + name + R"sql( (
  id TEXT PRIMARY KEY,
  variant TEXT NOT NULL,
  kind INTEGER NOT NULL,
  rated INTEGER NOT NULL,
  initial_ms INTEGER NOT NULL,
  increment_ms INTEGER NOT NULL,
  first_id TEXT NOT NULL,
  second_id TEXT NOT NULL,
  first_level TEXT NOT NULL,
  second_level TEXT NOT NULL,
  result INTEGER NOT NULL DEFAULT 0,
  reason INTEGER NOT NULL DEFAULT 0,
  created_ms INTEGER NOT NULL,
  ended_ms INTEGER NOT NULL DEFAULT 0,
  log_from INTEGER NOT NULL DEFAULT 0,
  generation INTEGER NOT NULL DEFAULT 0,
  record TEXT,
  first_rating_before REAL,
  first_rd_before REAL,
  first_rating_after REAL,
  first_rd_after REAL,
  second_rating_before REAL,
  second_rd_before REAL,
  second_rating_after REAL,
  second_rd_after REAL
) WITHOUT ROWID;
)sql";
}

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS players (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL,
  bot INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
  player_id TEXT NOT NULL,
  variant TEXT NOT NULL,
  rating REAL NOT NULL,
  deviation REAL NOT NULL,
  volatility REAL NOT NULL,
  games INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (player_id, variant)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS players_by_token ON players (token_hash) WHERE token_hash != '';
CREATE INDEX IF NOT EXISTS ratings_by_rank ON ratings (variant, rating DESC, games DESC, player_id);
CREATE INDEX IF NOT EXISTS matches_live ON matches (log_from) WHERE result = 0;
CREATE INDEX IF NOT EXISTS matches_by_first ON matches (first_id, ended_ms, id) WHERE result != 0;
CREATE INDEX IF NOT EXISTS matches_by_second ON matches (second_id, ended_ms, id)
  WHERE result != 0;
CREATE TABLE IF NOT EXISTS log (
  id INTEGER PRIMARY KEY,
  match_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  blob BLOB NOT NULL,
  at_ms INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS alive (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS clock_from (
  match_id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  at_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS moves (
  match_id TEXT NOT NULL,
  ply INTEGER NOT NULL,
  move TEXT NOT NULL,
  first_ms INTEGER NOT NULL,
  second_ms INTEGER NOT NULL,
  PRIMARY KEY (match_id, ply)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS accounts (
  player_id TEXT PRIMARY KEY,
  name_key TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS devices (
  token_hash TEXT PRIMARY KEY,
  player_id TEXT NOT NULL,
  created_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS devices_by_player ON devices (player_id, created_ms);
)sql";

}  // namespace

namespace {

// Schema 2 → 3: the matches move to the table above (the record column, no
// rowid), the live index becomes partial, and whatever `moves` still holds of
// live matches (schema 1 wrote moves as they were made) gives way to the
// record they will file when they end.
std::string migrate_from_2() {
  // Schema 2's columns (the record and what came later are not among them).
  const std::string columns =
      "id, variant, kind, rated, initial_ms, increment_ms, first_id, second_id, first_level, "
      "second_level, result, reason, created_ms, ended_ms, log_from";
  return matches_table("matches_v3") + "INSERT INTO matches_v3 (" + columns + ") SELECT " +
         columns + " FROM matches;\n" + R"sql(
DROP TABLE matches;
ALTER TABLE matches_v3 RENAME TO matches;
DELETE FROM moves WHERE match_id IN (SELECT id FROM matches WHERE result = 0);
)sql";
}

// Schema 1 (user_version 0) kept every event in a table keyed by match and
// every move as it was made. Its live matches' events move to the log; the
// moves of finished matches are already their records.
constexpr const char* kMigrateFrom1 = R"sql(
ALTER TABLE matches ADD COLUMN log_from INTEGER NOT NULL DEFAULT 0;
CREATE INDEX matches_live ON matches (result, log_from);
DROP INDEX IF EXISTS matches_by_result;
CREATE TABLE log (
  id INTEGER PRIMARY KEY,
  match_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  blob BLOB NOT NULL,
  at_ms INTEGER NOT NULL DEFAULT 0
);
INSERT INTO log (match_id, seq, blob)
  SELECT e.match_id, e.seq, e.blob FROM events e JOIN matches m ON m.id = e.match_id
  WHERE m.result = 0 ORDER BY m.created_ms, e.match_id, e.seq;
DROP TABLE events;
)sql";

// Schema 3 → 4: log rows get their wall time; the old ones are "not known".
constexpr const char* kMigrateFrom3 =
    "ALTER TABLE log ADD COLUMN at_ms INTEGER NOT NULL DEFAULT 0;\n";

// Schema 4 → 5: the rating columns (NULL: the games before were not
// recorded with their changes). The indexes follow in kSchema.
constexpr const char* kMigrateFrom4 = R"sql(
ALTER TABLE matches ADD COLUMN first_rating_before REAL;
ALTER TABLE matches ADD COLUMN first_rd_before REAL;
ALTER TABLE matches ADD COLUMN first_rating_after REAL;
ALTER TABLE matches ADD COLUMN first_rd_after REAL;
ALTER TABLE matches ADD COLUMN second_rating_before REAL;
ALTER TABLE matches ADD COLUMN second_rd_before REAL;
ALTER TABLE matches ADD COLUMN second_rating_after REAL;
ALTER TABLE matches ADD COLUMN second_rd_after REAL;
)sql";

// Schema 5 → 6: each rating counts its player's rated games in the
// variant, as the finished matches have them (a rated game that ended in a
// result, on either seat; a bot that played itself counts twice, as the
// rating book counted it). One pass over the matches, whatever the schema
// they came from. The indexes follow in kSchema.
constexpr const char* kMigrateFrom5 = R"sql(
ALTER TABLE ratings ADD COLUMN games INTEGER NOT NULL DEFAULT 0;
UPDATE ratings SET games = counted.n
  FROM (SELECT player, variant, COUNT(*) AS n FROM (
          SELECT first_id AS player, variant FROM matches
            WHERE rated = 1 AND result BETWEEN 1 AND 3
          UNION ALL
          SELECT second_id, variant FROM matches WHERE rated = 1 AND result BETWEEN 1 AND 3)
        GROUP BY player, variant) AS counted
  WHERE ratings.player_id = counted.player AND ratings.variant = counted.variant;
)sql";

// Schema 6 → 7: each match keeps its owner's fencing generation; the
// matches before it had none (0: never checked).
constexpr const char* kMigrateFrom6 =
    "ALTER TABLE matches ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;\n";

}  // namespace

std::string setup_script(bool has_schema1_events, bool has_schema2_matches,
                         bool has_log_without_time, bool has_matches_without_ratings,
                         bool has_ratings_without_games, bool has_matches_without_generation) {
  std::string setup;
  if (has_schema1_events) setup += kMigrateFrom1;                        // schema 1 → 2
  if (!setup.empty() || has_schema2_matches) setup += migrate_from_2();  // schema 2 → 3
  if (has_log_without_time) setup += kMigrateFrom3;                      // schema 3 → 4
  // (A schema-2 table was rebuilt above with the rating columns.)
  if (has_matches_without_ratings && !has_schema1_events && !has_schema2_matches) {
    setup += kMigrateFrom4;  // schema 3 or 4 → 5
  }
  if (has_matches_without_generation && !has_schema1_events && !has_schema2_matches) {
    setup += kMigrateFrom6;  // schema 3 to 6 → 7
  }
  setup += matches_table("matches");
  // After the matches' migrations: it reads them in their latest shape.
  if (has_ratings_without_games) setup += kMigrateFrom5;  // schema 5 or before → 6
  setup += kSchema;
  setup += "PRAGMA user_version=" + std::to_string(kSchemaVersion) + ";";
  return setup;
}

}  // namespace inarow::server::sqlite
