// A game in progress on bitboards: make/undo, win detection, Zobrist key.
//
// Position<W> is the one rules implementation: every variant runs on it, with
// W the number of 64-bit words its board needs (see Variant::words). Wins are
// found with shift-and-AND line tests on the mover's stones; the playable cells
// (column tops under gravity, empty cells otherwise) are kept incrementally.
#pragma once

#include <array>
#include <cassert>
#include <cstdint>
#include <memory>
#include <span>

#include "inarow/engine/bitboard.h"
#include "inarow/engine/variant.h"

namespace inarow {

inline constexpr int kMaxCells = 448;  // 20 columns x 21 bits, rounded to 7 words

namespace detail {
extern const std::array<std::array<std::uint64_t, kMaxCells>, 2> kZobristKeys;
}

// Random keys for (side, cell), the same for every variant and every run.
inline std::uint64_t zobrist(Side side, Cell cell) {
  return detail::kZobristKeys[index(side)][cell];
}

namespace detail {
// Cells that complete k in a line of `own` along the four directions (bit
// distances between neighbours): for some j, the j cells behind and the
// k-1-j cells ahead all hold own stones. Under the standard rule (Exact) the
// line is exactly k: the cell beyond each end is not own, and a cell that
// completes k + 1 or more on one line may still complete exactly k on
// another. Any cell, empty or not, on the board or not: callers mask.
// K > 0 fixes k at compile time (unrolled); K = 0 takes it from `k`. Shifts
// go one step d at a time, never a whole word.
template <int K, bool Exact, int W>
Bitboard<W> line_completions(const Bitboard<W>& own, const std::array<int, 4>& directions,
                             int k = K) {
  using Board = Bitboard<W>;
  assert(k >= 1 && k <= Variant::kMaxSide && (K == 0 || k == K));
  Board result;
  for (int d : directions) {
    // above[i]: own on the i cells ahead (Exact: and not on the next one).
    // Raw words, so that the unused entries are not zeroed on every call.
    // Freestyle's steps are the whole cost of its search's win tests: the
    // exact rule's extra terms are added beside them, not woven in.
    std::array<std::array<std::uint64_t, W>, K ? K : Variant::kMaxSide> above;
    Board run = ~Board{};
    if constexpr (Exact) {
      above[0] = (run & ~(own >> d)).w;
    } else {
      above[0] = run.w;
    }
    Board shifted = own;
    for (int i = 1; i < k; ++i) {
      shifted = shifted >> d;
      run &= shifted;
      if constexpr (Exact) {
        above[i] = (run & ~(shifted >> d)).w;
      } else {
        above[i] = run.w;
      }
    }
    // below: own on the j cells behind (Exact: and not on the one before).
    Board below = ~Board{};
    shifted = own;
    for (int j = 0; j < k; ++j) {
      if (j > 0) {
        shifted = shifted << d;
        below &= shifted;
      }
      Board a;
      a.w = above[k - 1 - j];
      if constexpr (Exact) {
        result |= below & ~(shifted << d) & a;
      } else {
        result |= below & a;
      }
    }
  }
  return result;
}
}  // namespace detail

// Masks derived from a Variant once and shared by all positions of it.
template <int W>
struct Geometry {
  Variant variant;
  Bitboard<W> board;                // every cell of the board
  Bitboard<W> bottom;               // the lowest cell of every column
  std::array<int, 4> directions{};  // bit distance between neighbours on a line
  // Every shift a line test makes stays below 64 bits (true for connect
  // four and most one-word boards; not for tall thin ones).
  bool short_shifts = false;

  explicit Geometry(Variant v);
  static std::shared_ptr<const Geometry> make(const Variant& v) {
    return std::make_shared<const Geometry>(v);
  }
};

template <int W>
class Position {
 public:
  using Board = Bitboard<W>;

  explicit Position(std::shared_ptr<const Geometry<W>> geometry);

  const Variant& variant() const { return geo_->variant; }
  const Geometry<W>& geometry() const { return *geo_; }

