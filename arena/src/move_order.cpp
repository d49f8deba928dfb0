#include "inarow/arena/move_order.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "inarow/engine/game.h"
#include "inarow/engine/search.h"

namespace inarow::arena {

double MoveOrderReport::top(int n) const {
  std::int64_t within = 0;
  for (int i = 0; i < n && i < int(by_rank.size()); ++i)
    within += by_rank[std::size_t(i)];
  return positions ? double(within) / double(positions) : 0.0;
}

namespace {

// Calls visit(game, move) for every position of the games past their
// openings, with the move that was played there.
template <class Visit>
void for_each_position(const Variant& v, const std::vector<LabelledGame>& games, Visit visit) {
  for (const LabelledGame& g : games) {
    Game game(v);
    for (std::size_t i = 0; i < g.moves.size() && !game.over(); ++i) {
      if (int(i) >= g.skip) visit(game, g.moves[i]);
      if (!game.play(g.moves[i])) break;  // labelled_games replays them: never
    }
  }
}

}  // namespace

MoveOrderReport measure_move_order(const Variant& v, const Weights& weights,
                                   const std::vector<LabelledGame>& games) {
  MoveOrderReport r;
  r.games = std::int64_t(games.size());
  Searcher searcher(v, weights, 1);  // no search runs: the table is never used
  for_each_position(v, games, [&](const Game& game, Cell played) {
    const MoveRank m = searcher.move_rank(game, played);
    if (!m.quiet) return;
    ++r.positions;
    if (m.rank < 0) {
      ++r.outside;
      return;
    }
    if (std::size_t(m.rank) >= r.by_rank.size()) r.by_rank.resize(std::size_t(m.rank) + 1);
    ++r.by_rank[std::size_t(m.rank)];
    r.searched += m.rank < m.searched;
  });
  return r;
}

namespace {

// The fitted choices: per candidate move its windows' gain and its order
// terms (OrderTerms::Move), flat.
struct Choices {
  std::size_t terms = 0;                 // Weights::order's size
  std::vector<int> windows, shape_gain;  // the gain and the first term
  std::vector<std::int8_t> counts;       // the other terms, terms - 1 a candidate
  std::vector<std::size_t> first{0};     // per choice its first candidate, then the end
  std::vector<std::size_t> played;       // per choice the played candidate

