// A finished game's record as the matches row keeps it: a line per move,
// "<ply> <move> <first_ms> <second_ms>" (moves are notation, never spaces).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "inarow/server/store.h"

namespace inarow::server::sqlite {

void encode_record(const std::vector<MoveRecord>& moves, std::string& out);
// The moves of a record written by encode_record. A line that does not parse
// (the file was edited by hand) ends the record there.
void decode_record(std::string_view text, std::vector<MoveRecord>& out);
// How many moves a record holds, without reading them: a line each.
inline int record_plies(std::string_view text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace inarow::server::sqlite
