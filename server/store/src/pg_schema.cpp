#include "pg_schema.h"

namespace inarow::server::postgres {

const char* const kCreateVersionTable =
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)";

const char* const kCreateSchema = R"sql(
CREATE TABLE players (
  id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT COLLATE "C" NOT NULL,
  token_hash TEXT COLLATE "C" NOT NULL,
  bot BOOLEAN NOT NULL
);
CREATE TABLE ratings (
  player_id TEXT COLLATE "C" NOT NULL,
  variant TEXT COLLATE "C" NOT NULL,
  rating DOUBLE PRECISION NOT NULL,
  deviation DOUBLE PRECISION NOT NULL,
  volatility DOUBLE PRECISION NOT NULL,
  games INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (player_id, variant)
);
CREATE TABLE matches (
  id TEXT COLLATE "C" PRIMARY KEY,
  variant TEXT COLLATE "C" NOT NULL,
  kind INTEGER NOT NULL,
  rated BOOLEAN NOT NULL,
  initial_ms BIGINT NOT NULL,
  increment_ms BIGINT NOT NULL,
  first_id TEXT COLLATE "C" NOT NULL,
  second_id TEXT COLLATE "C" NOT NULL,
  first_level TEXT COLLATE "C" NOT NULL,
  second_level TEXT COLLATE "C" NOT NULL,
  result INTEGER NOT NULL DEFAULT 0,
  reason INTEGER NOT NULL DEFAULT 0,
  created_ms BIGINT NOT NULL,
  ended_ms BIGINT NOT NULL DEFAULT 0,
  log_from BIGINT NOT NULL DEFAULT 0,
  generation BIGINT NOT NULL DEFAULT 0,
  record TEXT COLLATE "C",
  first_rating_before DOUBLE PRECISION,
  first_rd_before DOUBLE PRECISION,
  first_rating_after DOUBLE PRECISION,
  first_rd_after DOUBLE PRECISION,
  second_rating_before DOUBLE PRECISION,
  second_rd_before DOUBLE PRECISION,
  second_rating_after DOUBLE PRECISION,
  second_rd_after DOUBLE PRECISION
);
CREATE INDEX players_by_token ON players (token_hash) WHERE token_hash <> '';
CREATE INDEX ratings_by_rank ON ratings (variant, rating DESC, games DESC, player_id);
CREATE INDEX matches_live ON matches (log_from) WHERE result = 0;
CREATE INDEX matches_by_first ON matches (first_id, ended_ms, id) WHERE result <> 0;
CREATE INDEX matches_by_second ON matches (second_id, ended_ms, id) WHERE result <> 0;
CREATE TABLE log (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  match_id TEXT COLLATE "C" NOT NULL,
  seq BIGINT NOT NULL,
  blob BYTEA NOT NULL,
  at_ms BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE alive (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  at_ms BIGINT NOT NULL
);
CREATE TABLE clock_from (
  match_id TEXT COLLATE "C" PRIMARY KEY,
  seq BIGINT NOT NULL,
  at_ms BIGINT NOT NULL
);
CREATE TABLE accounts (
  player_id TEXT COLLATE "C" PRIMARY KEY,
  name_key TEXT COLLATE "C" NOT NULL UNIQUE,
  password_hash TEXT COLLATE "C" NOT NULL,
  created_ms BIGINT NOT NULL
);
CREATE TABLE devices (
  token_hash TEXT COLLATE "C" PRIMARY KEY,
  player_id TEXT COLLATE "C" NOT NULL,
  created_ms BIGINT NOT NULL
);
CREATE INDEX devices_by_player ON devices (player_id, created_ms);
)sql";

std::string migration_from(int from) {
  std::string sql;
  // Schema 1 → 2: the fencing generation (a constant default: PostgreSQL
  // adds the column without rewriting the table).
  if (from <= 1) sql += "ALTER TABLE matches ADD COLUMN generation BIGINT NOT NULL DEFAULT 0;\n";
  sql += "UPDATE schema_version SET version = " + std::to_string(kSchemaVersion) + ";\n";
  return sql;
}

}  // namespace inarow::server::postgres