  std::size_t choices() const { return played.size(); }
  // Term k of candidate `row` as it multiplies its weight: the shapes' gain
  // in hundredths, since its weight is in percent.
  double term(std::size_t row, std::size_t k) const {
    return k == 0 ? shape_gain[row] / 100.0 : double(counts[row * (terms - 1) + k - 1]);
  }
};

Choices collect(const Variant& v, const Weights& start, const std::vector<LabelledGame>& games) {
  Choices c;
  c.terms = start.order.size();
  Searcher searcher(v, start, 1);  // no search runs: the table is never used
  for_each_position(v, games, [&](const Game& game, Cell move) {
    const OrderTerms t = searcher.order_terms(game);
    const auto played =
        std::find_if(t.moves.begin(), t.moves.end(), [&](const auto& m) { return m.cell == move; });
    if (played == t.moves.end()) return;
    const auto tier = played->tier;
    if (std::count_if(t.moves.begin(), t.moves.end(),
                      [&](const auto& m) { return m.tier == tier; }) < 2)
      return;  // no choice: a lone move in its tier
    for (const OrderTerms::Move& m : t.moves) {
      if (m.tier != tier) continue;
      if (m.cell == move) c.played.push_back(c.windows.size());
      c.windows.push_back(m.windows);
      c.shape_gain.push_back(m.terms[0]);
      for (std::size_t k = 1; k < c.terms; ++k)
        c.counts.push_back(std::int8_t(std::min(m.terms[k], 127)));
    }
    c.first.push_back(c.windows.size());
  });
  return c;
}

// The logit's features of a candidate: [0] the unit (the windows' gain and
// the terms held at their start values), then the fitted terms.
struct Model {
  const Choices& c;
  std::vector<std::size_t> free;  // the fitted terms' indexes in Weights::order
  std::vector<double> unit;       // per candidate
  std::size_t size() const { return 1 + free.size(); }
  void features(std::size_t row, double* x) const {
    x[0] = unit[row];
    for (std::size_t j = 0; j < free.size(); ++j)
      x[j + 1] = c.term(row, free[j]);
  }
};

struct LogLikelihood {
  double value = 0;        // sum of ln P(played move)
  std::int64_t first = 0;  // choices whose played move scores strictly highest
  std::vector<double> gradient;
  std::vector<double> information;  // minus the Hessian, row-major
};

LogLikelihood log_likelihood(const Model& m, const std::vector<double>& theta, bool derivatives) {
  const std::size_t n = theta.size();
  LogLikelihood r;
  if (derivatives) {
    r.gradient.assign(n, 0.0);
    r.information.assign(n * n, 0.0);
  }
  std::vector<double> x, p, mean(n);
  for (std::size_t g = 0; g < m.c.choices(); ++g) {
    const std::size_t begin = m.c.first[g], size = m.c.first[g + 1] - begin;
    const std::size_t played = m.c.played[g] - begin;
    x.resize(size * n);
    p.resize(size);
    for (std::size_t i = 0; i < size; ++i) {
      m.features(begin + i, &x[i * n]);
      p[i] = std::inner_product(theta.begin(), theta.end(), &x[i * n], 0.0);
    }
    const double top = *std::max_element(p.begin(), p.end());
    double z = 0;
    for (double& pi : p)
      z += (pi = std::exp(pi - top));
    for (double& pi : p)
      pi /= z;
    r.value += std::log(p[played]);
    r.first += std::count_if(p.begin(), p.end(), [&](double q) { return q >= p[played]; }) == 1;
    if (!derivatives) continue;
    // The gradient is the played move's features less their mean under p;
    // the information, their covariance under p.
    std::fill(mean.begin(), mean.end(), 0.0);
    for (std::size_t i = 0; i < size; ++i) {
      const double* xi = &x[i * n];
      for (std::size_t j = 0; j < n; ++j) {
        mean[j] += p[i] * xi[j];
        for (std::size_t k = j; k < n; ++k)
          r.information[j * n + k] += p[i] * xi[j] * xi[k];
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      r.gradient[j] += x[played * n + j] - mean[j];
      for (std::size_t k = j; k < n; ++k)
        r.information[j * n + k] -= mean[j] * mean[k];
    }
  }
  if (derivatives)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t k = 0; k < j; ++k)
        r.information[j * n + k] = r.information[k * n + j];
  return r;
}

// Solves a x = b for a symmetric positive definite `a` (n x n, row-major)
// by Cholesky, in place of b; false when `a` is not positive definite.
bool solve_spd(std::vector<double> a, std::vector<double>& b) {
  const std::size_t n = b.size();
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k)
      d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0)) return false;
    d = std::sqrt(d);
    a[j * n + j] = d;
    for (std::size_t i = j + 1; i < n; ++i) {
      double e = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k)
        e -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = e / d;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {  // L y = b
    for (std::size_t k = 0; k < i; ++k)
      b[i] -= a[i * n + k] * b[k];
    b[i] /= a[i * n + i];
  }
  for (std::size_t i = n; i-- > 0;) {  // L^T x = y
    for (std::size_t k = i + 1; k < n; ++k)
      b[i] -= a[k * n + i] * b[k];
    b[i] /= a[i * n + i];
  }
  return true;
}

// Newton's method on a concave `objective(theta, derivatives)`, which gives
// its value, gradient and information (minus the Hessian): the step from
// the last two, halved until the value does not go down. Returns the steps
// taken.
template <class Objective>
int maximise(const Objective& objective, std::vector<double>& theta, int max_iterations) {
  auto [value, gradient, information] = objective(theta, true);
  int it = 0;
  for (; it < max_iterations; ++it) {
    std::vector<double> step = gradient;
    if (!solve_spd(information, step)) break;
    // The Newton decrement: how much the value can still rise, twice over.
    const double decrement = std::inner_product(step.begin(), step.end(), gradient.begin(), 0.0);
    if (decrement < 1e-8) break;
    double scale = 1;
    bool moved = false;
    for (int half = 0; half < 30 && !moved; ++half, scale /= 2) {
      std::vector<double> next = theta;
      for (std::size_t j = 0; j < next.size(); ++j)
        next[j] += scale * step[j];
      auto [v, g, h] = objective(next, false);
      if (v >= value) {
        theta = next;
        std::tie(value, gradient, information) = objective(theta, true);
        moved = true;
      }
    }
    if (!moved) break;
  }
  return it;
}

}  // namespace

