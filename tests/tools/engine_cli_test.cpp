// inarow-engine as a real process: what a user types, what it prints.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "inarow/testing/temp_dir.h"

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int status = -1;
  std::string out, err;
};

// Runs inarow-engine with `args`, feeding `input` on standard input.
Outcome engine(const std::string& args, const std::string& input = "") {
  const inarow::testing::TempDir dir;
  const fs::path in = dir.write("in", input), out = dir.path() / "out", err = dir.path() / "err";
  const std::string command = std::string(INAROW_ENGINE_EXE) + " " + args + " < " + in.string() +
                              " > " + out.string() + " 2> " + err.string();
  Outcome r;
  const int raw = std::system(command.c_str());
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = inarow::testing::read_file(out);
  r.err = inarow::testing::read_file(err);
  return r;
}

TEST(EngineCli, SolvePrintsValueLengthMoveAndNodes) {
  const Outcome r =
      engine("solve --variant tictactoe", "-\nb2a1 trailing fields ignored\na1b1a2b2\n");
  EXPECT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::string position, value, plies, best, nodes;
  lines >> position >> value >> plies >> best >> nodes;
  EXPECT_EQ(position, "-");
  EXPECT_EQ(value, "draw");
  EXPECT_EQ(plies, "9");
  lines >> position >> value >> plies >> best >> nodes;
  EXPECT_EQ(position, "b2a1");
  EXPECT_EQ(value, "draw");  // a corner reply to the centre holds
  EXPECT_EQ(plies, "7");
  lines >> position >> value >> plies >> best >> nodes;
  EXPECT_EQ(position, "a1b1a2b2");
  EXPECT_EQ(value, "win");  // X completes a3
  EXPECT_EQ(plies, "1");
  EXPECT_EQ(best, "a3");
}

