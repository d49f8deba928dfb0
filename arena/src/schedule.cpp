#include "inarow/arena/schedule.h"

namespace inarow::arena {

const char* format_name(Format format) {
  switch (format) {
    case Format::gauntlet:
      return "gauntlet";
    case Format::ladder:
      return "ladder";
    case Format::round_robin:
      break;
  }
  return "round_robin";
}

std::vector<std::pair<int, int>> make_pairings(Format format, int participants) {
  std::vector<std::pair<int, int>> pairings;
  if (format == Format::gauntlet) {
    for (int b = 1; b < participants; ++b)
      pairings.emplace_back(0, b);
  } else {
    const int reach = format == Format::ladder ? 2 : participants;
    for (int a = 0; a < participants; ++a)
      for (int b = a + 1; b < participants && b - a <= reach; ++b)
        pairings.emplace_back(a, b);
  }
  return pairings;
}

std::vector<ScheduledGame> make_schedule(const std::vector<std::pair<int, int>>& pairings,
                                         int games_per_pairing) {
  const int pairs = games_per_pairing / 2;
  std::vector<ScheduledGame> schedule;
  for (int pair = 0; pair < pairs; ++pair)
    for (int p = 0; p < int(pairings.size()); ++p)
      for (int swap = 0; swap < 2; ++swap) {
        const auto [a, b] = pairings[p];
        const std::int64_t idx = std::int64_t(p) * games_per_pairing + pair * 2 + swap;
        schedule.push_back({idx, p, pair, swap ? b : a, swap ? a : b});
      }
  return schedule;
}

}  // namespace inarow::arena
