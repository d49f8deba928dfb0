#include <array>

#include "inarow/engine/position.h"

namespace inarow {

namespace {

constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

constexpr auto make_keys() {
  std::array<std::array<std::uint64_t, kMaxCells>, 2> keys{};
  std::uint64_t state = 0x1A2B3C4D5E6F7081ULL;
  for (auto& side : keys)
    for (auto& key : side) key = splitmix64(state);
  return keys;
}

}  // namespace

namespace detail {
const std::array<std::array<std::uint64_t, kMaxCells>, 2> kZobristKeys = make_keys();
}

}  // namespace inarow
