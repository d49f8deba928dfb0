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
//
// Under the standard rule (LineShape::exact) only exactly k wins, so a
// window counts only when the cells just outside it hold no own stone: its
// completion would otherwise be an overline, no win. Freestyle skips that
// test on a branch taken once per call.
//
// The whole-board tests work on Lanes (below), the same bits in a form
// whose one-step shifts are cheap on gomoku's board.
#pragma once

#include <array>
#include <cassert>
#include <cstdint>

#include "inarow/engine/bitboard.h"
#include "inarow/engine/position.h"

namespace inarow::detail {

template <int W>
struct LineShape {
  std::array<int, 4> directions{};  // bit distance between neighbours on a line
  int k = 5;
  bool exact = false;  // the standard rule: only exactly k wins
};

// A board as the whole-board tests below hold it while they shift it along
// a line: down(s) and up(s) are Bitboard's >> and << for 0 < s < 64 (one
// step, never a word or more). This one is the Bitboard itself.
template <int W>
struct Lanes {
  Bitboard<W> b;

  static Lanes of(const Bitboard<W>& x) { return {x}; }
  Bitboard<W> board() const { return b; }
  static Lanes ones() { return {~Bitboard<W>{}}; }
  Lanes down(int s) const { return {b >> s}; }
  Lanes up(int s) const { return {b << s}; }
  bool any() const { return b.any(); }
  Lanes operator&(const Lanes& o) const { return {b & o.b}; }
  Lanes operator|(const Lanes& o) const { return {b | o.b}; }
  Lanes operator~() const { return {~b}; }
  Lanes& operator&=(const Lanes& o) { return *this = *this & o; }
  Lanes& operator|=(const Lanes& o) { return *this = *this | o; }
};

#if defined(__GNUC__)  // GCC and Clang vector extensions
// Gomoku's 15x15 board is four words. As Bitboard<4> the six to eight
// boards a test keeps while it walks a direction do not fit the general
// registers (they go to the stack and back) and a step is seven word
// shifts and three ORs: here they are two pairs of 64-bit lanes in vector
// registers (SSE2 on x86-64), a step being four lane shifts, two lane
// shuffles and two ORs. four_cells ran 2.5 times as fast.
template <>
struct Lanes<4> {
  using Pair = std::uint64_t __attribute__((vector_size(16)));
  Pair lo, hi;  // words 0 and 1, words 2 and 3

