#include "inarow/arena/openings.h"

#include <algorithm>
#include <cstdlib>
#include <random>
#include <unordered_set>

#include "inarow/engine/notation.h"

namespace inarow::arena {

int default_opening_plies(const Variant& v) {
  if (v.cells() <= 9) return 1;
  if (v.cells() <= 25) return 2;
  if (v.gravity) return 4;
  return 3;
}

std::vector<Opening> make_openings(const Variant& v, const OpeningOptions& options) {
  const int plies = options.plies >= 0 ? options.plies : default_opening_plies(v);
  std::mt19937_64 rng(options.seed);
  // Without gravity, stones go near the centre as players would open; the
  // radius leaves room for variety on big boards.
  const int radius = std::max(1, std::min(v.width, v.height) / 5);
  const int cc = v.width / 2, cr = v.height / 2;
  auto near_centre = [&](Cell c) {
    return v.gravity || v.cells() <= 25 ||
           (std::abs(v.col(c) - cc) <= radius && std::abs(v.row(c) - cr) <= radius);
  };

  struct Candidate {
    Opening opening;
    int order;
  };
  std::vector<Candidate> candidates;
  std::unordered_set<std::uint64_t> seen;
  const int wanted = std::max(1, options.count) * 3;
  Searcher searcher(v, Weights::defaults(v), 4);
  for (int attempt = 0; attempt < wanted * 20 && int(candidates.size()) < wanted; ++attempt) {
    Game game(v);
    bool ok = true;
    for (int i = 0; i < plies && ok; ++i) {
      std::vector<Cell> moves;
      for (Cell c : game.legal_moves())
        if (near_centre(c)) moves.push_back(c);
      if (moves.empty()) {
        ok = false;
        break;
      }
      const Cell c = moves[std::uniform_int_distribution<std::size_t>(0, moves.size() - 1)(rng)];
      ok = game.play(c).has_value() && !game.over();
    }
    if (!ok || !seen.insert(game.key()).second) continue;
    Opening o;
    o.moves = game.moves();
    o.notation = game.notation();
    if (options.depth > 0) {
      searcher.clear();
      const auto r = searcher.search(game, Limits{.depth = options.depth});
      if (is_mate_score(r.score)) continue;  // decided already: not an opening
      o.score = r.score;
    }
    candidates.push_back({std::move(o), int(candidates.size())});
  }
  // Keep the most even, then restore the order they were drawn in.
  std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    return std::abs(a.opening.score) < std::abs(b.opening.score);
  });
  if (int(candidates.size()) > options.count) candidates.resize(std::max(1, options.count));
  std::sort(candidates.begin(), candidates.end(),
            [](const auto& a, const auto& b) { return a.order < b.order; });
  std::vector<Opening> book;
  for (auto& c : candidates)
    book.push_back(std::move(c.opening));
  if (book.empty()) book.push_back(Opening{});  // a variant too small to open: the empty board
  return book;
}

}  // namespace inarow::arena
