// Fixed-width bit sets for boards of up to 64*W cells.
//
// Cells are laid out column-major with one spare bit on top of every column
// (Pons' layout, generalised): cell (col, row) is bit col*(height+1) + row.
// The spare row keeps vertical and diagonal shifts from wrapping into the next
// column, so a line test is a handful of shifts and ANDs on any board.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace inarow {

template <int W>
struct Bitboard {
  static_assert(W >= 1);
  std::array<std::uint64_t, W> w{};

  static constexpr int kBits = 64 * W;

  constexpr bool test(int i) const { return (w[i >> 6] >> (i & 63)) & 1U; }
  constexpr void set(int i) { w[i >> 6] |= std::uint64_t{1} << (i & 63); }
  constexpr void reset(int i) { w[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }
  constexpr void flip(int i) { w[i >> 6] ^= std::uint64_t{1} << (i & 63); }

  static constexpr Bitboard bit(int i) {
    Bitboard b;
    b.set(i);
    return b;
  }

  constexpr bool any() const {
    std::uint64_t acc = 0;
    for (int i = 0; i < W; ++i)
      acc |= w[i];
    return acc != 0;
  }
  constexpr bool none() const { return !any(); }
  constexpr int count() const {
    int n = 0;
    for (int i = 0; i < W; ++i)
      n += std::popcount(w[i]);
    return n;
  }
  // Index of the lowest set bit; the board must not be empty.
  constexpr int lowest() const {
    for (int i = 0; i < W; ++i)
      if (w[i]) return i * 64 + std::countr_zero(w[i]);
    return -1;
  }
  constexpr void clear_lowest() {
    for (int i = 0; i < W; ++i)
      if (w[i]) {
        w[i] &= w[i] - 1;
        return;
      }
  }

  constexpr Bitboard operator&(const Bitboard& o) const {
    Bitboard r;
    for (int i = 0; i < W; ++i)
      r.w[i] = w[i] & o.w[i];
    return r;
  }
  constexpr Bitboard operator|(const Bitboard& o) const {
    Bitboard r;
    for (int i = 0; i < W; ++i)
      r.w[i] = w[i] | o.w[i];
    return r;
  }
  constexpr Bitboard operator^(const Bitboard& o) const {
    Bitboard r;
    for (int i = 0; i < W; ++i)
      r.w[i] = w[i] ^ o.w[i];
    return r;
  }
  constexpr Bitboard operator~() const {
    Bitboard r;
    for (int i = 0; i < W; ++i)
      r.w[i] = ~w[i];
    return r;
  }
  constexpr Bitboard& operator&=(const Bitboard& o) { return *this = *this & o; }
  constexpr Bitboard& operator|=(const Bitboard& o) { return *this = *this | o; }
  constexpr Bitboard& operator^=(const Bitboard& o) { return *this = *this ^ o; }
  constexpr bool operator==(const Bitboard&) const = default;

  // Shifts towards higher bit indices (<<) and lower ones (>>), across words.
  constexpr Bitboard operator<<(int s) const {
    Bitboard r;
    if constexpr (W == 1) {  // the common case, and the hot one: one instruction
      r.w[0] = s < 64 ? w[0] << s : 0;
      return r;
    }
    // A shift by less than a word (a step along a line): every index fixed,
    // so the words stay in registers instead of going through memory.
    if (s == 0) return *this;
    if (s < 64) {
      r.w[0] = w[0] << s;
      for (int i = 1; i < W; ++i)
        r.w[i] = (w[i] << s) | (w[i - 1] >> (64 - s));
      return r;
    }
    const int ws = s >> 6, bs = s & 63;
    for (int i = W - 1; i >= ws; --i) {
      std::uint64_t v = w[i - ws] << bs;
      if (bs && i - ws - 1 >= 0) v |= w[i - ws - 1] >> (64 - bs);
      r.w[i] = v;
    }
    return r;
  }
  constexpr Bitboard operator>>(int s) const {
    Bitboard r;
    if constexpr (W == 1) {
      r.w[0] = s < 64 ? w[0] >> s : 0;
      return r;
    }
    if (s == 0) return *this;
    if (s < 64) {
      for (int i = 0; i + 1 < W; ++i)
        r.w[i] = (w[i] >> s) | (w[i + 1] << (64 - s));
      r.w[W - 1] = w[W - 1] >> s;
      return r;
    }
    const int ws = s >> 6, bs = s & 63;
    for (int i = 0; i + ws < W; ++i) {
      std::uint64_t v = w[i + ws] >> bs;
      if (bs && i + ws + 1 < W) v |= w[i + ws + 1] << (64 - bs);
      r.w[i] = v;
    }
    return r;
  }
};

// Iterate the set bits of a board: for (int cell : bits(b)) ...
template <int W>
struct BitRange {
  Bitboard<W> b;
  struct iterator {
    Bitboard<W> b;
    int operator*() const { return b.lowest(); }
    iterator& operator++() {
      b.clear_lowest();
      return *this;
    }
    bool operator!=(const iterator& o) const { return b != o.b; }
  };
  iterator begin() const { return {b}; }
  iterator end() const { return {Bitboard<W>{}}; }
};

template <int W>
BitRange<W> bits(const Bitboard<W>& b) {
  return {b};
}

}  // namespace inarow
