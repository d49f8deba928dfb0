// Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2013).
// A rating period here is one match: the server updates both players when a
// rated match ends. Ratings are on the familiar scale (1500 / 350 / 0.06).
#pragma once

#include <span>

namespace inarow::server {

// Everyone's deviation at the start, and its ceiling ever after.
inline constexpr double kStartDeviation = 350.0;

struct Rating {
  double rating = 1500.0;
  double deviation = kStartDeviation;
  double volatility = 0.06;
};

struct GameResult {
  Rating opponent;
  double score;  // 1 win, 0.5 draw, 0 loss
};

// The system constant tau: how much volatility may change (0.3 to 1.2).
inline constexpr double kGlickoTau = 0.5;

// One rating period. With no games only the deviation grows (step 6).
// The deviation is clamped to kStartDeviation.
Rating glicko2_update(const Rating& player, std::span<const GameResult> games,
                      double tau = kGlickoTau);

}  // namespace inarow::server
