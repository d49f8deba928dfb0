// Search: negamax with alpha-beta, iterative deepening, a transposition table,
// move ordering (TT move, threats, killers, history, centre first), limits by
// depth, nodes and time, cancellation from another thread, and mate-distance
// scores. Run to the end of the game it solves a position exactly.
//
// Searcher is the facade: one per thread (it owns its transposition table);
// it dispatches to the search of the right board width.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "inarow/engine/evaluator.h"
#include "inarow/engine/game.h"

namespace inarow {

// Scores are from the side to move's view. A win in p plies scores kMate - p,
// a loss in p plies -(kMate - p); heuristic scores stay within +-kMaxEval.
using Score = int;
inline constexpr Score kMate = 30000;
inline constexpr Score kMaxEval = 20000;
inline constexpr Score kInfinity = 32000;

constexpr bool is_mate_score(Score s) {
  return s > kMaxEval || s < -kMaxEval;
}
// Plies until the game ends for a mate score (the winning move included).
constexpr int mate_plies(Score s) {
  return s > 0 ? kMate - s : kMate + s;
}

struct Limits {
  int depth = 0;                            // plies; 0 = no depth limit
  std::uint64_t nodes = 0;                  // 0 = no node limit
  std::chrono::milliseconds time{0};        // 0 = no time limit
  const std::atomic<bool>* stop = nullptr;  // set from another thread to cancel
  // The time is this move's alone (a fixed time per move, lost if unused):
  // iterate until it runs out. Otherwise (a clock's share, whose savings
  // go to later moves) no iteration starts that looks unlikely to finish.
  bool use_all_time = false;
};

struct SearchInfo {  // reported after every completed iteration
  int depth = 0;
  Score score = 0;
  std::uint64_t nodes = 0;
  std::chrono::microseconds elapsed{0};
  std::vector<Cell> pv;
};

struct SearchResult {
  Cell best = kNoCell;
  Score score = 0;
  int depth = 0;       // last completed iteration
  bool exact = false;  // the score is proven (searched to the end of the game)
  std::uint64_t nodes = 0;
  std::chrono::microseconds elapsed{0};
  std::vector<Cell> pv;
};

struct MoveScore {
  Cell move;
  Score score;
};

struct Solution {
  Outcome value_for_mover;  // first_wins = the side to move wins, second_wins = loses
  int plies = -1;           // length of the rest of the game; -1 when weak
  Cell best = kNoCell;
  Score score = 0;
  std::uint64_t nodes = 0;
};

// Where a move comes in the order the search tries a position's moves
// (Searcher::move_rank).
struct MoveRank {
  // False where the position leaves no choice for the order to make: a
  // five, a four or a three of the opponent's to answer, or a win of the
  // side to move's own in two moves. The rest are left at their defaults.
  bool quiet = false;
  int rank = -1;       // 0 = tried first; -1 = not a candidate (no stone near it)
  int candidates = 0;  // the moves the order ranks
  int searched = 0;    // how many of them a node near the horizon searches (the forward
                       // prune; a deeper one searches more)
};

// A quiet position's candidate moves as the order weighs them
// (Searcher::order_terms). Where shapes are on, an interior node tries the
// higher tiers first, then within a tier the higher `windows` plus the dot
// product of Weights::order with `terms` (the first term, the shapes' gain,
// weighed in percent), then the cells nearer the centre; the table's move,
// killers and history come on top in a search. What lets a fitter set
// Weights::order to a strong player's choices (inarow-arena order --fit).
struct OrderTerms {
  struct Move {
    Cell cell = kNoCell;
    // 2 if it makes or stops a straight four, plus 1 if it makes a four
    // (the mover's: where shapes are on, a cell where the opponent would
    // make one is ranked by order_their_four like any quiet move).
    int tier = 0;
    int windows = 0;         // the windows' gain, the order's unit
    std::vector<int> terms;  // place for place with Weights::order
  };
  bool quiet = false;       // as MoveRank::quiet; no moves when false
  std::vector<Move> moves;  // every candidate, in no particular order
};

class Searcher {
 public:
  explicit Searcher(const Variant& v, Weights weights = {}, std::size_t tt_megabytes = 16);
  ~Searcher();
  Searcher(Searcher&&) noexcept;
  Searcher& operator=(Searcher&&) noexcept;

  const Variant& variant() const;
  // Best move by iterative deepening within the limits. The game must not be over.
  SearchResult search(const Game& game, const Limits& limits,
                      const std::function<void(const SearchInfo&)>& on_iteration = {});
  // Each legal move's score to the given limits (for bots that choose among
  // near-best moves). Sorted best first.
  std::vector<MoveScore> score_moves(const Game& game, const Limits& limits);
  // The exact value of the position, and with weak == false the exact length of
  // the rest of the game under perfect play. Stops early (best effort) only if
  // `stop` is set.
  Solution solve(const Game& game, bool weak = false, const std::atomic<bool>* stop = nullptr);
  // The evaluation a leaf of the search returns where it stands pat, from the
  // side to move's view, and the same term by term (for tuners: the first
  // is the weights' dot product with the second, signed for the side to
  // move and clamped into +-kMaxEval). The game must not be over.
  Score evaluate(const Game& game);
  EvalTerms eval_terms(const Game& game);
  // Where `move` comes in the order an interior node of a fresh search
  // tries the position's moves (no table move, killers or history; this
  // searcher's own are left as they were). Set against a strong player's
  // games, it tells how often the move that player chose is searched at
  // all (inarow-arena order). The game must not be over.
  MoveRank move_rank(const Game& game, Cell move);
  // The terms the order weighs each candidate move by, on a board where
  // shapes are on (elsewhere, or where the position is not quiet, no
  // moves). The game must not be over.
  OrderTerms order_terms(const Game& game);
  // Forget everything learnt (the transposition table and the move-ordering history).
  void clear();
  void set_weights(Weights w);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The reference: plain minimax over the whole tree, no pruning, no table.
// Used by tests to check the fast search. Returns the score with the same
// mate-distance convention and counts every node visited.
struct MinimaxResult {
  Score score = 0;
  std::uint64_t nodes = 0;
};
MinimaxResult plain_minimax(const Game& game);

}  // namespace inarow
