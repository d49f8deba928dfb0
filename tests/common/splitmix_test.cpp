#include "inarow/common/splitmix.h"

#include <gtest/gtest.h>

namespace inarow {
namespace {

// The reference generator's first outputs from state 0 (Vigna's splitmix64.c).
TEST(SplitMix64, MatchesTheReferenceStream) {
  std::uint64_t state = 0;
  EXPECT_EQ(splitmix64_next(state), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(splitmix64_next(state), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(splitmix64_next(state), 0x06C45D188009454FULL);
}

TEST(SplitMix64, TheMixerIsOneStepOfTheGenerator) {
  std::uint64_t state = 12345;
  const std::uint64_t first = splitmix64(state);
  EXPECT_EQ(splitmix64_next(state), first);
  EXPECT_EQ(splitmix64_next(state), splitmix64(12345 + 0x9E3779B97F4A7C15ULL));
  static_assert(splitmix64(0) == 0xE220A8397B1DCDAFULL, "usable at compile time");
}

}  // namespace
}  // namespace inarow
