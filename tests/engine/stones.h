// Games for engine tests, built from the stones each side has.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

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

}  // namespace inarow::testing
