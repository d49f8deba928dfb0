// Openings: which player places each of the first stones, and when the
// players may change sides. The stones alternate sides from the first as in
// every game (Game knows nothing of openings); an opening only says who
// places them and who ends up with which side.
#pragma once

#include <optional>

#include "inarow/common/error.h"
#include "inarow/common/expected.h"
#include "inarow/engine/variant.h"

namespace inarow {

// Gomoku's swap2. The player seated first (the proposer) places three stones
// (first, second, first). The other (the chooser) then plays on with the
// second side, takes the first side, or places two more stones (second,
// first) and leaves the choice of side to the proposer. Whoever holds the
// second side then moves, and the sides move in turn from there.
//
// A plain state machine over the game's ply and the choices: the match
// (server/core/match_core.h) tells it each stone and each choice, and keeps
// the players' clocks and seats in step with what it answers.
class Swap2 {
 public:
  enum class Step : unsigned char {
    place_three,  // the proposer places stones 1-3
    choose,       // the chooser: a side, or two more stones
    place_two,    // the chooser places stones 4-5
    choose_side,  // the proposer takes a side
    done,         // the sides move in turn
  };
  static constexpr int kProposed = 3;  // stones the proposer places
  static constexpr int kExtra = 2;     // stones the chooser may add

  Step step() const { return step_; }
  bool over() const { return step_ == Step::done; }
  // Whether the player to act places a stone (rather than chooses).
  bool places() const { return step_ == Step::place_three || step_ == Step::place_two; }
  // The side the proposer holds now: first, until the players swap.
  Side proposer() const { return swapped_ ? Side::second : Side::first; }
  // The side whose player acts now; nullopt once the opening is over.
  std::optional<Side> to_act() const;
  // The stones the opening places: three, or five after two more were
  // chosen. Once it is over, the sides move in turn from there.
  int stones() const { return kProposed + (extra_ ? kExtra : 0); }

  // A stone was placed and the game's ply is now `ply`. The match checks
  // places() first; a stone outside a placing step changes nothing.
  void placed(int ply);
  // The acting player's choice: take `side`, or (nullopt) place two more
  // stones, which only the chooser's first choice offers. Returns whether
  // the players swapped sides; bad_choice when there is no such choice now.
  expected<bool, Error> choose(std::optional<Side> side);

 private:
  Step step_ = Step::place_three;
  bool swapped_ = false;
  bool extra_ = false;  // the chooser placed two more stones
};

}  // namespace inarow
