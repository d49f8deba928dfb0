#include "inarow/arena/report.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "json_text.h"

namespace inarow::arena {
namespace {

std::string pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * x);
  return buf;
}

std::string fixed(double x, int decimals = 1) {
  if (!std::isfinite(x)) return x > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

}  // namespace

std::string progress_line(const TournamentConfig& cfg, const Standings& s) {
  std::ostringstream out;
  out << '[' << s.done_games << '/' << s.total_games << ']';
  if (s.pairings.size() == 1) {
    const auto& p = s.pairings[0];
    const auto e = estimate(p.pairs);
    out << ' ' << s.participants[p.a].name << " vs " << s.participants[p.b].name << ": +"
        << p.games.wins << " =" << p.games.draws << " -" << p.games.losses << "  Elo "
        << fixed(e.elo) << " +- " << fixed(e.margin);
    if (s.llr && cfg.sprt) {
      out << "  LLR " << fixed(*s.llr, 2) << " [" << fixed(cfg.sprt->lower_bound(), 2) << ", "
          << fixed(cfg.sprt->upper_bound(), 2) << ']';
    }
  } else {
    // The leader by score so far.
    int best = 0;
    for (int i = 1; i < int(s.participants.size()); ++i)
      if (s.participants[i].games.score() > s.participants[best].games.score()) best = i;
    out << " leader " << s.participants[best].name << ' '
        << pct(s.participants[best].games.score());
  }
  const auto fails = s.by_reason[int(Termination::timeout)] + s.by_reason[int(Termination::crash)] +
                     s.by_reason[int(Termination::illegal)];
  if (fails) out << "  failures " << fails;
  return out.str();
}

std::string format_report(const TournamentConfig& cfg, const TournamentResult& r) {
  const auto& s = r.standings;
  std::ostringstream out;
  out << "Tournament " << cfg.variant.name << ", "
      << (cfg.format == Format::round_robin ? "round robin" : format_name(cfg.format)) << ", "
      << s.done_games << " of " << s.total_games << " games";
  if (r.resumed_games) out << " (" << r.resumed_games << " resumed)";
  if (r.stopped) out << ", stopped";
  out << "\n\n";
  // Ranking by joint rating.
  std::vector<int> order(s.participants.size());
  for (int i = 0; i < int(order.size()); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return r.ratings[a].elo > r.ratings[b].elo; });
  char line[256];
  std::snprintf(line, sizeof line, "%-4s %-24s %8s %7s %6s %7s %5s %5s %5s %5s\n", "Rank", "Name",
                "Elo", "+-", "Games", "Score", "W", "D", "L", "Fail");
  out << line;
  for (int rank = 0; rank < int(order.size()); ++rank) {
    const auto& p = s.participants[order[rank]];
    const auto& rt = r.ratings[order[rank]];
    std::snprintf(line, sizeof line, "%-4d %-24s %8s %7s %6lld %7s %5lld %5lld %5lld %5lld\n",
                  rank + 1, p.name.substr(0, 24).c_str(), fixed(rt.elo).c_str(),
                  fixed(rt.margin).c_str(), static_cast<long long>(p.games.games()),
                  pct(p.games.score()).c_str(), static_cast<long long>(p.games.wins),
                  static_cast<long long>(p.games.draws), static_cast<long long>(p.games.losses),
                  static_cast<long long>(p.timeouts + p.crashes + p.illegal));
    out << line;
  }
  out << "\nPairings (Elo and 95% margin from the pentanomial model over game pairs)\n";
  for (const auto& p : s.pairings) {
    const auto e = estimate(p.pairs);
    out << "  " << cfg.participants[p.a].name << " vs " << cfg.participants[p.b].name << ": +"
        << p.games.wins << " =" << p.games.draws << " -" << p.games.losses << "  score "
        << pct(p.games.score()) << "  Elo " << fixed(e.elo) << " +- " << fixed(e.margin) << "  LOS "
        << pct(e.los) << "  pairs [" << p.pairs.counts[0] << ' ' << p.pairs.counts[1] << ' '
        << p.pairs.counts[2] << ' ' << p.pairs.counts[3] << ' ' << p.pairs.counts[4] << "]\n";
  }
  out << "First mover: +" << s.first_mover.wins << " =" << s.first_mover.draws << " -"
      << s.first_mover.losses << " (" << pct(s.first_mover.score()) << ")\n";
  out << "Terminations:";
  for (int t = 0; t < kTerminations - 1; ++t)
    out << ' ' << to_string(Termination(t)) << ' ' << s.by_reason[t];
  out << '\n';
  for (const auto& p : s.participants)
    if (p.timeouts + p.crashes + p.illegal)
      out << "  " << p.name << " lost " << p.timeouts << " on time, " << p.crashes
          << " by crashing, " << p.illegal << " by illegal moves\n";
  if (cfg.sprt) {
    out << "SPRT elo0=" << cfg.sprt->elo0 << " elo1=" << cfg.sprt->elo1
        << " alpha=" << cfg.sprt->alpha << " beta=" << cfg.sprt->beta << ": LLR "
        << fixed(s.llr.value_or(0), 2) << " [" << fixed(cfg.sprt->lower_bound(), 2) << ", "
        << fixed(cfg.sprt->upper_bound(), 2) << "] " << to_string(s.decision) << '\n';
  }
  return out.str();
}

