// MatchCore: the rules of one match as a plain state machine — seats, the
// game, the clocks, draw offers and takebacks, and the numbered event log.
// No sockets, no threads: the match actor (net/match_actor.h) owns one and touches it
// only on its strand; tests drive it directly with made-up time points.
//
// A match that ends before both sides have moved (each at least once, even
// if taken back since) is aborted (RESULT_ABORTED, unrated), whatever ended it.
//
// Every command either fails with a ProtocolError and changes nothing, or
// returns the events it caused, already numbered and in the log.
//
// Sides are the game's: the first side places the odd stones. A variant with
// the swap2 opening (engine/opening.h) lets the players change sides in the
// opening; the setup keeps them in the seats they started in, and seat(),
// side_of() and the state say who holds which side now. Each player's clock
// time goes with them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inarow/engine/game.h"
#include "inarow/engine/opening.h"
#include "inarow/server/fischer_clock.h"
#include "inarow/server/protocol_error.h"
#include "inarow/server/rating.h"
#include "inarow/v1/inarow.pb.h"

namespace inarow::server {

namespace v1 = ::inarow::v1;

v1::Side to_proto(Side s);
std::optional<Side> from_proto(v1::Side s);
v1::Rating to_proto(const Rating& r);

struct Seat {
  std::string player_id;
  std::string name;
  bool bot = false;
  std::string level;  // bots only
  Rating rating;      // in the match's variant, at the start
};

struct MatchSetup {
  std::string id;
  Variant variant;
  v1::MatchKind kind = v1::MATCH_KIND_SEEK;
  bool rated = false;
  Millis initial{0};
  Millis increment{0};
  std::array<Seat, 2> seats;
  // The fencing generation its owner writes under (store.h): 0 on a single
  // node; on a cluster's node, the generation of the lease it holds.
  std::int64_t generation = 0;
};

class MatchCore {
 public:
  using Events = std::vector<v1::MatchEvent>;

  explicit MatchCore(MatchSetup setup);

  // The started event; the first side's clock starts.
  Events start(TimePoint now);

  Expected<Events> move(Side by, std::string_view text, TimePoint now);
  Expected<Events> move_cell(Side by, Cell cell, TimePoint now);
  // The swap2 choice of the player on `by`: take `side`, or (nullopt) place
  // two more stones.
  Expected<Events> choose_opening(Side by, std::optional<Side> side, TimePoint now);
  Expected<Events> resign(Side by, TimePoint now);
  // Offering when the opponent already offered accepts their offer.
  Expected<Events> offer_draw(Side by, TimePoint now);
  Expected<Events> answer_draw(Side by, bool accept, TimePoint now);
  // A takeback granted in a rated match makes it unrated (TakebackDone.unrated).
  Expected<Events> request_takeback(Side by, TimePoint now);
  Expected<Events> answer_takeback(Side by, bool accept, TimePoint now);
  // Ends the match if the running side's flag has fallen.
  Events check_flag(TimePoint now);
  // A player stayed away past the grace period of an untimed match.
  Events abandon(Side who, TimePoint now);
  // Ends the match without a result (RESULT_ABORTED, unrated).
  Events abort(v1::EndReason reason, TimePoint now);
  Events presence(Side who, bool connected, TimePoint now);

  // Restore: apply a stored event (seq must follow the log), then resume the
  // clocks once all are in.
  bool replay(const v1::MatchEvent& event);
  void resume_clock(TimePoint now);

  // Rated matches: put the rating changes into the ended event (the last).
  void attach_ratings(const std::vector<v1::RatingChange>& changes);

  v1::MatchState state(std::optional<Side> viewer, TimePoint now) const;
  v1::Clocks clocks(TimePoint now) const;
  // The players in the seats they started in; immutable, so other threads
  // may read it while the match goes on.
  const MatchSetup& setup() const { return setup_; }
  // The player who holds `side` now, and the side now held by the player
  // who started in `seat`.
  const Seat& seat(Side side) const { return setup_.seats[index(side_of(side))]; }
  Side side_of(Side seat) const { return swapped() ? opponent(seat) : seat; }
  // Whether the players changed sides in the opening.
  bool swapped() const { return opening_ && opening_->proposer() == Side::second; }
  // The setup with the players in the sides they hold now (what a result is
  // rated and filed by).
  MatchSetup seated() const;
  // The opening, while one is under way.
  const Swap2* opening() const { return opening_ && !opening_->over() ? &*opening_ : nullptr; }
  const Game& game() const { return game_; }
  const FischerClock& clock() const { return clock_; }
  bool over() const { return result_ != v1::RESULT_UNSPECIFIED; }
  v1::Result result() const { return result_; }
  v1::EndReason end_reason() const { return reason_; }
  // The side whose player acts now: the side to move, or in the opening the
  // side that places the stones or chooses.
  Side to_act() const;
  std::optional<Side> draw_offered_by() const { return draw_by_; }
  std::optional<Side> takeback_requested_by() const { return takeback_by_; }
  std::uint64_t last_seq() const { return log_.size(); }
  std::optional<Millis> until_flag(TimePoint now) const { return clock_.until_flag(now); }
  // The events with seq > after, oldest first.
  std::vector<v1::MatchEvent> events_after(std::uint64_t after, std::uint64_t upto) const;
  const std::vector<v1::MatchEvent>& log() const { return log_; }

 private:
  v1::MatchEvent& emit(TimePoint now);
  void end(v1::Result result, v1::EndReason reason, TimePoint now, Events& out);
  Expected<void> check_can_act(Side by) const;
  int takeback_plies(Side by) const;
  void apply_move_effects(Side mover);
  std::vector<std::string> move_texts() const;
  Expected<void> check_turn(Side by, bool placing) const;
  void fill_opening(v1::OpeningState* out) const;
  void apply_choice(Side by, bool swapped);
  // Stones an opening placed, once it is over: never taken back.
  int opening_stones() const { return opening_ && opening_->over() ? opening_->stones() : 0; }

  MatchSetup setup_;
  Game game_;
  FischerClock clock_;
  std::vector<v1::MatchEvent> log_;
  v1::Result result_ = v1::RESULT_UNSPECIFIED;
  v1::EndReason reason_ = v1::END_REASON_UNSPECIFIED;
  std::optional<Side> draw_by_;
  std::optional<Side> takeback_by_;
  std::array<bool, 2> moved_{};   // each side has made a move (even one taken back since)
  std::optional<Swap2> opening_;  // variants with the swap2 opening
};

}  // namespace inarow::server
