#include "inarow/server/request_checks.h"

#include <gtest/gtest.h>

namespace inarow::server {
namespace {

v1::TimeControl tc(std::int64_t initial, std::int64_t increment) {
  v1::TimeControl t;
  t.set_initial_ms(initial);
  t.set_increment_ms(increment);
  return t;
}

TEST(RequestChecks, DefaultsAreTicTacToeUntimedAndMedium) {
  auto g = check_game("", tc(0, 5000), {""});
  ASSERT_TRUE(g);
  EXPECT_EQ(g->variant.name, "tictactoe");
  EXPECT_EQ(g->clock.initial, Millis{0});
  EXPECT_EQ(g->clock.increment, Millis{0});  // no clock: no increment either
  ASSERT_EQ(g->levels.size(), 1u);
  EXPECT_EQ(g->levels[0], "medium");
}

TEST(RequestChecks, ErrorsComeInOrderVariantLevelsTimeControl) {
  auto bad_all = check_game("chess", tc(-1, 0), {"godlike"});
  ASSERT_FALSE(bad_all);
  EXPECT_EQ(bad_all.error().code, ProtocolError::unknown_variant);
  auto bad_level = check_game("gomoku", tc(-1, 0), {"easy", "godlike"});
  ASSERT_FALSE(bad_level);
  EXPECT_EQ(bad_level.error().code, ProtocolError::unknown_level);
  EXPECT_NE(bad_level.error().message.find("godlike"), std::string::npos);
  auto bad_clock = check_game("connect4", tc(0, -1));
  ASSERT_FALSE(bad_clock);
  EXPECT_EQ(bad_clock.error().code, ProtocolError::bad_request);
}

TEST(RequestChecks, TimeControlsUpToADay) {
  constexpr std::int64_t kDay = 24LL * 3600 * 1000;
  auto day = check_time_control(tc(kDay, kDay));
  ASSERT_TRUE(day);
  EXPECT_EQ(day->initial, Millis{kDay});
  EXPECT_EQ(day->increment, Millis{kDay});
  EXPECT_FALSE(check_time_control(tc(kDay + 1, 0)));
  EXPECT_FALSE(check_time_control(tc(1000, kDay + 1)));
}

}  // namespace
}  // namespace inarow::server
