// A tournament's schedule: who meets whom (round robin, gauntlet or ladder), and the
// games of each pairing as opening pairs with colours swapped, in a fixed
// order so that a game's index names it across runs (the record resumes by it).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace inarow::arena {

// ladder: participants in order of strength, each against the next two only
// (a ladder's neighbours are the pairings that measure its gaps; the far
// ones are near-certain results that cost as much to play).
enum class Format : std::uint8_t { round_robin, gauntlet, ladder };

// "round_robin", "gauntlet", "ladder".
const char* format_name(Format format);

// The pairings of `participants` in `format`: (a, b) with results from a's view.
std::vector<std::pair<int, int>> make_pairings(Format format, int participants);

struct ScheduledGame {
  std::int64_t index = 0;  // pairing * games_per_pairing + pair * 2 + swap
  int pairing = 0, pair = 0, first = 0, second = 1;
};

// Pair by pair, every pairing plays opening pair `pair` (a first, then b
// first) before any plays the next, so a stopped tournament has sampled every
// pairing alike. `games_per_pairing` is even.
std::vector<ScheduledGame> make_schedule(const std::vector<std::pair<int, int>>& pairings,
                                         int games_per_pairing);

}  // namespace inarow::arena
