#include "inarow/arena/openings.h"

#include <gtest/gtest.h>

#include <set>

namespace inarow::arena {
namespace {

TEST(Openings, SameSeedSameBook) {
  const auto v = Variant::connect4();
  OpeningOptions o{.count = 8, .plies = -1, .depth = 2, .seed = 7};
  const auto a = make_openings(v, o);
  const auto b = make_openings(v, o);
  ASSERT_EQ(a.size(), 8u);
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a[i].notation, b[i].notation);
  o.seed = 8;
  const auto c = make_openings(v, o);
  std::set<std::string> first, second;
  for (const auto& x : a)
    first.insert(x.notation);
  for (const auto& x : c)
    second.insert(x.notation);
  EXPECT_NE(first, second);
}

TEST(Openings, DistinctBalancedAndUndecided) {
  const auto v = Variant::connect4();
  const auto book = make_openings(v, {.count = 12, .plies = 4, .depth = 3, .seed = 1});
  std::set<std::string> seen;
  for (const auto& o : book) {
    EXPECT_EQ(o.moves.size(), 4u);
    EXPECT_FALSE(is_mate_score(o.score)) << o.notation;
    EXPECT_TRUE(seen.insert(o.notation).second) << "duplicate " << o.notation;
    auto g = Game::parse(v, o.notation);
    ASSERT_TRUE(g);
    EXPECT_FALSE(g->over());
  }
}

TEST(Openings, KeepsTheMostEvenCandidates) {
  // With a third of the candidates kept, the kept scores are no worse than
  // the book drawn with every candidate kept.
  const auto v = Variant::connect4();
  const auto kept = make_openings(v, {.count = 6, .plies = 4, .depth = 3, .seed = 3});
  int worst = 0;
  for (const auto& o : kept)
    worst = std::max(worst, std::abs(o.score));
  EXPECT_LT(worst, 40);  // less than a three-in-a-window threat's weight
}

TEST(Openings, TinyBoardsStillGetABook) {
  const auto book =
      make_openings(Variant::tictactoe(), {.count = 20, .plies = -1, .depth = 4, .seed = 1});
  EXPECT_GE(book.size(), 1u);
  EXPECT_LE(book.size(), 9u);  // nine first moves, at most
  for (const auto& o : book)
    EXPECT_EQ(o.moves.size(), 1u);
}

TEST(Openings, GomokuOpensNearTheCentre) {
  const auto v = Variant::gomoku();
  const auto book = make_openings(v, {.count = 4, .plies = 3, .depth = 1, .seed = 1});
  ASSERT_EQ(book.size(), 4u);
  for (const auto& o : book)
    for (Cell c : o.moves) {
      EXPECT_LE(std::abs(v.col(c) - 7), 3);
      EXPECT_LE(std::abs(v.row(c) - 7), 3);
    }
}

}  // namespace
}  // namespace inarow::arena
