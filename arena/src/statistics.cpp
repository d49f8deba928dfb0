#include "inarow/arena/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace inarow::arena {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Elo per natural-log unit of strength ratio: 400 / ln 10.
constexpr double kEloPerNat = 173.71779276130073;

// Standard normal distribution function.
double phi(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// Fill an estimate from the mean and standard error of the mean.
EloEstimate from_mean(double mean, double se) {
  EloEstimate e;
  e.score = mean;
  e.elo = elo_from_score(mean);
  e.lower = elo_from_score(std::clamp(mean - kZ95 * se, 0.0, 1.0));
  e.upper = elo_from_score(std::clamp(mean + kZ95 * se, 0.0, 1.0));
  e.margin = std::isfinite(e.upper) && std::isfinite(e.lower) ? (e.upper - e.lower) / 2 : kInf;
  if (se > 0) {
    e.los = phi((mean - 0.5) / se);
  } else {
    e.los = mean > 0.5 ? 1.0 : mean < 0.5 ? 0.0 : 0.5;
  }
  return e;
}

}  // namespace

double Trinomial::score() const {
  const auto n = games();
  return n ? (double(wins) + 0.5 * double(draws)) / double(n) : 0.5;
}

std::int64_t Pentanomial::pairs() const {
  return std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
}

void Pentanomial::add(double first_game, double second_game) {
  const auto idx = static_cast<int>(std::lround((first_game + second_game) * 2));
  ++counts[std::clamp(idx, 0, 4)];
}

double elo_from_score(double score) {
  if (score <= 0) return -kInf;
  if (score >= 1) return kInf;
  return -400.0 * std::log10(1.0 / score - 1.0);
}

double score_from_elo(double elo) {
  return 1.0 / (1.0 + std::pow(10.0, -elo / 400.0));
}

EloEstimate estimate(const Trinomial& t) {
  const double n = double(t.games());
  if (n == 0) return from_mean(0.5, 0);
  const double mean = t.score();
  const double w = double(t.wins) / n, d = double(t.draws) / n, l = double(t.losses) / n;
  const double var =
      w * (1 - mean) * (1 - mean) + d * (0.5 - mean) * (0.5 - mean) + l * (0 - mean) * (0 - mean);
  auto e = from_mean(mean, std::sqrt(var / n));
  e.stddev = std::sqrt(var);
  return e;
}

EloEstimate estimate(const Pentanomial& p) {
  const double n = double(p.pairs());
  if (n == 0) return from_mean(0.5, 0);
  // Each pair's score per game: 0, 1/4, 1/2, 3/4, 1.
  double mean = 0;
  for (int i = 0; i < 5; ++i)
    mean += double(p.counts[i]) / n * (i / 4.0);
  double var = 0;
  for (int i = 0; i < 5; ++i)
    var += double(p.counts[i]) / n * std::pow(i / 4.0 - mean, 2);
  auto e = from_mean(mean, std::sqrt(var / n));
  e.stddev = std::sqrt(var);
  return e;
}

double los(const Trinomial& t) {
  const double decisive = double(t.wins + t.losses);
  if (decisive == 0) return 0.5;
  return 0.5 * (1 + std::erf(double(t.wins - t.losses) / std::sqrt(2 * decisive)));
}

std::vector<EloRating> joint_ratings(int participants, const std::vector<PairResult>& results,
                                     double prior_draws, std::optional<int> anchor) {
  const int n = participants;
  std::vector<EloRating> out(n);
  if (n == 0) return out;
  // games[i][j]: games between i and j, prior included; points[i]: i's score.
  std::vector<std::vector<double>> games(n, std::vector<double>(n, 0.0));
  std::vector<double> points(n, 0.0);
  for (const auto& r : results) {
    if (r.i == r.j || r.games.games() == 0) continue;
    const double g = double(r.games.games()) + prior_draws;
    const double si = double(r.games.wins) + 0.5 * double(r.games.draws) + 0.5 * prior_draws;
    games[r.i][r.j] += g;
    games[r.j][r.i] += g;
    points[r.i] += si;
    points[r.j] += g - si;
  }
  // Hunter's MM update for Bradley-Terry: gamma_i <- W_i / sum_j n_ij / (gamma_i + gamma_j).
  std::vector<double> gamma(n, 1.0);
  for (int iter = 0; iter < 10000; ++iter) {
    double change = 0;
    for (int i = 0; i < n; ++i) {
      double denom = 0;
      for (int j = 0; j < n; ++j)
        if (games[i][j] > 0) denom += games[i][j] / (gamma[i] + gamma[j]);
      if (denom == 0) continue;
      const double next = std::max(points[i] / denom, 1e-300);
      change = std::max(change, std::abs(std::log(next / gamma[i])));
      gamma[i] = next;
    }
    // Keep the geometric mean at 1 so the iteration does not drift.
    double log_mean = 0;
    for (double g : gamma)
      log_mean += std::log(g);
    log_mean /= n;
    for (double& g : gamma)
      g /= std::exp(log_mean);
    if (change < 1e-10) break;
  }
  const double zero = anchor ? std::log(gamma[*anchor]) : 0.0;
  for (int i = 0; i < n; ++i) {
    out[i].elo = (std::log(gamma[i]) - zero) * kEloPerNat;
    // Fisher information of i's log-strength with the others held fixed.
    double info = 0;
    for (int j = 0; j < n; ++j) {
      if (games[i][j] == 0) continue;
      const double p = gamma[i] / (gamma[i] + gamma[j]);
      info += games[i][j] * p * (1 - p);
    }
    out[i].margin = info > 0 ? kZ95 * kEloPerNat / std::sqrt(info) : kInf;
  }
  if (anchor) out[*anchor].margin = 0;
  return out;
}

}  // namespace inarow::arena
