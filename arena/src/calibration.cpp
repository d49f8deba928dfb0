#include "inarow/arena/calibration.h"

#include <cstdio>
#include <sstream>

#include "inarow/bots/bot.h"
#include "json_text.h"

namespace inarow::arena {

bool Ladder::monotone(bool clear) const {
  for (std::size_t i = 1; i < rungs.size(); ++i) {
    const double gap = rungs[i].elo - rungs[i - 1].elo;
    if (gap <= 0) return false;
    if (clear && gap <= std::max(rungs[i].margin, rungs[i - 1].margin)) return false;
  }
  return true;
}

std::string Ladder::to_text() const {
  std::ostringstream out;
  out << "# measured Elo of the bot levels: variant " << variant << ", " << games
      << " games, weakest level = 0, 95% margin\n";
  char buf[160];
  for (const auto& r : rungs) {
    std::snprintf(buf, sizeof buf, "%-10s %8.1f %7.1f\n", r.level.c_str(), r.elo, r.margin);
    out << buf;
  }
  return out.str();
}

std::string Ladder::to_json() const {
  std::ostringstream out;
  out << "{\"variant\": " << json::quote(variant) << ", \"games\": " << games
      << ", \"monotone\": " << (monotone() ? "true" : "false")
      << ", \"clear_gaps\": " << (monotone(true) ? "true" : "false") << ", \"levels\": [";
  for (std::size_t i = 0; i < rungs.size(); ++i) {
    const auto& r = rungs[i];
    out << (i ? ", " : "") << "{\"level\": " << json::quote(r.level)
        << ", \"elo\": " << json::number(r.elo, 1) << ", \"margin\": " << json::number(r.margin, 1)
        << ", \"score\": " << json::number(r.score, 4) << "}";
  }
  out << "]}\n";
  return out.str();
}

expected<Ladder, Error> calibrate(
    TournamentConfig cfg, std::vector<std::string> levels,
    const std::function<void(const Standings&, const GameRecord&)>& on_game) {
  if (levels.empty())
    for (const auto& l : bots::levels())
      levels.emplace_back(l.name);
  cfg.participants.clear();
  for (const auto& name : levels) {
    auto p = Participant::parse(name);
    if (!p) return unexpected(p.error());
    cfg.participants.push_back(std::move(p).value());
  }
  // A ladder (each level against the next two) is asked for by its format;
  // anything else plays everyone against everyone.
  if (cfg.format != Format::ladder) cfg.format = Format::round_robin;
  cfg.sprt.reset();
  auto result = run_tournament(cfg, on_game);
  if (!result) return unexpected(result.error());
  // Re-anchor the joint ratings on the first (weakest) level.
  std::vector<PairResult> pr;
  for (const auto& p : result->standings.pairings)
    pr.push_back({p.a, p.b, p.games});
  const auto ratings = joint_ratings(int(levels.size()), pr, 2.0, 0);
  Ladder ladder;
  ladder.variant = cfg.variant.name;
  ladder.games = result->standings.done_games;
  ladder.stopped = result->stopped;
  for (std::size_t i = 0; i < levels.size(); ++i)
    ladder.rungs.push_back({{cfg.participants[i].name, ratings[i].elo, ratings[i].margin},
                            result->standings.participants[i].games.score()});
  return ladder;
}

}  // namespace inarow::arena
