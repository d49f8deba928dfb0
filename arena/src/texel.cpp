#include "inarow/arena/texel.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>

#include "inarow/arena/record.h"
#include "inarow/bots/bot.h"
#include "inarow/engine/search.h"
#include "start_weights.h"

namespace inarow::arena {
namespace {

using bots::make_weights_bot;
using bots::MoveBudget;

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

// The weights a fit moves, as one vector: w1..w(k-1), then the threat
// terms, then the shapes, their pairs and the pairs held while they are on
// (off, they count for nothing).
// The tempo stays as it is: with it fixed, the evaluation is still linear in
// the window weights, each multiplying its count plus the tempo's share of
// the mover's own count.
struct Layout {
  // The threat terms, then the shape terms, each a weight vector and the
  // terms it multiplies, place for place.
  static constexpr std::pair<std::vector<int> Weights::*, std::vector<int> EvalTerms::*> kTerms[] =
      {{&Weights::threats, &EvalTerms::threats},
       {&Weights::shapes, &EvalTerms::shapes},
       {&Weights::pairs, &EvalTerms::pairs},
       {&Weights::held_pairs, &EvalTerms::held_pairs}};
  std::size_t counts = 0;
  std::array<std::size_t, std::size(kTerms)> terms{};  // how many of each are fitted
  double tempo = 0;

  explicit Layout(const Weights& w)
      : counts(w.by_count.empty() ? 0 : w.by_count.size() - 1), tempo(w.tempo / 100.0) {
    // The shapes' terms count only while the shapes are on.
    for (std::size_t k = 0; k < terms.size(); ++k)
      terms[k] = k == 0 || w.shapes_on ? (w.*kTerms[k].first).size() : 0;
  }
  std::size_t size() const {
    std::size_t n = counts;
    for (std::size_t t : terms)
      n += t;
    return n;
  }

