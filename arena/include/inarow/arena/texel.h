// Texel-style fitting of the line-window evaluator's weights: positions from
// self-play labelled with the game's result, and weights chosen to minimise
// the squared error between the result and sigmoid(eval / K), eval being
// linear in the weights.
#pragma once

#include <cstdint>
#include <vector>

#include "inarow/arena/openings.h"
#include "inarow/engine/evaluator.h"
#include "inarow/engine/game.h"
#include "inarow/engine/variant.h"

namespace inarow::arena {

struct TexelOptions {
  Variant variant = Variant::connect4();
  Weights start;    // the self-play bots' weights and the fit's start
  int games = 200;  // self-play games to draw positions from
  int depth = 2;
  int iterations = 300;        // gradient steps
  double learning_rate = 0.0;  // <= 0: chosen from the data
  std::uint64_t seed = 1;
  OpeningOptions openings{.count = 256, .plies = -1, .depth = 2, .seed = 1};
};

struct TexelResult {
  Weights weights;
  double k = 1;           // the fitted scale: P(first wins) = sigmoid(eval / k)
  double loss_start = 0;  // mean squared error with the start weights
  double loss_end = 0;
  std::int64_t positions = 0;
};

TexelResult run_texel(const TexelOptions& o);

// Per window length n = 1..k-1: windows holding n stones of the first player
// only, minus those holding n of the second only. The evaluator's score for the
// first player is the dot product of these with w1..w(k-1).
std::vector<int> window_features(const Game& game);

}  // namespace inarow::arena
