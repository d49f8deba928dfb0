// Victory by continuous fours (VCF): a win made of fours only, each of which
// the defender must block at once, ending in a five or in a four the
// defender cannot block (two five cells). With threes as well it is a VCT
// (victory by continuous threats): after a three the defender may take any
// cell that spoils all its straight fours, or play a four of its own, and
// every such reply must lose.
//
// It works on the two sides' stones as plain bitboards, not on a Position:
// it needs no move list, and "what if the opponent could move now" (the
// defender's view of the attacker's threats) is a swap of arguments. The
// defender's only replies are the block, so the tree is narrow and a
// depth-limited search proves real wins; it never claims a false one:
//   - the attacker first blocks any five cell of the defender (with a move
//     that is itself a four) and gives up against two;
//   - a four whose block would make the defender a five is not played.
// Failed positions go into a small table keyed by (stones, attacker), with
// the depth they failed at, so transpositions of the same fours cost nothing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "inarow/engine/position.h"
#include "threats.h"

namespace inarow::detail {

template <int W>
class Vcf {
 public:
  using Board = Bitboard<W>;

  struct Result {
    Cell move = kNoCell;  // the first four (or the five), kNoCell if none found
    int plies = 0;        // plies to the five, the attacker's first move included
  };

  Vcf(const LineShape<W>& shape, const Board& board, int table_bits = 16)
      : shape_(shape),
        board_(board),
        table_(std::size_t{1} << table_bits),
        mask_(table_.size() - 1) {}

  void clear() { std::fill(table_.begin(), table_.end(), Entry{}); }
  std::uint64_t nodes() const { return nodes_; }
  // The last find ran out of its node budget: "none found" then proves
  // nothing, where otherwise it proves there is no VCF within max_plies.
  bool aborted() const { return aborted_; }

  // What the caller already knows of the position, so that no deepening
  // step works it out again: the attacker has no five cell, the defender's
  // are these, and (when not null) the attacker's four cells are these.
  struct Known {
    Board their_fives;
    const Board* own_fours = nullptr;
  };

  // A VCF for the side with stones `own`, to move, against `theirs`.
  // `key` is the position's Zobrist key; max_plies bounds the line's length
  // and node_budget the work (a search cut short finds nothing).
  Result find(Side attacker, const Board& own, const Board& theirs, std::uint64_t key,
              int max_plies, std::uint64_t node_budget, bool with_threes = false,
              const Known* known = nullptr) {
    known_ = known;
    attacker_ = attacker;
    threes_ = with_threes;
    own_ = own;
    theirs_ = theirs;
    key_ =
        key ^ (attacker == Side::first ? 0 : 0x5DEECE66DULL) ^ (with_threes ? 0xA5A5A5A5A5ULL : 0);
    budget_ = node_budget;
    nodes_ = 0;
    aborted_ = false;
    // Deepen two plies at a time so that the win found is a shortest one
    // (the failure table makes the re-searches cheap).
    Result r;
    for (int depth = 1; depth <= max_plies && !aborted_; depth += 2) {
      r.plies = attack(depth, &r.move);
      if (r.plies) return r;
    }
    r.move = kNoCell;
    r.plies = 0;
    return r;
  }

 private:
  struct Entry {
    std::uint64_t key = 0;
    int depth = -1;  // no VCF within this many plies
  };

  Board empty() const { return board_ & ~(own_ | theirs_); }

