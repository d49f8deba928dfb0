#include "inarow/arena/verify.h"

#include <algorithm>

namespace inarow::arena {

std::string start_weights_path(const std::string& tuned_path) {
  return tuned_path + ".start.txt";
}

std::string spec_limits(int depth, std::uint64_t nodes) {
  std::string out;
  if (depth > 0) out = "depth=" + std::to_string(depth);
  if (nodes > 0) out += (out.empty() ? "nodes=" : ",nodes=") + std::to_string(nodes);
  return out;
}

TournamentConfig verification_config(TournamentConfig match, const VerifyPlan& plan) {
  TournamentConfig cfg = std::move(match);
  cfg.seed += 1;  // openings the tuner did not see
  cfg.games_per_pairing = plan.max_games;
  cfg.openings.count = plan.max_games / 2;
  cfg.openings.depth = std::min(cfg.openings.depth, 2);
  cfg.sprt = plan.sprt;
  const std::string limits = spec_limits(plan.depth, plan.nodes);
  cfg.participants = {
      *Participant::parse("tuned:" + limits + ",weights=" + plan.tuned_path),
      *Participant::parse("start:" + limits + ",weights=" + start_weights_path(plan.tuned_path))};
  return cfg;
}

}  // namespace inarow::arena
