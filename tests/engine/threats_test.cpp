// The line threats on bitboards (engine/src/threats.h): the five cells a
// stone just played takes part in, against the whole-board computation, and
// both sides' fours and threes in one pass against each side's own.
#include "threats.h"

#include <gtest/gtest.h>

#include "inarow/common/splitmix.h"
#include "inarow/engine/position.h"
#include "inarow/engine/variant.h"
#include "stones.h"

namespace inarow::detail {
namespace {

// Random positions of one side's stones among the other's; wherever the side
// has no five cell yet, a stone on any empty cell must give the same five
// cells through five_cells_through as through five_cells. Returns the number
// of stones tried that made at least one five cell (the interesting case).
template <int W>
int compare_on(const Variant& v, std::uint64_t seed, int positions) {
  const auto geo = Geometry<W>::make(v);
  const LineShape<W> shape{geo->directions, v.k};
  std::uint64_t rng = seed;
  int making_fives = 0;
  for (int n = 0; n < positions; ++n) {
    // Dense enough for fours and fives, sparse enough to leave room.
    const int own_percent = 20 + static_cast<int>(splitmix64_next(rng) % 35);
    const auto [own, theirs] = testing::random_stones<W>(v, rng, own_percent);
    const Bitboard<W> empty = geo->board & ~(own | theirs);
    if (five_cells(shape, own, empty).any()) continue;
    for (int c = 0; c < Bitboard<W>::kBits; ++c) {
      if (!empty.test(c)) continue;
      Bitboard<W> after = own;
      after.set(c);
      Bitboard<W> left = empty;
      left.reset(c);
      const Bitboard<W> want = five_cells(shape, after, left);
      EXPECT_EQ(five_cells_through(shape, after, left, c), want) << v.name << " cell " << c;
      EXPECT_EQ(five_cells_through(shape, after, empty, c), want) << "c still marked empty";
      if (want.any()) ++making_fives;
    }
  }
  return making_fives;
}

TEST(Threats, FiveCellsThroughAStoneAgreeWithTheWholeBoard) {
  // Each count (fixed by its seed) is of stones that made a five cell: the
  // comparison above ran on the case that matters that many times.
  EXPECT_EQ(compare_on<4>(Variant::gomoku(), 1, 600), 180);
  EXPECT_EQ(compare_on<2>(*Variant::parse("mnk:9,9,5"), 2, 600), 635);
  EXPECT_EQ(compare_on<4>(*Variant::parse("mnk:19,12,6"), 3, 400), 466);
  EXPECT_EQ(compare_on<1>(*Variant::parse("mnk:7,7,5"), 4, 800), 1125);
}

// Random positions: line_threats must give each side exactly what
// four_cells and threes give it. Returns how many positions had a three
// for some side (the case with the most to get wrong).
template <int W>
int compare_both_sides(const Variant& v, std::uint64_t seed, int positions) {
  const auto geo = Geometry<W>::make(v);
  const LineShape<W> shape{geo->directions, v.k, v.exact};
  std::uint64_t rng = seed;
  int with_threes = 0;
  for (int n = 0; n < positions; ++n) {
    const int own_percent = 10 + static_cast<int>(splitmix64_next(rng) % 45);
    const auto [a, b] = testing::random_stones<W>(v, rng, own_percent);
    const Bitboard<W> empty = geo->board & ~(a | b);
    const auto both = line_threats(shape, a, b, empty);
    bool threes_seen = false;
    for (int s = 0; s < 2; ++s) {
      const Bitboard<W>& own = s == 0 ? a : b;
      const auto one = threes(shape, own, empty);
      EXPECT_EQ(both[s].fours, four_cells(shape, own, empty)) << v.name << " side " << s;
      EXPECT_EQ(both[s].threes.makers, one.makers) << v.name << " side " << s;
      EXPECT_EQ(both[s].threes.defence, one.defence) << v.name << " side " << s;
      EXPECT_EQ(both[s].threes.any, one.any) << v.name << " side " << s;
      threes_seen |= one.makers.any();
    }
    with_threes += threes_seen;
  }
  return with_threes;
}

TEST(Threats, BothSidesInOnePassAgreeWithEachSidesOwn) {
  // Each count (fixed by its seed) is of positions where a side had a three.
  EXPECT_EQ(compare_both_sides<4>(Variant::gomoku(), 11, 500), 498);
  EXPECT_EQ(compare_both_sides<4>(Variant::gomoku_standard(), 12, 500), 483);
  EXPECT_EQ(compare_both_sides<2>(*Variant::parse("mnk:9,9,5"), 13, 500), 360);
  EXPECT_EQ(compare_both_sides<4>(*Variant::parse("mnk:19,12,6"), 14, 400), 315);
  EXPECT_EQ(compare_both_sides<4>(*Variant::parse("mnk:19,12,6,exact"), 15, 400), 276);
  EXPECT_EQ(compare_both_sides<1>(*Variant::parse("mnk:7,7,5"), 16, 800), 354);
}

}  // namespace
}  // namespace inarow::detail
