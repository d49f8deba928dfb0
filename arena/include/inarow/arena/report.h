// What a tournament reports: a progress line while it runs, the final table
// and the results as JSON.
#pragma once

#include <string>

#include "inarow/arena/tournament.h"

namespace inarow::arena {

// "[ 12/100] a-b +5 =2 -5  Elo 0.0 +- 120.3  LLR 0.12 [-2.94, 2.94]"
std::string progress_line(const TournamentConfig& cfg, const Standings& s);
// The final table: ratings, each pairing with Elo, margin, LOS, pentanomial
// counts; terminations; the SPRT verdict.
std::string format_report(const TournamentConfig& cfg, const TournamentResult& r);
std::string to_json(const TournamentConfig& cfg, const TournamentResult& r);

}  // namespace inarow::arena
