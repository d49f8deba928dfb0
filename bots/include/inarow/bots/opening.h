// How a bot plays an opening. The server asks here whenever the swap2
// opening (engine/opening.h: Swap2) waits on a bot: for the stones it places
// and the sides it takes, each decided by the bot's own search. Nothing here
// changes the game or the opening; the caller applies the decision.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "inarow/bots/bot.h"
#include "inarow/engine/opening.h"

namespace inarow::bots {

// What a bot does when the swap2 opening waits on it: the stones to place, in
// order, and/or the side to take. With place_two the bot first asks for the
// two extra stones (Swap2::choose(nullopt)), then places `stones`; `side` is
// then unset.
struct OpeningDecision {
  std::vector<Cell> stones;
  std::optional<Side> side;
  bool place_two = false;
};

// At the chooser's choice (Swap2::Step::choose), a position valued within
// this many points of even, from either side, goes back to the proposer with
// two more stones; beyond it the chooser takes the better side. In the gomoku
// evaluator's units (engine/evaluator.cpp) when it was set: a cell that made
// a straight four added 40 at the search's leaves, a window of three stones
// 27; about an open three's worth, an edge the search is sure of (the tuned
// weights now give 47 and 36, and the values below spread wider). Valued as
// decide_swap2 does (two searches averaged), forty random openings near the
// centre came out mostly within -30..+30 at depths 3 to 6, and the few
// clearly first's (its two stones side by side, the second's apart: j9 j8
// against f7) at -50..-80.
// Measured again with the tempo (Weights::tempo 50): the median of |value|
// 17, 18, 24, 36 at depths 3 to 6, three in four within 23, 35, 48, 61, and
// the values lean to the first player (median -12, -9, -24, -35): from depth
// 5 on, the chooser takes the first side more often than not. With the
// weights tuned together (Weights::defaults, tempo 58) the same openings
// come out wider and further to the first: |value| median 27, 33, 44, 57,
// three in four within 54, 66, 84, 80, medians -26, -32, -40, -47 (h8 h9 i8
// -34 at depth 4).
// With the shapes on and all nineteen weights tuned together (Weights::
// defaults, tempo 69), forty other openings near the centre come out wider
// still: mean |value| 39, 50, 67, 77 at depths 3 to 6 against 29, 38, 44,
// 47 with the weights before, 1.48 times over all four, and one opening's
// values 55 points apart over the depths instead of 29. Re-derived so the
// same share of ordinary openings counts as even: 94 of the 160 values were
// within 40 before, and 96 are within 55 now (h8 h9 i8 is no longer one: -48
// at depth 3, -87 at depth 4).
inline constexpr Score kSwap2Margin = 55;

// The bot's part of the swap2 opening at `opening.step()`; `game` holds the
// stones placed so far. A position is valued by two searches a ply apart,
// averaged (one search's score leans to whichever side moves last within its
// depth: opening.cpp). By step:
//   place_three  the proposer's stones still due (3 - ply: all three, or fewer
//                after a restart mid-step), near the centre: a few seeded
//                candidate sets, the one valued nearest even with the chooser
//                to move (it should gain nothing whichever side it takes).
//   choose       the side to take when the value is beyond kSwap2Margin for
//                one side; otherwise place_two, with the line the searches
//                expect: the bot's move for second, then its reply for first.
//   place_two    the chooser's stones still due (5 - ply), each the bot's move.
//   choose_side  the side the value favours (second when even).
//   done         nothing to decide: an empty decision (the caller should not ask).
// budget.time > 0 is shared among the searches run (at least 1 ms each): 8 at
// place_three, 2 at the choices and place_two. With 0 each search has the
// bot's own limits. budget.stop is passed on: a stopped decision is still
// complete and legal. The stones are always legal cells. Deterministic for a
// seed and a bot deterministic itself (a level's blunders and noise play here
// as in its moves).
OpeningDecision decide_swap2(Bot& bot, const Game& game, const Swap2& opening,
                             const MoveBudget& budget, std::uint64_t seed);

}  // namespace inarow::bots