  // Plies to a forced five for the attacker (to move), 0 if none within depth.
  // After a four and its block, `blocked` is the block: the attacker then
  // has no five cell (its only one was blocked) and the defender's are the
  // ones through the block (it had none left after the four), found along
  // four lines instead of over the whole board.
  int attack(int depth, Cell* first, int blocked = kNoCell) {
    ++nodes_;
    if (nodes_ > budget_) aborted_ = true;
    if (aborted_) return 0;
    const Board e = empty();
    // Only the root has a `first` to fill in.
    const Known* known = first ? known_ : nullptr;
    if (blocked == kNoCell && !known) {
      const Board fives = five_cells(shape_, own_, e);
      if (fives.any()) {
        if (first) *first = fives.lowest();
        return 1;
      }
    }
    if (depth < 3) return 0;
    Entry& slot = table_[key_ & mask_];
    if (slot.key == key_ && slot.depth >= depth) return 0;

    // The defender's five cells must be blocked first, by a four (or, with
    // threes, a three).
    const Board theirs_fives = blocked != kNoCell ? five_cells_through(shape_, theirs_, e, blocked)
                               : known            ? known->their_fives
                                                  : five_cells(shape_, theirs_, e);
    if (theirs_fives.count() > 1) return 0;
    // Against a five cell only a four on that cell is worth a look, and the
    // attacker has no five cell here, so the cell is a four cell exactly
    // when a stone there makes one: the loop below tries it and moves on if
    // it makes none, as if four_cells had left it out (no node is counted),
    // without the whole-board four cells. With threes a three on the cell
    // counts too: those keep the whole-board test.
    const bool only_block = theirs_fives.any() && !threes_;
    Board moves = only_block                  ? theirs_fives
                  : known && known->own_fours ? *known->own_fours
                                              : four_cells(shape_, own_, e);
    if (threes_) {
      // A three already on the board while the defender has no four: a
      // straight four next, and nothing interrupts it.
      if (theirs_fives.none()) {
        const Board makers = threes(shape_, own_, e).makers;
        if (makers.any() && four_cells(shape_, theirs_, e).none()) {
          if (first) *first = makers.lowest();
          return 3;
        }
      }
      if (depth >= 5) moves |= three_cells(shape_, own_, e);
    }
    if (theirs_fives.any()) moves &= theirs_fives;

    const std::uint64_t defender = attacker_ == Side::first ? 1 : 0;
    for (int c : bits(moves)) {
      own_.set(c);
      // No five cell before c (checked above): the new ones run through c.
      const Board after = five_cells_through(shape_, own_, e, c);
      int result = 0;
      if (after.count() > 1) {
        result = 3;  // two five cells: one block, then the other
      } else if (after.any()) {
        // The one block; it is never a five for the defender (see above).
        const int b = after.lowest();
        theirs_.set(b);
        const std::uint64_t delta = zobrist(attacker_, c) ^ zobrist(static_cast<Side>(defender), b);
        key_ ^= delta;
        const int r = attack(depth - 2, nullptr, b);
        key_ ^= delta;
        theirs_.reset(b);
        if (r) result = r + 2;
      } else if (threes_) {
        result = after_three(depth, c);
      }
      own_.reset(c);
      if (result) {
        if (first) *first = c;
        return result;
      }
      if (aborted_) return 0;
    }
    slot = Entry{key_, depth};
    return 0;
  }

  // The attacker has just played c, a three: every defence (a cell that
  // spoils all its straight fours, or a four of the defender's) must lose.
  int after_three(int depth, int c) {
    const Board e = empty();
    const auto t = threes(shape_, own_, e);
    if (t.makers.none()) return 0;  // no three after all
    const Board replies = t.defence | four_cells(shape_, theirs_, e);
    // Nothing stops it: any move, the straight four, a block, the five.
    if (replies.none()) return 5;
    const std::uint64_t defender = attacker_ == Side::first ? 1 : 0;
    int worst = 0;
    for (int r : bits(replies)) {
      theirs_.set(r);
      const std::uint64_t delta = zobrist(attacker_, c) ^ zobrist(static_cast<Side>(defender), r);
      key_ ^= delta;
      const int v = attack(depth - 2, nullptr);
      key_ ^= delta;
      theirs_.reset(r);
      if (!v) return 0;
      worst = std::max(worst, v);
    }
    return worst + 2;
  }

  LineShape<W> shape_;
  Board board_;
  std::vector<Entry> table_;
  std::size_t mask_;

  const Known* known_ = nullptr;  // about the root, for this find
  Side attacker_ = Side::first;
  bool threes_ = false;  // VCT: threes as well as fours
  Board own_, theirs_;
  std::uint64_t key_ = 0;
  std::uint64_t nodes_ = 0, budget_ = 0;
  bool aborted_ = false;
};

}  // namespace inarow::detail
