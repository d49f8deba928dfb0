// Shape evaluation for boards with k >= 5 and no gravity (gomoku).
//
// Every empty cell is scored, per side, by what a stone of that side would
// make there along each of the four lines through it: a five, an open four
// (two cells that make a five), a four (one), an open three (a move away
// from an open four), a three (a move away from a four), an open two, a two.
// The four lines combine into a cell class: two fours or an open four, a
// four and an open three, two open threes; and the best two of them pair
// up (an open three with an open two, a four with a three...). So an open
// three .XXX. scores through its two ends, each a cell that makes an open
// four, while a blocked one OXXX. only has cells that make a four.
//
// A line's shape depends only on the k-1 cells each side of the cell: 2 bits
// each (empty, first, second, off the board), a 4(k-1)-bit index into a
// table built once per k. A stone changes the index of at most 8(k-1) cells,
// so shapes and the score are kept up to date on make/undo.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "inarow/engine/evaluator.h"
#include "inarow/engine/search.h"

namespace inarow::detail {

enum class LineShape5 : std::uint8_t {
  none,
  two,
  open_two,
  three,
  open_three,
  four,
  open_four,
  five,
};
inline constexpr int kLineShapes = 8;

// What a stone of `own` on the middle cell of `line` makes along that line.
// line[i]: 0 empty, 1 own, 2 blocked (opponent or off the board); the middle
// is empty on entry. Runs of k or more win (freestyle).
inline LineShape5 classify_line(std::span<const std::uint8_t> line, int k) {
  const int mid = static_cast<int>(line.size()) / 2;
  std::array<std::uint8_t, 16> cells{};
  std::copy(line.begin(), line.end(), cells.begin());
  const int n = static_cast<int>(line.size());
  if (std::count(cells.begin(), cells.begin() + n, 1) == 0) return LineShape5::none;
  cells[mid] = 1;
  auto run_through_mid = [&] {
    int len = 1;
    for (int i = mid - 1; i >= 0 && cells[i] == 1; --i)
      ++len;
    for (int i = mid + 1; i < n && cells[i] == 1; ++i)
      ++len;
    return len;
  };
  // Five cells: empty cells completing a run of k through the middle.
  auto five_points = [&] {
    int count = 0;
    for (int e = 0; e < n; ++e) {
      if (cells[e] != 0) continue;
      cells[e] = 1;
      count += run_through_mid() >= k;
      cells[e] = 0;
    }
    return count;
  };
  // The best shape one more stone on the line reaches: fours from fives,
  // threes from fours, twos from threes.
  auto level = [&](auto&& self, int stones_left) -> LineShape5 {
    if (run_through_mid() >= k) return LineShape5::five;
    const int fives = five_points();
    if (fives >= 2) return LineShape5::open_four;
    if (fives == 1) return LineShape5::four;
    if (stones_left == 0) return LineShape5::none;
    LineShape5 best = LineShape5::none;
    for (int e = 0; e < n; ++e) {
      if (cells[e] != 0) continue;
      cells[e] = 1;
      best = std::max(best, self(self, stones_left - 1));
      cells[e] = 0;
    }
    // One stone short of the best reachable shape.
    switch (best) {
      case LineShape5::open_four:
        return LineShape5::open_three;
      case LineShape5::four:
        return LineShape5::three;
      case LineShape5::open_three:
        return LineShape5::open_two;
      case LineShape5::three:
        return LineShape5::two;
      default:
        return LineShape5::none;
    }
  };
  return level(level, 2);
}

// Line shapes by window index, for each side. Slot j of an index holds the
// cell at offset j - h (j < h) or j - h + 1 (j >= h), h = k - 1, from the
// middle: 0 empty, 1 first player, 2 second, 3 off the board.
struct ShapeTable {
  int k = 5;
  int half = 4;
  // Both sides' shapes in one byte, the first player's in the low nibble:
  // one load per line, as the shape update wants them.
  std::vector<std::uint8_t> both;

  LineShape5 shape(std::size_t code, int side) const {
    return LineShape5((both[code] >> (4 * side)) & 15);
  }

