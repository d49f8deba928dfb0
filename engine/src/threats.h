// Line threats on bitboards, for boards where k >= 5 and stones stay where
// they are put (no gravity): the cells that make a five, a four or a straight
// four for one side, and the cells that stop a straight four.
//
// Names follow gomoku for k = 5; every test is written for any k:
//   five cell      an empty cell completing k in a line;
//   four           a move that makes a five cell (k-1 own stones and one
//                  empty cell in some window of k);
//   straight four  k-1 own stones in a row with both ends empty: two five
//                  cells at once, which cannot both be blocked. A three is a
//                  window of k+1 with empty ends whose k-1 inner cells hold
//                  k-2 own stones and one empty cell, the cell that makes the
//                  straight four.
// A window here is a run of cells along one of the four directions; its
// cells must all lie on the board (the empty mask has only board cells), so
// the spare bit above each column and shifts past an edge stop a window.
#pragma once

#include <array>
#include <cassert>

#include "inarow/engine/bitboard.h"

namespace inarow::detail {

template <int W>
struct LineShape {
  std::array<int, 4> directions{};  // bit distance between neighbours on a line
  int k = 5;
};

// Cells p such that p + i*d is in b: b seen from i steps back along d.
template <int W>
inline Bitboard<W> ahead(const Bitboard<W>& b, int i, int d) {
  return i >= 0 ? b >> (i * d) : b << (-i * d);
}

// Empty cells where a stone of `own` completes k in a line.
template <int W>
Bitboard<W> five_cells(const LineShape<W>& g, const Bitboard<W>& own, const Bitboard<W>& empty) {
  using Board = Bitboard<W>;
  Board result;
  for (int d : g.directions) {
    // below: own stones on the 1..i cells behind; above: ahead. A cell wins
    // when j stones behind and k-1-j ahead are all own, for some j.
    std::array<Board, 21> below, above;
    below[0] = ~Board{};
    above[0] = ~Board{};
    for (int i = 1; i < g.k; ++i) {
      below[i] = below[i - 1] & (own << (i * d));
      above[i] = above[i - 1] & (own >> (i * d));
    }
    for (int j = 0; j < g.k; ++j)
      result |= below[j] & above[g.k - 1 - j];
  }
  return result & empty;
}

// Empty cells where a stone of `own` makes a four: some window of k through
// the cell holds k-2 own stones and two empty cells (the cell and one more).
template <int W>
Bitboard<W> four_cells(const LineShape<W>& g, const Bitboard<W>& own, const Bitboard<W>& empty) {
  using Board = Bitboard<W>;
  const Board mine_or_empty = own | empty;
  Board result;
  for (int d : g.directions) {
    // Window starts p: every cell own or empty, and exactly two empty
    // (saturating bit-sliced count of the empties: one, two, three or more).
    Board all = ~Board{}, one, two, three;
    for (int i = 0; i < g.k; ++i) {
      const Board e = ahead(empty, i, d);
      all &= ahead(mine_or_empty, i, d);
      three |= two & e;
      two |= one & e;
      one |= e;
    }
    const Board starts = all & two & ~three;
    if (starts.none()) continue;
    for (int i = 0; i < g.k; ++i)
      result |= ahead(starts, -i, d) & empty;
  }
  return result;
}

// Empty cells where a stone of `own` makes a three: some window of k+1
// through the cell has empty ends and k-3 own stones and two empty cells
// (the cell and one more) inside.
template <int W>
Bitboard<W> three_cells(const LineShape<W>& g, const Bitboard<W>& own, const Bitboard<W>& empty) {
  using Board = Bitboard<W>;
  const Board mine_or_empty = own | empty;
  Board result;
  for (int d : g.directions) {
    Board starts = empty & ahead(empty, g.k, d);
    Board one, two, three;
    for (int i = 1; i < g.k; ++i) {
      const Board e = ahead(empty, i, d);
      starts &= ahead(mine_or_empty, i, d);
      three |= two & e;
      two |= one & e;
      one |= e;
    }
    starts &= two & ~three;
    if (starts.none()) continue;
    for (int i = 1; i < g.k; ++i)
      result |= ahead(starts, -i, d) & empty;
  }
  return result;
}

// The straight fours a side can make with one move, and the cells that stop
// all of them.
template <int W>
struct Threes {
  Bitboard<W> makers;   // cells where the side makes a straight four
  Bitboard<W> defence;  // cells that spoil every such window (empty when none does)
  Bitboard<W> any;      // empty cells of every such window
};

template <int W>
Threes<W> threes(const LineShape<W>& g, const Bitboard<W>& own, const Bitboard<W>& empty) {
  using Board = Bitboard<W>;
  const Board mine_or_empty = own | empty;
  Threes<W> t;
  bool first = true;
  t.defence = ~Board{};
  for (int d : g.directions) {
    // Window of k+1 starting at p: both ends empty, the k-1 inner cells own
    // or empty with exactly one empty.
    Board starts = empty & ahead(empty, g.k, d);
    Board one, two;
    for (int i = 1; i < g.k; ++i) {
      const Board e = ahead(empty, i, d);
      starts &= ahead(mine_or_empty, i, d);
      two |= one & e;
      one |= e;
    }
    starts &= one & ~two;
    // Each window: its inner empty cell makes the straight four; a stone on
    // any of its empty cells spoils it.
    for (int p : bits(starts)) {
      Board cells;
      for (int i = 0; i <= g.k; ++i)
        cells.set(p + i * d);
      cells &= empty;
      Board inner = cells;
      inner.reset(p);
      inner.reset(p + g.k * d);
      t.makers |= inner;
      t.any |= cells;
      t.defence &= cells;
      first = false;
    }
  }
  if (first) t.defence = Board{};
  return t;
}

}  // namespace inarow::detail