expected<OrderFit, Error> fit_move_order(const Variant& v, const Weights& start,
                                         const std::vector<LabelledGame>& games,
                                         const OrderFitOptions& options) {
  if (start.order.empty() || !start.shapes_on)
    return unexpected(Error{ErrorCode::bad_weights, 0,
                            "the move order has terms to fit only where the shapes are on "
                            "(k = 5 freestyle, eval = shapes)"});
  OrderFit fit;
  fit.weights = start;
  fit.games = std::int64_t(games.size());
  const Choices c = collect(v, start, games);
  fit.positions = std::int64_t(c.choices());
  fit.candidates = std::int64_t(c.windows.size());
  if (c.choices() == 0) return fit;
  const std::size_t rows = c.windows.size();

  // The terms seen often enough are fitted; the others join the unit.
  Model m{c, {}, std::vector<double>(rows)};
  for (std::size_t k = 0; k < c.terms; ++k) {
    std::int64_t seen = 0;
    for (std::size_t row = 0; row < rows; ++row)
      seen += c.term(row, k) != 0;
    if (seen >= options.min_count) m.free.push_back(k);
  }
  for (std::size_t row = 0; row < rows; ++row) {
    m.unit[row] = c.windows[row];
    for (std::size_t k = 0; k < c.terms; ++k)
      if (std::find(m.free.begin(), m.free.end(), k) == m.free.end())
        m.unit[row] += start.order[k] * c.term(row, k);
  }
  const std::size_t n = m.size();
  // The ridge on each fitted term: `ridge` times its variance over the
  // candidates (the unit is free).
  std::vector<double> ridge(n, 0.0);
  for (std::size_t j = 1; j < n; ++j) {
    double sum = 0, squares = 0;
    for (std::size_t row = 0; row < rows; ++row) {
      const double t = c.term(row, m.free[j - 1]);
      sum += t;
      squares += t * t;
    }
    const double mean = sum / double(rows);
    ridge[j] = options.ridge * (squares / double(rows) - mean * mean);
  }
  auto objective = [&](const std::vector<double>& theta, bool derivatives) {
    LogLikelihood l = log_likelihood(m, theta, derivatives);
    for (std::size_t j = 1; j < n; ++j) {
      l.value -= ridge[j] * theta[j] * theta[j];
      if (!derivatives) continue;
      l.gradient[j] -= 2 * ridge[j] * theta[j];
      l.information[j * n + j] += 2 * ridge[j];
    }
    return std::tuple(l.value, std::move(l.gradient), std::move(l.information));
  };

  // The start, at its best scale: a fit of that one number.
  std::vector<double> direction(n, 1.0);
  for (std::size_t j = 1; j < n; ++j)
    direction[j] = start.order[m.free[j - 1]];
  auto scaled = [&](double scale) {
    std::vector<double> theta = direction;
    for (double& t : theta)
      t *= scale;
    return theta;
  };
  auto along = [&](const std::vector<double>& scale, bool derivatives) {
    const LogLikelihood l = log_likelihood(m, scaled(scale[0]), derivatives);
    std::vector<double> g(1, 0.0), h(1, 0.0);
    for (std::size_t j = 0; derivatives && j < n; ++j) {
      g[0] += l.gradient[j] * direction[j];
      for (std::size_t k = 0; k < n; ++k)
        h[0] += direction[j] * l.information[j * n + k] * direction[k];
    }
    return std::tuple(l.value, g, h);
  };
  std::vector<double> scale{0.01};
  maximise(along, scale, options.max_iterations);
  std::vector<double> theta = scaled(scale[0]);
  const LogLikelihood before = log_likelihood(m, theta, false);
  fit.loss_start = -before.value / double(fit.positions);
  fit.first_start = double(before.first) / double(fit.positions);

  // Every fitted term free, from there.
  fit.iterations = maximise(objective, theta, options.max_iterations);
  if (!(theta[0] > 0))
    return unexpected(Error{ErrorCode::bad_weights, 0,
                            "the fit ranks the moves against the windows' gain: no order to "
                            "write in its units"});
  const std::vector<std::string> keys = start.keys();  // the order's come last
  const std::size_t first_key = keys.size() - start.order.size();
  for (std::size_t j = 1; j < n; ++j) {
    const std::size_t k = m.free[j - 1];
    const auto [low, high] = Weights::range(keys[first_key + k]);
    fit.weights.order[k] = int(std::clamp<double>(std::round(theta[j] / theta[0]), low, high));
    fit.fitted.push_back(keys[first_key + k]);
    theta[j] = theta[0] * fit.weights.order[k];  // what the search will use: rounded
  }
  for (std::size_t k = 0; k < c.terms; ++k)
    if (std::find(m.free.begin(), m.free.end(), k) == m.free.end())
      fit.kept.push_back(keys[first_key + k]);
  const LogLikelihood after = log_likelihood(m, theta, false);
  fit.loss_end = -after.value / double(fit.positions);
  fit.first_end = double(after.first) / double(fit.positions);
  return fit;
}

}  // namespace inarow::arena
