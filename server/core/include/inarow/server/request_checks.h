// What a request asks for, checked once: the variant (by name, tic-tac-toe
// when empty), the time control (none when its initial time is 0) and a bot
// level (medium when empty). Seek, play-bot, bot-vs-bot and private games
// all go through these.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "inarow/engine/variant.h"
#include "inarow/server/fischer_clock.h"
#include "inarow/server/protocol_error.h"
#include "inarow/v1/inarow.pb.h"

namespace inarow::server {

// A game as a request describes it.
struct GameTerms {
  Variant variant;
  ClockSetting clock;
  std::vector<std::string> levels;  // the bots' levels asked for, in order
};

Expected<Variant> check_variant(const std::string& name);
Expected<ClockSetting> check_time_control(const inarow::v1::TimeControl& tc);
// Checked in the order errors are answered: the variant, each bot level,
// then the time control.
Expected<GameTerms> check_game(const std::string& variant, const inarow::v1::TimeControl& tc,
                               std::initializer_list<std::string> levels = {});
Expected<std::string> check_level(const std::string& name);

}  // namespace inarow::server