TEST(EngineCli, SolveConnectFourKnownPosition) {
  // Three stacked in column 4 for the side to move: it wins on the spot.
  const Outcome r = engine("solve -v connect4", "424242\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 15), "424242 win 1 4 ");
}

// analyse searches as the bots do: a five on the board is a win in one, a
// three-ply tic-tac-toe search of a1b1a2b2 sees X complete a3, and a line
// that is not a position is named on standard error (exit 1) while the
// others are still answered.
TEST(EngineCli, AnalysePrintsMoveScoreDepthAndPv) {
  const Outcome r =
      engine("analyse -v gomoku --movetime 200", "h8a1i8a2j8a3k8a4\nzz\nh8a1i8a2j8a3k8a4\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("line 2: 'zz' at offset 0"), std::string::npos) << r.err;
  EXPECT_EQ(r.out,
            "h8a1i8a2j8a3k8a4 g8 win 1 depth 1 nodes 1 pv g8\n"
            "h8a1i8a2j8a3k8a4 g8 win 1 depth 1 nodes 1 pv g8\n");
  const Outcome t = engine("analyse -v tictactoe --movetime 0 --depth 3", "a1b1a2b2\n");
  EXPECT_EQ(t.status, 0) << t.err;
  EXPECT_EQ(t.out.rfind("a1b1a2b2 a3 win 1 ", 0), 0u) << t.out;
}

// --nodes alone is the whole limit: the default second a position applies
// only when no other limit is given (it cut this search at ~800,000).
TEST(EngineCli, AnalyseByNodesAloneIsNotCutAtASecond) {
  const Outcome r = engine("analyse -v gomoku --nodes 2000000",
                           "h8j6i6j7j8i8h9h7k7j9g6h10l11k6m4l6n6i10k9i7g7j10g10i11i9l10k10g9\n");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto at = r.out.find(" nodes ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const long long nodes = std::stoll(r.out.substr(at + 7));
  EXPECT_GE(nodes, 2'000'000) << r.out;
  EXPECT_LE(nodes, 2'001'024) << r.out;
}

TEST(EngineCli, AnalyseNeedsALimit) {
  const Outcome r = engine("analyse -v gomoku --movetime 0", "h8\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("needs a limit"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(EngineCli, WeakSolveSkipsTheLength) {
  const Outcome r = engine("solve -v tictactoe --weak", "b2\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 10), "b2 draw - ");
}

TEST(EngineCli, BadLinesGetAnErrorAndTheRestGoesOn) {
  const Outcome r = engine("solve -v tictactoe", "zz\nb2b2\na1b1a2b2a3\nb2\n");
  EXPECT_EQ(r.status, 1);  // some lines failed
  EXPECT_NE(r.err.find("line 1: 'zz' at offset 0: column 'z' is off the board"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("line 2: 'b2b2' at offset 2: cell b2 is occupied"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("line 3: 'a1b1a2b2a3' the game is already over"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.substr(0, 8), "b2 draw ");
}

TEST(EngineCli, BadFlagsExitWithTwo) {
  EXPECT_EQ(engine("solve --variant chess").status, 2);
  EXPECT_EQ(engine("solve --tt 0").status, 2);
  EXPECT_EQ(engine("frobnicate").status, 2);
  EXPECT_EQ(engine("").status, 2);
  EXPECT_EQ(engine("play --level grandmaster").status, 2);
  EXPECT_EQ(engine("play --side third").status, 2);
  EXPECT_EQ(engine("--help").status, 0);
}

TEST(EngineCli, PlayWithMovesPipedIn) {
  // The master bot answers the centre with a corner and never loses.
  const Outcome r = engine("play -v tictactoe --level master", "b2\nzz\nb2\nquit\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("bot plays "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("illegal move 'zz'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("illegal move 'b2': cell b2 is occupied"), std::string::npos) << r.out;
}

TEST(EngineCli, PlayToTheEnd) {
  // A person playing columns in turn against the hard level: the game ends with a result line.
  std::string moves;
  for (int i = 0; i < 42; ++i)
    moves += std::to_string(1 + i % 7) + "\n";
  const Outcome r = engine("play -v connect4 --level hard --side second", moves);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("result: the bot wins"), std::string::npos) << r.out;
}

TEST(EngineCli, FindTacticsClassifiesEveryPositionOfEachRecord) {
  // A gomoku record as the arena writes it, one of another variant
  // (skipped), a bad line (named, the rest goes on) and plain moves. In
  // the first game o's three h8-h10 (x on h12) becomes a straight four on
  // h7 (a VCF of 3 plies), then its four h8-h11 leaves x only h7.
  const Outcome r = engine("find-tactics",
                           "{\"variant\":\"connect4\",\"moves\":\"4444\"}\n"
                           "{\"variant\":\"gomoku\",\"moves\":\"h12h8a1h9a15h10o1h11h7\"}\n"
                           "zz\n"
                           "g8a1h8a15i8o1f8\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "vcf 3 h12h8a1h9a15h10o1  # record 2, ply 7\n"
            "hold h7 h12h8a1h9a15h10o1h11  # record 2, ply 8\n"
            "vcf 3 g8a1h8a15i8o1  # record 4, ply 6\n");
  EXPECT_NE(r.err.find("record 3: at offset 0: column 'z' is off the board"), std::string::npos)
      << r.err;
}

TEST(EngineCli, TacticsReportsSolvedAndHeld) {
  const inarow::testing::TempDir dir;
  const fs::path suite = dir.write("tactics.txt",
                                   "# two positions\nvcf 3 g8a1h8a15i8o1  # an open three\n\n"
                                   "hold h7 h12h8a1h9a15h10o1h11\n");
  const Outcome r = engine("tactics --movetime 0 --nodes 100000 --file " + suite.string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("vcf 1-3 moves (1-5 plies)             1       1"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("hold                                  1       1"), std::string::npos)
      << r.out;
}

TEST(EngineCli, TacticsRejectsABadSuiteOrNoLimit) {
  const inarow::testing::TempDir dir;
  const fs::path suite = dir.write("tactics.txt", "vcf 4 g8a1h8a15i8o1\n");
  const Outcome bad = engine("tactics --file " + suite.string());
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("line 1: '4' is not an odd number of plies"), std::string::npos)
      << bad.err;
  EXPECT_EQ(engine("tactics --movetime 0").status, 2);
}

// The bench's node total is the commit's search signature: it changes only
// when search behaviour changes, and then this value changes in the same
// commit, whose message gives the new one.
std::string bench_signature(const std::string& out) {
  const auto at = out.find("total nodes ");
  if (at == std::string::npos) return "no total in: " + out;
  return out.substr(at, out.find(' ', at + 12) - at);
}

TEST(EngineCli, BenchSignature) {
  const Outcome r = engine("bench");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(bench_signature(r.out), "total nodes 1343081");
}

TEST(EngineCli, BenchIsDeterministic) {
  const Outcome a = engine("bench --depth 4");
  const Outcome b = engine("bench --depth 4");
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(bench_signature(a.out), "total nodes 182765");
  EXPECT_EQ(bench_signature(b.out), bench_signature(a.out));
}

}  // namespace
