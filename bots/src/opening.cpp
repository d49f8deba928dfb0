#include "inarow/bots/opening.h"

#include <algorithm>
#include <cstdlib>
#include <random>

namespace inarow::bots {

namespace {

// Candidate stone sets the proposer values at place_three (two searches
// each): enough to pick a near-even one, few enough that a level's own time
// per search (budget 0) stays affordable.
constexpr int kCandidates = 4;
// The proposer's stones fall within this many cells of the centre along
// both axes: a 5x5 square on gomoku's board.
constexpr int kCentreRadius = 2;
// Draws per candidate before a set the proposer already has is let through.
constexpr int kRedraws = 8;

// One search's share when `searches` run under `budget`.
MoveBudget share(const MoveBudget& budget, int searches) {
  MoveBudget one = budget;
  if (budget.time.count() > 0)
    one.time = std::max(std::chrono::milliseconds(1), budget.time / std::max(1, searches));
  return one;
}

bool stopped(const MoveBudget& budget) {
  return budget.stop && budget.stop->load();
}

// The score of a search of `game` from `side`'s view.
Score for_side(const Game& game, const Choice& c, Side side) {
  return game.to_move() == side ? c.score : -c.score;
}

// Twice the Chebyshev distance from the board's centre: whole numbers on
// even boards too, whose centre lies between four cells.
int off_centre(const Variant& v, Cell c) {
  return std::max(std::abs(2 * v.col(c) - (v.width - 1)), std::abs(2 * v.row(c) - (v.height - 1)));
}

// The legal cells within kCentreRadius of the centre (of the middle cell,
// or on even boards of the middle four); every legal cell if none is.
std::vector<Cell> near_centre(const Game& game) {
  const Variant& v = game.variant();
  std::vector<Cell> cells = game.legal_moves();
  std::vector<Cell> near;
  for (Cell c : cells)
    if (off_centre(v, c) <= 2 * kCentreRadius + 1) near.push_back(c);
  return near.empty() ? cells : near;
}

// The bot's move, or the legal cell nearest the centre should it ever offer
// an illegal one (the Bot contract says it does not; the opening trusts no
// one with the board).
Cell checked(const Game& game, const Choice& c) {
  if (game.is_legal(c.move)) return c.move;
  const auto cells = game.legal_moves();
  const Variant& v = game.variant();
  return *std::min_element(cells.begin(), cells.end(),
                           [&](Cell a, Cell b) { return off_centre(v, a) < off_centre(v, b); });
}

// The next `count` moves the bot plays from `game`, each side in turn. Stops
// short only should the game end.
std::vector<Cell> line(Bot& bot, Game game, int count, const MoveBudget& each) {
  std::vector<Cell> stones;
  for (int i = 0; i < count && !game.over(); ++i) {
    const Cell c = checked(game, bot.choose(game, each));
    if (!game.play(c)) break;
    stones.push_back(c);
  }
  return stones;
}

// What the search makes of a position, and the line it expects there.
struct Valuation {
  Score score = 0;  // from the side asked for
  Cell move = kNoCell;
  Cell reply = kNoCell;  // kNoCell when the second search did not run
};

// A search's score leans to the side that moves last within its horizon
// (the last ply's stone, and the leaves' threat terms are the mover's): on
// forty random openings near gomoku's centre, second to move, the median
// score was +25, -42, +30, -42 at depths 3, 4, 5, 6. So a position is valued
// by two searches a ply apart, the bot's own and the one after the move it
// found, averaged: -13, -8, -7, -16 on the same forty, and one opening's
// values over the four depths 21 points apart on average instead of 78. A
// win or loss found by either search stands as it is. Two searches (each
// with `each`) unless the first finds the game decided.
Valuation value(Bot& bot, const Game& game, Side side, const MoveBudget& each) {
  const Choice now = bot.choose(game, each);
  Valuation v{for_side(game, now, side), checked(game, now), kNoCell};
  Game next = game;
  if (is_mate_score(v.score) || !next.play(v.move) || next.over()) return v;
  const Choice later = bot.choose(next, each);
  v.reply = checked(next, later);
  const Score after = for_side(next, later, side);
  v.score = is_mate_score(after) ? after : (v.score + after) / 2;
  return v;
}

// The proposer's stones: the candidate the search values nearest even once
// the chooser is to move.
std::vector<Cell> place_three(Bot& bot, const Game& game, const MoveBudget& budget,
                              std::uint64_t seed) {
  const int due = Swap2::kProposed - game.ply();
  if (due <= 0) return {};
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> seen;
  std::vector<Cell> best;
  Score best_score = kInfinity;
  const MoveBudget each = share(budget, 2 * kCandidates);
  for (int i = 0; i < kCandidates; ++i) {
    Game g = game;
    std::vector<Cell> stones;
    for (int draw = 0; draw < kRedraws; ++draw) {
      g = game;
      stones.clear();
      while (static_cast<int>(stones.size()) < due && !g.over()) {
        const auto cells = near_centre(g);
        const Cell c = cells[std::uniform_int_distribution<std::size_t>(0, cells.size() - 1)(rng)];
        if (!g.play(c)) break;
        stones.push_back(c);
      }
      if (std::find(seen.begin(), seen.end(), g.key()) == seen.end()) break;
    }
    seen.push_back(g.key());
    if (static_cast<int>(stones.size()) != due) continue;
    // The first set stands should the search be stopped before valuing any.
    if (best.empty()) best = stones;
    if (stopped(budget) || g.over()) continue;
    const Score s = std::abs(value(bot, g, Side::second, each).score - kSwap2EvenAtThree);
    if (s < best_score) {
      best_score = s;
      best = std::move(stones);
    }
  }
  return best;
}

}  // namespace

OpeningDecision decide_swap2(Bot& bot, const Game& game, const Swap2& opening,
                             const MoveBudget& budget, std::uint64_t seed) {
  OpeningDecision d;
  if (game.over()) return d;
  constexpr int kAllStones = Swap2::kProposed + Swap2::kExtra;
  switch (opening.step()) {
    case Swap2::Step::place_three:
      d.stones = place_three(bot, game, budget, seed);
      break;
    case Swap2::Step::choose: {
      // The valuation's two searches are also the line for the two extra
      // stones: the bot's move for second, then its reply for first.
      const int due = kAllStones - game.ply();
      const MoveBudget each = share(budget, 2);
      const Valuation v = value(bot, game, Side::second, each);
      const Score from_even = v.score - kSwap2EvenAtThree;
      if (from_even > kSwap2Margin) {
        d.side = Side::second;
      } else if (from_even < -kSwap2Margin) {
        d.side = Side::first;
      } else {
        d.place_two = true;
        if (due == 2 && v.reply != kNoCell)
          d.stones = {v.move, v.reply};
        else if (due > 0)
          d.stones = line(bot, game, due, each);  // a ply the match never gives
      }
      break;
    }
    case Swap2::Step::place_two: {
      const int due = kAllStones - game.ply();
      if (due > 0) d.stones = line(bot, game, due, share(budget, due));
      break;
    }
    case Swap2::Step::choose_side:
      d.side = value(bot, game, Side::second, share(budget, 2)).score >= kSwap2EvenAtFive
                   ? Side::second
                   : Side::first;
      break;
    case Swap2::Step::done:
      break;
  }
  return d;
}

}  // namespace inarow::bots
