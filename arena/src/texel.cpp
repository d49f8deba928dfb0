#include "inarow/arena/texel.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <variant>

#include "inarow/bots/bot.h"
#include "start_weights.h"

namespace inarow::arena {
namespace {

using bots::make_weights_bot;
using bots::MoveBudget;

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

}  // namespace

std::vector<int> window_features(const Game& game) {
  const Variant& v = game.variant();
  std::vector<int> f(v.k - 1, 0);
  static constexpr int kSteps[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  for (int c = 0; c < v.width; ++c)
    for (int r = 0; r < v.height; ++r)
      for (const auto& [dc, dr] : kSteps) {
        if (!v.on_board(c + (v.k - 1) * dc, r + (v.k - 1) * dr)) continue;
        int count[2] = {0, 0};
        for (int i = 0; i < v.k; ++i)
          if (auto s = game.at(c + i * dc, r + i * dr)) ++count[index(*s)];
        if (count[1] == 0 && count[0] > 0 && count[0] < v.k) ++f[count[0] - 1];
        if (count[0] == 0 && count[1] > 0 && count[1] < v.k) --f[count[1] - 1];
      }
  return f;
}

TexelResult run_texel(const TexelOptions& o) {
  const Variant& v = o.variant;
  const Weights start = start_weights(v, o.start);
  const int m = v.k - 1;
  OpeningOptions book_options = o.openings;
  book_options.seed = o.seed;
  const auto book = make_openings(v, book_options);
  std::mt19937_64 rng(o.seed);

  // Self-play positions, labelled with the game's result for the first player.
  // One move in twenty is random, so games from the same opening differ.
  std::vector<std::vector<int>> features;
  std::vector<double> labels;
  for (int g = 0; g < o.games; ++g) {
    Game game(v);
    for (Cell c : book[std::size_t(g) % book.size()].moves)
      (void)game.play(c);
    auto bot = make_weights_bot(v, start, o.depth);
    std::vector<std::vector<int>> seen;
    while (!game.over()) {
      // Only quiet positions: no immediate win on the board for either side.
      const bool tactical = std::visit(
          [](const auto& pos) {
            return (pos.winning_cells(Side::first) & pos.playable()).any() ||
                   (pos.winning_cells(Side::second) & pos.playable()).any();
          },
          game.position());
      if (!tactical) seen.push_back(window_features(game));
      Cell move;
      if (std::uniform_int_distribution<int>(0, 19)(rng) == 0) {
        const auto moves = game.legal_moves();
        move = moves[std::uniform_int_distribution<std::size_t>(0, moves.size() - 1)(rng)];
      } else {
        move = bot->choose(game, MoveBudget{}).move;
      }
      (void)game.play(move);
    }
    const double label = game.outcome() == Outcome::first_wins    ? 1.0
                         : game.outcome() == Outcome::second_wins ? 0.0
                                                                  : 0.5;
    for (auto& f : seen) {
      features.push_back(std::move(f));
      labels.push_back(label);
    }
  }
  TexelResult r;
  r.positions = std::int64_t(features.size());
  std::vector<double> w(m);
  for (int i = 0; i < m; ++i)
    w[i] = start.by_count[i + 1];
  auto loss = [&](const std::vector<double>& ws, double k) {
    double sum = 0;
    for (std::size_t p = 0; p < features.size(); ++p) {
      double e = 0;
      for (int i = 0; i < m; ++i)
        e += ws[i] * features[p][i];
      sum += std::pow(labels[p] - sigmoid(e / k), 2);
    }
    return features.empty() ? 0.0 : sum / double(features.size());
  };
  // Fit the scale K for the start weights (golden section on log K).
  double lo = std::log(1e-3), hi = std::log(1e7);
  const double phi = (std::sqrt(5.0) - 1) / 2;
  for (int it = 0; it < 100; ++it) {
    const double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
    if (loss(w, std::exp(x1)) < loss(w, std::exp(x2))) {
      hi = x2;
    } else {
      lo = x1;
    }
  }
  r.k = std::exp((lo + hi) / 2);
  r.loss_start = loss(w, r.k);
  // Then the weights with K fixed, by Adam on the mean squared error.
  double scale = 1;
  for (double x : w)
    scale = std::max(scale, std::abs(x));
  const double lr = o.learning_rate > 0 ? o.learning_rate : scale / 100;
  std::vector<double> mom(m, 0), vel(m, 0);
  for (int it = 1; it <= o.iterations && !features.empty(); ++it) {
    std::vector<double> grad(m, 0);
    for (std::size_t p = 0; p < features.size(); ++p) {
      double e = 0;
      for (int i = 0; i < m; ++i)
        e += w[i] * features[p][i];
      const double s = sigmoid(e / r.k);
      const double d = 2 * (s - labels[p]) * s * (1 - s) / r.k;
      for (int i = 0; i < m; ++i)
        grad[i] += d * features[p][i];
    }
    for (int i = 0; i < m; ++i) {
      grad[i] /= double(features.size());
      mom[i] = 0.9 * mom[i] + 0.1 * grad[i];
      vel[i] = 0.999 * vel[i] + 0.001 * grad[i] * grad[i];
      const double mh = mom[i] / (1 - std::pow(0.9, it)), vh = vel[i] / (1 - std::pow(0.999, it));
      w[i] = std::clamp(w[i] - lr * mh / (std::sqrt(vh) + 1e-12), 0.0, 10000.0);
    }
  }
  r.loss_end = loss(w, r.k);
  r.weights = start;
  for (int i = 0; i < m; ++i)
    r.weights.by_count[i + 1] = int(std::lround(w[i]));
  return r;
}

}  // namespace inarow::arena
