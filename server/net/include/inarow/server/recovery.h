// Recovery after a restart: players, their ratings and every unfinished
// match come back from the store before the server serves anyone; each
// match replays its event log and resumes its clocks, its absent players'
// grace and its bots' thinking.
//
// The player to move is charged the part of their turn they used before the
// server stopped, and never the time it was down: from the wall time their
// last event's clocks were taken (a log row's at_ms) to the last time the
// server is known to have been alive (the store writer's heartbeat or any
// later event, whichever is last). The crash came at most one heartbeat
// (plus a commit) after that, so the charge falls short of the truth by at
// most that much, in the player's favour. docs/NOTES.md says why.
#pragma once

#include <functional>
#include <memory>

#include "inarow/server/identity.h"
#include "inarow/server/match_actor.h"
#include "inarow/server/match_registry.h"
#include "inarow/server/store.h"

namespace inarow::server {

// The part of its current turn a live match's player to move had used when
// the server stopped, by the store's times (0 if no clock runs or the time
// is not known). `alive_ms`: the last time the server was known alive.
Millis used_before_stop(const MatchRecord& record, std::int64_t alive_ms);
// The last time the server was known alive: the heartbeat or the latest event.
std::int64_t last_known_alive(Store& store, const std::vector<MatchRecord>& live);

// The number of matches restored. A node of a cluster restores only the
// matches `take` gives it (those whose lease it claims: not another live
// node's).
int restore_from_store(Store& store, Identity& identity, MatchRegistry& matches,
                       const std::shared_ptr<MatchServices>& services,
                       const std::function<bool(const MatchRecord&)>& take = {});

}  // namespace inarow::server