  int ply() const { return ply_; }
  Side to_move() const { return static_cast<Side>(ply_ & 1); }
  const Board& stones(Side s) const { return stones_[index(s)]; }
  Board occupied() const { return stones_[0] | stones_[1]; }
  // Cells where the side to move may place a stone (empty once the game is over).
  Board playable() const { return over() ? Board{} : playable_; }
  // Cells that could take a stone now, whether or not the game is over.
  const Board& open_cells() const { return playable_; }

  bool is_legal(Cell c) const { return c >= 0 && c < Board::kBits && playable().test(c); }
  // The last move made a line of k (the side that just moved has won).
  bool won() const { return won_; }
  bool full() const { return ply_ == geo_->variant.cells(); }
  bool over() const { return won_ || full(); }
  std::uint64_t key() const { return key_; }
  Cell last_move() const { return ply_ ? moves_[ply_ - 1] : kNoCell; }
  std::span<const std::uint16_t> moves() const { return {moves_.data(), std::size_t(ply_)}; }

  // Place the side to move's stone on a legal cell.
  void make(Cell c);
  // make() for a move known not to complete a line: the search tests for
  // wins before it moves, so it skips the test here.
  void make_nonwinning(Cell c);
  // Take back the last move.
  void undo();

  // Empty board cells where a stone of `s` would complete a line of k
  // (exactly k under the standard rule). Under gravity these may not be
  // playable yet.
  Board winning_cells(Side s) const { return winning_cells(stones_[index(s)]); }
  Board winning_cells(const Board& own) const;
  // True if `own` holds k in a line anywhere (exactly k: the standard rule).
  bool has_line(const Board& own) const;
  // True if `own` holds k in a line through cell c: the win check after a
  // move, which only needs to look along the four lines through it.
  bool has_line_through(const Board& own, Cell c) const;

 private:
  void place(Cell c);  // the stone, the key, the playable cells, the move list
  template <int K>
  Board winning_cells_k(const Board& own) const;

  std::shared_ptr<const Geometry<W>> geo_;
  std::array<Board, 2> stones_{};
  Board playable_{};
  std::uint64_t key_ = 0;
  int ply_ = 0;
  bool won_ = false;
  std::array<std::uint16_t, kMaxCells> moves_{};
};

// RAII guard for a speculative move: made on construction, undone on scope exit.
template <int W>
class ScopedMove {
 public:
  ScopedMove(Position<W>& pos, Cell c) : pos_(pos) { pos_.make(c); }
  ~ScopedMove() { pos_.undo(); }
  ScopedMove(const ScopedMove&) = delete;
  ScopedMove& operator=(const ScopedMove&) = delete;

