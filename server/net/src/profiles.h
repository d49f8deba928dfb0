// Profiles (GetProfile → Profile) and leaderboards (GetLeaderboard →
// Leaderboard), read from the store: it has every player, where the server
// holds in memory only those it needs now (identity.h). A rating reaches
// the store before anyone hears of it, so what is read here is never older
// than what a player was told. Everything here may block on the store: call
// it on a reader thread, never on an I/O thread or the router's strand.
#pragma once

#include <string>

#include "inarow/server/config.h"
#include "inarow/server/metrics.h"
#include "inarow/server/protocol_error.h"
#include "inarow/server/store.h"
#include "inarow/server/wire.h"
#include "inarow/v1/inarow.pb.h"

namespace inarow::server {

// `asker` asks for a player's profile: by id (empty: their own) or by name
// (an account's, or a bot level's, "easy bot", which has a profile before
// its first game).
Expected<inarow::v1::Profile> profile(Store& store, const std::string& asker,
                                      const inarow::v1::GetProfile& request);
// A page of a variant's leaderboard (config: its page size, its games floor).
Expected<inarow::v1::Leaderboard> leaderboard(Store& store, const ServerConfig& config,
                                              const inarow::v1::GetLeaderboard& request);

// The answer to a GetProfile or GetLeaderboard from `asker`: the page, or
// the error, answering the request's id.
OutgoingPtr answer_players(Metrics& metrics, Store& store, const ServerConfig& config,
                           const std::string& asker, const inarow::v1::ClientMessage& request);

}  // namespace inarow::server
