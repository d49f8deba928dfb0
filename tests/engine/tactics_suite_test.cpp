// The gomoku tactics suite (bench/gomoku/tactics.txt): its lines claim
// what the VCF solver proves, and the search, at a fixed node budget, wins
// the VCFs and keeps the single defences.
#include "tactics_suite.h"

#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "inarow/engine/forcing.h"
#include "inarow/engine/notation.h"
#include "inarow/engine/search.h"

namespace inarow {
namespace {

using tools::Tactic;

// The generator's budget (inarow-engine find-tactics): every line's facts
// were proved within it, and the solver is deterministic.
constexpr std::uint64_t kSolverNodes = 5'000'000;

std::vector<Tactic> suite() {
  const auto tactics =
      tools::read_tactics(Variant::gomoku(), INAROW_SOURCE_DIR "/bench/gomoku/tactics.txt");
  EXPECT_TRUE(tactics) << tactics.error().message;
  return tactics ? *tactics : std::vector<Tactic>{};
}

TEST(TacticsSuite, SpreadsOverEveryLengthUpToFifteenAttackingMoves) {
  std::map<int, int> by_length;
  int holds = 0;
  for (const Tactic& t : suite()) {
    if (t.kind == Tactic::Kind::vcf)
      ++by_length[t.plies];
    else
      ++holds;
  }
  // 1, 3, ..., 29 plies: 1 to 15 attacking moves, each length at least once.
  for (int plies = 1; plies <= 29; plies += 2)
    EXPECT_GE(by_length[plies], 1) << plies;
  int vcfs = 0, long_ones = 0;
  for (const auto& [plies, n] : by_length) {
    vcfs += n;
    if (plies >= 19) long_ones += n;
  }
  EXPECT_EQ(vcfs, 48);
  EXPECT_EQ(long_ones, 18);  // 10 to 15 attacking moves
  EXPECT_EQ(holds, 20);
}

TEST(TacticsSuite, EveryLineIsWhatTheSolverProves) {
  const Variant v = Variant::gomoku();
  VcfSolver solver(v);
  std::set<std::uint64_t> positions;
  for (const Tactic& t : suite()) {
    const Game game = *Game::parse(v, t.moves);
    EXPECT_TRUE(positions.insert(game.key()).second) << "line " << t.line << ": a repeat";
    const auto proved = tools::classify(solver, game, kSolverNodes);
    ASSERT_TRUE(proved) << "line " << t.line << ": neither a VCF nor a single defence";
    EXPECT_EQ(tools::format_tactic(v, *proved), tools::format_tactic(v, t)) << "line " << t.line;
  }
}

TEST(TacticsSuite, ClassifyTellsAVcfFromAHoldFromNeither) {
  // Hand-made positions the suite's own rules decide. x (first, to move):
  // an open three g8-h8-i8 with f8, j8, e8, k8 empty: f8 or j8 makes an
  // open four, a VCF of 3 plies.
  const Variant v = Variant::gomoku();
  VcfSolver solver(v);
  const auto vcf = tools::classify(solver, *Game::parse(v, "g8a1h8a15i8o1"), kSolverNodes);
  ASSERT_TRUE(vcf);
  EXPECT_EQ(tools::format_tactic(v, *vcf), "vcf 3 g8a1h8a15i8o1");
  // The same three for o, x to move: o's VCF is stopped by f8 or j8 (two
  // moves that hold, so no line), and x's own far stones have no four.
  EXPECT_FALSE(tools::classify(solver, *Game::parse(v, "a1g8a15h8o1i8"), kSolverNodes));
  // o: a closed four h8..h11 (x on h12): only h7 stops the five.
  const auto hold = tools::classify(solver, *Game::parse(v, "h12h8a1h9a15h10o1h11"), kSolverNodes);
  ASSERT_TRUE(hold);
  EXPECT_EQ(tools::format_tactic(v, *hold), "hold h7 h12h8a1h9a15h10o1h11");
  // The start: nobody has anything.
  EXPECT_FALSE(tools::classify(solver, Game(v), kSolverNodes));
}

// The search as a bot runs it, at a node budget instead of a clock so that
// the result is the same on any machine. 100,000 nodes: the root's VCF
// gets a quarter of them, 25,000.
constexpr std::uint64_t kSearchNodes = 100'000;

TEST(TacticsSuite, TheSearchSolvesTheVcfsAndHoldsTheDefences) {
  const Variant v = Variant::gomoku();
  Searcher searcher(v, {}, 16);
  VcfSolver solver(v);
  Limits limits;
  limits.nodes = kSearchNodes;
  int solved = 0, vcfs = 0;
  std::vector<std::string> unsolved;
  for (const Tactic& t : suite()) {
    const Game game = *Game::parse(v, t.moves);
    searcher.clear();
    const SearchResult r = searcher.search(game, limits);
    if (t.kind == Tactic::Kind::hold) {
      EXPECT_EQ(format_move(v, r.best), format_move(v, t.cell)) << "line " << t.line;
      continue;
    }
    ++vcfs;
    const bool won = r.score > kMaxEval && mate_plies(r.score) <= t.plies &&
                     tools::starts_a_win(solver, game, r.best, kSolverNodes);
    if (won) {
      ++solved;
    } else {
      unsolved.push_back("line " + std::to_string(t.line) + " (" + std::to_string(t.plies) +
                         " plies): " + format_move(v, r.best) + " " + std::to_string(r.score));
      // Up to 15 plies (8 attacking moves) the root's VCF always finds it.
      EXPECT_GT(t.plies, 15) << unsolved.back();
    }
  }
  // Measured: three of 17-19 plies need 30,000-110,000 solver nodes, more
  // than the root's 25,000, and the main search does not find them within
  // this budget. A change that solves more raises this figure.
  EXPECT_EQ(vcfs, 48);
  EXPECT_GE(solved, 45);
  for (const std::string& line : unsolved)
    std::cout << "[ unsolved ] " << line << "\n";
}

}  // namespace
}  // namespace inarow