  std::vector<double> flatten(const Weights& w) const {
    std::vector<double> x;
    for (std::size_t n = 1; n <= counts; ++n)
      x.push_back(w.by_count[n]);
    for (std::size_t k = 0; k < terms.size(); ++k)
      x.insert(x.end(), (w.*kTerms[k].first).begin(),
               (w.*kTerms[k].first).begin() + std::ptrdiff_t(terms[k]));
    return x;
  }
  Weights unflatten(Weights w, const std::vector<double>& x) const {
    std::size_t i = 0;
    for (std::size_t n = 1; n <= counts; ++n)
      w.by_count[n] = int(std::lround(x[i++]));
    for (std::size_t k = 0; k < terms.size(); ++k)
      for (std::size_t t = 0; t < terms[k]; ++t)
        (w.*kTerms[k].first)[t] = int(std::lround(x[i++]));
    return w;
  }
  std::vector<float> features(const EvalTerms& t) const {
    std::vector<float> f;
    f.reserve(size());
    const double mover_sign = t.first_to_move ? 1.0 : -1.0;
    for (std::size_t n = 1; n <= counts; ++n)
      f.push_back(
          float(t.by_count[n] +
                (n < t.mover_by_count.size() ? mover_sign * tempo * t.mover_by_count[n] : 0.0)));
    for (std::size_t k = 0; k < terms.size(); ++k)
      for (std::size_t i = 0; i < terms[k]; ++i)
        f.push_back(float((t.*kTerms[k].second)[i]));
    return f;
  }
  // Window counts stay non-negative (as the tuners have always kept them);
  // the other terms may turn negative, within what Weights::parse reads.
  double lowest(std::size_t i) const { return i < counts ? 0.0 : -10000.0; }
  // Each fitted weight's key, place for place: Weights::keys without the
  // tempo, which the fit holds.
  static std::vector<std::string> names(const Weights& w, std::size_t size) {
    std::vector<std::string> keys = w.keys();
    std::erase(keys, "tempo");
    keys.resize(size);
    return keys;
  }
};

struct Sample {
  std::vector<float> features;
  double label = 0.5;  // the first player's result
};

double result_for_first(Outcome o) {
  return o == Outcome::first_wins ? 1.0 : o == Outcome::second_wins ? 0.0 : 0.5;
}

double eval_of(const std::vector<double>& w, const Sample& s) {
  double e = 0;
  for (std::size_t i = 0; i < w.size(); ++i)
    e += w[i] * s.features[i];
  return e;
}

double mean_loss(const std::vector<Sample>& set, const std::vector<double>& w, double k) {
  double sum = 0;
  for (const Sample& s : set)
    sum += std::pow(s.label - sigmoid(eval_of(w, s) / k), 2);
  return set.empty() ? 0.0 : sum / double(set.size());
}

}  // namespace

TexelResult run_texel(const TexelOptions& o) {
  const Variant& v = o.variant;
  const Weights start = start_weights(v, o.start);
  const Layout layout(start);
  const std::size_t m = layout.size();
  Searcher terms_of(v, start, 1);

  // Every tenth game's positions are held out of the fit, to show that
  // what it learnt holds on games it did not see.
  std::vector<Sample> fit, held;
  auto take = [&](const std::vector<Cell>& moves, Outcome result, int skip, bool held_out) {
    Game game(v);
    for (std::size_t i = 0; i < moves.size() && !game.over(); ++i) {
      if (int(i) >= skip) {
        const EvalTerms t = terms_of.eval_terms(game);
        if (t.quiet)
          (held_out ? held : fit).push_back({layout.features(t), result_for_first(result)});
      }
      if (!game.play(moves[i])) return;  // a record that does not replay gives no more
    }
  };

  if (!o.positions.empty()) {
    for (std::size_t i = 0; i < o.positions.size(); ++i) {
      Game game(v);
      bool replays = true;
      for (Cell c : o.positions[i].moves)
        replays = replays && game.play(c);
      if (!replays || game.over()) continue;
      const EvalTerms t = terms_of.eval_terms(game);
      if (t.quiet)
        (i % 10 == 9 ? held : fit).push_back({layout.features(t), o.positions[i].first_wins});
    }
  } else if (!o.recorded.empty()) {
    for (std::size_t g = 0; g < o.recorded.size(); ++g)
      take(o.recorded[g].moves, o.recorded[g].result, o.recorded[g].skip, g % 10 == 9);
  } else {
    OpeningOptions book_options = o.openings;
    book_options.seed = o.seed;
    const auto book = make_openings(v, book_options);
    std::mt19937_64 rng(o.seed);
    // Self-play. One move in twenty is random, so games from the same
    // opening differ.
    for (int g = 0; g < o.games; ++g) {
      Game game(v);
      for (Cell c : book[std::size_t(g) % book.size()].moves)
        (void)game.play(c);
      const int skip = game.ply();
      auto bot = make_weights_bot(v, start, o.depth);
      while (!game.over()) {
        Cell move;
        if (std::uniform_int_distribution<int>(0, 19)(rng) == 0) {
          const auto moves = game.legal_moves();
          move = moves[std::uniform_int_distribution<std::size_t>(0, moves.size() - 1)(rng)];
        } else {
          move = bot->choose(game, MoveBudget{}).move;
        }
        (void)game.play(move);
      }
      take(game.moves(), game.outcome(), skip, g % 10 == 9);
    }
  }

  TexelResult r;
  r.positions = std::int64_t(fit.size());
  r.held_out = std::int64_t(held.size());
  std::vector<double> w = layout.flatten(start);
  // Fit the scale K for the start weights (golden section on log K).
  double lo = std::log(1e-3), hi = std::log(1e7);
  const double phi = (std::sqrt(5.0) - 1) / 2;
  for (int it = 0; it < 100; ++it) {
    const double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
    if (mean_loss(fit, w, std::exp(x1)) < mean_loss(fit, w, std::exp(x2))) {
      hi = x2;
    } else {
      lo = x1;
    }
  }
  r.k = std::exp((lo + hi) / 2);
  r.loss_start = mean_loss(fit, w, r.k);
  r.held_out_start = mean_loss(held, w, r.k);
  // Then the weights with K fixed, by Adam on the mean squared error.
  double scale = 1;
  for (double x : w)
    scale = std::max(scale, std::abs(x));
  const double lr = o.learning_rate > 0 ? o.learning_rate : scale / 100;
  std::vector<double> mom(m, 0), vel(m, 0);
  // Terms too rare to fit keep their weights.
  std::vector<int> nonzero(m, 0);
  for (const Sample& s : fit)
    for (std::size_t i = 0; i < m; ++i)
      nonzero[i] += s.features[i] != 0;
  std::vector<bool> held_back(m, false);
  const auto names = Layout::names(start, m);
  for (std::size_t i = 0; i < m; ++i)
    if (nonzero[i] < o.min_count) {
      held_back[i] = true;
      r.kept.push_back(names[i]);
    }
  for (int it = 1; it <= o.iterations && !fit.empty(); ++it) {
    std::vector<double> grad(m, 0);
    for (const Sample& s : fit) {
      const double p = sigmoid(eval_of(w, s) / r.k);
      const double d = 2 * (p - s.label) * p * (1 - p) / r.k;
      for (std::size_t i = 0; i < m; ++i)
        grad[i] += d * s.features[i];
    }
    for (std::size_t i = 0; i < m; ++i) {
      if (held_back[i]) continue;
      grad[i] /= double(fit.size());
      mom[i] = 0.9 * mom[i] + 0.1 * grad[i];
      vel[i] = 0.999 * vel[i] + 0.001 * grad[i] * grad[i];
      const double mh = mom[i] / (1 - std::pow(0.9, it)), vh = vel[i] / (1 - std::pow(0.999, it));
      w[i] = std::clamp(w[i] - lr * mh / (std::sqrt(vh) + 1e-12), layout.lowest(i), 10000.0);
    }
  }
  r.loss_end = mean_loss(fit, w, r.k);
  r.held_out_end = mean_loss(held, w, r.k);
  r.weights = layout.unflatten(start, w);
  return r;
}

namespace {

// Reads `text` a line at a time: `take(line, fail, out)` adds what the line
// holds to `out`, or returns the error `fail(why)` makes, which names the
// line; the first error ends the read.
template <typename T, typename Take>
expected<std::vector<T>, Error> read_lines(std::string_view text, Take take) {
  std::vector<T> out;
  int line_no = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    const std::size_t offset = at;
    at = end + 1;
    ++line_no;
    const auto fail = [&](const std::string& why) {
      return Error{ErrorCode::bad_syntax, offset, "line " + std::to_string(line_no) + ": " + why};
    };
    if (std::optional<Error> error = take(line, fail, out)) return unexpected(std::move(*error));
  }
  return out;
}

}  // namespace

