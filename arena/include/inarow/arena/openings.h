// A seeded book of balanced openings for one variant: a few random plies,
// kept only when a shallow search scores the position near even. Every
// opening is played twice with colours swapped, and every pairing of a
// tournament plays the same openings, so the book's bias cancels out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inarow/engine/game.h"
#include "inarow/engine/search.h"

namespace inarow::arena {

struct Opening {
  std::vector<Cell> moves;
  std::string notation;  // "" for the empty board
  Score score = 0;       // shallow search score, side to move's view
};

struct OpeningOptions {
  int count = 32;  // openings wanted (fewer if the variant has fewer)
  int plies = -1;  // random plies per opening; -1 = the variant's default
  int depth = 4;   // depth of the balance check
  std::uint64_t seed = 1;
};

// 1 for tic-tac-toe, 2 on small boards, 4 for connect four, 3 for gomoku-like boards.
int default_opening_plies(const Variant& v);

// Draw about 3x `count` distinct random openings, drop those the search finds
// won or lost, and keep the `count` with the smallest |score|, in draw order.
// The same options give the same book.
std::vector<Opening> make_openings(const Variant& v, const OpeningOptions& options);

}  // namespace inarow::arena
