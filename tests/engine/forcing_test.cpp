// Forcing play on gomoku: threats that must be answered (fours, threes) and
// victories by continuous fours (VCF), on constructed positions whose
// answers are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "inarow/engine/notation.h"
#include "inarow/engine/search.h"
#include "stones.h"

namespace inarow {
namespace {

using testing::from_stones;

// One of the eight symmetries of the square board applied to a cell name.
std::string transform(const Variant& v, const std::string& name, int symmetry) {
  const Cell c = *Game(v).parse_move(name);
  int col = v.col(c), row = v.row(c);
  const int n = v.width - 1;
  if (symmetry & 1) col = n - col;
  if (symmetry & 2) row = n - row;
  if (symmetry & 4) std::swap(col, row);
  return format_move(v, v.cell(col, row));
}

std::vector<std::string> transform(const Variant& v, const std::vector<std::string>& cells,
                                   int symmetry) {
  std::vector<std::string> out;
  for (const auto& c : cells)
    out.push_back(transform(v, c, symmetry));
  return out;
}

SearchResult search_depth(const Game& game, int depth) {
  Searcher searcher(game.variant(), {}, 4);
  Limits limits;
  limits.depth = depth;
  return searcher.search(game, limits);
}

bool contains(const std::vector<std::string>& set, const std::string& s) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// x: a closed three in column h (o on h7), two in row 11 (o on l11) and a
// closed three in column k (o on k6). Playing k11 is a four (five cell k10)
// that also makes row 11 h..k a line of three; after the block, h11 is a
// double four (h12 and g11): a win in 5 plies. h11 first works too (four on
// h12, then k11 is a double four on k10 and g11), and so does h12 (four on
// h11, then j10 makes the open four h12-i11-j10-k9). No win in 3: no cell
// makes two five cells now. The o stones in the corners only balance the count.
const std::vector<std::string> kVcfX = {"h8", "h9", "h10", "i11", "j11", "k7", "k8", "k9"};
const std::vector<std::string> kVcfO = {"h7", "l11", "k6", "a1", "a15", "o1", "o15", "o8"};

TEST(Vcf, FindsAWinBeyondTheSearchDepth) {
  const Variant v = Variant::gomoku();
  const Game game = from_stones(v, kVcfX, kVcfO);
  const SearchResult r = search_depth(game, 1);
  EXPECT_EQ(r.score, kMate - 5);
  EXPECT_TRUE(contains({"h11", "h12", "k11"}, format_move(v, r.best))) << format_move(v, r.best);
}

TEST(Vcf, NeverClaimsAWinPastTheOpponentsFour) {
  // The same fours, but o has a four in column a (a5..a8, x on a9): x must
  // block a4 first, which is no four, so there is no VCF.
  const Variant v = Variant::gomoku();
  std::vector<std::string> x = kVcfX, o = {"h7", "l11", "k6", "a5", "a6", "a7", "a8", "o1", "o15"};
  x.push_back("a9");
  const SearchResult r = search_depth(from_stones(v, x, o), 1);
  EXPECT_EQ(format_move(v, r.best), "a4");
  EXPECT_LT(r.score, kMaxEval);
}

TEST(Vcf, NeverClaimsAWinWithFoursThatLeadNowhere) {
  // One closed three: h11 and h12 are fours, each blocked for good.
  const Variant v = Variant::gomoku();
  const Game game = from_stones(v, {"h8", "h9", "h10", "a15"}, {"h7", "a1", "o1", "o15"});
  const SearchResult r = search_depth(game, 1);
  EXPECT_FALSE(is_mate_score(r.score)) << r.score;
}

// From a played game: o's closed three g4-h5-i6 (x on j7) makes the root
// look for o's VCT and for our moves that refute it, which finds nothing
// and once took every node a node-limited bot had: it then played a move
// (c9) that no iteration had looked at. The root's forcing searches now
// take a bounded share, so the main search runs its iterations.
TEST(Vcf, ANodeLimitLeavesTheMainSearchItsShare) {
  const Variant v = Variant::gomoku();
  const Game game = *Game::parse(v, "e11f5h7h5j5i6j7g4");
  for (const std::uint64_t nodes : {20'000u, 150'000u}) {
    Searcher searcher(v, {}, 4);
    Limits limits;
    limits.nodes = nodes;
    const SearchResult r = searcher.search(game, limits);
    EXPECT_GE(r.depth, nodes > 100'000 ? 6 : 4) << nodes;
    EXPECT_LE(r.nodes, nodes + 1024) << nodes;
    EXPECT_TRUE(game.is_legal(r.best));
  }
}

TEST(Vcf, DefendsAgainstTheOpponentsVcf) {
  // o: a closed three in column h (x on h7) and one in row 11 (x on l11).
  // o's h11 would be a double four (h12 and g11): a win in 3. x has no
  // four to play first, so it must take h11, h12 or g11; anything else
  // loses in 4 plies. (x's other stones sit in the corners; o may still
  // win later by threes, which is not what this tests.)
  const Variant v = Variant::gomoku();
  const Game game = from_stones(v, {"h7", "l11", "a1", "a15", "o1", "o15"},
                                {"h8", "h9", "h10", "i11", "j11", "k11"});
  ASSERT_EQ(game.to_move(), Side::first);
  for (int depth : {1, 2, 3, 4}) {
    const SearchResult r = search_depth(game, depth);
    EXPECT_TRUE(contains({"h11", "h12", "g11"}, format_move(v, r.best)))
        << "depth " << depth << ": " << format_move(v, r.best);
    EXPECT_GT(r.score, -(kMate - 4)) << "depth " << depth << ": lost to the double four";
  }
}

TEST(Threats, BlocksAnOpenThree) {
  // o: g8 h8 i8 with e8, f8, j8, k8 empty: f8 and j8 stop the straight
  // four; e8 and k8 do not (o answers with the other side's straight four).
  const Variant v = Variant::gomoku();
  const Game game = from_stones(v, {"h10", "a1", "o15"}, {"g8", "h8", "i8"});
  ASSERT_EQ(game.to_move(), Side::first);
  for (int depth : {1, 2, 3, 4}) {
    const SearchResult r = search_depth(game, depth);
    EXPECT_TRUE(contains({"f8", "j8"}, format_move(v, r.best)))
        << "depth " << depth << ": " << format_move(v, r.best);
  }
}

TEST(Threats, BlocksAFourEvenWhenAThreeLooksBetter) {
  // o has a closed four (h7..h10, x on h11); x has an open three in row 3.
  const Variant v = Variant::gomoku();
  const Game game =
      from_stones(v, {"h11", "d3", "e3", "f3", "a15"}, {"h7", "h8", "h9", "h10", "o1"});
  ASSERT_EQ(game.to_move(), Side::first);
  for (int depth : {1, 2, 3, 4})
    EXPECT_EQ(format_move(v, search_depth(game, depth).best), "h6");
}

TEST(Threats, PrefersAFasterWinToBlockingAThree) {
  // o has an open three in row 8; x has an open three in column c (c3..c5,
  // c1, c2, c6, c7 empty): c2 or c6 makes an open four, which wins before
  // o's three becomes anything.
  const Variant v = Variant::gomoku();
  const Game game = from_stones(v, {"c3", "c4", "c5", "o15"}, {"g8", "h8", "i8", "a15"});
  const SearchResult r = search_depth(game, 3);
  EXPECT_TRUE(contains({"c2", "c6"}, format_move(v, r.best))) << format_move(v, r.best);
  EXPECT_EQ(r.score, kMate - 3);
}

TEST(Threats, NeverMissesAFive) {
  const Variant v = Variant::gomoku();
  // x has a four (c3..c6, c7 empty); o has an open four.
  const Game game = from_stones(v, {"c3", "c4", "c5", "c6", "o15"}, {"g8", "h8", "i8", "j8", "c2"});
  const SearchResult r = search_depth(game, 3);
  EXPECT_EQ(format_move(v, r.best), "c7");
  EXPECT_EQ(r.score, kMate - 1);
}

TEST(Vct, FindsADoubleThree) {
  // x: two in row 8 (f8 g8) and two in column h (h6 h7), all open. h8 makes
  // two open threes at once; o has no four to answer with, so one of them
  // becomes a straight four: a win in 5 plies, and no cell does it faster
  // (x has no four to make).
  const Variant v = Variant::gomoku();
  const Game game = from_stones(v, {"f8", "g8", "h6", "h7"}, {"a1", "a15", "o1", "o15"});
  const SearchResult r = search_depth(game, 1);
  EXPECT_EQ(format_move(v, r.best), "h8");
  EXPECT_EQ(r.score, kMate - 5);
}

TEST(Vct, NeverClaimsAWinFromASingleTwo) {
  const Variant v = Variant::gomoku();
  const Game game = from_stones(v, {"f8", "g8", "o8"}, {"a1", "a15", "o1"});
  const SearchResult r = search_depth(game, 1);
  EXPECT_FALSE(is_mate_score(r.score)) << r.score;
}

TEST(Vct, SeesThatAThreeAnsweredByAFourIsNoWin) {
  // The double three of FindsADoubleThree, but o has a closed three in
  // column c (c3..c5, x on c2) and so a four to answer h8 with (c6, then x
  // must block c7): whatever x has, it is no longer the plain win in 5.
  const Variant v = Variant::gomoku();
  const Game game =
      from_stones(v, {"f8", "g8", "h6", "h7", "c2", "o15"}, {"c3", "c4", "c5", "a15", "o1", "a1"});
  const SearchResult r = search_depth(game, 1);
  EXPECT_NE(r.score, kMate - 5) << format_move(v, r.best);
}

// The tactics suite: the VCF position in all eight orientations, each a win
// in 5 plies found at depth 1.
TEST(Vcf, TacticsSuiteSolvedInEveryOrientation) {
  const Variant v = Variant::gomoku();
  int solved = 0;
  for (int symmetry = 0; symmetry < 8; ++symmetry) {
    const Game game = from_stones(v, transform(v, kVcfX, symmetry), transform(v, kVcfO, symmetry));
    const SearchResult r = search_depth(game, 1);
    const std::vector<std::string> firsts =
        transform(v, std::vector<std::string>{"h11", "h12", "k11"}, symmetry);
    if (r.score == kMate - 5 && contains(firsts, format_move(v, r.best)))
      ++solved;
    else
      ADD_FAILURE() << symmetry << ": " << format_move(v, r.best) << " " << r.score;
  }
  EXPECT_EQ(solved, 8);
}

// A tactics suite from real games: positions of our bot's games against a
// classical Gomocup engine at 0.5 s a move, taken where the side to move
// went on to win with fours only (the second number: plies to the five as
// played). Each is a VCF: found at depth 1, no longer than it was played.
struct PlayedVcf {
  const char* moves;
  int plies;
};

TEST(Vcf, TacticsSuiteFromPlayedGames) {
  const Variant v = Variant::gomoku();
  const PlayedVcf suite[] = {
      {"e8i11i8h11f7j9g6d9g8j11g11j10j8h8g7g9i4h5g4g5f8", 7},
      {"e11f5h7e6e8d7c8f7e10e7e9e12b7d9g8f9f6g4h3d8d6d10d11f11f10g10d13e5h8g9i8f8g5k8h6h10i11h4i4e4"
       "e3f4d4d3g6i6h5h9j3k2i5c2b1j5g7i9",
       7},
      {"e8i11i8h11f11i12g10h9g8h12h8f8j8k8g9g11g7g6j10i9i10", 7},
      {"k6g8e6g7f5g6g5h5i4g4i6f7i7i8j5h3l7m8i5i3l6h6h7e8d9f8h8g9g10d8c8h4h2e9d10d7", 7},
      {"f10g6j9f6i10e6h6f5g10h10h11g12i12f9i11d6c6f8f7i9g11g9e7e9h9d9c9j11", 5},
      {"g6e10e11g10d10f11d9d8c9f12e8c10e9f9f8g7b10b9c11b12a7b8f7h5e12h10f10g8d11", 5},
      {"g6e10e11d9f11d11d10f9g8g10h11g11e6h10f6h6g9c12b13f12i9i10f10h8f7h7h9d5f5k10j10e13d14f4h5i4",
       5},
      {"e11f5h7g4e10h5e9e8f9i6d11g8j7g5e12e13c12b13i5", 5},
      {"g6e10e11d9f11d11d10f9g8c9e9g7i8c10c11f8f7e12f13c8j9f5i10b9a8e6d7h11i9c12b13c6c7b7a6i11", 5},
      {"e6g8k7g10i5h9j6h4j7i10j11h10j10h7j9j8l8m9j12j13h8", 5},
      {"f10g6j9f6i10k8g10h10h9i6h6j7h5g8f9l9m10h8i8d4", 5},
      {"e8i11i8h11j11h12i10h9h10j10g13k9l8g11e11i9g9h8g7k11l12k10k8i13f10e10g6g5f7d9e7j14k15j9l9k13"
       "k12h7",
       5},
      {"g10f7i7i8h8g9j10g6h10i10j9h9j11j8k11g7g8e7d7e8d9e6e9e4e5f6l12i9j12j13m13n14d6", 5},
      {"g10f7i7f6h8g9h10f9f10i10h9h7i8j7h12h11e12f11e9f8f5g11", 5},
      {"e11f5h7e6e8d7c8f7e10e7e9e12b7d9g8d11d8f8f6c7g7g9d6e5b8a8d10h10i11f12b10e4e3g4h3c10", 3},
      {"e6g8k7g10g6h9f6h6h8g9g7i9j9i10e5d4f7i8d6c6f11", 3},
      {"e6g8k7g9i5f8j6h4g5e8h8f9j5f5j8d8c8f7f6f10f11j9i9g7", 3},
      {"e11f5h7g5e8f6h8h5i5f4f3h2e5h4e7", 3},
      {"f10g6j9e6g9g7h9i9h8i7h10h7f7f6h11h12h6f5e11d12i8g4d7", 3},
      {"f10g6j9f6i10k8g10h10h9i6h6j7h5i9f11i8f9i7i5l9m10f8h11e8", 3},
  };
  int solved = 0;
  for (const PlayedVcf& t : suite) {
    const auto game = Game::parse(v, t.moves);
    ASSERT_TRUE(game) << t.moves;
    const SearchResult r = search_depth(*game, 1);
    if (r.score > kMaxEval && mate_plies(r.score) <= t.plies)
      ++solved;
    else
      ADD_FAILURE() << t.moves << ": " << format_move(v, r.best) << " " << r.score;
  }
  EXPECT_EQ(solved, 20);
}

}  // namespace
}  // namespace inarow
