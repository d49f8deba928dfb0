#include "inarow/server/rating.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace inarow::server {
namespace {

constexpr double kScale = 173.7178;    // Glicko-2 scale factor
constexpr double kEpsilon = 0.000001;  // convergence of the volatility iteration

double g(double phi) {
  return 1.0 / std::sqrt(1.0 + 3.0 * phi * phi / (std::numbers::pi * std::numbers::pi));
}

double expected_score(double mu, double mu_j, double phi_j) {
  return 1.0 / (1.0 + std::exp(-g(phi_j) * (mu - mu_j)));
}

}  // namespace

Rating glicko2_update(const Rating& player, std::span<const GameResult> games, double tau) {
  // Step 2. Convert to the Glicko-2 scale.
  const double mu = (player.rating - 1500.0) / kScale;
  const double phi = player.deviation / kScale;
  const double sigma = player.volatility;

  if (games.empty()) {
    // Step 6 alone: the deviation grows with the volatility.
    const double phi_star = std::sqrt(phi * phi + sigma * sigma);
    return {player.rating, std::min(phi_star * kScale, kStartDeviation), sigma};
  }

  // Step 3. The estimated variance v of the rating from the game outcomes.
  // Step 4. The estimated improvement delta.
  double v_inv = 0.0;
  double delta_sum = 0.0;
  for (const GameResult& game : games) {
    const double mu_j = (game.opponent.rating - 1500.0) / kScale;
    const double phi_j = game.opponent.deviation / kScale;
    const double e = expected_score(mu, mu_j, phi_j);
    v_inv += g(phi_j) * g(phi_j) * e * (1.0 - e);
    delta_sum += g(phi_j) * (game.score - e);
  }
  const double v = 1.0 / v_inv;
  const double delta = v * delta_sum;

  // Step 5. The new volatility by the Illinois algorithm on f(x) = 0.
  const double a = std::log(sigma * sigma);
  auto f = [&](double x) {
    const double ex = std::exp(x);
    const double d = phi * phi + v + ex;
    return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau);
  };
  double big_a = a;
  double big_b;
  if (delta * delta > phi * phi + v) {
    big_b = std::log(delta * delta - phi * phi - v);
  } else {
    double k = 1.0;
    while (f(a - k * tau) < 0.0)
      k += 1.0;
    big_b = a - k * tau;
  }
  double f_a = f(big_a);
  double f_b = f(big_b);
  while (std::fabs(big_b - big_a) > kEpsilon) {
    const double c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
    const double f_c = f(c);
    if (f_c * f_b <= 0.0) {
      big_a = big_b;
      f_a = f_b;
    } else {
      f_a /= 2.0;
    }
    big_b = c;
    f_b = f_c;
  }
  const double sigma_new = std::exp(big_a / 2.0);

  // Step 6. Pre-period deviation; Step 7. new deviation and rating.
  const double phi_star = std::sqrt(phi * phi + sigma_new * sigma_new);
  const double phi_new = 1.0 / std::sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
  const double mu_new = mu + phi_new * phi_new * delta_sum;

  // Step 8. Back to the familiar scale. The deviation never exceeds where
  // everyone starts: a player we know something about is never less known
  // than a newcomer, however volatile the results.
  return {mu_new * kScale + 1500.0, std::min(phi_new * kScale, kStartDeviation), sigma_new};
}

}  // namespace inarow::server
