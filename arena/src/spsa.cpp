#include "inarow/arena/spsa.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "inarow/arena/player.h"
#include "inarow/arena/referee.h"
#include "inarow/bots/bot.h"
#include "start_weights.h"

namespace inarow::arena {
namespace {

using bots::make_weights_bot;

// Unbiased rounding: x rounds up with probability frac(x), as fishtest plays
// integer parameters.
int random_round(double x, std::mt19937_64& rng) {
  const double f = std::floor(x);
  return int(f) + (std::uniform_real_distribution<double>(0, 1)(rng) < x - f ? 1 : 0);
}

// One pair from `opening`: a first, then b first. Returns a's wins - losses.
int play_pair(const Variant& v, const Opening& opening, const Weights& a, const Weights& b,
              int depth, std::uint64_t nodes, Trinomial* a_games) {
  int net = 0;
  for (int swap = 0; swap < 2; ++swap) {
    auto pa = make_bot_player(make_weights_bot(v, a, depth, nodes), "plus");
    auto pb = make_bot_player(make_weights_bot(v, b, depth, nodes), "minus");
    const auto g = swap == 0 ? play_game(v, opening, *pa, *pb, TimeLimits{})
                             : play_game(v, opening, *pb, *pa, TimeLimits{});
    const bool a_first = swap == 0;
    if (g.result == Outcome::draw) {
      ++a_games->draws;
    } else if ((g.result == Outcome::first_wins) == a_first) {
      ++a_games->wins;
      ++net;
    } else {
      ++a_games->losses;
      --net;
    }
  }
  return net;
}

// Where a weight may go: what Weights::parse reads, and the window counts
// (w1.., the only keys starting with 'w') within the options' bounds too,
// as the tuner has always kept them.
std::pair<double, double> bounds(const SpsaOptions& o, const std::string& key) {
  const auto [low, high] = Weights::range(key);
  if (key.starts_with('w'))
    return {std::max<double>(low, o.min_weight), std::min<double>(high, o.max_weight)};
  return {low, high};
}

}  // namespace

std::vector<std::string> spsa_default_keys(const Weights& w) {
  std::vector<std::string> keys = w.keys();
  // The shapes and their pairs come last but for the order's gain values
  // and terms (Weights::keys), which no game result fits by default:
  // --params names them, order --fit fits the terms to a strong player's
  // moves.
  keys.resize(keys.size() - w.order.size() - w.gain_shapes.size() -
              (w.gain_by_count.empty() ? 0 : w.gain_by_count.size() - 1) -
              (w.shapes_on ? 0 : w.shapes.size() + w.pairs.size() + w.held_pairs.size()));
  if (w.tempo == 0) std::erase(keys, "tempo");
  return keys;
}

SpsaResult run_spsa(const SpsaOptions& o,
                    const std::function<void(int, const std::vector<double>&)>& on_iteration) {
  const Variant& v = o.variant;
  const Weights start = start_weights(v, o.start);
  SpsaResult r;
  r.keys = o.keys.empty() ? spsa_default_keys(start) : o.keys;
  const int m = int(r.keys.size());
  std::vector<double> theta(m), c(m), a(m), low(m), high(m);
  const double N = std::max(1, o.iterations);
  const double A = o.A >= 0 ? o.A : 0.1 * N;
  for (int i = 0; i < m; ++i) {
    const int* w = start.find(r.keys[i]);
    if (!w) throw std::invalid_argument("no weight '" + r.keys[i] + "' for " + v.name);
    theta[i] = *w;
    std::tie(low[i], high[i]) = bounds(o, r.keys[i]);
    // Not given (or NaN): the defaults.
    const auto given = [i](const std::vector<double>& x) {
      return i < int(x.size()) && !std::isnan(x[i]);
    };
    const double c_end = given(o.c_end) ? o.c_end[i] : std::max(1.0, std::abs(theta[i]) / 10);
    const double r_end = given(o.r_end) ? o.r_end[i] : 0.002;
    c[i] = c_end * std::pow(N, o.gamma);
    a[i] = r_end * c_end * c_end * std::pow(A + N, o.alpha);
  }
  OpeningOptions book_options = o.openings;
  book_options.seed = o.seed;
  const auto book = make_openings(v, book_options);
  std::mt19937_64 rng(o.seed);

  r.history.push_back(theta);
  for (int k = 1; k <= int(N) && !(o.stop && o.stop->load()); ++k) {
    Weights plus = start, minus = start;
    std::vector<double> step(m), flip(m);
    for (int i = 0; i < m; ++i) {
      const double ck = c[i] / std::pow(k, o.gamma);
      flip[i] = (rng() & 1) ? 1.0 : -1.0;
      *plus.find(r.keys[i]) =
          std::clamp(random_round(theta[i] + ck * flip[i], rng), int(low[i]), int(high[i]));
      *minus.find(r.keys[i]) =
          std::clamp(random_round(theta[i] - ck * flip[i], rng), int(low[i]), int(high[i]));
      // R_k c_k = (a_k / c_k^2) c_k: the step per unit of game result.
      step[i] = c[i] == 0 ? 0 : (a[i] / std::pow(A + k, o.alpha)) / ck;
    }
    // The iteration's pairs run in parallel, each with its own bots.
    const int pairs = std::max(1, o.pairs_per_iteration);
    std::vector<std::size_t> openings(pairs);
    for (auto& x : openings)
      x = std::uniform_int_distribution<std::size_t>(0, book.size() - 1)(rng);
    std::vector<int> nets(pairs, 0);
    std::vector<Trinomial> games(pairs);
    std::vector<std::thread> threads;
    for (int p = 1; p < pairs; ++p)
      threads.emplace_back([&, p] {
        nets[p] = play_pair(v, book[openings[p]], plus, minus, o.depth, o.nodes, &games[p]);
      });
    nets[0] = play_pair(v, book[openings[0]], plus, minus, o.depth, o.nodes, &games[0]);
    for (auto& t : threads)
      t.join();
    int result = 0;
    for (int p = 0; p < pairs; ++p) {
      result += nets[p];
      r.plus.wins += games[p].wins;
      r.plus.draws += games[p].draws;
      r.plus.losses += games[p].losses;
      r.games += 2;
    }
    for (int i = 0; i < m; ++i)
      theta[i] = std::clamp(theta[i] + step[i] * result * flip[i], low[i], high[i]);
    r.history.push_back(theta);
    r.iterations = k;
    if (on_iteration) on_iteration(k, theta);
  }
  r.weights = start;
  for (int i = 0; i < m; ++i)
    *r.weights.find(r.keys[i]) = int(std::lround(theta[i]));
  return r;
}

std::string spsa_history_csv(const SpsaResult& r) {
  std::ostringstream out;
  out << "iteration";
  for (const std::string& key : r.keys)
    out << ',' << key;
  out << '\n';
  for (std::size_t k = 0; k < r.history.size(); ++k) {
    out << k;
    for (double x : r.history[k])
      out << ',' << x;
    out << '\n';
  }
  return out.str();
}

std::string spsa_history_svg(const SpsaResult& r, const std::string& title) {
  static constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                             "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
  const std::size_t n = r.history.size();
  const std::size_t m = n ? r.history[0].size() : 0;
  // Tall enough for the legend's row per weight.
  const double W = 800, left = 60, right = 220, top = 40, bottom = 50;
  const double H = std::max(420.0, top + 20.0 * double(m) + bottom);
  const double pw = W - left - right, ph = H - top - bottom;
  std::ostringstream out;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n",
                W, H);
  out << buf << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out << "<text x=\"" << W / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" << title
      << "</text>\n";
  // Axes: x = iteration, y = weight / max |weight| over the run, from -1
  // where a weight went negative, else from 0.
  double lo = 0;
  for (const auto& h : r.history)
    for (double x : h)
      if (x < 0) lo = -1;
  const auto y_of = [&](double ratio) { return top + ph - ph * (ratio - lo) / (1 - lo); };
  std::snprintf(buf, sizeof buf,
                "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n"
                "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n",
                left, top + ph, left + pw, top + ph, left, top, left, top + ph);
  out << buf;
  for (int t = 0; t <= 4; ++t) {
    const double value = lo + (1 - lo) * t / 4.0;
    const double y = y_of(value);
    std::snprintf(buf, sizeof buf,
                  "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.2f</text>"
                  "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                  left - 6, y + 4, value, left, y, left + pw, y);
    out << buf;
    const double x = left + pw * t / 4.0;
    std::snprintf(buf, sizeof buf,
                  "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%.0f</text>\n", x,
                  top + ph + 18, (n ? double(n - 1) : 0) * t / 4.0);
    out << buf;
  }
  out << "<text x=\"" << left + pw / 2 << "\" y=\"" << H - 10
      << "\" text-anchor=\"middle\">iteration</text>\n";
  out << "<text x=\"16\" y=\"" << top + ph / 2 << "\" transform=\"rotate(-90 16 " << top + ph / 2
      << ")\" text-anchor=\"middle\">weight / largest value</text>\n";
  for (std::size_t i = 0; i < m; ++i) {
    double peak = 1e-9;
    for (const auto& h : r.history)
      peak = std::max(peak, std::abs(h[i]));
    out << "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\""
        << kColours[i % std::size(kColours)] << "\" points=\"";
    // At most about 600 points a line: enough for the eye, small files.
    const std::size_t stride = std::max<std::size_t>(1, n / 600);
    for (std::size_t k = 0; k < n; k += (k + stride < n || k + 1 == n) ? stride : n - 1 - k) {
      const double x = left + (n > 1 ? pw * double(k) / double(n - 1) : 0);
      const double y = y_of(std::clamp(r.history[k][i] / peak, lo, 1.0));
      std::snprintf(buf, sizeof buf, "%.1f,%.1f ", x, y);
      out << buf;
    }
    out << "\"/>\n";
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                  "<text x=\"%.0f\" y=\"%.0f\">%s: %.1f &#8594; %.1f</text>\n",
                  left + pw + 16, top + 20.0 * double(i), kColours[i % std::size(kColours)],
                  left + pw + 34, top + 20.0 * double(i) + 10,
                  i < r.keys.size() ? r.keys[i].c_str() : "?", r.history.front()[i],
                  r.history.back()[i]);
    out << buf;
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace inarow::arena
