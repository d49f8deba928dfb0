#include "inarow/client/match_view.h"

#include <algorithm>

#include "inarow/engine/notation.h"
#include "inarow/engine/variant.h"

namespace inarow::client {

namespace {

Game game_for(const std::string& variant) {
  auto v = Variant::parse(variant);
  return Game(v ? *v : Variant::tictactoe());
}

}  // namespace

v1::Side opponent(v1::Side s) {
  return s == v1::SIDE_FIRST ? v1::SIDE_SECOND : v1::SIDE_FIRST;
}

const char* side_word(v1::Side s) {
  switch (s) {
    case v1::SIDE_FIRST:
      return "first";
    case v1::SIDE_SECOND:
      return "second";
    default:
      return "-";
  }
}

MatchView::MatchView(const v1::MatchState& state, SteadyTime now)
    : state_(state), game_(game_for(state.variant())), clocks_at_(now) {
  rebuild_game();
}

void MatchView::rebuild_game() {
  game_ = game_for(state_.variant());
  for (const std::string& m : state_.moves()) {
    if (!game_.play(m)) break;  // the server knows better; draw what we can
  }
  winning_line_.clear();
  for (Cell c : game_.winning_line())
    winning_line_.push_back(format_cell(game_.variant(), c));
}

bool MatchView::apply(const v1::MatchEvent& e, SteadyTime now) {
  if (e.seq() <= state_.last_seq()) return false;
  state_.set_last_seq(e.seq());
  if (e.has_clocks()) {
    *state_.mutable_clocks() = e.clocks();
    clocks_at_ = now;
  }
  switch (e.kind_case()) {
    case v1::MatchEvent::kStarted: {
      const v1::Side mine = state_.your_side();
      state_ = e.started().state();
      if (state_.your_side() == v1::SIDE_UNSPECIFIED) state_.set_your_side(mine);
      state_.set_last_seq(e.seq());
      rebuild_game();
      break;
    }
    case v1::MatchEvent::kMoveMade:
      last_placed_by_ = to_act();
      state_.add_moves(e.move_made().move());
      (void)game_.play(e.move_made().move());
      state_.set_to_move(opponent(e.move_made().side()));
      // In an opening the stones alternate sides but not players: the event
      // says who acts next; without it the opening is over.
      if (e.move_made().has_opening())
        *state_.mutable_opening() = e.move_made().opening();
      else
        state_.clear_opening();
      // An offer stands until the other side moves.
      state_.set_draw_offered_by(v1::SIDE_UNSPECIFIED);
      state_.set_takeback_requested_by(v1::SIDE_UNSPECIFIED);
      break;
    case v1::MatchEvent::kDrawOffered:
      state_.set_draw_offered_by(e.draw_offered().by());
      break;
    case v1::MatchEvent::kDrawDeclined:
      state_.set_draw_offered_by(v1::SIDE_UNSPECIFIED);
      break;
    case v1::MatchEvent::kTakebackRequested:
      state_.set_takeback_requested_by(e.takeback_requested().by());
      break;
    case v1::MatchEvent::kTakebackDeclined:
      state_.set_takeback_requested_by(v1::SIDE_UNSPECIFIED);
      break;
    case v1::MatchEvent::kTakebackDone:
      state_.clear_moves();
      for (const auto& m : e.takeback_done().moves())
        state_.add_moves(m);
      state_.set_takeback_requested_by(v1::SIDE_UNSPECIFIED);
      state_.set_to_move(state_.moves_size() % 2 == 0 ? v1::SIDE_FIRST : v1::SIDE_SECOND);
      rebuild_game();
      break;
    case v1::MatchEvent::kOpeningChosen: {
      const auto& c = e.opening_chosen();
      // The players exchanged sides: the seat flips, the names follow.
      if (c.swapped() && state_.your_side() != v1::SIDE_UNSPECIFIED)
        state_.set_your_side(opponent(state_.your_side()));
      if (c.has_first()) *state_.mutable_first() = c.first();
      if (c.has_second()) *state_.mutable_second() = c.second();
      if (c.has_opening())
        *state_.mutable_opening() = c.opening();
      else
        state_.clear_opening();
      break;
    }
    case v1::MatchEvent::kEnded:
      state_.set_result(e.ended().result());
      state_.set_end_reason(e.ended().reason());
      state_.set_draw_offered_by(v1::SIDE_UNSPECIFIED);
      state_.set_takeback_requested_by(v1::SIDE_UNSPECIFIED);
      state_.mutable_clocks()->set_running(v1::SIDE_UNSPECIFIED);
      state_.clear_opening();
      if (e.ended().winning_line_size() > 0) {
        winning_line_.assign(e.ended().winning_line().begin(), e.ended().winning_line().end());
      }
      break;
    default:
      break;
  }
  return true;
}

void MatchView::seat(const std::string& player_id) {
  if (state_.your_side() != v1::SIDE_UNSPECIFIED || player_id.empty()) return;
  if (state_.first().id() == player_id)
    state_.set_your_side(v1::SIDE_FIRST);
  else if (state_.second().id() == player_id)
    state_.set_your_side(v1::SIDE_SECOND);
}

std::int64_t MatchView::clock_ms(v1::Side side, SteadyTime now) const {
  const auto& c = state_.clocks();
  std::int64_t ms = side == v1::SIDE_FIRST ? c.first_ms() : c.second_ms();
  if (c.running() == side && !over()) {
    ms -= std::chrono::duration_cast<std::chrono::milliseconds>(now - clocks_at_).count();
  }
  return std::max<std::int64_t>(ms, 0);
}

}  // namespace inarow::client
