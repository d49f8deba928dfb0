// The check after tuning: the tuned weights play the weights tuning started
// from, on openings the tuner did not see, until an SPRT decides (or the game
// budget runs out). Tuning proposes; only this accepts.
#pragma once

#include <cstdint>
#include <string>

#include "inarow/arena/sprt.h"
#include "inarow/arena/tournament.h"

namespace inarow::arena {

struct VerifyPlan {
  SprtConfig sprt;
  int max_games = 4000;     // most games of the check
  int depth = 2;            // both sides search as the tuning games did: this deep (0: any)
  std::string tuned_path;   // the tuned weights file
  std::uint64_t nodes = 0;  // and this many nodes a move (0: no node limit)
};

// Where the start weights are written for the check: beside the tuned ones.
std::string start_weights_path(const std::string& tuned_path);

// A bot spec's search limits: "depth=2", "nodes=20000" or both (0: none).
std::string spec_limits(int depth, std::uint64_t nodes);

// The check's tournament from the tuning run's match settings `match`: a seed
// one past the tuner's (other openings), `max_games` over as many openings as
// pairs, shallow balance checks, "tuned" (tuned_path) against "start"
// (start_weights_path) at `depth`, stopped by the SPRT.
TournamentConfig verification_config(TournamentConfig match, const VerifyPlan& plan);

}  // namespace inarow::arena
