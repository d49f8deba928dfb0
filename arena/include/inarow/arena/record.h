// The record file of a tournament: one finished game a line, as a flat JSON
// object, tied to its tournament by a fingerprint so a resumed run never mixes
// another tournament's games in.
#pragma once

#include <string>
#include <string_view>

#include "inarow/arena/referee.h"
#include "inarow/common/error.h"
#include "inarow/common/expected.h"

namespace inarow::arena {

// One record line (JSON) and back. `fingerprint` ties a line to its tournament.
std::string record_line(const GameRecord& g, const std::string& fingerprint);
expected<GameRecord, Error> parse_record_line(std::string_view line, std::string* fingerprint);

}  // namespace inarow::arena
