// Games for engine tests, built from the stones each side has.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "inarow/common/splitmix.h"
#include "inarow/engine/bitboard.h"
#include "inarow/engine/game.h"

namespace inarow::testing {

// A game from the stones of each side: the first player's ("x") and the
// second's ("o") alternate, so x.size() == o.size() leaves x to move. A
// position that cannot be played fails the test and gives the empty board.
inline Game from_stones(const Variant& v, const std::vector<std::string>& x,
                        const std::vector<std::string>& o) {
  std::string text;
  for (std::size_t i = 0; i < std::max(x.size(), o.size()); ++i) {
    if (i < x.size()) text += x[i];
    if (i < o.size()) text += o[i];
  }
  auto game = Game::parse(v, text);
  EXPECT_TRUE(game) << text << ": " << game.error().describe();
  return game ? *game : Game(v);
}

// A random board for the bitboard tests: each cell holds an own stone with
// probability own_percent %, else one of the other side's with 15 %, else
// nothing; column by column from `rng`.
template <int W>
struct Stones {
  Bitboard<W> own, theirs;
};
template <int W>
Stones<W> random_stones(const Variant& v, std::uint64_t& rng, int own_percent) {
  Stones<W> s;
  for (int c = 0; c < v.width; ++c)
    for (int r = 0; r < v.height; ++r) {
      const int roll = static_cast<int>(splitmix64_next(rng) % 100);
      if (roll < own_percent)
        s.own.set(v.cell(c, r));
      else if (roll < own_percent + 15)
        s.theirs.set(v.cell(c, r));
    }
  return s;
}

}  // namespace inarow::testing
