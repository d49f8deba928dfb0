#include "game_record.h"

#include <fmt/format.h>

#include "inarow/common/json.h"
#include "inarow/engine/notation.h"
#include "inarow/engine/variant.h"

namespace inarow::server {

namespace v1 = ::inarow::v1;

std::vector<MoveRecord> moves_of(const std::vector<v1::MatchEvent>& events) {
  std::vector<MoveRecord> moves;
  for (const v1::MatchEvent& e : events) {
    if (e.has_move_made()) {
      moves.push_back(MoveRecord{e.move_made().ply(), e.move_made().move(), e.clocks().first_ms(),
                                 e.clocks().second_ms()});
    } else if (e.has_takeback_done()) {
      const int keep = e.takeback_done().moves_size();
      std::erase_if(moves, [keep](const MoveRecord& m) { return m.ply > keep; });
    }
  }
  return moves;
}

std::string game_record_json(MatchRecord record) {
  auto* rec = &record;
  if (rec->result == 0) {  // live: the moves are what its events say so far
    std::vector<v1::MatchEvent> events(rec->events.size());
    for (std::size_t i = 0; i < events.size(); ++i)
      (void)events[i].ParseFromString(rec->events[i]);
    rec->moves = moves_of(events);
  }
  using json::quote;
  auto variant = Variant::parse(rec->variant);
  std::string moves;
  std::vector<std::string> texts;
  for (const MoveRecord& m : rec->moves) {
    if (!moves.empty()) moves += ",";
    moves += fmt::format("{{\"ply\":{},\"move\":{},\"firstMs\":{},\"secondMs\":{}}}", m.ply,
                         quote(m.move), m.first_ms, m.second_ms);
    texts.push_back(m.move);
  }
  // As Game::notation writes it.
  const std::string notation = join_moves(texts, variant && wide_columns(*variant));
  return fmt::format(
      "{{\"matchId\":{},\"variant\":{},\"kind\":{},\"rated\":{},\"timeControl\":{{\"initialMs\":{},"
      "\"incrementMs\":{}}},\"first\":{},\"second\":{},\"result\":{},\"endReason\":{},"
      "\"createdMs\":{},\"endedMs\":{},\"notation\":{},\"moves\":[{}]}}",
      quote(rec->id), quote(rec->variant),
      quote(v1::MatchKind_Name(static_cast<v1::MatchKind>(rec->kind))),
      rec->rated ? "true" : "false", rec->initial_ms, rec->increment_ms, quote(rec->first_id),
      quote(rec->second_id), quote(v1::Result_Name(static_cast<v1::Result>(rec->result))),
      quote(v1::EndReason_Name(static_cast<v1::EndReason>(rec->reason))), rec->created_ms,
      rec->ended_ms, quote(notation), moves);
}

}  // namespace inarow::server
