// SQL both database stores speak alike (SQLite's schema 7 and PostgreSQL's
// schema 2 have the same tables and columns): the matches table's columns
// in the order the stores read them, the finished games' query and the
// log's prune.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "inarow/server/store.h"

namespace inarow::server::store_sql {

// The matches table's columns, in the order the stores read them (record
// follows): kLogFromColumn is log_from's, kGenerationColumn the fencing
// generation's (schema 7), kRecordColumn the record's.
extern const char* const kMatchColumnList;
inline constexpr int kLogFromColumn = 14;
inline constexpr int kGenerationColumn = 15;
inline constexpr int kRecordColumn = 16;

// A rated game's rating columns (SQLite's schema 5 added them), in the
// order the stores read them.
extern const char* const kRatingColumnList;

// Log rows older than every live match's first row belong to finished
// matches: dropped now and then, inside a batch's transaction.
extern const char* const kPruneLog;

// Finished games with what the history shows of them: the matches table's
// columns (as m.*), the record, the ratings (from kRatingsColumn), then
// both players' names and kinds; `where` follows (its WHERE, ORDER BY...).
std::string select_games(std::string_view where);
inline constexpr int kRatingsColumn = 17;

// A player's games read seat by seat (each seat's index gives its page in
// order), made one page: newest first (end time, then id), a bot that
// played itself once, at most `limit`.
void merge_seat_pages(std::vector<MatchRecord>& games, std::size_t limit);

}  // namespace inarow::server::store_sql
