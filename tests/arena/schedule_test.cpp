#include "inarow/arena/schedule.h"

#include <gtest/gtest.h>

#include <set>

namespace inarow::arena {
namespace {

TEST(Schedule, RoundRobinAndGauntletPairings) {
  EXPECT_EQ(make_pairings(Format::round_robin, 3),
            (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 2}}));
  EXPECT_EQ(make_pairings(Format::gauntlet, 3),
            (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}}));
  // Each rung against the next two: five levels, 4 + 3 pairings, not 10.
  EXPECT_EQ(make_pairings(Format::ladder, 5),
            (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}, {2, 4}, {3, 4}}));
  EXPECT_EQ(make_pairings(Format::ladder, 2), (std::vector<std::pair<int, int>>{{0, 1}}));
  EXPECT_STREQ(format_name(Format::ladder), "ladder");
  EXPECT_STREQ(format_name(Format::round_robin), "round_robin");
}

TEST(Schedule, PairsAreAdjacentWithColoursSwappedAndIndicesStable) {
  const auto pairings = make_pairings(Format::round_robin, 3);
  const auto s = make_schedule(pairings, 4);
  ASSERT_EQ(s.size(), 12u);
  std::set<std::int64_t> indices;
  for (std::size_t i = 0; i < s.size(); i += 2) {
    EXPECT_EQ(s[i].pairing, s[i + 1].pairing);
    EXPECT_EQ(s[i].pair, s[i + 1].pair);
    EXPECT_EQ(s[i].first, s[i + 1].second);
    EXPECT_EQ(s[i].second, s[i + 1].first);
  }
  for (const auto& g : s) {
    EXPECT_EQ(g.index, g.pairing * 4 + g.pair * 2 + (g.first == pairings[g.pairing].first ? 0 : 1));
    indices.insert(g.index);
  }
  EXPECT_EQ(indices.size(), s.size());
  // Every pairing plays its first pair before any plays its second.
  EXPECT_EQ(s[0].pair, 0);
  EXPECT_EQ(s[5].pair, 0);
  EXPECT_EQ(s[6].pair, 1);
}

}  // namespace
}  // namespace inarow::arena