  static Lanes of(const Bitboard<4>& x) { return {Pair{x.w[0], x.w[1]}, Pair{x.w[2], x.w[3]}}; }
  Bitboard<4> board() const {
    Bitboard<4> x;
    x.w = {lo[0], lo[1], hi[0], hi[1]};
    return x;
  }
  static Lanes ones() { return {~Pair{}, ~Pair{}}; }
  Lanes down(int s) const {
    assert(s > 0 && s < 64);
    const Pair middle = __builtin_shufflevector(lo, hi, 1, 2);   // words 1, 2
    const Pair top = __builtin_shufflevector(hi, Pair{}, 1, 2);  // word 3, 0
    return {(lo >> s) | (middle << (64 - s)), (hi >> s) | (top << (64 - s))};
  }
  Lanes up(int s) const {
    assert(s > 0 && s < 64);
    const Pair bottom = __builtin_shufflevector(Pair{}, lo, 0, 2);  // 0, word 0
    const Pair middle = __builtin_shufflevector(lo, hi, 1, 2);      // words 1, 2
    return {(lo << s) | (bottom >> (64 - s)), (hi << s) | (middle >> (64 - s))};
  }
  bool any() const {
    const Pair x = lo | hi;
    return (x[0] | x[1]) != 0;
  }
  Lanes operator&(const Lanes& o) const { return {lo & o.lo, hi & o.hi}; }
  Lanes operator|(const Lanes& o) const { return {lo | o.lo, hi | o.hi}; }
  Lanes operator~() const { return {~lo, ~hi}; }
  Lanes& operator&=(const Lanes& o) { return *this = *this & o; }
  Lanes& operator|=(const Lanes& o) { return *this = *this | o; }
};
#endif

// Empty cells of the windows of k where every cell is own or empty and
// exactly `kEmpty` (1 or 2) are empty: with a stone there, the window holds
// k - kEmpty + 1 own stones. Under the standard rule the cells just outside
// the window hold no own stone (its completion would be an overline).
// Cell i of the window is one step d further each time (never a shift of a
// whole word or more); the empties are counted bit-sliced, saturating one
// past kEmpty.
template <int kEmpty, int W>
Bitboard<W> window_cells(const LineShape<W>& g, const Bitboard<W>& own_board,
                         const Bitboard<W>& empty_board) {
  static_assert(kEmpty == 1 || kEmpty == 2);
  using L = Lanes<W>;
  const L own = L::of(own_board), empty = L::of(empty_board);
  const L mine_or_empty = own | empty;
  L result{};
  for (int d : g.directions) {
    // Window starts p: every cell own or empty; one, two, three: at least
    // that many empty.
    L all = L::ones(), one{}, two{}, three{};
    L e = empty, m = mine_or_empty;
    for (int i = 0; i < g.k; ++i) {
      if (i > 0) {
        e = e.down(d);
        m = m.down(d);
      }
      all &= m;
      if constexpr (kEmpty == 2) three |= two & e;
      two |= one & e;
      one |= e;
    }
    L starts = kEmpty == 1 ? all & one & ~two : all & two & ~three;
    // Under the standard rule, no own stone at cell -1 or at cell k: the
    // window's own stones, k-1 steps on, are one step short of cell k.
    if (g.exact) starts &= ~own.up(d) & ~(m & ~e).down(d);
    if (!starts.any()) continue;
    for (int i = 0; i < g.k; ++i) {
      if (i > 0) starts = starts.up(d);
      result |= starts & empty;
    }
  }
  return result.board();
}

// Empty cells where a stone of `own` completes k in a line: the empty cell
// of a window of k holding k-1 own stones.
template <int W>
Bitboard<W> five_cells(const LineShape<W>& g, const Bitboard<W>& own, const Bitboard<W>& empty) {
  return window_cells<1>(g, own, empty);
}

// How many cells of `own` follow one another from `from` on, `step` apart,
// up to `limit`. Cells off the board are never own (see above).
template <int W>
inline bool on_bits(int i) {
  return static_cast<unsigned>(i) < static_cast<unsigned>(Bitboard<W>::kBits);
}

template <int W>
inline int run_length(const Bitboard<W>& own, int from, int step, int limit) {
  int n = 0;
  for (int i = from; n < limit && on_bits<W>(i) && own.test(i); i += step)
    ++n;
  return n;
}

// The five cells of `own` on the four lines through c, an own stone: on each
// line, the empty cell at either end of the run of own stones holding c,
// when that run and the own stones beyond the cell make k - 1. When `own`
// had no five cell before c was played, these are all its five cells, found
// in a few steps along four lines instead of shifts of the whole board.
template <int W>
Bitboard<W> five_cells_through(const LineShape<W>& g, const Bitboard<W>& own,
                               const Bitboard<W>& empty, int c) {
  assert(own.test(c));
  Bitboard<W> result;
  const int need = g.k - 1;
  // Under the standard rule the runs are counted one further, so that a
  // run that would make more than k is seen as such.
  const int limit = g.exact ? g.k : need;
  // Written as walks, not as a loop over both ends with products: this is
  // the VCF's innermost call (a third of a gomoku search's instructions).
  const auto end = [&](int x, int step, int run) {
    if (!on_bits<W>(x) || !empty.test(x)) return;
    const int made = run + run_length(own, x + step, step, limit);
    if (g.exact ? made == need : made >= need) result.set(x);
  };
  for (int d : g.directions) {
    int lo = c - d, hi = c + d, run = 1;
    for (int n = 0; n < limit && on_bits<W>(lo) && own.test(lo); ++n, lo -= d)
      ++run;
    for (int n = 0; n < limit && on_bits<W>(hi) && own.test(hi); ++n, hi += d)
      ++run;
    end(lo, -d, run);
    end(hi, d, run);
  }
  return result;
}

// Empty cells where a stone of `own` makes a four: some window of k through
// the cell holds k-2 own stones and two empty cells (the cell and one more).
template <int W>
Bitboard<W> four_cells(const LineShape<W>& g, const Bitboard<W>& own, const Bitboard<W>& empty) {
  return window_cells<2>(g, own, empty);
}

// Starts p of the windows of k+1 cells along d with both ends empty whose
// k-1 inner cells are own or empty, exactly `inner_empty` (1 or 2) of them
// empty. Cell i of the window is one step d further each time (never a
// shift of a whole word or more); the empties are counted bit-sliced,
// saturating at three. Under the standard rule the cells just outside the
// window hold no own stone (either five of its straight four would be an
// overline).
template <int W>
Lanes<W> open_windows(const LineShape<W>& g, const Lanes<W>& mine_or_empty, const Lanes<W>& empty,
                      int d, int inner_empty) {
  using L = Lanes<W>;
  assert(inner_empty == 1 || inner_empty == 2);
  L starts = empty;
  L one{}, two{}, three{};
  L e = empty, m = mine_or_empty;
  for (int i = 1; i < g.k; ++i) {
    e = e.down(d);
    m = m.down(d);
    starts &= m;
    three |= two & e;
    two |= one & e;
    one |= e;
  }
  const L exact = inner_empty == 1 ? one & ~two : two & ~three;
  starts &= e.down(d) & exact;  // the far end, cell k, empty too
  if (g.exact && starts.any()) {
    // Both fives of the straight four must be exactly k: no own stone just
    // outside the window, at cell -1 or cell k + 1.
    // The own stones k-1 steps on are two steps short of cell k + 1.
    const L own = mine_or_empty & ~empty;
    starts &= ~own.up(d) & ~(m & ~e).down(d).down(d);
  }
  return starts;
}

// Empty cells where a stone of `own` makes a three: some window of k+1
// through the cell has empty ends and k-3 own stones and two empty cells
// (the cell and one more) inside.
template <int W>
Bitboard<W> three_cells(const LineShape<W>& g, const Bitboard<W>& own_board,
                        const Bitboard<W>& empty_board) {
  using L = Lanes<W>;
  const L empty = L::of(empty_board);
  const L mine_or_empty = L::of(own_board) | empty;
  L result{};
  for (int d : g.directions) {
    L starts = open_windows(g, mine_or_empty, empty, d, 2);
    if (!starts.any()) continue;
    for (int i = 1; i < g.k; ++i) {
      starts = starts.up(d);
      result |= starts & empty;
    }
  }
  return result.board();
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
  const Lanes<W> mine_or_empty = Lanes<W>::of(own | empty);
  Threes<W> t;
  bool first = true;
  t.defence = ~Board{};
  for (int d : g.directions) {
    const Board starts = open_windows(g, mine_or_empty, Lanes<W>::of(empty), d, 1).board();
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

// Both sides' fours and threes at once, as the main search asks for them at
// every node: for each side, what four_cells and threes give, from one walk
// along each direction instead of four. A window's empties are counted once
// for both sides, and the own-or-empty test of each side comes from the same
// shifted boards. Side 0 is `a`, side 1 is `b`.
template <int W>
struct SideThreats {
  Bitboard<W> fours;  // four_cells
  Threes<W> threes;   // threes
};

template <int W>
std::array<SideThreats<W>, 2> line_threats(const LineShape<W>& g, const Bitboard<W>& a,
                                           const Bitboard<W>& b, const Bitboard<W>& empty_board) {
  using Board = Bitboard<W>;
  using L = Lanes<W>;
  const int k = g.k;
  std::array<SideThreats<W>, 2> out;
  std::array<bool, 2> no_three{true, true};
  for (auto& side : out)
    side.threes.defence = ~Board{};
  const L empty = L::of(empty_board);
  const std::array<L, 2> own{L::of(a), L::of(b)};
  std::array<L, 2> fours_of{};
  for (int d : g.directions) {
    // Cells 1 .. k-1 of the window starting at p: their empties counted
    // (saturating at three) and whether each holds only one side's stones
    // or empty cells. Cell 0 is the unshifted boards, cell k one step more.
    L e = empty, sa = own[0], sb = own[1];
    L one{}, two{}, three{};
    std::array<L, 2> inner{L::ones(), L::ones()};
    for (int i = 1; i < k; ++i) {
      e = e.down(d);
      sa = sa.down(d);
      sb = sb.down(d);
      three |= two & e;
      two |= one & e;
      one |= e;
      inner[0] &= sa | e;
      inner[1] &= sb | e;
    }
    const L inner_one = one & ~two, inner_two = two & ~three;
    const L end_empty = e.down(d);  // cell k
    // Exactly two empties among cells 0 .. k-1 (a four's window), and an
    // open window's: both ends empty, one empty inside.
    const L two_of_k = (empty & inner_one) | (~empty & inner_two);
    const L open_one = empty & end_empty & inner_one;
    for (int s = 0; s < 2; ++s) {
      const L& o = own[s];
      L fours = (o | empty) & inner[s] & two_of_k;
      L opens = open_one & inner[s];
      if (g.exact) {
        // No own stone just outside: at cell -1, and at cell k for a four's
        // window, at cell k + 1 for an open one's.
        const L before = ~o.up(d);
        const L at_k = (s == 0 ? sa : sb).down(d);
        fours &= before & ~at_k;
        opens &= before & ~at_k.down(d);
      }
      for (int i = 0; i < k && fours.any(); ++i) {
        if (i > 0) fours = fours.up(d);
        fours_of[s] |= fours & empty;
      }
      if (!opens.any()) continue;
      Threes<W>& t = out[s].threes;
      for (int p : bits(opens.board())) {
        Board cells;
        for (int i = 0; i <= k; ++i)
          cells.set(p + i * d);
        cells &= empty_board;
        Board inside = cells;
        inside.reset(p);
        inside.reset(p + k * d);
        t.makers |= inside;
        t.any |= cells;
        t.defence &= cells;
        no_three[s] = false;
      }
    }
  }
  for (int s = 0; s < 2; ++s) {
    out[s].fours = fours_of[s].board();
    if (no_three[s]) out[s].threes.defence = Board{};
  }
  return out;
}

}  // namespace inarow::detail
