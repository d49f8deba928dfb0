// Calibrated levels: the bot levels play a round robin (or a ladder, each
// against the next two) and their joint maximum-likelihood ratings become
// the Elo shown to players, anchored so the weakest level listed is 0.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "inarow/arena/tournament.h"
#include "inarow/bots/ladder.h"

namespace inarow::arena {

// A level's line as the server reads it back (bots/ladder.h), and its score.
struct LadderRung : bots::LadderRung {
  double score = 0.5;  // over all its games
};

struct Ladder {
  std::string variant;
  std::vector<LadderRung> rungs;  // in the order the levels were given
  std::int64_t games = 0;
  bool stopped = false;  // by the tournament's stop flag: the ladder is partial
  // Each level rates above the one before it, by more than the larger of the
  // two margins when `clear` is asked for.
  bool monotone(bool clear = false) const;
  // "# variant connect4, 240 games\nbeginner 0 0\neasy 212.4 35.1\n..."
  std::string to_text() const;
  // {"variant": .., "games": .., "levels": [{"level", "elo", "margin", "score"}..]}
  std::string to_json() const;
};

// Play `levels` (names of bots::levels(), or any participant as
// Participant::parse reads it; empty = every level) against each other
// with the tournament's other settings (its participants are replaced): a
// round robin, or with `cfg.format` = ladder each against the next two.
// Each rung is named as its participant is ("base:medium,nodes=500" is
// "base").
expected<Ladder, Error> calibrate(
    TournamentConfig cfg, std::vector<std::string> levels,
    const std::function<void(const Standings&, const GameRecord&)>& on_game = {});

}  // namespace inarow::arena
