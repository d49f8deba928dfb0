// The line threats on bitboards (engine/src/threats.h): the five cells a
// stone just played takes part in, against the whole-board computation, and
// both sides' fours and threes in one pass against each side's own; the
// whole-board tests and their vector lanes against plain window counting.
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

// Lanes<4> holds a board in vector registers: its shifts by a step (and
// everything else it does) must be Bitboard<4>'s, bit for bit.
TEST(Threats, LanesShiftLikeTheirBoard) {
  std::uint64_t rng = 21;
  const auto random_board = [&] {
    Bitboard<4> b;
    for (auto& w : b.w)
      w = splitmix64_next(rng);
    return b;
  };
  for (int n = 0; n < 200; ++n) {
    const Bitboard<4> a = random_board(), b = random_board();
    const Lanes<4> la = Lanes<4>::of(a), lb = Lanes<4>::of(b);
    EXPECT_EQ(la.board(), a);
    for (int s = 1; s < 64; ++s) {
      EXPECT_EQ(la.down(s).board(), a >> s) << "shift " << s;
      EXPECT_EQ(la.up(s).board(), a << s) << "shift " << s;
    }
    EXPECT_EQ((la & lb).board(), a & b);
    EXPECT_EQ((la | lb).board(), a | b);
    EXPECT_EQ((~la).board(), ~a);
    EXPECT_EQ(la.any(), a.any());
  }
  // One bit in each word in turn: any() must see every word.
  for (int i = 0; i < 256; i += 37)
    EXPECT_TRUE(Lanes<4>::of(Bitboard<4>::bit(i)).any()) << i;
  EXPECT_FALSE(Lanes<4>::of(Bitboard<4>{}).any());
  EXPECT_EQ(Lanes<4>::ones().board(), ~Bitboard<4>{});
}

// The whole-board tests the slow way: every window of k (and k+1) cells on
// the board, its stones counted.
template <int W>
struct Naive {
  Bitboard<W> fives, fours, three_cells;
  Threes<W> threes;
};

