#include "inarow/server/fischer_clock.h"

#include <gtest/gtest.h>

namespace inarow::server {
namespace {

using namespace std::chrono_literals;

TEST(FischerClock, ChargesTheMoverAndAddsTheIncrement) {
  const TimePoint t0{};
  FischerClock clock(1000ms, 100ms);
  clock.start(Side::first, t0);
  EXPECT_EQ(clock.remaining(Side::first, t0 + 300ms), 700ms);
  EXPECT_EQ(clock.remaining(Side::second, t0 + 300ms), 1000ms);
  ASSERT_TRUE(clock.press(t0 + 300ms));
  EXPECT_EQ(clock.remaining(Side::first, t0 + 300ms), 800ms);  // 1000 - 300 + 100
  EXPECT_EQ(clock.running(), Side::second);
  EXPECT_EQ(clock.until_flag(t0 + 500ms), 800ms);  // second has used 200 of 1000
}

TEST(FischerClock, FlagFallsAtZeroAndPressIsRefused) {
  const TimePoint t0{};
  FischerClock clock(500ms, 0ms);
  clock.start(Side::first, t0);
  EXPECT_FALSE(clock.flagged(t0 + 499ms));
  EXPECT_TRUE(clock.flagged(t0 + 500ms));
  EXPECT_FALSE(clock.press(t0 + 600ms));
  EXPECT_EQ(clock.remaining(Side::first, t0 + 600ms), 0ms);
  EXPECT_EQ(clock.running(), Side::first);  // nothing changed
}

TEST(FischerClock, DisabledClockNeverFlags) {
  FischerClock clock;
  clock.start(Side::first, TimePoint{});
  EXPECT_FALSE(clock.enabled());
  EXPECT_FALSE(clock.flagged(TimePoint{} + 100h));
  EXPECT_FALSE(clock.until_flag(TimePoint{}).has_value());
  EXPECT_TRUE(clock.press(TimePoint{} + 1h));
}

}  // namespace
}  // namespace inarow::server
