// An external engine as a Player: a Gomocup brain run as a child process
// and driven over the pbrain protocol (the manager side; our own bot's brain
// side is bots/pbrain_session.h).
#pragma once

#include <memory>
#include <string>

#include "inarow/arena/player.h"

namespace inarow::arena {

// A Gomocup brain started from `command` (split on blanks, quotes honoured).
// The board goes over as START size (square) or RECTSTART w,h; x is the
// column and y the row counted from the top, both from 0.
std::unique_ptr<Player> make_pbrain_player(std::string command, std::string name);

}  // namespace inarow::arena
