// The transposition table: two-slot buckets (one kept by depth, one always
// replaced), scores stored relative to the node so mate distances survive
// transpositions, and an epoch that clears the table in O(1).
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
  std::uint8_t epoch = 0;
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
    epoch_ = 1;
  }

  // Entries of earlier epochs read as empty.
  void clear() {
    if (++epoch_ == 0) {
      table_.assign(table_.size(), Bucket{});
      epoch_ = 1;
    }
  }

  // A copy of the entry for `key`, with bound none if there is none.
  TTEntry probe(std::uint64_t key, int ply) const {
    const Bucket& b = table_[key & mask_];
    for (const TTEntry& e : b.slot)
      if (e.key == key && e.epoch == epoch_ && e.bound != Bound::none) {
        TTEntry copy = e;
        copy.score = static_cast<std::int16_t>(from_table(e.score, ply));
        return copy;
      }
    return {};
  }

  void store(std::uint64_t key, int ply, Score score, int depth, Bound bound, int move) {
    Bucket& b = table_[key & mask_];
    TTEntry& deep = b.slot[0];
    TTEntry* target = &b.slot[1];
    if (deep.key == key || deep.epoch != epoch_ || depth >= deep.depth) target = &deep;
    else if (b.slot[1].key == key && b.slot[1].epoch == epoch_ && b.slot[1].depth > depth &&
             bound != Bound::exact)
      return;  // keep the deeper result for this very position
    *target = TTEntry{key, static_cast<std::int16_t>(to_table(score, ply)),
                      static_cast<std::uint16_t>(move < 0 ? 0xFFFF : move),
                      static_cast<std::uint8_t>(depth > 255 ? 255 : depth), bound, epoch_};
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
  std::uint8_t epoch_ = 1;
};

}  // namespace inarow::detail
