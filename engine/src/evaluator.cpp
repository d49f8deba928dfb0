#include "inarow/engine/evaluator.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>

#include "shapes.h"

namespace inarow {
namespace {
constexpr std::string_view kThreatKeys[] = {"four", "three", "their_four", "their_three"};
constexpr std::string_view kShapeKeys[] = {
    "shape_two",       "shape_open_two", "shape_three",  "shape_open_three", "shape_four",
    "shape_open_four", "shape_five",     "double_three", "four_three",       "double_four"};
// Weights::pairs, by detail::pair_index: pair_<best>_<second>.
constexpr std::string_view kPairKeys[] = {
    "pair_open_two_none",       "pair_open_two_two",     "pair_open_two_open_two",
    "pair_three_none",          "pair_three_two",        "pair_three_open_two",
    "pair_three_three",         "pair_open_three_none",  "pair_open_three_two",
    "pair_open_three_open_two", "pair_open_three_three", "pair_open_three_open_three",
    "pair_four_none",           "pair_four_two",         "pair_four_open_two",
    "pair_four_three",          "pair_four_open_three",  "pair_four_four"};
static_assert(std::size(kPairKeys) == detail::kPairs);
// Weights::held_pairs: held_<pair> for the side to move, their_held_<pair>.
const std::array<std::string, 2 * detail::kPairs>& held_pair_keys() {
  static const auto keys = [] {
    std::array<std::string, 2 * detail::kPairs> out;
    for (int i = 0; i < detail::kPairs; ++i) {
      const std::string pair(kPairKeys[i].substr(5));  // past "pair_"
      out[std::size_t(i)] = "held_" + pair;
      out[std::size_t(detail::kPairs + i)] = "their_held_" + pair;
    }
    return out;
  }();
  return keys;
}
// Weights::gain_shapes: the shapes' keys for the order's copy.
constexpr std::string_view kGainShapeKeys[] = {
    "gain_shape_two",  "gain_shape_open_two",  "gain_shape_three", "gain_shape_open_three",
    "gain_shape_four", "gain_shape_open_four", "gain_shape_five",  "gain_double_three",
    "gain_four_three", "gain_double_four"};
static_assert(std::size(kGainShapeKeys) == std::size(kShapeKeys));
// Weights::order, place for place (engine/src/shapes.h has the layout).
constexpr std::string_view kOrderKeys[] = {"order_shape_gain",
                                           "order_two",
                                           "order_open_two",
                                           "order_three",
                                           "order_open_three",
                                           "order_four",
                                           "order_open_four",
                                           "order_their_two",
                                           "order_their_open_two",
                                           "order_their_three",
                                           "order_their_open_three",
                                           "order_their_four",
                                           "order_their_open_four",
                                           "order_double_three",
                                           "order_four_three",
                                           "order_double_four",
                                           "order_their_double_three",
                                           "order_their_four_three",
                                           "order_their_double_four",
                                           "order_near_1",
                                           "order_near_2",
                                           "order_near_3",
                                           "order_near_own_1",
                                           "order_near_own_2"};
static_assert(std::size(kOrderKeys) == detail::kOrderTerms);
// Why `name` names no weight of v's: a key of another kind of board, a
// window count out of range, or no key at all.
std::string not_a_weight(const Variant& v, std::string_view name) {
  const std::string quoted = "'" + std::string(name) + "'";
  if (name.starts_with("gain_w") && detail::shapes_fit(v))
    return quoted + " is out of range (gain_w1..gain_w" + std::to_string(v.k - 1) + ")";
  auto among = [name](const auto& keys) {
    return std::find(std::begin(keys), std::end(keys), name) != std::end(keys);
  };
  if (among(kShapeKeys) || among(kPairKeys) || among(held_pair_keys()) || among(kGainShapeKeys) ||
      among(kOrderKeys) || name.starts_with("gain_w"))
    return quoted + " needs k = 5 without gravity (freestyle)";
  if (among(kThreatKeys))
    return quoted + " needs k >= 5 without gravity";
  const std::string windows = "(w1..w" + std::to_string(v.k - 1) + ")";
  int n = 0;
  if (name.size() >= 2 && name[0] == 'w' &&
      std::from_chars(name.data() + 1, name.data() + name.size(), n).ptr ==
          name.data() + name.size())
    return "w" + std::to_string(n) + " is out of range " + windows;
  return "unknown key " + quoted + " (expected " + windows.substr(1);
}

}  // namespace

std::pair<int, int> Weights::range(std::string_view key) {
  if (key == "tempo") return {-100, 1000};
  return {-10000, 10000};
}

namespace {

// The built-in weights, before the order's copy of its gain values.
Weights builtin(const Variant& v) {
  Weights w;
  // Tuned by inarow-arena (Texel, then SPSA) and accepted by an SPRT against
  // the hand-set seeds below: see bots/weights/ for the runs and the matches.
  if (v.same_board(Variant::connect4())) {
    w.by_count = {0, 5, 13, 33};  // +99 Elo over the seeds at depth 4
    return w;
  }
  if (v.k >= 5 && !v.gravity) {
    // Gomoku's first SPSA at 50,000 nodes a move (windows only) moved these
    // from the hand-set 15, 40, 10, 25 and the tempo from 50; boards this wide
    // other than freestyle gomoku's keep them. A tempo of 50 had beaten none
    // by +139 Elo at equal nodes (bench/gomoku/RESULTS.md).
    w.threats = {3, 47, 13, 32};
    w.tempo = 58;
  }
  if (detail::shapes_fit(v)) {
    // Hand-set, on top of the windows, and off: these scored +35 -45 over 80
    // games in self-play (bench/gomoku/RESULTS.md). Only freestyle gomoku's
    // board, below, has shapes tuned and on.
    w.shapes = {0, 1, 1, 4, 4, 12, 16, 20, 30, 30};
    w.pairs.assign(detail::kPairs, 0);
    w.held_pairs.assign(2 * detail::kPairs, 0);
    w.shapes_on = false;
    // The move order's terms (used where the shapes are on): fitted by
    // inarow-arena order --fit to pbrain-rapfi's moves in 1,570 of its
    // self-play games; the rare winning shapes keep the 500 they were
    // capped at. With only the mover's fours first, +321 =14 -265 over
    // the fit before with both sides' (bots/weights/gomoku.txt).
    w.order = {148, -8, 21, 12,  27,  22, 500, -1, 16, 16, 45, 35,
               47,  10, 68, 500, -38, -4, 9,   21, 14, 12, 20, 13};
  }
  if (v.same_board(Variant::gomoku())) {
    // Freestyle gomoku scores shapes on top of the windows. The score's
    // weights are fitted (texel --labels) to pbrain-rapfi's evaluation of
    // 10,981 quiet positions of our own self-play, terms in fewer than 300
    // of them held (bots/weights/gomoku.txt has the run and the matches).
    w.by_count = {0, 5, 22, 16, 32};
    w.threats = {-6, 48, 13, 33};
    w.tempo = 69;
    w.shapes = {0, 0, 0, 7, 39, 16, 20, -42, 252, 31};
    // The pairs, fitted to the same labels with the weights above held
    // (held-out error 0.0684 -> 0.0616): +815 =24 -761 over 1,600 games at
    // 300,000 nodes, then GSPRT(0, 10) H1 (bots/weights/gomoku.txt).
    w.pairs = {-6,  -2,  1,                // open two and none, a two, an open two
               -5,  -6,  4,  4,            // three
               -10, -15, 21, 9,  26,       // open three
               -21, -18, 39, 28, 9,  11};  // four
    // The pairs held, the mover's then the opponent's, in the pairs' order;
    // fitted to the same labels with every weight above held (held-out
    // error 0.0616 -> 0.0560): GSPRT(0, 10) H1 after 1,139 games at 300,000
    // nodes, +598 =29 -512 (bots/weights/gomoku.txt).
    w.held_pairs = {-12, -4, 68,  -74, -24, 37,  -10, 1,  -2,  99,  70,  106,
                    37,  8,  62,  5,   266, 0,   -52, 1,  -20, 39,  -2,  -21,
                    -23, 10, -22, -15, -8,  -18, 22,  -6, 14,  -38, -98, -34};
    w.shapes_on = true;
    // The order's gain keeps the values its terms were fitted with: the
    // SPSA set before (+16.4 +- 12.2 Elo at 300,000 nodes over the one
    // before it, GSPRT(0, 10) accepted after 1,926 games).
    w.gain_by_count = {0, 3, 16, 51, 32};
    w.gain_shapes = {1, -2, 1, 4, 7, 16, 20, 18, 37, 31};
    return w;
  }
  if (v.same_board(Variant::gomoku_standard())) {
    // Tuned with the threat terms and the tempo above, for freestyle before
    // its shapes were on (SPSA at 50,000 nodes, from 1, 8, 27, 28): +42 Elo
    // at 300,000 nodes, +40 at 300 ms a move. The standard rule, which has no
    // shape tables, borrows them (not tuned for it).
    w.by_count = {0, 2, 14, 36, 23};
    return w;
  }
  w.by_count.assign(v.k, 0);
  if (v.k == 3) {  // the seeds' tic-tac-toe weights: 2 -> 2, 1 -> 1
    w.by_count[1] = 1;
    w.by_count[2] = 2;
    return w;
  }
  if (v.k == 4) {  // connect four and friends: three in a window is a threat
    w.by_count[1] = 1;
    w.by_count[2] = 6;
    w.by_count[3] = 40;
    return w;
  }
  // Longer lines: each stone in a clean window is worth about five times the last.
  int value = 1;
  for (int n = 1; n < v.k; ++n) {
    w.by_count[n] = value;
    value *= 5;
  }
  return w;
}

}  // namespace

Weights Weights::defaults(const Variant& v) {
  Weights w = builtin(v);
  // Where the order has terms of its own, its gain keeps the values it was
  // fitted with, whatever a tuner does to the score's.
  if (!w.order.empty() && w.gain_by_count.empty()) {
    w.gain_by_count = w.by_count;
    w.gain_shapes = w.shapes;
  }
  return w;
}

expected<Weights, Error> Weights::parse(const Variant& v, std::string_view text) {
  Weights w = defaults(v);
  std::size_t line_start = 0;
  int line_no = 0;
  while (line_start <= text.size()) {
    std::size_t end = text.find('\n', line_start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(line_start, end - line_start);
    ++line_no;
    const std::size_t offset = line_start;
    line_start = end + 1;
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    auto trim = [](std::string_view s) {
      while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
      while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
      return s;
    };
    line = trim(line);
    if (line.empty()) continue;
    auto fail = [&](std::string why) {
      return unexpected(
          Error{ErrorCode::bad_weights, offset, "line " + std::to_string(line_no) + ": " + why});
    };
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) return fail("expected 'wN = value'");
    const std::string_view name = trim(line.substr(0, eq));
    const std::string_view value = trim(line.substr(eq + 1));
    if (name == "variant") {
      // A game's weights serve it under any opening.
      if (const auto named = Variant::parse(value); !named || !named->same_board(v))
        return fail("weights are for '" + std::string(value) + "', not '" + v.name + "'");
      continue;
    }
    if (name == "eval") {
      if (value != "shapes" && value != "windows")
        return fail("eval is 'shapes' or 'windows', not '" + std::string(value) + "'");
      if (value == "shapes" && w.shapes.empty())
        return fail("eval = shapes needs k = 5 without gravity (freestyle)");
      w.shapes_on = value == "shapes";
      continue;
    }
    int* weight = w.find(name);
    if (!weight) return fail(not_a_weight(v, name));
    int x = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), x);
    if (ec != std::errc{} || ptr != value.data() + value.size())
      return fail("'" + std::string(value) + "' is not a whole number");
    if (const auto [low, high] = range(name); x < low || x > high)
      return fail(std::string(name) + " must lie within " + std::to_string(low) + ".." +
                  std::to_string(high) + (name == "tempo" ? " (percent)" : ""));
    *weight = x;
  }
  return w;
}

