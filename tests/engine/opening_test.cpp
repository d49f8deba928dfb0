#include "inarow/engine/opening.h"

#include <gtest/gtest.h>

namespace inarow {
namespace {

using Step = Swap2::Step;

// The proposer's three stones: the proposer acts throughout.
Swap2 after_three() {
  Swap2 s;
  for (int ply = 1; ply <= Swap2::kProposed; ++ply) {
    EXPECT_EQ(s.step(), Step::place_three);
    EXPECT_TRUE(s.places());
    EXPECT_EQ(s.to_act(), Side::first);
    s.placed(ply);
  }
  return s;
}

TEST(Swap2, TheProposerPlacesThreeThenTheChooserChooses) {
  const Swap2 s = after_three();
  EXPECT_EQ(s.step(), Step::choose);
  EXPECT_FALSE(s.places());
  EXPECT_EQ(s.to_act(), Side::second);
  EXPECT_EQ(s.proposer(), Side::first);
}

TEST(Swap2, TheChooserStaysSecondAndMovesOn) {
  Swap2 s = after_three();
  EXPECT_EQ(s.choose(Side::second).value(), false);
  EXPECT_TRUE(s.over());
  EXPECT_EQ(s.to_act(), std::nullopt);
  EXPECT_EQ(s.stones(), 3);
  EXPECT_EQ(s.proposer(), Side::first);
}

TEST(Swap2, TheChooserTakesTheFirstSide) {
  Swap2 s = after_three();
  EXPECT_EQ(s.choose(Side::first).value(), true);
  EXPECT_TRUE(s.over());
  EXPECT_EQ(s.proposer(), Side::second);  // the proposer now moves (second side, ply 4)
}

TEST(Swap2, TwoMoreStonesHandTheChoiceBack) {
  Swap2 s = after_three();
  EXPECT_EQ(s.choose(std::nullopt).value(), false);
  for (int ply = 4; ply <= 5; ++ply) {
    EXPECT_EQ(s.step(), Step::place_two);
    EXPECT_TRUE(s.places());
    EXPECT_EQ(s.to_act(), Side::second);
    s.placed(ply);
  }
  EXPECT_EQ(s.step(), Step::choose_side);
  EXPECT_EQ(s.to_act(), Side::first);
  EXPECT_EQ(s.stones(), 5);
  // Only once: the proposer must take a side.
  const auto again = s.choose(std::nullopt);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::bad_choice);
  EXPECT_EQ(s.step(), Step::choose_side);

  Swap2 second = s;
  EXPECT_EQ(second.choose(Side::second).value(), true);
  EXPECT_EQ(second.proposer(), Side::second);  // and moves at once (ply 6)
  EXPECT_EQ(s.choose(Side::first).value(), false);
  EXPECT_EQ(s.proposer(), Side::first);  // the chooser, second, moves
}

TEST(Swap2, NoChoiceWhileStonesAreDue) {
  Swap2 s;
  const auto early = s.choose(Side::first);
  ASSERT_FALSE(early);
  EXPECT_EQ(early.error().code, ErrorCode::bad_choice);
  s.placed(1);
  EXPECT_FALSE(s.choose(Side::second));
  EXPECT_EQ(s.step(), Step::place_three);

  Swap2 done = after_three();
  ASSERT_TRUE(done.choose(Side::second));
  EXPECT_FALSE(done.choose(Side::first));  // the opening is over
  EXPECT_EQ(done.proposer(), Side::first);
  done.placed(4);  // later stones change nothing
  EXPECT_TRUE(done.over());
}

}  // namespace
}  // namespace inarow
