// The SQLite store's tables: schema 3, and the migrations from the schemas
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
constexpr int kSchemaVersion = 3;

// Schema 2's columns of the matches table, in the order the store reads them
// (record follows).
extern const char* const kMatchColumnList;

// Log rows older than every live match's first row belong to finished
// matches: drop them now and then, inside a batch's transaction.
extern const char* const kPruneLog;

// What brings a store of the given shape to schema 3: the migrations it
// needs, then the tables and indexes (IF NOT EXISTS), then the version.
std::string setup_script(bool has_schema1_events, bool has_schema2_matches);

}  // namespace inarow::server::sqlite
