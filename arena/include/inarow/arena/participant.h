// A tournament participant as given on the command line, and the fresh
// Player it becomes for each game.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inarow/arena/player.h"
#include "inarow/bots/bot.h"
#include "inarow/common/error.h"
#include "inarow/common/expected.h"

namespace inarow::arena {

// A participant as given on the command line: "[name:]spec" where spec is a
// BotSpec ("hard", "depth=4,weights=w.txt") or "pbrain:COMMAND".
struct Participant {
  std::string name;
  std::string spec;  // as given, without the name
  bool external = false;
  std::string command;  // for external engines
  bots::BotSpec bot;    // for bots

  static expected<Participant, Error> parse(std::string_view text);
};

// Splits a comma-separated list of participants ("beginner,easy,master",
// "base:medium,weights=w.txt,hard"): a comma starts the next participant
// unless what follows it, up to the next comma, is an option (key=value)
// of the one before. Empty items are dropped.
std::vector<std::string> split_participants(std::string_view list);

// A fresh player for one game; the seed decides the bot's random choices.
expected<std::unique_ptr<Player>, Error> make_player(const Variant& v, const Participant& p,
                                                     std::uint64_t seed,
                                                     const std::atomic<bool>* stop = nullptr);

}  // namespace inarow::arena
