// The line threats on bitboards (engine/src/threats.h): the five cells a
// stone just played takes part in, against the whole-board computation.
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

}  // namespace
}  // namespace inarow::detail
