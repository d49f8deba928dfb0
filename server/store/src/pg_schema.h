// The PostgreSQL store's tables: its schema 2, the data of the SQLite
// store's schema 7 (schema.h) in PostgreSQL's types, with the same indexes,
// and the migrations from the schemas before it. open_postgres_store
// creates or migrates them in one transaction under an advisory lock, so
// that two servers starting on one database at once do not race.
#pragma once

#include <cstdint>
#include <string>

namespace inarow::server::postgres {

// Schema 1 was SQLite's schema 6, less the `moves` table (only stores from
// before SQLite's schema 3 have rows in it). Every text column compares
// byte by byte (COLLATE "C"), as SQLite's do, so that ids, cursors and the
// leaderboard's ties sort the same whatever the database's locale. Flags
// are booleans, times BIGINT milliseconds, ratings DOUBLE PRECISION (as
// SQLite's REAL, eight bytes), events BYTEA. The log's id is an identity
// column: ids only grow, as SQLite's rowids do while the log is appended.
//
// Schema 2 is SQLite's schema 7: each match row keeps its owner's fencing
// generation (store.h), 0 for the matches from before.
constexpr int kSchemaVersion = 2;

// The one row of schema_version says which schema the tables are in.
extern const char* const kCreateVersionTable;
// The tables and indexes of the latest schema (no IF NOT EXISTS: run once,
// on an empty database, under the lock).
extern const char* const kCreateSchema;
// What brings the tables of schema `from` (older than ours) to ours, the
// version row included.
std::string migration_from(int from);

// The key of the advisory lock the schema is created under (any constant
// of our own: "inarow" in ASCII).
constexpr std::int64_t kSchemaLockKey = 0x696e61726f77;

}  // namespace inarow::server::postgres
