#include "inarow/arena/sprt.h"

#include <array>
#include <cmath>
#include <cstdlib>
#include <string>

namespace inarow::arena {
namespace {

Error parse_error(std::size_t offset, std::string message) {
  return Error{ErrorCode::bad_syntax, offset, std::move(message)};
}

}  // namespace

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

}  // namespace inarow::arena
