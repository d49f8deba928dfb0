// A game's record: its moves as its event log tells them, and the JSON that
// GET /matches/<id> serves.
#pragma once

#include <string>
#include <vector>

#include "inarow/server/store.h"
#include "inarow/v1/inarow.pb.h"

namespace inarow::server {

// A takeback drops what it undid.
std::vector<MoveRecord> moves_of(const std::vector<inarow::v1::MatchEvent>& events);

// The record as JSON: a finished match's moves, or a live one's so far.
std::string game_record_json(MatchRecord record);

}  // namespace inarow::server
