// SPSA tuning of the evaluation's weights over game pairs (any of them by
// key: the windows, the threat terms, the tempo, the shapes, the pairs),
// parameterised as fishtest does: per weight a start value theta, c_end
// (the perturbation at the last iteration) and r_end (the learning rate at
// the last iteration); c_k = c / k^gamma with c = c_end N^gamma,
// a_k = a / (A + k)^alpha with a = r_end c_end^2 (A + N)^alpha, and
// theta += (a_k / c_k^2) c_k (wins - losses of theta+) flip. Integer weights
// are played at randomly rounded values.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "inarow/arena/openings.h"
#include "inarow/arena/statistics.h"
#include "inarow/engine/evaluator.h"
#include "inarow/engine/variant.h"

namespace inarow::arena {

struct SpsaOptions {
  Variant variant = Variant::connect4();
  Weights start;  // empty: the variant's defaults
  // The keys (Weights::keys) of the weights to move, the others held; empty:
  // spsa_default_keys(the start). Every key must be one the start has.
  std::vector<std::string> keys;
  int iterations = 200;
  double A = -1;  // < 0: a tenth of the iterations (fishtest's usual choice)
  double alpha = 0.602;
  double gamma = 0.101;
  // Per key, in the order of `keys`; missing ones (or NaN) take the default.
  std::vector<double> c_end;  // default max(1, |theta| / 10); 0 holds a weight
  std::vector<double> r_end;  // default 0.002 (fishtest's)
  // The window weights stay within these; every weight within what
  // Weights::parse reads (Weights::range).
  double min_weight = 0, max_weight = 10000;
  int depth = 2;                // search depth of the tuning games (0: no limit but the nodes)
  std::uint64_t nodes = 0;      // node limit per move of the tuning games (0: none)
  int pairs_per_iteration = 1;  // game pairs played at each theta+/theta- (in parallel)
  std::uint64_t seed = 1;
  OpeningOptions openings{.count = 256, .plies = -1, .depth = 2, .seed = 1};
  // Set (by ^C, say): stop after the iteration in flight; the result holds
  // theta as it stands.
  const std::atomic<bool>* stop = nullptr;
};

struct SpsaResult {
  std::vector<std::string> keys;             // the weights moved, in history's order
  Weights weights;                           // the final theta, rounded
  std::vector<std::vector<double>> history;  // theta after each iteration, [0] = start
  Trinomial plus;                            // theta+'s results over all games
  std::int64_t games = 0;
  int iterations = 0;  // played: fewer than asked when stopped
};

// What a tuning run moves unless told: every weight the evaluation counts
// (the windows, the threat terms, the shapes and pairs while on) and the
// tempo where it is in use (not 0).
std::vector<std::string> spsa_default_keys(const Weights& w);

// `on_iteration(k, theta)` is called after each iteration (k from 1).
SpsaResult run_spsa(const SpsaOptions& o,
                    const std::function<void(int, const std::vector<double>&)>& on_iteration = {});

// The history as CSV: "iteration,w1,w2,..." (the keys) one row per iteration.
std::string spsa_history_csv(const SpsaResult& r);
// An SVG line chart of every weight over the iterations (each weight
// normalised by its largest absolute value so all fit one axis; the legend
// gives start and end values).
std::string spsa_history_svg(const SpsaResult& r, const std::string& title);

}  // namespace inarow::arena
