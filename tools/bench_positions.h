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
      // Middle games from seeded self-play of noisy shallow bots, kept only
      // where a depth-6 search calls them open (no forced win, |score| < 300).
      {"gomoku", 6,
       {"h8i8h10h9g10f10g9k6j7f8g8g7j6f7f9e9g11g12k5i7h6h7e7j9",
        "h8j6i6j7j8i8h9h7k7j9g6h10l11k6m4l6n6i10k9i7g7j10g10i11i9l10k10g9",
        "h8h6i9j10k10k11j8i8h10k7g7e5h9h11g9j9i11j12g11f12",
        "h8g8h10h9f7i11f11i10j11i9i8j9g9k8h11f10e7f8i12l9k9j7m10j5",
        "h8i7f6i9i10f8j9k8i8h7j7e7g7d4g9g10g5g8i6d8c8e10d11d10f10e11",
        "h8f6e7i7i6k4k5g9j5h5e5e6h7g8m5l5f7g7g6f5g11j3m6i2h1h3g4i3"}},
      {"mnk:9,9,4", 8, {"-", "e5", "e5d4"}},
      {"mnk:8,8,4,gravity", 10, {"-", "4", "45"}},
  };
  return sets;
}

}  // namespace inarow::tools
