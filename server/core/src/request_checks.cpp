#include "inarow/server/request_checks.h"

#include "inarow/bots/bot.h"
#include "inarow/common/json.h"

namespace inarow::server {

Expected<Variant> check_variant(const std::string& name) {
  auto v = Variant::parse(name.empty() ? "tictactoe" : name);
  if (!v) return fail_with(ProtocolError::unknown_variant, v.error().message);
  return *v;
}

Expected<ClockSetting> check_time_control(const inarow::v1::TimeControl& tc) {
  constexpr std::int64_t kDay = 24LL * 3600 * 1000;
  if (tc.initial_ms() < 0 || tc.increment_ms() < 0 || tc.initial_ms() > kDay ||
      tc.increment_ms() > kDay) {
    return fail_with(ProtocolError::bad_request, "time control out of range");
  }
  if (tc.initial_ms() == 0) return ClockSetting{};
  return ClockSetting{Millis{tc.initial_ms()}, Millis{tc.increment_ms()}};
}

Expected<GameTerms> check_game(const std::string& variant, const inarow::v1::TimeControl& tc,
                               std::initializer_list<std::string> levels) {
  auto v = check_variant(variant);
  if (!v) return inarow::unexpected(v.error());
  std::vector<std::string> checked;
  for (const std::string& name : levels) {
    auto level = check_level(name);
    if (!level) return inarow::unexpected(level.error());
    checked.push_back(std::move(*level));
  }
  auto t = check_time_control(tc);
  if (!t) return inarow::unexpected(t.error());
  return GameTerms{std::move(*v), *t, std::move(checked)};
}

Expected<std::string> check_level(const std::string& name) {
  const std::string level = name.empty() ? "medium" : name;
  if (!bots::find_level(level)) {
    return fail_with(ProtocolError::unknown_level,
                     "no bot level named '" + json::echo(level) + "'");
  }
  return level;
}

}  // namespace inarow::server