expected<std::vector<LabelledGame>, Error> labelled_games(const Variant& v,
                                                          std::string_view records) {
  return read_lines<LabelledGame>(
      records,
      [&](std::string_view line, const auto& fail,
          std::vector<LabelledGame>& out) -> std::optional<Error> {
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) return std::nullopt;
        std::string fingerprint;
        auto g = parse_record_line(line, &fingerprint);
        if (!g) return fail(g.error().message);
        const auto named = Variant::parse(g->variant);
        if (!named || !named->same_board(v)) return std::nullopt;
        if (g->reason != Termination::line && g->reason != Termination::full_board)
          return std::nullopt;
        const auto game = Game::parse(v, g->moves);
        if (!game) return fail("moves: " + game.error().describe());
        const auto opening = Game::parse(v, g->opening);
        if (!opening) return fail("opening: " + opening.error().describe());
        out.push_back({game->moves(), g->result, opening->ply()});
        return std::nullopt;
      });
}

expected<std::vector<LabelledPosition>, Error> labelled_positions(const Variant& v,
                                                                  std::string_view text) {
  return read_lines<LabelledPosition>(
      text,
      [&](std::string_view line, const auto& fail,
          std::vector<LabelledPosition>& out) -> std::optional<Error> {
        if (const auto hash = line.find('#'); hash != std::string_view::npos)
          line = line.substr(0, hash);
        std::istringstream in{std::string(line)};
        std::string moves, chance, extra;
        if (!(in >> moves)) return std::nullopt;  // blank or a comment
        if (!(in >> chance) || (in >> extra)) return fail("expected 'MOVES CHANCE'");
        double p = 0;
        const auto [ptr, ec] = std::from_chars(chance.data(), chance.data() + chance.size(), p);
        if (ec != std::errc{} || ptr != chance.data() + chance.size() || !(p >= 0 && p <= 1))
          return fail("the first player's chance '" + chance + "' is not a number in 0..1");
        const auto game = Game::parse(v, moves);
        if (!game) return fail("moves: " + game.error().describe());
        if (game->over()) return fail("the game is over: no position to evaluate");
        out.push_back({game->moves(), p});
        return std::nullopt;
      });
}

}  // namespace inarow::arena
