// Shape evaluation (engine/src/shapes.h): line shapes, cell classes, the
// incremental score and the weights' keys.
#include "shapes.h"

#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string_view>
#include <vector>

namespace inarow::detail {
namespace {

// A line of nine cells around the middle ('_', empty) for a stone of X:
// 'X' own, 'O' the opponent or the edge, '.' empty. Names the shape the
// stone on '_' makes.
LineShape5 shape_of(std::string_view text) {
  EXPECT_EQ(text.size(), 9u);
  EXPECT_EQ(text[4], '_');
  std::vector<std::uint8_t> line;
  for (char c : text)
    line.push_back(c == 'X' ? 1 : c == 'O' ? 2 : 0);
  return classify_line(line, 5);
}

TEST(LineShapes, ThreesOpenAndBlocked) {
  EXPECT_EQ(shape_of("..XX_...."), LineShape5::open_three);  // .XXX.
  EXPECT_EQ(shape_of("..OX_X..."), LineShape5::three);       // OXXX.
  EXPECT_EQ(shape_of("...X_.X.."), LineShape5::open_three);  // .XX.X. broken, open
  EXPECT_EQ(shape_of("..OX_.X.."), LineShape5::three);       // OXX.X. broken, blocked
  EXPECT_EQ(shape_of(".O.X_X.O."), LineShape5::three);       // O.XXX.O: no open four follows
  EXPECT_EQ(shape_of("..XX_.X.."), LineShape5::four);        // XXX.X
}

TEST(LineShapes, FoursFivesAndTwos) {
  EXPECT_EQ(shape_of(".XXX_...."), LineShape5::open_four);  // .XXXX.
  EXPECT_EQ(shape_of("OXXX_...."), LineShape5::four);       // OXXXX.
  EXPECT_EQ(shape_of("XXXX_...."), LineShape5::five);
  EXPECT_EQ(shape_of("..XX_XX.."), LineShape5::five);  // six or more wins too
  EXPECT_EQ(shape_of("...X_...."), LineShape5::open_two);
  EXPECT_EQ(shape_of("...O_X..."), LineShape5::two);
  EXPECT_EQ(shape_of("...._...."), LineShape5::none);
}

TEST(LineShapes, TableAgreesWithTheLineForBothSides) {
  const auto t = ShapeTable::five();
  // Slots 0..3: offsets -4..-1, 4..7: +1..+4; first player 1, second 2.
  std::uint32_t code = (1u << (2 * 2)) | (1u << (2 * 3)) | (1u << (2 * 4));  // .XX_X...
  EXPECT_EQ(t->shape(code, 0), LineShape5::open_four);
  EXPECT_EQ(t->shape(code, 1), LineShape5::none);
  std::uint32_t swapped = (2u << (2 * 2)) | (2u << (2 * 3)) | (2u << (2 * 4)) | (1u << (2 * 1));
  EXPECT_EQ(t->shape(swapped, 1), LineShape5::four);  // the second player's, blocked by the first
}

TEST(CellClasses, CombineTheFourLines) {
  using S = LineShape5;
  EXPECT_EQ(combine({S::open_three, S::open_three, S::none, S::two}), CellClass::double_three);
  EXPECT_EQ(combine({S::four, S::open_three, S::none, S::none}), CellClass::four_three);
  EXPECT_EQ(combine({S::four, S::four, S::none, S::none}), CellClass::double_four);
  EXPECT_EQ(combine({S::open_four, S::none, S::none, S::none}), CellClass::double_four);
  EXPECT_EQ(combine({S::open_three, S::three, S::open_two, S::none}), CellClass::plain);
}

// A cell's two best lines as a pair, in any order of directions; rows by
// the best, from the open two's three to the four's six.
TEST(CellPairs, IndexTheTwoBestLines) {
  using S = LineShape5;
  EXPECT_EQ(pair_index({S::none, S::open_two, S::none, S::none}), 0);
  EXPECT_EQ(pair_index({S::open_two, S::two, S::two, S::none}), 1);
  EXPECT_EQ(pair_index({S::open_two, S::none, S::open_two, S::two}), 2);
  EXPECT_EQ(pair_index({S::none, S::none, S::none, S::three}), 3);
  EXPECT_EQ(pair_index({S::three, S::three, S::open_two, S::none}), 6);
  EXPECT_EQ(pair_index({S::open_two, S::none, S::open_three, S::none}), 9);
  EXPECT_EQ(pair_index({S::open_three, S::open_three, S::open_three, S::four}), 16);
  EXPECT_EQ(pair_index({S::four, S::two, S::four, S::open_three}), 17);
  EXPECT_EQ(pair_index({S::two, S::two, S::two, S::two}), -1);  // nothing better than a two
  EXPECT_EQ(pair_index({S::none, S::none, S::none, S::none}), -1);
  EXPECT_EQ(pair_index({S::open_four, S::four, S::none, S::none}), -1);  // wins already
  EXPECT_EQ(pair_index({S::five, S::none, S::none, S::none}), -1);
}

// X on (7, 7) and (7, 9): six cells make an open two towards each (one or
// two steps along a diagonal or a row from both): (5, 7), (6, 8), (8, 8),
// (9, 7), (5, 9), (9, 9). A weight on that pair alone scores them, and
// only them. O on (8, 8) takes that cell and cuts (9, 9) and (9, 7) from
// (7, 7) and (7, 9): three are left; taking it away gives them back.
TEST(CellPairs, APairWeightScoresEveryCellThatMakesIt) {
  const Variant v = Variant::gomoku();
  Weights w;
  w.shapes.assign(10, 0);
  w.pairs.assign(kPairs, 0);
  w.pairs[2] = 7;  // pair_open_two_open_two
  ShapeState state{v};
  state.set_weights(w);
  state.reset(v, {});
  state.add(v.cell(7, 7), Side::first);
  EXPECT_EQ(state.score_first(), 0);  // a lone stone's cells make one line each
  state.add(v.cell(7, 9), Side::first);
  EXPECT_EQ(state.score_first(), 6 * 7);
  state.add(v.cell(0, 0), Side::second);  // a corner: no line of anyone's
  EXPECT_EQ(state.score_first(), 6 * 7);
  state.add(v.cell(8, 8), Side::second);
  EXPECT_EQ(state.score_first(), 3 * 7);
  state.remove(v.cell(8, 8), Side::second);
  EXPECT_EQ(state.score_first(), 6 * 7);
  w.pairs[2] = 0;
  w.pairs[0] = 1;  // pair_open_two_none: the cells with one open two
  state.set_weights(w);
  state.reset(v, {});
  state.add(v.cell(7, 7), Side::first);
  EXPECT_EQ(state.score_first(), 24);  // one to three steps away, in each of eight directions
}

// The pairs held: once per pair some cell makes, whoever is to move, and
// kept as stones come and go.
TEST(CellPairs, APairHeldScoresOnceForItsSide) {
  const Variant v = Variant::gomoku();
  Weights w;
  w.shapes.assign(10, 0);
  w.pairs.assign(kPairs, 0);
  w.held_pairs.assign(2 * kPairs, 0);
  w.held_pairs[2] = 100;          // held_open_two_open_two: the mover's
  w.held_pairs[kPairs + 2] = -7;  // their_held_open_two_open_two
  w.held_pairs[0] = 1;            // held_open_two_none
  ShapeState state{v};
  state.set_weights(w);
  state.reset(v, {});
  EXPECT_EQ(state.held_score(Side::first), 0);
  state.add(v.cell(7, 7), Side::first);
  EXPECT_EQ(state.pairs_held(Side::first), 1u << 0);  // 24 cells, held once
  EXPECT_EQ(state.pairs_held(Side::second), 0u);
  EXPECT_EQ(state.held_score(Side::first), 1);
  EXPECT_EQ(state.held_score(Side::second), 0);
  // Six cells make the double open two; on the column, (7, 8) and (7, 6)
  // make an open three (X_X, XX.X), (7, 5) a three (X.X.X).
  state.add(v.cell(7, 9), Side::first);
  EXPECT_EQ(state.pairs_held(Side::first), (1u << 0) | (1u << 2) | (1u << 3) | (1u << 7));
  EXPECT_EQ(state.held_score(Side::first), 101);
  EXPECT_EQ(state.held_score(Side::second), -7);
  state.remove(v.cell(7, 9), Side::first);
  EXPECT_EQ(state.pairs_held(Side::first), 1u << 0);
  state.remove(v.cell(7, 7), Side::first);
  EXPECT_EQ(state.pairs_held(Side::first), 0u);
  EXPECT_EQ(state.held_score(Side::first), 0);
}

class Shapes : public ::testing::Test {
 protected:
  Variant v = Variant::gomoku();
  ShapeState state{v};
  void SetUp() override {
    state.set_weights(Weights::defaults(v));
    state.reset(v, {});
  }
  // Whether the kept score, pairs held, gains and order values equal a recount of
  // `moves` from an empty board; names the first difference.
  ::testing::AssertionResult matches_recount(std::span<const std::uint16_t> moves) const {
    ShapeState fresh{v};
    fresh.set_weights(Weights::defaults(v));
    fresh.reset(v, moves);
    if (state.score_first() != fresh.score_first())
      return ::testing::AssertionFailure()
             << "score " << state.score_first() << ", recounted " << fresh.score_first();
    for (Side side : {Side::first, Side::second})
      if (state.pairs_held(side) != fresh.pairs_held(side))
        return ::testing::AssertionFailure() << "pairs held " << state.pairs_held(side)
                                             << ", recounted " << fresh.pairs_held(side);
    for (int c = 0; c < v.span(); ++c)
      for (Side side : {Side::first, Side::second}) {
        if (state.gain(c, side) != fresh.gain(c, side))
          return ::testing::AssertionFailure() << "cell " << c << " gain " << state.gain(c, side)
                                               << ", recounted " << fresh.gain(c, side);
        if (state.order_value(c, side) != fresh.order_value(c, side))
          return ::testing::AssertionFailure()
                 << "cell " << c << " order value " << state.order_value(c, side) << ", recounted "
                 << fresh.order_value(c, side);
      }
    return ::testing::AssertionSuccess();
  }
};

TEST_F(Shapes, AFourThreeCell) {
  // Row 7: O X X X at columns 4..7; column 8: X at rows 8, 9. A stone on
  // (8, 7) makes a blocked four along the row and an open three up the column.
  state.add(v.cell(4, 7), Side::second);
  for (int c : {5, 6, 7})
    state.add(v.cell(c, 7), Side::first);
  for (int r : {8, 9})
    state.add(v.cell(8, r), Side::first);
  const auto lines = state.shapes(v.cell(8, 7), Side::first);
  EXPECT_EQ(lines[1], LineShape5::four);        // along the row (column steps)
  EXPECT_EQ(lines[0], LineShape5::open_three);  // up the column
  EXPECT_EQ(combine(lines), CellClass::four_three);
  // Its terms in the move order: the four, the open three and the
  // four-three as the mover's, and what a stone of the opponent's would
  // make there as theirs.
  const int fourthree = v.cell(8, 7);
  const auto theirs = state.shapes(fourthree, Side::second);
  const std::vector<int> order = Weights::defaults(v).order;
  ASSERT_EQ(order.size(), std::size_t(kOrderTerms));
  auto line = [&](int first, LineShape5 l) {
    return l == LineShape5::none ? 0 : order[std::size_t(first + int(l) - 1)];
  };
  auto cell_class = [&](int first, CellClass c) {
    return c == CellClass::plain ? 0 : order[std::size_t(first + int(c) - 1)];
  };
  int expected = line(kOrderOwnLine, LineShape5::four) +
                 line(kOrderOwnLine, LineShape5::open_three) +
                 cell_class(kOrderOwnClass, CellClass::four_three);
  for (int d : {2, 3})
    expected += line(kOrderOwnLine, lines[d]);
  for (LineShape5 l : theirs)
    expected += line(kOrderTheirLine, l);
  expected += cell_class(kOrderTheirClass, combine(theirs));
  EXPECT_EQ(state.order_value(fourthree, Side::first), expected);
  EXPECT_GT(state.order_value(fourthree, Side::first), state.order_value(fourthree, Side::second));
  // Two open twos crossing make a double three.
  for (int c : {10, 11})
    state.add(v.cell(c, 2), Side::first);
  for (int r : {3, 4})
    state.add(v.cell(12, r), Side::first);
  EXPECT_EQ(combine(state.shapes(v.cell(12, 2), Side::first)), CellClass::double_three);
}

// The order's terms come from the weights: with all but one at zero, a
// cell's order value is that one's count.
TEST_F(Shapes, OrderValuesFollowTheWeights) {
  Weights w = Weights::defaults(v);
  w.order.assign(std::size_t(kOrderTerms), 0);
  w.order[std::size_t(kOrderOwnLine + int(LineShape5::open_three) - 1)] = 1000;
  w.order[std::size_t(kOrderTheirClass + int(CellClass::double_three) - 1)] = 7;
  state.set_weights(w);
  state.reset(v, {});
  for (int c : {5, 6})
    state.add(v.cell(c, 7), Side::first);
  // (7, 7) makes X an open three on the row; for O it makes nothing.
  EXPECT_EQ(state.order_value(v.cell(7, 7), Side::first), 1000);
  EXPECT_EQ(state.order_value(v.cell(7, 7), Side::second), 0);
  for (int r : {5, 6})
    state.add(v.cell(7, r), Side::first);
  // Now an open three both ways: a double three for X, which O meets there.
  EXPECT_EQ(state.order_value(v.cell(7, 7), Side::first), 2000);
  EXPECT_EQ(state.order_value(v.cell(7, 7), Side::second), 7);
}

TEST_F(Shapes, AnOpenThreeScoresAboveABlockedOne) {
  ShapeState open{v}, blocked{v};
  for (ShapeState* s : {&open, &blocked}) {
    s->set_weights(Weights::defaults(v));
    s->reset(v, {});
    for (int c : {6, 7, 8})
      s->add(v.cell(c, 7), Side::first);
  }
  open.add(v.cell(7, 2), Side::second);  // the same lone stone, away from the line
  blocked.add(v.cell(5, 7), Side::second);
  EXPECT_GT(open.score_first(), blocked.score_first());
  // And the open three is worth more than nothing to its owner.
  EXPECT_GT(open.score_first(), 0);
}

TEST_F(Shapes, IncrementalMatchesARecount) {
  const std::vector<std::uint16_t> moves = {
      std::uint16_t(v.cell(7, 7)), std::uint16_t(v.cell(8, 8)), std::uint16_t(v.cell(6, 7)),
      std::uint16_t(v.cell(5, 7)), std::uint16_t(v.cell(0, 0)), std::uint16_t(v.cell(14, 14)),
      std::uint16_t(v.cell(7, 8)), std::uint16_t(v.cell(8, 6))};
  for (std::size_t i = 0; i < moves.size(); ++i)
    state.add(moves[i], static_cast<Side>(i & 1));
  state.remove(moves.back(), Side::second);
  EXPECT_TRUE(matches_recount(std::span(moves).first(moves.size() - 1)));
  for (std::size_t i = moves.size() - 1; i-- > 0;)
    state.remove(moves[i], static_cast<Side>(i & 1));
  EXPECT_EQ(state.score_first(), 0);
}

// A search's walk: moves made and taken back in stack order, dense enough
// that shapes of every kind come and go, stones emptied whose lines changed
// while they stood. At every step the kept values equal a recount.
TEST_F(Shapes, ASearchLikeWalkMatchesARecountEverywhere) {
  std::mt19937 rng(20261129);
  std::vector<std::uint16_t> moves;
  std::vector<std::uint8_t> taken(std::size_t(v.span()), 0);
  // Cells near the centre, so lines fill up.
  auto pick = [&] {
    for (;;) {
      const int c = 4 + int(rng() % 7), r = 4 + int(rng() % 7);
      if (!taken[std::size_t(v.cell(c, r))]) return v.cell(c, r);
    }
  };
  for (int step = 0; step < 400; ++step) {
    const bool back = !moves.empty() && (moves.size() >= 40 || rng() % 3 == 0);
    if (back) {
      const std::uint16_t m = moves.back();
      moves.pop_back();
      taken[m] = 0;
      state.remove(m, static_cast<Side>(moves.size() & 1));
    } else {
      const int m = pick();
      state.add(m, static_cast<Side>(moves.size() & 1));
      moves.push_back(std::uint16_t(m));
      taken[std::size_t(m)] = 1;
    }
    ASSERT_TRUE(matches_recount(moves)) << "step " << step;
  }
}

// Every line, with the colours exchanged, is the other side's same shape.
TEST(LineShapes, EachSidesShapeIsTheOthersOnTheSwappedLine) {
  const auto t = ShapeTable::five();
  for (std::size_t code = 0; code < t->both.size(); ++code) {
    std::size_t swapped = 0;
    for (int j = 0; j < 8; ++j) {
      const std::size_t v = (code >> (2 * j)) & 3;
      swapped |= (v == 1 ? 2 : v == 2 ? 1 : v) << (2 * j);
    }
    ASSERT_EQ(t->shape(code, 0), t->shape(swapped, 1)) << code;
    ASSERT_LT(int(t->shape(code, 0)), kLineShapes) << code;
  }
}

TEST(ShapeWeights, AreDataInTheWeightsText) {
  const Variant v = Variant::gomoku();
  const Weights d = Weights::defaults(v);
  EXPECT_TRUE(d.shapes_on);  // tuned, and on for freestyle gomoku's board
  EXPECT_EQ(d.shapes.size(), 10u);
  const Weights wide = Weights::defaults(*Variant::parse("mnk:19,19,5"));
  EXPECT_EQ(wide.shapes.size(), 10u);  // other freestyle boards have them, off
  EXPECT_FALSE(wide.shapes_on);
  EXPECT_FALSE(Weights::defaults(Variant::gomoku_standard()).shapes_on);
  const auto windows = Weights::parse(v, "eval = windows\n");
  ASSERT_TRUE(windows) << windows.error().describe();
  EXPECT_FALSE(windows->shapes_on);
  EXPECT_TRUE(Weights::defaults(Variant::connect4()).shapes.empty());
  EXPECT_TRUE(Weights::defaults(*Variant::parse("mnk:19,19,6")).shapes.empty());
  const auto w = Weights::parse(v, "eval = shapes\nshape_open_four = 55\ndouble_three = 7\n");
  ASSERT_TRUE(w) << w.error().describe();
  EXPECT_TRUE(w->shapes_on);
  EXPECT_EQ(w->shapes[5], 55);
  EXPECT_EQ(w->shapes[7], 7);
  EXPECT_EQ(*Weights::parse(v, w->to_text()), *w);
  // The pairs likewise, on every freestyle board: tuned on gomoku's, zero
  // (and off) on others.
  EXPECT_EQ(d.pairs.size(), std::size_t(kPairs));
  EXPECT_EQ(wide.pairs, std::vector<int>(kPairs, 0));
  EXPECT_TRUE(Weights::defaults(Variant::connect4()).pairs.empty());
  const auto p = Weights::parse(v, "pair_open_three_open_three = 60\npair_four_none = -3\n");
  ASSERT_TRUE(p) << p.error().describe();
  EXPECT_EQ(p->pairs[11], 60);
  EXPECT_EQ(p->pairs[12], -3);
  EXPECT_EQ(*Weights::parse(v, p->to_text()), *p);
  const auto elsewhere = Weights::parse(Variant::connect4(), "pair_four_four = 1\n");
  ASSERT_FALSE(elsewhere);
  EXPECT_NE(elsewhere.error().message.find("'pair_four_four' needs k = 5 without gravity"),
            std::string::npos)
      << elsewhere.error().message;
  EXPECT_FALSE(Weights::parse(Variant::connect4(), "eval = shapes\n"));
  EXPECT_FALSE(Weights::parse(v, "eval = magic\n"));
}

}  // namespace
}  // namespace inarow::detail