  explicit ShapeTable(int k_) : k(k_), half(k_ - 1) {
    const std::size_t size = std::size_t{1} << (4 * half);
    std::array<std::uint8_t, 16> line{};
    both.assign(size, 0);
    for (std::size_t code = 0; code < size; ++code) {
      std::size_t swapped = 0;  // the same line with the colours exchanged
      for (int j = 0; j < 2 * half; ++j) {
        const int v = int(code >> (2 * j)) & 3;
        const int pos = j < half ? j : j + 1;
        line[pos] = v == 0 ? 0 : v == 1 ? 1 : 2;
        swapped |= std::size_t(v == 1 ? 2 : v == 2 ? 1 : v) << (2 * j);
      }
      line[half] = 0;
      // The second player's shape on the swapped line is the first's here
      // (swapping is one to one, so each nibble is written once).
      const int first = int(classify_line(std::span(line.data(), 2 * half + 1), k));
      both[code] |= std::uint8_t(first);
      both[swapped] |= std::uint8_t(first << 4);
    }
  }
  static int slot(int offset, int half) { return offset < 0 ? offset + half : offset + half - 1; }

  // The k = 5 table (64K lines a side), built once and shared by every
  // searcher. Longer k would need 4^(2k-2) entries: those boards keep the
  // window evaluator.
  static std::shared_ptr<const ShapeTable> five() {
    static const auto table = std::make_shared<const ShapeTable>(5);
    return table;
  }
};

// Whether a variant is scored by shapes when asked to be. The tables are
// freestyle's (a run of five or more wins), so the standard rule keeps the
// windows.
inline bool shapes_fit(const Variant& v) {
  return v.k == 5 && !v.gravity && !v.exact;
}

// Cell classes from the four lines through a cell, for one side.
enum class CellClass : std::uint8_t { plain, double_three, four_three, double_four };

inline CellClass combine(const std::array<LineShape5, 4>& lines) {
  int open_three = 0, four = 0;
  for (LineShape5 s : lines) {
    if (s >= LineShape5::open_four) return CellClass::double_four;  // as good: wins
    four += s == LineShape5::four;
    open_three += s == LineShape5::open_three;
  }
  if (four >= 2) return CellClass::double_four;
  if (four == 1 && open_three >= 1) return CellClass::four_three;
  if (open_three >= 2) return CellClass::double_three;
  return CellClass::plain;
}

// A cell's two best lines as one of Weights::pairs: rows by the best line
// (open_two, three, open_three, four), each with the seconds no better than
// it (none .. the best), so row a starts at (a - 2)(a + 3) / 2. -1 where the
// best is less than an open two, or an open four or a five (those win).
inline constexpr int kPairs = 18;
inline int pair_index(std::array<LineShape5, 4> lines) {
  std::sort(lines.begin(), lines.end(), std::greater<>());
  const int best = int(lines[0]), second = int(lines[1]);
  if (best < int(LineShape5::open_two) || best > int(LineShape5::four)) return -1;
  return (best - 2) * (best + 3) / 2 + second;
}

// Weights::order's layout: the shapes' gain (percent), then what a stone
// makes on each line (by LineShape5, two..open_four) and in all four (by
// CellClass) for the mover and against the opponent, then nearness to the
// last move (1..3 king steps) and to the mover's own last (1..2). In units
// of the windows' gain (see Core::order_gain).
inline constexpr int kOrderShapeGain = 0;
inline constexpr int kOrderOwnLine = 1;  // + LineShape5 - 1
inline constexpr int kOrderTheirLine = 7;
inline constexpr int kOrderOwnClass = 13;  // + CellClass - 1
inline constexpr int kOrderTheirClass = 16;
inline constexpr int kOrderNear = 19;  // + steps - 1
inline constexpr int kOrderNearSteps = 3;
inline constexpr int kOrderNearOwn = 22;
inline constexpr int kOrderNearOwnSteps = 2;
inline constexpr int kOrderTerms = 24;

// The incremental shape score of a board.
//
// Each cell keeps, per side, the four line shapes a stone there makes,
// packed 3 bits a direction into a 12-bit key; a cell's value and order
// terms are one lookup by that key in a table built from the weights. A
// stone changes one line of each cell it reaches, and most of those cells'
// shapes not at all: those cost a load and a compare.
class ShapeState {
 public:
  explicit ShapeState(const Variant& v) : table_(ShapeTable::five()), span_(v.span()) {
    assert(shapes_fit(v) && table_->half == kHalf);
    const int h = kHalf;
    static constexpr int kSteps[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    neighbours_.assign(std::size_t(span_) * 4 * 2 * h, -1);
    base_.assign(std::size_t(span_) * 4, 0);
    for (int c = 0; c < v.width; ++c)
      for (int r = 0; r < v.height; ++r) {
        const int cell = v.cell(c, r);
        for (int d = 0; d < 4; ++d) {
          std::uint32_t code = 0;
          for (int o = -h; o <= h; ++o) {
            if (o == 0) continue;
            const int j = ShapeTable::slot(o, h);
            const int nc = c + o * kSteps[d][0], nr = r + o * kSteps[d][1];
            if (v.on_board(nc, nr))
              neighbours_[slot_index(cell, d, j)] = v.cell(nc, nr);
            else
              code |= 3u << (2 * j);
          }
          base_[std::size_t(cell) * 4 + d] = code;
        }
      }
    stones_.assign(span_, 0);
    codes_ = base_;
    keys_.assign(std::size_t(span_) * 2, 0);
    value_.assign(std::size_t(span_) * 2, 0);
    order_.assign(std::size_t(span_) * 2, {});
  }

  void set_weights(const Weights& w) {
    std::array<int, kLineShapes> line_weight{}, gain_line{};
    std::array<int, 4> class_weight{}, gain_class{};
    // The order's gain reads its own copy of the values where the weights
    // have one (Weights::gain_shapes): tuning the score leaves the order be.
    const std::vector<int>& gain = w.gain_shapes.empty() ? w.shapes : w.gain_shapes;
    for (int i = 0; i < 7 && i < int(gain.size()); ++i)
      gain_line[i + 1] = gain[i];
    for (int i = 0; i < 3 && i + 7 < int(gain.size()); ++i)
      gain_class[i + 1] = gain[i + 7];
    // Weights::order's shape terms by side: [0] the mover's, [1] the opponent's.
    std::array<std::array<int, kLineShapes>, 2> order_line{};
    std::array<std::array<int, 4>, 2> order_class{};
    if (w.order.size() == std::size_t(kOrderTerms))
      for (int side = 0; side < 2; ++side) {
        // The last line shape, five, wins: never a quiet move's to order.
        for (int i = 1; i < kLineShapes - 1; ++i)
          order_line[side][i] = w.order[(side ? kOrderTheirLine : kOrderOwnLine) + i - 1];
        for (int i = 1; i < 4; ++i)
          order_class[side][i] = w.order[(side ? kOrderTheirClass : kOrderOwnClass) + i - 1];
      }
    // shapes: two, open_two, three, open_three, four, open_four, five, then
    // the cell classes double_three, four_three, double_four.
    for (int i = 0; i < 7 && i < int(w.shapes.size()); ++i)
      line_weight[i + 1] = w.shapes[i];
    for (int i = 0; i < 3 && i + 7 < int(w.shapes.size()); ++i)
      class_weight[i + 1] = w.shapes[i + 7];
    std::array<int, kPairs> pair_weight{};
    std::copy_n(w.pairs.begin(), std::min<std::size_t>(kPairs, w.pairs.size()),
                pair_weight.begin());
    pairs_.weight = {};
    for (std::size_t i = 0; i < w.held_pairs.size() && i < 2 * kPairs; ++i)
      pairs_.weight[i / kPairs][i % kPairs] = w.held_pairs[i];
    for (std::size_t key = 0; key < entries_.size(); ++key) {
      std::array<LineShape5, 4> lines{};
      CellEntry e{};
      for (int d = 0; d < 4; ++d) {
        lines[d] = LineShape5((key >> (3 * d)) & 7);
        e.value += line_weight[int(lines[d])];
        e.order[0] += order_line[0][int(lines[d])];
        e.order[1] += order_line[1][int(lines[d])];
        e.order[2] += gain_line[int(lines[d])];
      }
      const int c = int(combine(lines));
      e.value += class_weight[c];
      e.pair = std::int8_t(pair_index(lines));
      if (e.pair >= 0) e.value += pair_weight[e.pair];
      e.order[0] += order_class[0][c];
      e.order[1] += order_class[1][c];
      e.order[2] += gain_class[c];
      entries_[key] = e;
    }
  }

  void reset(const Variant& v, std::span<const std::uint16_t> moves) {
    codes_ = base_;
    std::fill(stones_.begin(), stones_.end(), 0);
    std::fill(value_.begin(), value_.end(), 0);
    pairs_.count = {};
    std::fill(order_.begin(), order_.end(), std::array<int, 3>{});
    score_ = 0;
    for (int c = 0; c < v.width; ++c)
      for (int r = 0; r < v.height; ++r)
        recount(v.cell(c, r));
    for (std::size_t i = 0; i < moves.size(); ++i)
      add(moves[i], static_cast<Side>(i & 1));
  }

  void add(int cell, Side s) { update(cell, index(s) + 1, +1); }
  void remove(int cell, Side s) { update(cell, index(s) + 1, -1); }

  Score score_first() const { return std::clamp(score_, -kMaxEval + 1, kMaxEval - 1); }
  // The pairs (pair_index) some empty cell makes for `s`, a bit each.
  std::uint32_t pairs_held(Side s) const { return pairs_.held(index(s)); }
  // Weights::held_pairs for `us` to move: each pair some cell makes for
  // us, then for the opponent, scored once however many cells make it.
  int held_score(Side us) const { return pairs_.score(index(us)); }
  // What a move on an empty cell is worth to `s` in the order's gain: its
  // own shapes there plus the opponent's it spoils, valued by the order's
  // copy of the shape weights.
  int gain(int cell, Side s) const {
    return order_[std::size_t(cell) * 2 + index(s)][2] +
           order_[std::size_t(cell) * 2 + 1 - index(s)][2];
  }
  // The shapes' part of a move's place in the order (Weights::order): what
  // a stone of `s` on the empty `cell` makes, and what one of the
  // opponent's there would.
  int order_value(int cell, Side s) const {
    return order_[std::size_t(cell) * 2 + index(s)][0] +
           order_[std::size_t(cell) * 2 + 1 - index(s)][1];
  }
  // The line shapes a stone of `s` on `cell` makes, in the four directions.
  std::array<LineShape5, 4> shapes(int cell, Side s) const {
    std::array<LineShape5, 4> out{};
    for (int d = 0; d < 4; ++d)
      out[d] = table_->shape(codes_[std::size_t(cell) * 4 + d], index(s));
    return out;
  }

 private:
  // A stone's value on a cell, and its order terms: as the mover's [0], as
  // the opponent's [1], and its value to the order's gain [2]; by the
  // cell's key.
  struct CellEntry {
    int value = 0;
    std::array<int, 3> order{};
    std::int8_t pair = -1;  // pair_index of the key's lines
  };
  // How many empty cells make each pair, per side: slot 0 counts the cells
  // that make none, slot p + 1 pair p. A key that changes moves one cell
  // from slot to slot without a branch; the leaf weighs the pairs held
  // (Weights::held_pairs, as the mover's [0] and the opponent's [1]) from
  // the counts, which it reads far less often than they change.
  struct PairCounts {
    std::array<std::array<int, kPairs + 1>, 2> count{};
    std::array<std::array<int, kPairs>, 2> weight{};
    void change(int side, int from, int to) {
      --count[side][from + 1];
      ++count[side][to + 1];
    }
    int score(int us) const {
      int sum = 0;
      for (int p = 0; p < kPairs; ++p)
        sum += weight[0][p] * (count[us][p + 1] > 0) + weight[1][p] * (count[1 - us][p + 1] > 0);
      return sum;
    }
    std::uint32_t held(int side) const {
      std::uint32_t bits = 0;
      for (int p = 0; p < kPairs; ++p)
        bits |= std::uint32_t(count[side][p + 1] > 0) << p;
      return bits;
    }
  };
  static constexpr int kKeyBits = 3;  // a LineShape5
  static constexpr int kHalf = 4;     // cells each side of a cell on a line (k = 5)
  static_assert(kLineShapes <= 1 << kKeyBits);

  std::size_t slot_index(int cell, int d, int j) const {
    return (std::size_t(cell) * 4 + d) * 2 * kHalf + j;
  }
  // The per-cell arrays as pointers, which update() keeps in locals.
  struct Cells {
    std::uint16_t* keys;
    int* value;
    std::array<int, 3>* order;
    PairCounts* pairs;
    const CellEntry* entries;
    // Give an empty cell's side (at = cell * 2 + side) the value of `key`;
    // `counted` is the pair it was counted under until now (-1: none, or a
    // cell just emptied, counted nowhere). Returns the change in the first
    // player's score.
    int assign(std::size_t at, std::uint16_t key, int counted) const {
      keys[at] = key;
      const CellEntry& e = entries[key];
      const int change = (at & 1 ? -1 : 1) * (e.value - value[at]);
      value[at] = e.value;
      order[at] = e.order;
      pairs->change(int(at & 1), counted, e.pair);
      return change;
    }
  };
  Cells cells() { return {keys_.data(), value_.data(), order_.data(), &pairs_, entries_.data()}; }
  // An empty cell's keys from its four lines; an occupied cell is worth
  // nothing (its keys are left stale, and recounted when it empties).
  void recount(int cell) {
    const std::size_t at = std::size_t(cell) * 2;
    if (stones_[cell]) {
      score_ -= value_[at] - value_[at + 1];
      value_[at] = value_[at + 1] = 0;
      order_[at] = order_[at + 1] = {};
      // Its keys are those it counted while empty.
      for (int side = 0; side < 2; ++side)
        pairs_.change(side, entries_[keys_[at + side]].pair, -1);
      return;
    }
    std::uint16_t key[2] = {0, 0};
    for (int d = 0; d < 4; ++d) {
      const int both = table_->both[codes_[std::size_t(cell) * 4 + d]];
      key[0] |= std::uint16_t((both & 15) << (kKeyBits * d));
      key[1] |= std::uint16_t((both >> 4) << (kKeyBits * d));
    }
    // An emptied cell's stale keys were taken out of the counts when it
    // filled.
    const Cells all = cells();
    score_ += all.assign(at, key[0], -1) + all.assign(at + 1, key[1], -1);
  }
  void update(int cell, int stone, int delta) {
    stones_[cell] = delta > 0 ? std::uint8_t(stone) : 0;
    recount(cell);
    // The loop's state in locals: stores through the members' pointers
    // would otherwise make the compiler reload them (and the score) at
    // every step, the byte tables above all, which may alias anything.
    const int* neighbours = &neighbours_[slot_index(cell, 0, 0)];
    std::uint32_t* codes = codes_.data();
    const std::uint8_t* stones = stones_.data();
    const std::uint8_t* both_of = table_->both.data();
    const Cells all = cells();
    int score = score_;
    for (int d = 0; d < 4; ++d) {
      const int shift = kKeyBits * d;
      const auto mask = std::uint16_t(~(7u << shift));
      for (int j = 0; j < 2 * kHalf; ++j) {
        const int n = neighbours[d * 2 * kHalf + j];
        if (n < 0) continue;
        // `cell` sits at the mirrored offset from n.
        const std::uint32_t step = std::uint32_t(stone) << (2 * (2 * kHalf - 1 - j));
        std::uint32_t& code = codes[std::size_t(n) * 4 + d];
        code = delta > 0 ? code + step : code - step;
        if (stones[n]) continue;
        // Only line d of n changed: most often neither side's shape on it.
        const int both = both_of[code];
        for (int side = 0; side < 2; ++side) {
          const std::size_t at = std::size_t(n) * 2 + side;
          const std::uint16_t old = all.keys[at];
          const auto key = std::uint16_t((old & mask) | ((both >> (4 * side)) & 15) << shift);
          if (key != old) score += all.assign(at, key, all.entries[old].pair);
        }
      }
    }
    score_ = score;
  }

  std::shared_ptr<const ShapeTable> table_;
  int span_;
  std::vector<int> neighbours_;      // per cell, direction, slot: the cell there or -1
  std::vector<std::uint32_t> base_;  // empty-board codes (off-board slots set)
  std::vector<std::uint32_t> codes_;
  std::vector<std::uint8_t> stones_;
  std::vector<std::uint16_t> keys_;  // per cell and side: its four line shapes
  std::vector<int> value_;           // per cell and side
  PairCounts pairs_;
  // per cell and side: the order terms of its stone there, as the mover's
  // and as the opponent's, and its value to the order's gain
  std::vector<std::array<int, 3>> order_;
  std::array<CellEntry, std::size_t{1} << (4 * kKeyBits)> entries_{};
  int score_ = 0;
};

}  // namespace inarow::detail