long long Weights::evaluate(const EvalTerms& t) const {
  // The weights times their terms, from `from` on (window counts start at 1).
  auto dot = [](const std::vector<int>& w, const std::vector<int>& terms, std::size_t from = 0) {
    long long sum = 0;
    for (std::size_t i = from; i < w.size() && i < terms.size(); ++i)
      sum += static_cast<long long>(w[i]) * terms[i];
    return sum;
  };
  long long e = dot(by_count, t.by_count, 1);
  // As the search adds it: a whole-number share of the mover's own sum.
  e += (t.first_to_move ? 1 : -1) * (dot(by_count, t.mover_by_count, 1) * tempo / 100);
  e += dot(threats, t.threats);
  if (shapes_on) e += dot(shapes, t.shapes) + dot(pairs, t.pairs) + dot(held_pairs, t.held_pairs);
  return e;
}

std::vector<std::string> Weights::keys() const {
  std::vector<std::string> out;
  for (std::size_t n = 1; n < by_count.size(); ++n)
    out.push_back("w" + std::to_string(n));
  for (std::size_t i = 0; i < threats.size() && i < std::size(kThreatKeys); ++i)
    out.emplace_back(kThreatKeys[i]);
  out.emplace_back("tempo");
  for (std::size_t i = 0; i < shapes.size() && i < std::size(kShapeKeys); ++i)
    out.emplace_back(kShapeKeys[i]);
  for (std::size_t i = 0; i < pairs.size() && i < std::size(kPairKeys); ++i)
    out.emplace_back(kPairKeys[i]);
  for (std::size_t i = 0; i < held_pairs.size() && i < held_pair_keys().size(); ++i)
    out.push_back(held_pair_keys()[i]);
  for (std::size_t n = 1; n < gain_by_count.size(); ++n)
    out.push_back("gain_w" + std::to_string(n));
  for (std::size_t i = 0; i < gain_shapes.size() && i < std::size(kGainShapeKeys); ++i)
    out.emplace_back(kGainShapeKeys[i]);
  for (std::size_t i = 0; i < order.size() && i < std::size(kOrderKeys); ++i)
    out.emplace_back(kOrderKeys[i]);
  return out;
}

