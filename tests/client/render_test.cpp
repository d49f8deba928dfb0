#include "inarow/client/render.h"

#include <gtest/gtest.h>

namespace inarow::client {
namespace {

v1::MatchState state(const std::string& variant, std::initializer_list<const char*> moves) {
  v1::MatchState s;
  s.set_match_id("m1");
  s.set_variant(variant);
  for (const char* m : moves)
    s.add_moves(m);
  return s;
}

TEST(RenderTest, PlainBoardHasCoordinatesAndMarksTheLastMove) {
  MatchView v(state("tictactoe", {"b2", "a1"}), std::chrono::steady_clock::now());
  EXPECT_EQ(render_board(v, Style{}),
            "   a  b  c \n"
            "3  .  .  .  3\n"
            "2  .  X  .  2\n"
            "1 [O] .  .  1\n"
            "   a  b  c \n");
}

TEST(RenderTest, ConnectFourColumnsByNumberAndTheWinningLine) {
  MatchView v(state("connect4", {"1", "2", "1", "2", "1", "2", "1"}),
              std::chrono::steady_clock::now());
  const std::string board = render_board(v, Style{});
  EXPECT_NE(board.find("   1  2  3  4  5  6  7 \n"), std::string::npos);
  EXPECT_NE(board.find("4 [X] .  .  .  .  .  .  4"), std::string::npos) << board;
  EXPECT_NE(board.find("3 *X* O  .  .  .  .  .  3"), std::string::npos) << board;
  EXPECT_EQ(v.winning_line().size(), 4u);
}

TEST(RenderTest, ColourOnlyWhenAsked) {
  MatchView v(state("tictactoe", {"b2"}), std::chrono::steady_clock::now());
  EXPECT_EQ(render_board(v, Style{}).find('\x1b'), std::string::npos);
  EXPECT_NE(render_board(v, Style{true}).find("\x1b[1;31;7mX"), std::string::npos);
}

TEST(RenderTest, GomokuRowsAreRightAligned) {
  MatchView v(state("gomoku", {"h8"}), std::chrono::steady_clock::now());
  const std::string board = render_board(v, Style{});
  EXPECT_EQ(board.substr(0, 4), "    ");
  EXPECT_NE(board.find("\n15  ."), std::string::npos);
  EXPECT_NE(board.find("\n 8  .  .  .  .  .  .  . [X]"), std::string::npos) << board;
}

TEST(RenderTest, ClocksAndWords) {
  EXPECT_EQ(format_clock(300'000), "5:00");
  EXPECT_EQ(format_clock(61'999), "1:01");
  EXPECT_EQ(format_clock(9'450), "9.4");
  EXPECT_EQ(format_clock(-5), "0.0");
  EXPECT_EQ(format_clock(3'723'000), "1:02:03");
  v1::TimeControl tc;
  EXPECT_EQ(format_time_control(tc), "untimed");
  tc.set_initial_ms(300'000);
  tc.set_increment_ms(3'000);
  EXPECT_EQ(format_time_control(tc), "5+3");
  EXPECT_EQ(quote("ada"), "ada");
  EXPECT_EQ(quote("medium bot"), "\"medium bot\"");
  EXPECT_EQ(quote("say \"hi\""), "\"say \\\"hi\\\"\"");
  EXPECT_EQ(quote(""), "\"\"");
  EXPECT_EQ(error_word(v1::ERROR_ILLEGAL_MOVE), "ILLEGAL_MOVE");
  EXPECT_EQ(result_word(v1::RESULT_FIRST_WINS), "first-wins");
}

TEST(RenderTest, WhatTheArenaMeasured) {
  EXPECT_EQ(format_measure(nullptr, "gomoku"), "arena: not measured in gomoku");
  v1::LevelMeasure m;
  m.set_variant("connect4");
  m.set_level("hard");
  m.set_elo(543.7);
  m.set_margin(67.6);
  m.set_anchor("beginner");
  m.set_games(400);
  EXPECT_EQ(format_measure(&m, "connect4"), "arena: +544 Elo over beginner (±68, 400 games)");
  m.set_elo(-12.4);
  m.set_games(0);  // a ladder that did not say
  EXPECT_EQ(format_measure(&m, "connect4"), "arena: -12 Elo over beginner (±68)");
  m.set_level("beginner");
  m.set_elo(0);
  m.set_margin(0);
  m.set_games(400);
  EXPECT_EQ(format_measure(&m, "connect4"), "arena: 0 Elo, the ladder's anchor (400 games)");
}

TEST(RenderTest, ClockRunsForTheSideToMove) {
  auto s = state("tictactoe", {});
  s.mutable_time_control()->set_initial_ms(60'000);
  s.mutable_clocks()->set_first_ms(60'000);
  s.mutable_clocks()->set_second_ms(50'000);
  s.mutable_clocks()->set_running(v1::SIDE_FIRST);
  const auto t0 = std::chrono::steady_clock::now();
  MatchView v(s, t0);
  EXPECT_EQ(v.clock_ms(v1::SIDE_FIRST, t0 + std::chrono::seconds(3)), 57'000);
  EXPECT_EQ(v.clock_ms(v1::SIDE_SECOND, t0 + std::chrono::seconds(3)), 50'000);
  EXPECT_EQ(v.clock_ms(v1::SIDE_FIRST, t0 + std::chrono::seconds(90)), 0);
}

}  // namespace
}  // namespace inarow::client
