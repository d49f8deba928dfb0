// Exact connect-four solving on Pascal Pons' benchmark sets: the same work his
// solver does (exact score, transposition table cleared before each
// position), with mean time and nodes per position and the ratio to his
// solver's published figures on a machine like ours.
//
//   connect4_solve_bench [--weak] [--limit N] [--tt MiB] [DIR]
//
// DIR defaults to ../shared/bench-data/connect4 relative to the source tree.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "inarow/engine/game.h"
#include "inarow/engine/search.h"

namespace {

using namespace inarow;

struct Reference {
  const char* set;
  double pons_us_low, pons_us_high;  // his mean time per position, µs (range of runs)
  double pons_nodes;
};

constexpr Reference kSets[] = {
    {"Test_L3_R1", 3.5, 4.6, 51},
    {"Test_L2_R1", 26, 37, 450},
    {"Test_L2_R2", 1900, 4100, 39900},
};

// Pons' score for a position of `played` stones whose winner wins on ply
// `played + plies` (1-based from the empty board): (44 - m) / 2.
// This thread's CPU time: on a shared machine it excludes the time other
// processes hold the core, which the wall clock does not.
double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

int pons_score(const Solution& s, int played) {
  if (s.value_for_mover == Outcome::draw) return 0;
  const int m = played + s.plies;
  const int score = (44 - m) / 2;
  return s.value_for_mover == Outcome::first_wins ? score : -score;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = INAROW_SOURCE_DIR "/../shared/bench-data/connect4";
  bool weak = false;
  std::size_t limit = 0, tt_mb = 64;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--weak")) weak = true;
    else if (!std::strcmp(argv[i], "--limit") && i + 1 < argc) limit = std::stoul(argv[++i]);
    else if (!std::strcmp(argv[i], "--tt") && i + 1 < argc) tt_mb = std::stoul(argv[++i]);
    else dir = argv[i];
  }

  const Variant v = Variant::connect4();
  Searcher searcher(v, {}, tt_mb);
  std::printf("%-11s %6s %6s %10s %10s %11s %14s %8s %8s %8s\n", "set", "n", "wrong", "wall µs",
              "cpu µs", "mean nodes", "Pons µs", "wall ×", "cpu ×", "nodes ×");
  int exit_code = 0;
  for (const Reference& ref : kSets) {
    std::ifstream in(dir + "/" + ref.set);
    if (!in) {
      std::fprintf(stderr, "cannot read %s/%s\n", dir.c_str(), ref.set);
      return 2;
    }
    std::string line;
    std::size_t n = 0, wrong = 0;
    double total_us = 0, total_cpu_us = 0;
    std::uint64_t total_nodes = 0;
    while (std::getline(in, line) && (!limit || n < limit)) {
      std::istringstream fields(line);
      std::string moves;
      int expected = 0;
      fields >> moves >> expected;
      auto game = Game::parse(v, moves);
      if (!game) {
        std::fprintf(stderr, "%s: %s\n", moves.c_str(), game.error().describe().c_str());
        return 2;
      }
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = thread_cpu_us();
      searcher.clear();
      const Solution s = searcher.solve(*game, weak);
      total_cpu_us += thread_cpu_us() - cpu_start;
      total_us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      total_nodes += s.nodes;
      ++n;
      const int got = weak ? (s.score > 0) - (s.score < 0) : pons_score(s, game->ply());
      const int want = weak ? (expected > 0) - (expected < 0) : expected;
      if (got != want) {
        ++wrong;
        if (wrong <= 5) std::fprintf(stderr, "%s %s: expected %d, got %d\n", ref.set, moves.c_str(), want, got);
      }
    }
    const double mean_us = total_us / static_cast<double>(n);
    const double mean_cpu_us = total_cpu_us / static_cast<double>(n);
    const double mean_nodes = static_cast<double>(total_nodes) / static_cast<double>(n);
    const double pons_mid = (ref.pons_us_low + ref.pons_us_high) / 2;
    std::printf("%-11s %6zu %6zu %10.1f %10.1f %11.0f %6.1f-%-7.1f %8.2f %8.2f %8.2f\n", ref.set, n, wrong,
                mean_us, mean_cpu_us, mean_nodes, ref.pons_us_low, ref.pons_us_high, mean_us / pons_mid,
                mean_cpu_us / pons_mid, mean_nodes / ref.pons_nodes);
    if (wrong) exit_code = 1;
  }
  std::printf("(× = ours / Pons' mid-range figure; below 1 is faster. Weak = %s.)\n", weak ? "yes" : "no");
  return exit_code;
}
