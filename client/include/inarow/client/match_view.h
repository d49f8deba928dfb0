// The client's mirror of one match: the server's MatchState kept current by
// the events that follow it, plus an engine Game to draw the board. The
// server's word is final: the Game only follows what the server reports.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inarow/engine/game.h"
#include "inarow/v1/inarow.pb.h"

namespace inarow::client {

namespace v1 = ::inarow::v1;
using SteadyTime = std::chrono::steady_clock::time_point;

class MatchView {
 public:
  // A view from the full state (started event, watch, resume).
  MatchView(const v1::MatchState& state, SteadyTime now);

  // Apply one event. False (and nothing changes) when its seq was seen already.
  bool apply(const v1::MatchEvent& event, SteadyTime now);

  const v1::MatchState& state() const { return state_; }
  // How many watch (an unnumbered event says when it changes).
  void set_spectators(std::uint32_t n) { state_.set_spectators(n); }
  const std::string& id() const { return state_.match_id(); }
  const Game& game() const { return game_; }
  std::uint64_t last_seq() const { return state_.last_seq(); }
  v1::Side your_side() const { return state_.your_side(); }
  // The started event is the same for everyone; the seat comes from the ids.
  void seat(const std::string& player_id);
  bool seated() const { return your_side() != v1::SIDE_UNSPECIFIED; }
  bool over() const { return state_.result() != v1::RESULT_UNSPECIFIED; }
  // The board already shows a finished game: the server's `ended` is on its way.
  bool decided() const { return over() || game_.over(); }
  // A swap2 opening is under way (MatchState.opening): its step, and whose act it is.
  bool in_opening() const {
    return state_.has_opening() && state_.opening().step() != v1::OPENING_STEP_UNSPECIFIED;
  }
  v1::OpeningStep opening_step() const {
    return in_opening() ? state_.opening().step() : v1::OPENING_STEP_UNSPECIFIED;
  }
  // The side whose player acts now: in an opening its to_act (a stone or a
  // choice), else the side of the next stone (to_move).
  v1::Side to_act() const { return in_opening() ? state_.opening().to_act() : state_.to_move(); }
  // The player to act chooses (ChooseOpening) rather than places a stone.
  bool choosing() const {
    return opening_step() == v1::OPENING_STEP_CHOOSE ||
           opening_step() == v1::OPENING_STEP_CHOOSE_SIDE;
  }
  // It is this client's player's turn: a stone or, in an opening, a choice.
  bool my_turn() const { return seated() && !decided() && to_act() == your_side(); }
  // Who placed the last stone (in an opening, not always its side's player;
  // as seated when it was placed). Unspecified before the first event.
  v1::Side last_placed_by() const { return last_placed_by_; }
  bool timed() const { return state_.time_control().initial_ms() > 0; }
  const v1::PlayerInfo& player(v1::Side side) const {
    return side == v1::SIDE_SECOND ? state_.second() : state_.first();
  }
  // The cells of the winning line, once there is one.
  const std::vector<std::string>& winning_line() const { return winning_line_; }

  // A side's clock as it stands now: the last report minus the time since,
  // for the side whose clock runs.
  std::int64_t clock_ms(v1::Side side, SteadyTime now) const;

 private:
  void rebuild_game();

  v1::MatchState state_;
  Game game_;
  SteadyTime clocks_at_;
  std::vector<std::string> winning_line_;
  v1::Side last_placed_by_ = v1::SIDE_UNSPECIFIED;
};

v1::Side opponent(v1::Side s);
// "first", "second", "-".
const char* side_word(v1::Side s);

}  // namespace inarow::client
