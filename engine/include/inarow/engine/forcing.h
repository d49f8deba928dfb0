// The search's VCF solver (victory by continuous fours) on its own, for
// programs and tests that ask forcing questions of a Game: does this side
// have a VCF, how short is the shortest, did the solver look everywhere?
// The search runs the same solver inside with small budgets; this one takes
// whatever budget the caller gives and says whether it ran out.
//
// Only boards with k >= 5 and no gravity have fours in this sense; on
// others the solver finds nothing and says it did not look.
#pragma once

#include <cstdint>
#include <memory>

#include "inarow/engine/game.h"

namespace inarow {

struct VcfAnswer {
  Cell move = kNoCell;  // the first four (or the five); kNoCell if none found
  int plies = 0;        // plies to the five, the first move included; 0 if none
  // Nothing was found and nothing was cut short: there is no VCF within
  // the plies asked for. False when a VCF was found, or the budget ran out.
  bool none = false;
  std::uint64_t nodes = 0;
};

class VcfSolver {
 public:
  // table_bits: the failure table has 2^table_bits entries (16 bytes each).
  explicit VcfSolver(const Variant& v, int table_bits = 18);
  ~VcfSolver();
  VcfSolver(VcfSolver&&) noexcept;
  VcfSolver& operator=(VcfSolver&&) noexcept;

  // A shortest VCF for `attacker` in the game's position, whether or not it
  // is its turn (if not: as if it could move now). It deepens two plies at a
  // time up to max_plies, so the first win found is a shortest one; it
  // proves every win it reports. The game must not be over.
  VcfAnswer find(const Game& game, Side attacker, int max_plies, std::uint64_t node_budget);
  // Forget the failures learnt (the answers do not depend on them).
  void clear();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace inarow
