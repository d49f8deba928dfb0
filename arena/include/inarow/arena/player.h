// The arena's view of a participant in one game: a Player answers a move by a
// deadline or fails in a way the arena scores (late, crashed, illegal). Bots
// run in-process (here); external engines speak the Gomocup pbrain protocol
// as child processes (pbrain_player.h).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "inarow/bots/bot.h"
#include "inarow/engine/game.h"

namespace inarow::arena {

using Clock = std::chrono::steady_clock;

// The time limits of one arena game (not the server's Fischer clock). Zero
// means no limit of that kind.
struct TimeLimits {
  std::chrono::milliseconds per_move{0};   // hard limit on every move
  std::chrono::milliseconds per_game{0};   // each side's clock
  std::chrono::milliseconds increment{0};  // added to the clock after each move
  std::chrono::milliseconds margin{50};    // lateness tolerated before a loss on time
  // How long an external engine may take to start, or to move when no limit
  // is set, before it counts as hung.
  std::chrono::milliseconds hang{30000};

  bool limited() const { return per_move.count() > 0 || per_game.count() > 0; }
};

enum class MoveStatus : std::uint8_t { ok, timeout, crash, illegal };

struct PlayerMove {
  Cell move = kNoCell;
  MoveStatus status = MoveStatus::ok;
  std::string detail;  // what went wrong, for the record
};

class Player {
 public:
  virtual ~Player() = default;
  virtual std::string name() const = 0;
  // Before the first move; the opening is already on `game`'s board.
  virtual PlayerMove start(const Game& game, const TimeLimits& tc) {
    (void)game;
    (void)tc;
    return {};
  }
  // Answer a move: spend about `allotted` (0 = own limits), never pass
  // `deadline`. `clock_left` is the player's remaining game time (0 = none).
  virtual PlayerMove move(const Game& game, std::chrono::milliseconds allotted,
                          std::chrono::milliseconds clock_left, Clock::time_point deadline) = 0;
  // The game has ended (its final position is `game`).
  virtual void finish(const Game& game) { (void)game; }
};

// An in-process bot. Exceptions count as a crash, a bad move as illegal.
// `stop` (the tournament's) cuts a search short when the tournament stops.
std::unique_ptr<Player> make_bot_player(std::unique_ptr<bots::Bot> bot, std::string name,
                                        const std::atomic<bool>* stop = nullptr);

}  // namespace inarow::arena
