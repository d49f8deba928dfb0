#include "inarow/engine/opening.h"

namespace inarow {

std::optional<Side> Swap2::to_act() const {
  switch (step_) {
    case Step::place_three:
    case Step::choose_side:
      return proposer();
    case Step::choose:
    case Step::place_two:
      return opponent(proposer());
    case Step::done:
      break;
  }
  return std::nullopt;
}

void Swap2::placed(int ply) {
  if (step_ == Step::place_three && ply == kProposed) step_ = Step::choose;
  if (step_ == Step::place_two && ply == stones()) step_ = Step::choose_side;
}

expected<bool, Error> Swap2::choose(std::optional<Side> side) {
  if (step_ != Step::choose && step_ != Step::choose_side)
    return unexpected(Error{ErrorCode::bad_choice, 0, "there is no opening choice to make now"});
  if (!side) {
    if (step_ != Step::choose)
      return unexpected(
          Error{ErrorCode::bad_choice, 0, "two more stones are offered only once: take a side"});
    step_ = Step::place_two;
    extra_ = true;
    return false;
  }
  const bool swap = *side != *to_act();
  swapped_ ^= swap;
  step_ = Step::done;
  return swap;
}

}  // namespace inarow
