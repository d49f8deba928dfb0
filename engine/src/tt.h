// The transposition table: two-slot buckets (one kept by depth, one always
// replaced), scores stored relative to the node so mate distances survive
// transpositions, and O(1) clearing: every epoch XORs stored keys with its own
// random salt, so entries of earlier epochs never match again (as likely as
// any 64-bit key collision) and no memory is touched.
#pragma once

#include <cstdint>
#include <vector>

#include "inarow/engine/search.h"

namespace inarow::detail {

enum class Bound : std::uint8_t { none = 0, upper = 1, lower = 2, exact = 3 };

struct TTEntry {
  std::uint64_t key = 0;
  std::int16_t score = 0;
  std::uint16_t move = 0xFFFF;
  std::uint8_t depth = 0;
  Bound bound = Bound::none;
  std::uint8_t generation = 0;  // low bits of the epoch, for replacement only
};
static_assert(sizeof(TTEntry) == 16);

class TranspositionTable {
 public:
  explicit TranspositionTable(std::size_t megabytes) { resize(megabytes); }

  void resize(std::size_t megabytes) {
    std::size_t buckets = 1;
    while (buckets * 2 * sizeof(Bucket) <= megabytes * 1024 * 1024) buckets *= 2;
    table_.assign(buckets, Bucket{});
    mask_ = buckets - 1;
    clear();
  }

  // Entries of earlier epochs read as empty.
  void clear() {
    ++epoch_;
    std::uint64_t z = epoch_ * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    salt_ = z ^ (z >> 31);
    generation_ = static_cast<std::uint8_t>(epoch_);
  }

  // A copy of the entry for `key`, with bound none if there is none.
  TTEntry probe(std::uint64_t key, int ply) const {
    const Bucket& b = table_[key & mask_];
    const std::uint64_t stored = key ^ salt_;
    for (const TTEntry& e : b.slot)
      if (e.key == stored && e.bound != Bound::none) {
        TTEntry copy = e;
        copy.score = static_cast<std::int16_t>(from_table(e.score, ply));
        return copy;
      }
    return {};
  }

  void store(std::uint64_t key, int ply, Score score, int depth, Bound bound, int move) {
    Bucket& b = table_[key & mask_];
    const std::uint64_t stored = key ^ salt_;
    TTEntry& deep = b.slot[0];
    TTEntry* target = &b.slot[1];
    if (deep.key == stored || deep.generation != generation_ || depth >= deep.depth) target = &deep;
    else if (b.slot[1].key == stored && b.slot[1].depth > depth && bound != Bound::exact)
      return;  // keep the deeper result for this very position
    *target = TTEntry{stored, static_cast<std::int16_t>(to_table(score, ply)),
                      static_cast<std::uint16_t>(move < 0 ? 0xFFFF : move),
                      static_cast<std::uint8_t>(depth > 255 ? 255 : depth), bound, generation_};
  }

  void prefetch(std::uint64_t key) const { __builtin_prefetch(&table_[key & mask_]); }

 private:
  struct Bucket {
    TTEntry slot[2];
  };

  static Score to_table(Score s, int ply) {
    if (s > kMaxEval) return s + ply;
    if (s < -kMaxEval) return s - ply;
    return s;
  }
  static Score from_table(Score s, int ply) {
    if (s > kMaxEval) return s - ply;
    if (s < -kMaxEval) return s + ply;
    return s;
  }

  std::vector<Bucket> table_;
  std::size_t mask_ = 0;
  std::uint64_t epoch_ = 0;
  std::uint64_t salt_ = 0;
  std::uint8_t generation_ = 0;
};

}  // namespace inarow::detail
