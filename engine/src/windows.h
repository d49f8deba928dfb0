// The line windows of a board and the evaluator's incremental state over them.
//
// A window is k cells in a row, column or diagonal. The evaluation is the sum
// over windows holding stones of one side only of weight[count], positive for
// the first player. Placing a stone touches at most 4k windows, so each side's sum is
// kept up to date on make/undo instead of recounted at the leaves.
//
// Under the standard rule (exactly k wins) a window whose completion would
// touch an own stone just outside either end makes only an overline: it
// counts for a side only while neither outer cell holds that side's stone.
// The outer cells are counted apart, and only for such variants, so that
// freestyle's loops stay as they were.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "inarow/engine/evaluator.h"
#include "inarow/engine/search.h"

namespace inarow::detail {

struct WindowTable {
  int k = 0;
  int count = 0;
  bool exact = false;                // the standard rule: only exactly k wins
  std::vector<std::uint32_t> first;  // per cell: its windows are ids[first[c] .. first[c+1])
  std::vector<std::uint16_t> ids;
  // Under the standard rule, per cell: the windows it lies just outside of,
  // outer_ids[outer_first[c] .. outer_first[c+1]). Empty otherwise.
  std::vector<std::uint32_t> outer_first;
  std::vector<std::uint16_t> outer_ids;

  explicit WindowTable(const Variant& v) : k(v.k), exact(v.exact) {
    std::vector<std::vector<std::uint16_t>> per_cell(v.span()), outer(v.span());
    static constexpr int kSteps[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    for (int c = 0; c < v.width; ++c)
      for (int r = 0; r < v.height; ++r)
        for (const auto& [dc, dr] : kSteps) {
          if (!v.on_board(c + (k - 1) * dc, r + (k - 1) * dr)) continue;
          const auto id = static_cast<std::uint16_t>(count);
          for (int i = 0; i < k; ++i)
            per_cell[v.cell(c + i * dc, r + i * dr)].push_back(id);
          if (exact)
            for (int i : {-1, k})
              if (v.on_board(c + i * dc, r + i * dr))
                outer[v.cell(c + i * dc, r + i * dr)].push_back(id);
          ++count;
        }
    const auto flatten = [](const auto& lists, auto& starts, auto& flat) {
      starts.push_back(0);
      for (const auto& list : lists) {
        flat.insert(flat.end(), list.begin(), list.end());
        starts.push_back(static_cast<std::uint32_t>(flat.size()));
      }
    };
    flatten(per_cell, first, ids);
    if (exact) flatten(outer, outer_first, outer_ids);
  }
};

class EvalState {
 public:
  EvalState(const WindowTable& table, const Weights& w) : table_(table) {
    set_weights(w);
    counts_.assign(table_.count, {0, 0});
    if (table_.exact) outer_.assign(table_.count, {0, 0});
  }

  void set_weights(const Weights& w) {
    weights_ = w;
    auto values = [this](const std::vector<int>& by_count) {
      std::vector<int> out(table_.k + 1, 0);
      for (std::size_t n = 1; n < by_count.size() && n < out.size(); ++n)
        out[n] = by_count[n];
      return out;
    };
    value_ = values(w.by_count);
    // A window's part of a gain, by its stones (mine, theirs): mine grows
    // where it holds none of theirs, theirs dies where it holds none of
    // mine. A table, not branches: the order reads it for every window
    // through every candidate. The standard rule's gain reads it too. Its
    // values are the order's own where the weights have them
    // (Weights::gain_by_count), so tuning the score leaves the order be.
    gain_value_ = w.gain_by_count.empty() ? value_ : values(w.gain_by_count);
    const std::vector<int>& gain = gain_value_;
    const int stride = table_.k + 1;
    gain_by_counts_.assign(std::size_t(stride * stride), 0);
    for (int mine = 0; mine < table_.k; ++mine)
      for (int theirs = 0; theirs < table_.k; ++theirs)
        gain_by_counts_[std::size_t(mine * stride + theirs)] =
            theirs == 0 ? gain[mine + 1] - gain[mine] + (mine + 1 == table_.k ? 1000 : 0)
            : mine == 0 ? gain[theirs]
                        : 0;
  }
  const Weights& weights() const { return weights_; }

  // Recount from a game's moves, the first player's first.
  void reset(std::span<const std::uint16_t> moves) {
    std::fill(counts_.begin(), counts_.end(), std::array<std::uint8_t, 2>{0, 0});
    std::fill(outer_.begin(), outer_.end(), std::array<std::uint8_t, 2>{0, 0});
    side_sum_ = {0, 0};
    for (std::size_t i = 0; i < moves.size(); ++i)
      add(moves[i], static_cast<Side>(i & 1));
  }

