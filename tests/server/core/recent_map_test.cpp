#include "inarow/server/recent_map.h"

#include <gtest/gtest.h>

#include <string>

namespace inarow::server {
namespace {

TEST(RecentMap, RemembersWhatWasSetAndForgetsWhatWasNeverUsedAgain) {
  RecentMap<std::string, std::string> map(3);
  map.set("m1", "n1");
  map.set("m2", "n2");
  map.set("m3", "n1");
  EXPECT_EQ(map.find("m2"), "n2");
  EXPECT_EQ(map.find("nope"), std::nullopt);
  // A fourth entry starts a new generation; the first three are still found.
  map.set("m4", "n3");
  EXPECT_EQ(map.size(), 4u);
  EXPECT_EQ(map.find("m1"), "n1");  // a use: m1 comes back into the young generation
  for (int i = 0; i < 3; ++i)
    map.set("x" + std::to_string(i), "n9");
  // Two turnovers since m2 and m3 were last used, one since m1 was.
  EXPECT_EQ(map.find("m2"), std::nullopt);
  EXPECT_EQ(map.find("m3"), std::nullopt);
  EXPECT_EQ(map.find("m1"), "n1");
}

TEST(RecentMap, NeverHoldsMoreThanTwiceItsCapacity) {
  RecentMap<int, int> map(100);
  for (int i = 0; i < 100'000; ++i) {
    map.set(i, i);
    ASSERT_LE(map.size(), 200u) << i;
  }
  EXPECT_EQ(map.find(99'999), 99'999);
  EXPECT_EQ(map.find(0), std::nullopt);
}

TEST(RecentMap, SettingAgainReplacesTheValueAndCountsOnce) {
  RecentMap<std::string, std::string> map(2);
  map.set("m1", "n1");
  map.set("m2", "n2");
  map.set("m3", "n3");  // m1 and m2 are now the old generation
  map.set("m1", "n4");  // moved into the young one, not held twice
  EXPECT_EQ(map.size(), 3u);
  EXPECT_EQ(map.find("m1"), "n4");
}

TEST(RecentMap, ErasesByValueInBothGenerations) {
  RecentMap<std::string, std::string> map(2);
  map.set("m1", "gone");
  map.set("m2", "kept");
  map.set("m3", "gone");  // m1 and m2 old, m3 young
  map.erase_values_if([](const std::string& node) { return node == "gone"; });
  EXPECT_EQ(map.size(), 1u);
  EXPECT_EQ(map.find("m1"), std::nullopt);
  EXPECT_EQ(map.find("m3"), std::nullopt);
  EXPECT_EQ(map.find("m2"), "kept");
}

}  // namespace
}  // namespace inarow::server