std::string to_json(const TournamentConfig& cfg, const TournamentResult& r) {
  const auto& s = r.standings;
  std::ostringstream out;
  out << "{\n  \"variant\": " << json::quote(cfg.variant.name)
      << ",\n  \"format\": " << json::quote(format_name(cfg.format))
      << ",\n  \"seed\": " << cfg.seed << ",\n  \"games\": " << s.done_games
      << ",\n  \"scheduled\": " << s.total_games << ",\n  \"resumed\": " << r.resumed_games
      << ",\n  \"stopped\": " << (r.stopped ? "true" : "false") << ",\n  \"participants\": [";
  for (std::size_t i = 0; i < s.participants.size(); ++i) {
    const auto& p = s.participants[i];
    out << (i ? "," : "") << "\n    {\"name\": " << json::quote(p.name)
        << ", \"spec\": " << json::quote(cfg.participants[i].spec)
        << ", \"elo\": " << json::number(r.ratings[i].elo)
        << ", \"margin\": " << json::number(r.ratings[i].margin) << ", \"wins\": " << p.games.wins
        << ", \"draws\": " << p.games.draws << ", \"losses\": " << p.games.losses
        << ", \"score\": " << json::number(p.games.score(), 4) << ", \"timeouts\": " << p.timeouts
        << ", \"crashes\": " << p.crashes << ", \"illegal\": " << p.illegal << "}";
  }
  out << "\n  ],\n  \"pairings\": [";
  for (std::size_t i = 0; i < s.pairings.size(); ++i) {
    const auto& p = s.pairings[i];
    const auto e = estimate(p.pairs);
    out << (i ? "," : "") << "\n    {\"a\": " << json::quote(cfg.participants[p.a].name)
        << ", \"b\": " << json::quote(cfg.participants[p.b].name) << ", \"wins\": " << p.games.wins
        << ", \"draws\": " << p.games.draws << ", \"losses\": " << p.games.losses
        << ", \"pentanomial\": [" << p.pairs.counts[0] << ", " << p.pairs.counts[1] << ", "
        << p.pairs.counts[2] << ", " << p.pairs.counts[3] << ", " << p.pairs.counts[4]
        << "], \"elo\": " << json::number(e.elo) << ", \"margin\": " << json::number(e.margin)
        << ", \"los\": " << json::number(e.los, 4) << "}";
  }
  out << "\n  ],\n  \"first_mover\": {\"wins\": " << s.first_mover.wins
      << ", \"draws\": " << s.first_mover.draws << ", \"losses\": " << s.first_mover.losses
      << "},\n  \"terminations\": {";
  for (int t = 0; t < kTerminations - 1; ++t)
    out << (t ? ", " : "") << json::quote(to_string(Termination(t))) << ": " << s.by_reason[t];
  out << "}";
  if (cfg.sprt) {
    out << ",\n  \"sprt\": {\"elo0\": " << json::number(cfg.sprt->elo0)
        << ", \"elo1\": " << json::number(cfg.sprt->elo1)
        << ", \"alpha\": " << json::number(cfg.sprt->alpha, 4)
        << ", \"beta\": " << json::number(cfg.sprt->beta, 4)
        << ", \"llr\": " << json::number(s.llr.value_or(0), 3)
        << ", \"lower\": " << json::number(cfg.sprt->lower_bound(), 3)
        << ", \"upper\": " << json::number(cfg.sprt->upper_bound(), 3)
        << ", \"decision\": " << json::quote(to_string(s.decision)) << "}";
  }
  out << "\n}\n";
  return out.str();
}

}  // namespace inarow::arena
