// The game history: a player's finished games (ListGames → GameList) and one
// game's whole record (GetGame → GameRecord), read from the store, and a
// game's exports: our text and, on five-in-a-row boards, Piskvork's .psq.
// Everything here may block on the store: call it on a reader thread, never
// on an I/O thread or the router's strand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "inarow/server/metrics.h"
#include "inarow/server/protocol_error.h"
#include "inarow/server/store.h"
#include "inarow/server/wire.h"
#include "inarow/v1/inarow.pb.h"

namespace inarow::server {

// ListGames' page size when it names none, and the most it may ask for.
inline constexpr std::uint32_t kGamesPageDefault = 20;
inline constexpr std::uint32_t kGamesPageMax = 100;

// A page's cursor, "<ended_ms>.<match id>", and back (nullopt: not one).
std::string games_cursor(const MatchRecord& last);
std::optional<GameCursor> parse_games_cursor(std::string_view text);

// `asker` lists `request.player_id`'s games (empty: their own). Another
// player's private games are left out, unless the asker played in them.
Expected<inarow::v1::GameList> list_games(Store& store, const std::string& asker,
                                          const inarow::v1::ListGames& request);

// A match, live or finished, as `asker` (empty: anyone, as over HTTP) may
// see it: nullopt when there is none by that id, or when it is private and
// the asker is not one of its players (visible_to), so that a private game
// looks exactly like one that does not exist. GetGame, GET /matches/<id> and
// GET /game/<id>.txt and .psq all go by it.
std::optional<MatchRecord> find_match(Store& store, const std::string& asker,
                                      const std::string& match_id);

// `asker` (empty: anyone, as over HTTP) asks for a finished game's record.
// A private game is for its players only; a live match is match_not_over.
Expected<MatchRecord> find_game(Store& store, const std::string& asker,
                                const std::string& match_id);

// The answer to a ListGames or GetGame from `asker`: the list, the record,
// or the error, answering the request's id.
OutgoingPtr answer_history(Metrics& metrics, Store& store, const std::string& asker,
                           const inarow::v1::ClientMessage& request);

inarow::v1::GameSummary game_summary(const MatchRecord& game);
inarow::v1::GameRecord game_record(const MatchRecord& game);

// The game as text: a header (match, variant, players, result, rating
// changes, time control, date in UTC), the moves numbered in pairs, and the
// whole game as one position that `inarow-engine` reads.
std::string game_text(const MatchRecord& game);
// Piskvork's record: "Piskvorky WxH, 11:11, 0", a line "x,y,ms" per move
// (1-based, x the column from the left, y the row from the top, ms the
// mover's thinking time), the two players' names and "-1". Only for boards
// without gravity where five in a row wins (nullopt otherwise).
std::optional<std::string> game_psq(const MatchRecord& game);

}  // namespace inarow::server
