// Recovery after a restart: players, their ratings and every unfinished
// match come back from the store before the server serves anyone; each
// match replays its event log and resumes its clocks, its absent players'
// grace and its bots' thinking.
#pragma once

#include <memory>

#include "inarow/server/identity.h"
#include "inarow/server/match_actor.h"
#include "inarow/server/match_registry.h"
#include "inarow/server/store.h"

namespace inarow::server {

// The number of matches restored.
int restore_from_store(Store& store, Identity& identity, MatchRegistry& matches,
                       const std::shared_ptr<MatchServices>& services);

}  // namespace inarow::server