  void add(int cell, Side s) { update(cell, index(s), +1); }
  void remove(int cell, Side s) { update(cell, index(s), -1); }

  // The first player's score, clamped into the heuristic range.
  Score score_first() const {
    return std::clamp(side_sum_[0] - side_sum_[1], -kMaxEval + 1, kMaxEval - 1);
  }
  // The sum over the windows live for `s` alone.
  int side_sum(Side s) const { return side_sum_[index(s)]; }

  // How much placing a stone of `s` on `cell` would gain for s: its own
  // windows grow and the opponent's windows through the cell die.
  int gain(int cell, Side s) const {
    if (table_.exact) return exact_gain(cell, s);
    const int me = index(s), stride = table_.k + 1;
    int g = 0;
    for (std::uint32_t i = table_.first[cell]; i < table_.first[cell + 1]; ++i) {
      const auto& c = counts_[table_.ids[i]];
      g += gain_by_counts_[std::size_t(c[me] * stride + c[1 - me])];
    }
    return g;
  }

 private:
  // Whether window `id` is still live for `side`: no opponent stone in it
  // and, under the standard rule, none of its own just outside it (that
  // would make a line of it too long).
  template <bool Exact>
  bool live_for(std::uint32_t id, int side) const {
    if (counts_[id][1 - side] != 0) return false;
    if constexpr (Exact) return outer_[id][side] == 0;
    return true;
  }
  // One window's worth to each side: to the side it is live for (an empty
  // window is worth 0 to both; one with both sides' stones is dead).
  template <bool Exact>
  std::array<int, 2> parts(std::uint32_t id) const {
    if (live_for<Exact>(id, 0)) return {value_[counts_[id][0]], 0};
    if (live_for<Exact>(id, 1)) return {0, value_[counts_[id][1]]};
    return {0, 0};
  }

  template <bool Exact>
  void update_as(int cell, int side, int delta) {
    for (std::uint32_t i = table_.first[cell]; i < table_.first[cell + 1]; ++i) {
      const auto id = table_.ids[i];
      const auto before = parts<Exact>(id);
      counts_[id][side] = static_cast<std::uint8_t>(counts_[id][side] + delta);
      const auto after = parts<Exact>(id);
      side_sum_[0] += after[0] - before[0];
      side_sum_[1] += after[1] - before[1];
    }
    if constexpr (Exact) {
      for (std::uint32_t i = table_.outer_first[cell]; i < table_.outer_first[cell + 1]; ++i) {
        const auto id = table_.outer_ids[i];
        const auto before = parts<Exact>(id);
        outer_[id][side] = static_cast<std::uint8_t>(outer_[id][side] + delta);
        const auto after = parts<Exact>(id);
        side_sum_[0] += after[0] - before[0];
        side_sum_[1] += after[1] - before[1];
      }
    }
  }
  void update(int cell, int side, int delta) {
    if (table_.exact) return exact_update(cell, side, delta);
    update_as<false>(cell, side, delta);
  }

  // Out of line, so that freestyle's update and gain stay as small as they were.
  [[gnu::noinline]] void exact_update(int cell, int side, int delta) {
    update_as<true>(cell, side, delta);
  }
  // The standard rule's gain: freestyle's, but a window whose owner has a
  // stone just outside it is live for no one and gains nothing.
  [[gnu::noinline]] int exact_gain(int cell, Side s) const {
    const int me = index(s), stride = table_.k + 1;
    int g = 0;
    for (std::uint32_t i = table_.first[cell]; i < table_.first[cell + 1]; ++i) {
      const auto id = table_.ids[i];
      const auto& c = counts_[id];
      const int owner = c[1 - me] == 0 ? me : 1 - me;
      if (outer_[id][owner] == 0) g += gain_by_counts_[std::size_t(c[me] * stride + c[1 - me])];
    }
    // A stone just outside its own live window spoils it.
    for (std::uint32_t i = table_.outer_first[cell]; i < table_.outer_first[cell + 1]; ++i) {
      const auto id = table_.outer_ids[i];
      if (live_for<true>(id, me)) g -= gain_value_[counts_[id][me]];
    }
    return g;
  }

  const WindowTable& table_;
  Weights weights_;
  std::vector<int> value_;  // by stone count, 0..k (a full window is a win, scored 0 here)
  std::vector<int> gain_value_;      // value_'s copy for the order's gain (set_weights)
  std::vector<int> gain_by_counts_;  // [mine * (k + 1) + theirs] (set_weights)
  std::vector<std::array<std::uint8_t, 2>> counts_;
  std::vector<std::array<std::uint8_t, 2>> outer_;  // standard rule: own stones just outside
  std::array<int, 2> side_sum_{};
};

}  // namespace inarow::detail
