// Text for people and for scripts: the board with coordinates, clocks, the
// stable words of the line format (client/README.md), ANSI colour or none.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "inarow/client/match_view.h"

namespace inarow::client {

struct Style {
  bool color = false;  // ANSI colours and attributes
};

// ANSI SGR codes used by the client.
namespace sgr {
inline constexpr const char* bold = "1";
inline constexpr const char* dim = "2";
inline constexpr const char* first = "1;31";   // red
inline constexpr const char* second = "1;34";  // blue
inline constexpr const char* good = "32";
inline constexpr const char* bad = "31";
inline constexpr const char* note = "33";
}  // namespace sgr

// `text` wrapped in an SGR sequence when colour is on.
std::string paint(std::string_view text, const char* code, const Style& style);

// The board, top row first, with column letters (numbers under gravity) and
// row numbers; the last move in [brackets] (reverse video in colour), the
// winning line's cells marked * (green in colour). Ends with a newline.
std::string render_board(const MatchView& view, const Style& style);

// The moves in pairs, as players write them: "1. h8 i9  2. j10" ("" for none).
std::string move_pairs(const google::protobuf::RepeatedPtrField<std::string>& moves);

// "4:58", "1:02:03", "9.4" under ten seconds.
std::string format_clock(std::int64_t ms);
// "5+3" (minutes + seconds), "untimed".
std::string format_time_control(const v1::TimeControl& tc);

// What the arena measured of a bot level in a variant (a Profile's
// `measured`): "arena: +544 Elo over beginner (±68, 400 games)", and "arena:
// not measured in gomoku" when there is no measurement (null).
std::string format_measure(const v1::LevelMeasure* measure, std::string_view variant);

// A value in a script line: bare when it has no space, quote or backslash,
// else in double quotes with \" and \\ escaped.
std::string quote(std::string_view value);

// Stable lower-case words: "first-wins", "line", "bot"...
std::string_view result_word(v1::Result r);
std::string_view reason_word(v1::EndReason r);
std::string_view kind_word(v1::MatchKind k);
// OPENING_STEP_CHOOSE -> "choose"; "place-three", "place-two", "choose-side", "-".
std::string_view step_word(v1::OpeningStep step);
// ERROR_ILLEGAL_MOVE -> "ILLEGAL_MOVE".
std::string error_word(v1::ErrorCode code);

// "X" / "O" for the first / second player's stone.
const char* stone(v1::Side s);

}  // namespace inarow::client
