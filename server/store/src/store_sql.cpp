#include "store_sql.h"

#include <algorithm>
#include <utility>

namespace inarow::server::store_sql {

const char* const kMatchColumnList =
    "id, variant, kind, rated, initial_ms, increment_ms, first_id, second_id, first_level, "
    "second_level, result, reason, created_ms, ended_ms, log_from, generation";

const char* const kRatingColumnList =
    "first_rating_before, first_rd_before, first_rating_after, first_rd_after, "
    "second_rating_before, second_rd_before, second_rating_after, second_rd_after";

const char* const kPruneLog =
    "DELETE FROM log WHERE id < COALESCE((SELECT MIN(log_from) FROM matches WHERE result = 0), "
    "(SELECT COALESCE(MAX(id), 0) + 1 FROM log))";

std::string select_games(std::string_view where) {
  std::string select = "SELECT ";
  for (std::string_view list : {std::string_view(kMatchColumnList), std::string_view("record"),
                                std::string_view(kRatingColumnList)}) {
    while (!list.empty()) {
      const auto comma = list.find(',');
      std::string_view name = list.substr(0, comma);
      while (!name.empty() && name.front() == ' ')
        name.remove_prefix(1);
      select += "m.";
      select += name;
      select += ", ";
      list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
    }
  }
  select +=
      "p1.name, p1.bot, p2.name, p2.bot FROM matches m "
      "LEFT JOIN players p1 ON p1.id = m.first_id LEFT JOIN players p2 ON p2.id = m.second_id ";
  select += where;
  return select;
}

void merge_seat_pages(std::vector<MatchRecord>& games, std::size_t limit) {
  std::sort(games.begin(), games.end(), [](const MatchRecord& a, const MatchRecord& b) {
    return std::pair(a.ended_ms, a.id) > std::pair(b.ended_ms, b.id);
  });
  games.erase(std::unique(games.begin(), games.end(),
                          [](const MatchRecord& a, const MatchRecord& b) { return a.id == b.id; }),
              games.end());
  if (games.size() > limit) games.resize(limit);
}

}  // namespace inarow::server::store_sql
