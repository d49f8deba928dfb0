// The commands a seated player gives in a match, in one table: which
// ClientMessage field each is, where its match id lies and what it does to
// the match. The router finds a command's match through it, the match actor
// applies it through it; nothing else switches over these seven.
#pragma once

#include <string>

#include "inarow/server/match_core.h"

namespace inarow::server {

struct MatchCommand {
  inarow::v1::ClientMessage::BodyCase body;
  const char* name;  // as in the protocol
  // The match the command is for.
  const std::string& (*match_id)(const inarow::v1::ClientMessage& message);
  // Carry it out for the player on `side`.
  Expected<MatchCore::Events> (*apply)(MatchCore& match, Side side,
                                       const inarow::v1::ClientMessage& message, TimePoint now);
  // A bot opponent answers it at once (it grants every takeback).
  bool bot_grants = false;
};

// The message's entry in the table; null if it is not a match command.
const MatchCommand* find_match_command(const inarow::v1::ClientMessage& message);

}  // namespace inarow::server