int* Weights::find(std::string_view key) {
  if (key == "tempo") return &tempo;
  auto in = [key](const auto& names, std::vector<int>& values) -> int* {
    const auto* at = std::find(std::begin(names), std::end(names), key);
    const auto i = static_cast<std::size_t>(at - std::begin(names));
    return at != std::end(names) && i < values.size() ? &values[i] : nullptr;
  };
  if (int* x = in(kThreatKeys, threats)) return x;
  if (int* x = in(kShapeKeys, shapes)) return x;
  if (int* x = in(kPairKeys, pairs)) return x;
  if (int* x = in(held_pair_keys(), held_pairs)) return x;
  if (int* x = in(kOrderKeys, order)) return x;
  if (int* x = in(kGainShapeKeys, gain_shapes)) return x;
  // wN, gain_wN: a window count's weight, the score's or the order's.
  std::vector<int>& counts = key.starts_with("gain_") ? gain_by_count : by_count;
  if (key.starts_with("gain_")) key.remove_prefix(5);
  int n = 0;
  if (key.size() < 2 || key[0] != 'w' ||
      std::from_chars(key.data() + 1, key.data() + key.size(), n).ptr != key.data() + key.size() ||
      n < 1 || static_cast<std::size_t>(n) >= counts.size())
    return nullptr;
  return &counts[static_cast<std::size_t>(n)];
}

std::string Weights::to_text() const {
  std::string out;
  for (const std::string& key : keys()) {
    // The switch between the evaluators goes before the shapes' weights.
    if (key == kShapeKeys[0])
      out += std::string("eval = ") + (shapes_on ? "shapes" : "windows") + "\n";
    out += key + " = " + std::to_string(*find(key)) + "\n";
  }
  return out;
}

}  // namespace inarow