template <int W>
Naive<W> naive(const Variant& v, const Bitboard<W>& own, const Bitboard<W>& empty) {
  static constexpr int kSteps[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  Naive<W> out;
  out.threes.defence = ~Bitboard<W>{};
  bool any_three = false;
  const int k = v.k;
  const auto own_at = [&](int c, int r) { return v.on_board(c, r) && own.test(v.cell(c, r)); };
  for (int c = 0; c < v.width; ++c)
    for (int r = 0; r < v.height; ++r)
      for (const auto& [dc, dr] : kSteps)
        for (const int len : {k, k + 1}) {
          if (!v.on_board(c + (len - 1) * dc, r + (len - 1) * dr)) continue;
          // Under the standard rule, no own stone just outside the window.
          if (v.exact && (own_at(c - dc, r - dr) || own_at(c + len * dc, r + len * dr))) continue;
          Bitboard<W> empties, inner;
          int mine = 0, theirs = 0;
          for (int i = 0; i < len; ++i) {
            const int cell = v.cell(c + i * dc, r + i * dr);
            if (own.test(cell))
              ++mine;
            else if (empty.test(cell)) {
              empties.set(cell);
              if (i > 0 && i < len - 1) inner.set(cell);
            } else {
              ++theirs;
            }
          }
          if (theirs) continue;
          if (len == k) {
            if (mine == k - 1) out.fives |= empties;
            if (mine == k - 2) out.fours |= empties;
            continue;
          }
          // k + 1 cells: both ends empty, the inner ones own or empty.
          if (inner.count() + 2 != empties.count()) continue;
          if (mine == k - 3) out.three_cells |= inner;
          if (mine == k - 2) {
            out.threes.makers |= inner;
            out.threes.any |= empties;
            out.threes.defence &= empties;
            any_three = true;
          }
        }
  if (!any_three) out.threes.defence = Bitboard<W>{};
  return out;
}

// Random positions of several variants (and every board width): five_cells,
// four_cells, three_cells, threes and line_threats against the windows
// counted one by one. Returns how many positions had a three (a cell making
// a straight four) for the side, the case with the most to get wrong, so
// that a change of seed or generator that stops testing it shows.
template <int W>
int compare_with_windows(const Variant& v, std::uint64_t seed, int positions) {
  const auto geo = Geometry<W>::make(v);
  const LineShape<W> shape{geo->directions, v.k, v.exact};
  Position<W> pos(geo);
  std::uint64_t rng = seed;
  int with_threes = 0;
  for (int n = 0; n < positions; ++n) {
    const int own_percent = 10 + static_cast<int>(splitmix64_next(rng) % 45);
    const auto [own, theirs] = testing::random_stones<W>(v, rng, own_percent);
    const Bitboard<W> empty = geo->board & ~(own | theirs);
    const Naive<W> want = naive(v, own, empty);
    EXPECT_EQ(five_cells(shape, own, empty), want.fives) << v.name;
    EXPECT_EQ(five_cells(shape, own, empty), pos.winning_cells(own) & empty) << v.name;
    EXPECT_EQ(four_cells(shape, own, empty), want.fours) << v.name;
    EXPECT_EQ(three_cells(shape, own, empty), want.three_cells) << v.name;
    const auto t = threes(shape, own, empty);
    EXPECT_EQ(t.makers, want.threes.makers) << v.name;
    EXPECT_EQ(t.any, want.threes.any) << v.name;
    EXPECT_EQ(t.defence, want.threes.defence) << v.name;
    const auto both = line_threats(shape, own, theirs, empty);
    EXPECT_EQ(both[0].fours, want.fours) << v.name;
    EXPECT_EQ(both[0].threes.defence, want.threes.defence) << v.name;
    with_threes += want.threes.makers.any();
  }
  return with_threes;
}

TEST(Threats, WholeBoardTestsAgreeWithTheWindowsOneByOne) {
  // Each count (fixed by its seed) is of positions with a three.
  EXPECT_EQ(compare_with_windows<4>(Variant::gomoku(), 31, 300), 291);
  EXPECT_EQ(compare_with_windows<4>(Variant::gomoku_standard(), 32, 300), 273);
  EXPECT_EQ(compare_with_windows<4>(*Variant::parse("mnk:19,12,6,exact"), 33, 200), 125);
  EXPECT_EQ(compare_with_windows<2>(*Variant::parse("mnk:9,9,5"), 34, 300), 216);
  EXPECT_EQ(compare_with_windows<2>(*Variant::parse("mnk:9,9,4,exact"), 35, 300), 262);
  EXPECT_EQ(compare_with_windows<7>(*Variant::parse("mnk:20,20,5"), 36, 100), 100);
  EXPECT_EQ(compare_with_windows<1>(*Variant::parse("mnk:7,7,5"), 37, 300), 133);
}

// What the search and the VCF lean on: where a side has no five cell, a cell
// is one of its four cells exactly when a stone there makes a five cell,
// and those five cells (all of them: they run through the stone) are the
// whole board's, standard rule included. Returns the stones that made one.
template <int W>
int compare_fours_and_fives(const Variant& v, std::uint64_t seed, int positions) {
  const auto geo = Geometry<W>::make(v);
  const LineShape<W> shape{geo->directions, v.k, v.exact};
  Position<W> pos(geo);
  std::uint64_t rng = seed;
  int making_fives = 0;
  for (int n = 0; n < positions; ++n) {
    // Sparse enough for some boards without a five cell.
    const int own_percent = 10 + static_cast<int>(splitmix64_next(rng) % 25);
    const auto [own, theirs] = testing::random_stones<W>(v, rng, own_percent);
    const Bitboard<W> empty = geo->board & ~(own | theirs);
    if ((pos.winning_cells(own) & empty).any()) continue;
    const Bitboard<W> fours = four_cells(shape, own, empty);
    for (int c : bits(empty)) {
      Bitboard<W> after = own, left = empty;
      after.set(c);
      left.reset(c);
      const Bitboard<W> made = five_cells_through(shape, after, left, c);
      EXPECT_EQ(made, pos.winning_cells(after) & left) << v.name << " cell " << c;
      EXPECT_EQ(made.any(), fours.test(c)) << v.name << " cell " << c;
      making_fives += made.any();
    }
  }
  return making_fives;
}

TEST(Threats, AFourCellIsWhereAStoneMakesAFiveCell) {
  // Each count (fixed by its seed) is of stones that made a five cell.
  EXPECT_EQ(compare_fours_and_fives<4>(Variant::gomoku(), 41, 300), 658);
  EXPECT_EQ(compare_fours_and_fives<4>(Variant::gomoku_standard(), 42, 300), 945);
  EXPECT_EQ(compare_fours_and_fives<2>(*Variant::parse("mnk:9,9,4"), 43, 300), 599);
  EXPECT_EQ(compare_fours_and_fives<4>(*Variant::parse("mnk:19,12,6,exact"), 44, 200), 488);
  EXPECT_EQ(compare_fours_and_fives<7>(*Variant::parse("mnk:20,20,5"), 45, 100), 170);
}

}  // namespace
}  // namespace inarow::detail
