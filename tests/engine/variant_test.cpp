#include "inarow/engine/variant.h"

#include <gtest/gtest.h>

namespace inarow {
namespace {

TEST(Variant, KnownNamesHaveTheirRules) {
  EXPECT_EQ(*Variant::parse("tictactoe"), (Variant{"tictactoe", 3, 3, 3, false}));
  EXPECT_EQ(*Variant::parse("connect4"), (Variant{"connect4", 7, 6, 4, true}));
  EXPECT_EQ(*Variant::parse("gomoku"), (Variant{"gomoku", 15, 15, 5, false}));
}

TEST(Variant, CustomBoards) {
  const auto v = Variant::parse("mnk:9,9,4");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->width, 9);
  EXPECT_EQ(v->height, 9);
  EXPECT_EQ(v->k, 4);
  EXPECT_FALSE(v->gravity);
  EXPECT_EQ(v->words(), 2);  // 9 columns x 10 bits

  const auto g = Variant::parse("mnk:8,8,4,gravity");
  ASSERT_TRUE(g);
  EXPECT_TRUE(g->gravity);
  EXPECT_EQ(Variant::parse("mnk:19,19,5")->words(), 7);
  EXPECT_EQ(Variant::parse("mnk:20,20,5")->words(), 7);  // Gomocup's board
}

TEST(Variant, CustomSpellingOfAKnownGameIsCanonical) {
  EXPECT_EQ(Variant::parse("mnk:7,6,4,gravity")->name, "connect4");
  EXPECT_EQ(Variant::parse("mnk:3,3,3")->name, "tictactoe");
}

TEST(Variant, BadNamesSayWhatIsWrongAndWhere) {
  struct Case {
    const char* text;
    ErrorCode code;
    std::size_t offset;
  };
  for (const Case& c :
       {Case{"chess", ErrorCode::unknown_variant, 0}, Case{"", ErrorCode::unknown_variant, 0},
        Case{"mnk:", ErrorCode::bad_variant, 4}, Case{"mnk:9,9", ErrorCode::bad_variant, 7},
        Case{"mnk:9;9,4", ErrorCode::bad_variant, 5}, Case{"mnk:21,9,4", ErrorCode::bad_variant, 4},
        Case{"mnk:0,9,4", ErrorCode::bad_variant, 4}, Case{"mnk:9,9,10", ErrorCode::bad_variant, 4},
        Case{"mnk:9,9,1", ErrorCode::bad_variant, 4},
        Case{"mnk:9,9,4,gravityx", ErrorCode::bad_variant, 9},
        Case{"mnk:9,9,4x", ErrorCode::bad_variant, 9}}) {
    const auto v = Variant::parse(c.text);
    ASSERT_FALSE(v) << c.text;
    EXPECT_EQ(v.error().code, c.code) << c.text;
    EXPECT_EQ(v.error().offset, c.offset) << c.text;
    EXPECT_FALSE(v.error().message.empty());
  }
}

TEST(Variant, Swap2OpensAGameWithoutChangingItsBoard) {
  const auto g = Variant::parse("gomoku-swap2");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->opening, Opening::swap2);
  EXPECT_TRUE(g->same_board(Variant::gomoku()));
  EXPECT_NE(*g, Variant::gomoku());
  EXPECT_EQ(Variant::parse("gomoku")->opening, Opening::none);

  const auto s = Variant::parse("gomoku-standard-swap2");
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->exact);
  EXPECT_EQ(s->opening, Opening::swap2);

  // One game, one spelling: a known board under mnk keeps its name.
  EXPECT_EQ(Variant::parse("mnk:15,15,5,swap2")->name, "gomoku-swap2");
  EXPECT_EQ(Variant::parse("mnk:15,15,5,exact,swap2")->name, "gomoku-standard-swap2");
  const auto m = Variant::parse("mnk:9,9,4,swap2");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "mnk:9,9,4,swap2");
  EXPECT_EQ(m->opening, Opening::swap2);
  EXPECT_EQ(Variant::parse(m->name)->name, m->name);
}

TEST(Variant, Swap2NeedsABoardItCanOpen) {
  struct Case {
    const char* text;
    ErrorCode code;
    std::size_t offset;
  };
  for (const Case& c : {Case{"connect4-swap2", ErrorCode::bad_variant, 8},   // gravity
                        Case{"tictactoe-swap2", ErrorCode::bad_variant, 9},  // k = 3
                        Case{"mnk:9,9,3,swap2", ErrorCode::bad_variant, 9},
                        Case{"mnk:4,3,4,swap2", ErrorCode::bad_variant, 9},  // 12 cells
                        Case{"mnk:9,9,4,gravity,swap2", ErrorCode::bad_variant, 17},
                        Case{"mnk:9,9,4,swap2,exact", ErrorCode::bad_variant, 9},
                        Case{"mnk:9,9,4,swap2,swap2", ErrorCode::bad_variant, 9},
                        Case{"gomoku-swap2-swap2", ErrorCode::unknown_variant, 0},
                        Case{"swap2", ErrorCode::unknown_variant, 0}}) {
    const auto v = Variant::parse(c.text);
    ASSERT_FALSE(v) << c.text;
    EXPECT_EQ(v.error().code, c.code) << c.text;
    EXPECT_EQ(v.error().offset, c.offset) << c.text;
  }
}

TEST(Variant, CellLayoutIsColumnMajorWithASpareBit) {
  const Variant v = Variant::connect4();
  EXPECT_EQ(v.cell(0, 0), 0);
  EXPECT_EQ(v.cell(1, 0), 7);
  EXPECT_EQ(v.col(v.cell(6, 5)), 6);
  EXPECT_EQ(v.row(v.cell(6, 5)), 5);
  EXPECT_FALSE(v.on_board(6));  // the spare bit above column a
  EXPECT_TRUE(v.on_board(5));
}

}  // namespace
}  // namespace inarow
