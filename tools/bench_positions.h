// The fixed positions of `inarow-engine bench`. Changing them changes the
// bench signature; do so only on purpose.
#pragma once

#include <vector>

namespace inarow::tools {

struct BenchSet {
  const char* variant;
  int depth;
  std::vector<const char*> positions;
};

inline const std::vector<BenchSet>& bench_sets() {
  static const std::vector<BenchSet> sets = {
      {"tictactoe", 9, {"-", "b2", "a1", "b2a1", "a1b2c3"}},
      {"connect4", 12, {"-", "4", "44", "4453", "444", "43", "3343", "435", "4444", "4536"}},
      {"gomoku", 6, {"h8", "h8i9", "h8i9g9", "h8h9i8", "h8i9g7g9"}},
      {"mnk:9,9,4", 8, {"-", "e5", "e5d4"}},
      {"mnk:8,8,4,gravity", 10, {"-", "4", "45"}},
  };
  return sets;
}

}  // namespace inarow::tools
