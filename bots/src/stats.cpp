#include "inarow/bots/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace inarow::bots {
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

Error parse_error(std::size_t offset, std::string message) {
  return Error{ErrorCode::bad_syntax, offset, std::move(message)};
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

expected<SprtConfig, Error> SprtConfig::parse(std::string_view text) {
  SprtConfig cfg;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    const auto item = text.substr(pos, end - pos);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos)
      return unexpected(parse_error(pos, "expected key=value, got '" + std::string(item) + "'"));
    const std::string key(item.substr(0, eq));
    const std::string value(item.substr(eq + 1));
    char* stop = nullptr;
    const double v = std::strtod(value.c_str(), &stop);
    if (value.empty() || *stop != '\0')
      return unexpected(parse_error(pos + eq + 1, "'" + value + "' is not a number"));
    if (key == "elo0") {
      cfg.elo0 = v;
    } else if (key == "elo1") {
      cfg.elo1 = v;
    } else if (key == "alpha") {
      cfg.alpha = v;
    } else if (key == "beta") {
      cfg.beta = v;
    } else {
      return unexpected(
          parse_error(pos, "unknown SPRT key '" + key + "' (elo0, elo1, alpha, beta)"));
    }
    pos = end + 1;
  }
  if (!(cfg.alpha > 0 && cfg.alpha < 1 && cfg.beta > 0 && cfg.beta < 1))
    return unexpected(parse_error(0, "alpha and beta must lie strictly between 0 and 1"));
  if (!(cfg.elo0 < cfg.elo1)) return unexpected(parse_error(0, "elo0 must be below elo1"));
  return cfg;
}

double SprtConfig::lower_bound() const {
  return std::log(beta / (1 - alpha));
}
double SprtConfig::upper_bound() const {
  return std::log((1 - beta) / alpha);
}

std::string_view to_string(SprtDecision d) {
  switch (d) {
    case SprtDecision::continue_testing:
      return "continue";
    case SprtDecision::accept_h0:
      return "H0 accepted";
    case SprtDecision::accept_h1:
      return "H1 accepted";
  }
  return "?";
}

namespace {

// Pair counts with empty cells at 1e-3, as fishtest regularises them.
std::array<double, 5> regularised(const Pentanomial& p) {
  std::array<double, 5> n{};
  for (int i = 0; i < 5; ++i)
    n[i] = p.counts[i] ? double(p.counts[i]) : 1e-3;
  return n;
}

// The maximum-likelihood distribution over x_i = i/4 with mean s, given the
// empirical frequencies f (all positive): p_i = f_i / (1 + lambda (x_i - s)),
// lambda in (-1/(1 - s), 1/s) found by bisection on the decreasing secular
// function.
std::array<double, 5> mle_with_mean(const std::array<double, 5>& f, double s) {
  auto secular = [&](double lambda) {
    double sum = 0;
    for (int i = 0; i < 5; ++i)
      sum += f[i] * (i / 4.0 - s) / (1 + lambda * (i / 4.0 - s));
    return sum;
  };
  double lo = -1 / (1 - s), hi = 1 / s;
  for (int it = 0; it < 200; ++it) {
    const double mid = (lo + hi) / 2;
    if (mid == lo || mid == hi) break;
    (secular(mid) > 0 ? lo : hi) = mid;
  }
  const double lambda = (lo + hi) / 2;
  std::array<double, 5> p{};
  for (int i = 0; i < 5; ++i)
    p[i] = f[i] / (1 + lambda * (i / 4.0 - s));
  return p;
}

}  // namespace

double sprt_llr(const SprtConfig& cfg, const Pentanomial& p) {
  if (p.pairs() == 0) return 0;
  const auto n = regularised(p);
  double total = 0;
  for (double x : n)
    total += x;
  std::array<double, 5> f{};
  for (int i = 0; i < 5; ++i)
    f[i] = n[i] / total;
  const auto p0 = mle_with_mean(f, score_from_elo(cfg.elo0));
  const auto p1 = mle_with_mean(f, score_from_elo(cfg.elo1));
  double llr = 0;
  for (int i = 0; i < 5; ++i)
    llr += n[i] * std::log(p1[i] / p0[i]);
  return llr;
}

double sprt_llr_normal(const SprtConfig& cfg, const Pentanomial& p) {
  if (p.pairs() == 0) return 0;
  const auto n = regularised(p);
  double total = 0;
  for (double x : n)
    total += x;
  double mean = 0;
  for (int i = 0; i < 5; ++i)
    mean += n[i] / total * (i / 4.0);
  double var = 0;
  for (int i = 0; i < 5; ++i)
    var += n[i] / total * std::pow(i / 4.0 - mean, 2);
  const double s0 = score_from_elo(cfg.elo0), s1 = score_from_elo(cfg.elo1);
  return total * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var);
}

SprtDecision sprt_decide(const SprtConfig& cfg, double llr) {
  if (llr >= cfg.upper_bound()) return SprtDecision::accept_h1;
  if (llr <= cfg.lower_bound()) return SprtDecision::accept_h0;
  return SprtDecision::continue_testing;
}

std::vector<Rating> joint_ratings(int participants, const std::vector<PairResult>& results,
                                  double prior_draws, std::optional<int> anchor) {
  const int n = participants;
  std::vector<Rating> out(n);
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

}  // namespace inarow::bots
