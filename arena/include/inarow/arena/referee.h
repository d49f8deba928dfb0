// The referee of one arena game: plays it from an opening to the end between
// two Players, keeps their time, and scores a late, crashed or illegal move
// as a loss; the GameRecord is what happened.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "inarow/arena/openings.h"
#include "inarow/arena/player.h"
#include "inarow/engine/game.h"

namespace inarow::arena {

// Why a game ended.
enum class Termination : std::uint8_t { line, full_board, timeout, crash, illegal, stopped };
inline constexpr int kTerminations = 6;
std::string_view to_string(Termination t);

struct GameRecord {
  std::int64_t index = 0;  // position in the tournament's schedule
  int pairing = 0;         // index into the pairing list
  int pair = 0;            // opening pair within the pairing
  int first = 0;           // participant playing first
  int second = 1;
  std::string first_name, second_name;
  std::string variant;
  std::string opening;  // notation of the opening plies
  std::string moves;    // every move, the opening included
  Outcome result = Outcome::draw;
  Termination reason = Termination::full_board;
  std::string detail;  // for timeouts, crashes and illegal moves: what happened
  int plies = 0;
  std::int64_t millis = 0;
};

// Play one game from `opening` to the end. Set `stop` to abandon it (reason
// stopped). Time is measured here: a move past its deadline (plus the margin)
// loses on time whatever the player says.
GameRecord play_game(const Variant& v, const Opening& opening, Player& first, Player& second,
                     const TimeLimits& tc, const std::atomic<bool>* stop = nullptr);

}  // namespace inarow::arena
