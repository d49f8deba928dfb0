#include <array>

#include "inarow/common/splitmix.h"
#include "inarow/engine/position.h"

namespace inarow {

namespace {

constexpr auto make_keys() {
  std::array<std::array<std::uint64_t, kMaxCells>, 2> keys{};
  std::uint64_t state = 0x1A2B3C4D5E6F7081ULL;
  for (auto& side : keys)
    for (auto& key : side)
      key = splitmix64_next(state);
  return keys;
}

}  // namespace

namespace detail {
const std::array<std::array<std::uint64_t, kMaxCells>, 2> kZobristKeys = make_keys();
}

}  // namespace inarow
