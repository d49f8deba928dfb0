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

// One match read back from the store, live again here under its owner's
// fencing `generation` (0 on a single node): replayed, put in `matches`,
// its players held, its clocks going on with the player to move charged
// `used`. nullptr (and a warning) if its log does not replay.
std::shared_ptr<MatchActor> restore_match(const MatchRecord& record, std::int64_t generation,
                                          Millis used, Identity& identity, MatchRegistry& matches,
                                          const std::shared_ptr<MatchServices>& services,
                                          Store& store);

// The bots, then (`with_matches`) every unfinished match of the store, as
// a single node does at start; the number of matches restored. A node of a
// cluster restores none here: it takes the matches nobody owns over one by
// one (cluster_node.h), each under a lease.
int restore_from_store(Store& store, Identity& identity, MatchRegistry& matches,
                       const std::shared_ptr<MatchServices>& services, bool with_matches = true);

}  // namespace inarow::server