 private:
  Position<W>& pos_;
};

// ---------------------------------------------------------------------------

template <int W>
Geometry<W>::Geometry(Variant v) : variant(std::move(v)) {
  assert(variant.span() <= Bitboard<W>::kBits);
  for (int c = 0; c < variant.width; ++c) {
    bottom.set(variant.cell(c, 0));
    for (int r = 0; r < variant.height; ++r)
      board.set(variant.cell(c, r));
  }
  const int s = variant.stride();
  directions = {1, s, s + 1, s - 1};  // vertical, horizontal, two diagonals
  short_shifts = W == 1 && (variant.k - 1) * (s + 1) < 64;
}

template <int W>
Position<W>::Position(std::shared_ptr<const Geometry<W>> geometry) : geo_(std::move(geometry)) {
  playable_ = geo_->variant.gravity ? geo_->bottom : geo_->board;
}

template <int W>
void Position<W>::place(Cell c) {
  assert(is_legal(c));
  const int me = ply_ & 1;
  stones_[me].set(c);
  key_ ^= zobrist(static_cast<Side>(me), c);
  playable_.reset(c);
  if (geo_->variant.gravity && geo_->variant.row(c) + 1 < geo_->variant.height)
    playable_.set(c + 1);
  moves_[ply_++] = static_cast<std::uint16_t>(c);
}

template <int W>
void Position<W>::make_nonwinning(Cell c) {
  place(c);
  assert(!has_line_through(stones_[(ply_ - 1) & 1], c));
}

template <int W>
void Position<W>::make(Cell c) {
  const bool wins = has_line_through(stones_[ply_ & 1] | Board::bit(c), c);
  place(c);
  won_ = wins;
}

template <int W>
void Position<W>::undo() {
  assert(ply_ > 0);
  const Cell c = moves_[--ply_];
  const int me = ply_ & 1;
  stones_[me].reset(c);
  key_ ^= zobrist(static_cast<Side>(me), c);
  if (geo_->variant.gravity && geo_->variant.row(c) + 1 < geo_->variant.height)
    playable_.reset(c + 1);
  playable_.set(c);
  won_ = false;  // a finished game has no moves after its last
}

template <int W>
bool Position<W>::has_line(const Board& own) const {
  const int k = geo_->variant.k;
  for (int d : geo_->directions) {
    // Cells starting a run of `len` stones, doubling len up to k.
    Board run = own;
    int len = 1;
    while (len * 2 <= k) {
      run &= run >> (len * d);
      len *= 2;
    }
    if (len < k) run &= run >> ((k - len) * d);
    // The standard rule: a run of k with no own stone just before or just
    // after it.
    if (geo_->variant.exact) run &= ~(own << d) & ~(own >> (k * d));
    if (run.any()) return true;
  }
  return false;
}

template <int W>
bool Position<W>::has_line_through(const Board& own, Cell c) const {
  const int k = geo_->variant.k, span = geo_->variant.span();
  // Step along each line from c both ways. The spare bit above every column
  // is never a stone, so a step off the top or bottom of a column stops the
  // walk just as the board's edge does.
  // Freestyle stops counting at k; the standard rule counts one further,
  // so that a run of k + 1 or more is no win.
  const int cap = k + (geo_->variant.exact ? 1 : 0);
  for (int d : geo_->directions) {
    int run = 1;
    for (int x = c + d; x < span && own.test(x) && run < cap; x += d)
      ++run;
    for (int x = c - d; x >= 0 && own.test(x) && run < cap; x -= d)
      ++run;
    if (run == k) return true;
  }
  return false;
}

template <int W>
typename Position<W>::Board Position<W>::winning_cells(const Board& own) const {
  if (geo_->variant.exact) {
    if (geo_->variant.k == 5)
      return detail::line_completions<5, true>(own, geo_->directions) & geo_->board & ~occupied();
    return detail::line_completions<0, true>(own, geo_->directions, geo_->variant.k) & geo_->board &
           ~occupied();
  }
  // The common line lengths get a fully unrolled version.
  switch (geo_->variant.k) {
    case 3:
      return winning_cells_k<3>(own);
    case 4:
      return winning_cells_k<4>(own);
    case 5:
      return winning_cells_k<5>(own);
    default:
      break;
  }
  return detail::line_completions<0, false>(own, geo_->directions, geo_->variant.k) & geo_->board &
         ~occupied();
}

template <int W>
template <int K>
typename Position<W>::Board Position<W>::winning_cells_k(const Board& own) const {
  if constexpr (W == 1 && K == 4) {
    if (geo_->short_shifts) {
      // Connect four's case, the exact solver's innermost loop: plain 64-bit
      // shifts with no range checks, three own stones around the cell.
      const std::uint64_t b = own.w[0];
      const auto line = [b](int d) {
        const std::uint64_t l1 = b << d, h1 = b >> d;
        const std::uint64_t low = l1 & (b << 2 * d), high = h1 & (b >> 2 * d);
        return (low & ((b << 3 * d) | h1)) | (high & ((b >> 3 * d) | l1));
      };
      const auto& d = geo_->directions;
      const std::uint64_t r = line(d[0]) | line(d[1]) | line(d[2]) | line(d[3]);
      Board result;
      result.w[0] = r & geo_->board.w[0] & ~(stones_[0].w[0] | stones_[1].w[0]);
      return result;
    }
  }
  return detail::line_completions<K, false>(own, geo_->directions) & geo_->board & ~occupied();
}

}  // namespace inarow
