#include "inarow/server/match_core.h"

#include <utility>

#include "inarow/engine/notation.h"

namespace inarow::server {

v1::Side to_proto(Side s) {
  return s == Side::first ? v1::SIDE_FIRST : v1::SIDE_SECOND;
}

std::optional<Side> from_proto(v1::Side s) {
  if (s == v1::SIDE_FIRST) return Side::first;
  if (s == v1::SIDE_SECOND) return Side::second;
  return std::nullopt;
}

v1::Rating to_proto(const Rating& r) {
  v1::Rating out;
  out.set_rating(r.rating);
  out.set_deviation(r.deviation);
  out.set_volatility(r.volatility);
  return out;
}

namespace {

void fill_player(v1::PlayerInfo* info, const Seat& seat) {
  info->set_id(seat.player_id);
  info->set_name(seat.name);
  info->set_bot(seat.bot);
  *info->mutable_rating() = to_proto(seat.rating);
}

v1::Result win_for(Side s) {
  return s == Side::first ? v1::RESULT_FIRST_WINS : v1::RESULT_SECOND_WINS;
}

}  // namespace

MatchCore::MatchCore(MatchSetup setup)
    : setup_(std::move(setup)),
      game_(setup_.variant),
      clock_(setup_.initial.count() > 0 ? FischerClock(setup_.initial, setup_.increment)
                                        : FischerClock()) {
  if (setup_.variant.opening == Opening::swap2) opening_.emplace();
}

Side MatchCore::to_act() const {
  if (const Swap2* o = opening()) return *o->to_act();
  return game_.to_move();
}

MatchSetup MatchCore::seated() const {
  MatchSetup s = setup_;
  if (swapped()) std::swap(s.seats[0], s.seats[1]);
  return s;
}

void MatchCore::fill_opening(v1::OpeningState* out) const {
  const Swap2* o = opening();
  if (!o) return;
  switch (o->step()) {
    case Swap2::Step::place_three:
      out->set_step(v1::OPENING_STEP_PLACE_THREE);
      break;
    case Swap2::Step::choose:
      out->set_step(v1::OPENING_STEP_CHOOSE);
      break;
    case Swap2::Step::place_two:
      out->set_step(v1::OPENING_STEP_PLACE_TWO);
      break;
    case Swap2::Step::choose_side:
      out->set_step(v1::OPENING_STEP_CHOOSE_SIDE);
      break;
    case Swap2::Step::done:
      break;
  }
  out->set_to_act(to_proto(*o->to_act()));
}

// What a choice in the opening changes here, live or replayed: the chooser
// has acted, and on a swap what is kept by side (who has moved) follows the
// players. The clock is the caller's: live it runs, replayed it is set from
// each event.
void MatchCore::apply_choice(Side by, bool swapped) {
  moved_[index(by)] = true;
  if (swapped) std::swap(moved_[0], moved_[1]);
}

v1::Clocks MatchCore::clocks(TimePoint now) const {
  v1::Clocks c;
  c.set_first_ms(clock_.remaining(Side::first, now).count());
  c.set_second_ms(clock_.remaining(Side::second, now).count());
  if (clock_.running()) c.set_running(to_proto(*clock_.running()));
  return c;
}

v1::MatchEvent& MatchCore::emit(TimePoint now) {
  v1::MatchEvent& e = log_.emplace_back();
  e.set_match_id(setup_.id);
  e.set_seq(log_.size());
  *e.mutable_clocks() = clocks(now);
  return e;
}

MatchCore::Events MatchCore::start(TimePoint now) {
  clock_.start(Side::first, now);
  v1::MatchEvent& e = emit(now);
  *e.mutable_started()->mutable_state() = state(std::nullopt, now);
  return {e};
}

Expected<void> MatchCore::check_can_act(Side) const {
  if (over()) return fail_with(ProtocolError::match_over, "the match is over");
  return {};
}

std::vector<std::string> MatchCore::move_texts() const {
  std::vector<std::string> out;
  for (Cell c : game_.moves())
    out.push_back(format_move(setup_.variant, c));
  return out;
}

void MatchCore::apply_move_effects(Side mover) {
  // A move answers a pending offer by the other side with a silent no, and
  // makes any takeback request stale.
  if (draw_by_ && *draw_by_ != mover) draw_by_.reset();
  takeback_by_.reset();
}

Expected<void> MatchCore::check_turn(Side by, bool placing) const {
  if (auto ok = check_can_act(by); !ok) return ok;
  if (by != to_act()) return fail_with(ProtocolError::not_your_turn, "not your turn");
  const Swap2* o = opening();
  if (o && placing && !o->places())
    return fail_with(ProtocolError::bad_request, "choose first: a side, or two more stones");
  if (!placing && (!o || o->places())) {
    return fail_with(ProtocolError::bad_request,
                     o ? "place the opening's stones first" : "there is no opening choice to make");
  }
  return {};
}

Expected<MatchCore::Events> MatchCore::move(Side by, std::string_view text, TimePoint now) {
  if (auto ok = check_turn(by, true); !ok) return inarow::unexpected(ok.error());
  auto cell = game_.parse_move(text);
  if (!cell) return fail_with(ProtocolError::illegal_move, cell.error().message);
  return move_cell(by, *cell, now);
}

Expected<MatchCore::Events> MatchCore::move_cell(Side by, Cell cell, TimePoint now) {
  if (auto ok = check_turn(by, true); !ok) return inarow::unexpected(ok.error());
  if (!game_.is_legal(cell)) {
    return fail_with(ProtocolError::illegal_move,
                     "illegal move " + format_cell(setup_.variant, cell));
  }
  Events out;
  if (clock_.flagged(now)) {
    // The flag fell before the timer said so: the move comes too late.
    end(win_for(opponent(by)), v1::END_REASON_TIMEOUT, now, out);
    return out;
  }
  const Side stone = game_.to_move();  // in the opening, not always the mover's side
  auto played = game_.play(cell);
  if (!played) return fail_with(ProtocolError::illegal_move, played.error().message);
  if (opening()) opening_->placed(game_.ply());
  // The mover's turn ends when someone else acts next: in the opening, a
  // player places several stones on one turn of the clock.
  if (to_act() != by) clock_.press(now);
  moved_[index(by)] = true;
  apply_move_effects(by);

  v1::MatchEvent& e = emit(now);
  auto* made = e.mutable_move_made();
  made->set_side(to_proto(stone));
  made->set_move(format_move(setup_.variant, cell));
  made->set_ply(game_.ply());
  if (opening()) fill_opening(made->mutable_opening());
  made->set_ends_game(game_.outcome() != inarow::Outcome::ongoing);
  out.push_back(e);

  switch (game_.outcome()) {
    case inarow::Outcome::first_wins:
      end(v1::RESULT_FIRST_WINS, v1::END_REASON_LINE, now, out);
      break;
    case inarow::Outcome::second_wins:
      end(v1::RESULT_SECOND_WINS, v1::END_REASON_LINE, now, out);
      break;
    case inarow::Outcome::draw:
      end(v1::RESULT_DRAW, v1::END_REASON_BOARD_FULL, now, out);
      break;
    case inarow::Outcome::ongoing:
      break;
  }
  return out;
}

Expected<MatchCore::Events> MatchCore::choose_opening(Side by, std::optional<Side> side,
                                                      TimePoint now) {
  if (auto ok = check_turn(by, false); !ok) return inarow::unexpected(ok.error());
  Swap2 next = *opening_;
  const auto swapped = next.choose(side);
  if (!swapped) return fail_with(ProtocolError::bad_request, swapped.error().message);
  Events out;
  if (clock_.flagged(now)) {
    end(win_for(opponent(by)), v1::END_REASON_TIMEOUT, now, out);
    return out;
  }
  *opening_ = next;
  apply_choice(by, *swapped);
  if (*swapped) clock_.swap_sides(now);
  // The chooser now holds `mover`; their turn ends unless they act next.
  const Side mover = *swapped ? opponent(by) : by;
  if (to_act() != mover) clock_.press(now);

  v1::MatchEvent& e = emit(now);
  auto* chosen = e.mutable_opening_chosen();
  chosen->set_by(to_proto(by));
  if (side) chosen->set_side(to_proto(*side));
  chosen->set_place_two(!side);
  chosen->set_swapped(*swapped);
  fill_player(chosen->mutable_first(), seat(Side::first));
  fill_player(chosen->mutable_second(), seat(Side::second));
  if (opening()) fill_opening(chosen->mutable_opening());
  out.push_back(e);
  return out;
}

void MatchCore::end(v1::Result result, v1::EndReason reason, TimePoint now, Events& out) {
  // A game that ends before both sides have moved (a flag, a resignation,
  // an agreement or an absence before the second side's first move) has no
  // result to rate: it is aborted, whatever the reason.
  if (!(moved_[0] && moved_[1]) && reason != v1::END_REASON_LINE &&
      reason != v1::END_REASON_BOARD_FULL) {
    result = v1::RESULT_ABORTED;
  }
  clock_.stop(now);
  result_ = result;
  reason_ = reason;
  draw_by_.reset();
  takeback_by_.reset();
  v1::MatchEvent& e = emit(now);
  auto* ended = e.mutable_ended();
  ended->set_result(result);
  ended->set_reason(reason);
  if (reason == v1::END_REASON_LINE) {
    for (Cell c : game_.winning_line())
      ended->add_winning_line(format_cell(setup_.variant, c));
  }
  out.push_back(e);
}

Expected<MatchCore::Events> MatchCore::resign(Side by, TimePoint now) {
  if (auto ok = check_can_act(by); !ok) return inarow::unexpected(ok.error());
  Events out;
  end(win_for(opponent(by)), v1::END_REASON_RESIGNATION, now, out);
  return out;
}

Expected<MatchCore::Events> MatchCore::offer_draw(Side by, TimePoint now) {
  if (auto ok = check_can_act(by); !ok) return inarow::unexpected(ok.error());
  if (opening()) return fail_with(ProtocolError::bad_request, "no draw offers in the opening");
  if (draw_by_ == opponent(by)) return answer_draw(by, true, now);
  if (draw_by_ == by) return fail_with(ProtocolError::bad_request, "draw already offered");
  draw_by_ = by;
  v1::MatchEvent& e = emit(now);
  e.mutable_draw_offered()->set_by(to_proto(by));
  return Events{e};
}

Expected<MatchCore::Events> MatchCore::answer_draw(Side by, bool accept, TimePoint now) {
  if (auto ok = check_can_act(by); !ok) return inarow::unexpected(ok.error());
  if (draw_by_ != opponent(by))
    return fail_with(ProtocolError::no_offer, "no draw offer to answer");
  Events out;
  if (accept) {
    end(v1::RESULT_DRAW, v1::END_REASON_AGREEMENT, now, out);
  } else {
    draw_by_.reset();
    v1::MatchEvent& e = emit(now);
    e.mutable_draw_declined()->set_by(to_proto(by));
    out.push_back(e);
  }
  return out;
}

int MatchCore::takeback_plies(Side by) const {
  // Take back the asker's last move, and the reply after it if there is one.
  return game_.to_move() == by ? 2 : 1;
}

Expected<MatchCore::Events> MatchCore::request_takeback(Side by, TimePoint now) {
  if (auto ok = check_can_act(by); !ok) return inarow::unexpected(ok.error());
  if (takeback_by_) return fail_with(ProtocolError::bad_request, "a takeback is already pending");
  if (opening()) return fail_with(ProtocolError::bad_request, "no takebacks in the opening");
  // The opening's stones were bargained over: they stay.
  if (game_.ply() - takeback_plies(by) < opening_stones()) {
    return fail_with(ProtocolError::bad_request, "no move of yours to take back");
  }
  takeback_by_ = by;
  v1::MatchEvent& e = emit(now);
  e.mutable_takeback_requested()->set_by(to_proto(by));
  return Events{e};
}

Expected<MatchCore::Events> MatchCore::answer_takeback(Side by, bool accept, TimePoint now) {
  if (auto ok = check_can_act(by); !ok) return inarow::unexpected(ok.error());
  if (takeback_by_ != opponent(by)) {
    return fail_with(ProtocolError::no_offer, "no takeback request to answer");
  }
  const Side asker = *takeback_by_;
  takeback_by_.reset();
  Events out;
  if (!accept) {
    v1::MatchEvent& e = emit(now);
    e.mutable_takeback_declined()->set_by(to_proto(by));
    out.push_back(e);
    return out;
  }
  const int plies = takeback_plies(asker);
  for (int i = 0; i < plies; ++i)
    game_.undo();
  draw_by_.reset();
  // The time already spent stays spent; the clock now runs for the side to move.
  clock_.stop(now);
  clock_.start(game_.to_move(), now);
  v1::MatchEvent& e = emit(now);
  auto* done = e.mutable_takeback_done();
  done->set_undone(plies);
  if (setup_.rated) {
    // A rated game's moves are final: taking one back makes the game unrated.
    setup_.rated = false;
    done->set_unrated(true);
  }
  for (auto& m : move_texts())
    done->add_moves(m);
  out.push_back(e);
  return out;
}

MatchCore::Events MatchCore::check_flag(TimePoint now) {
  Events out;
  if (over() || !clock_.flagged(now)) return out;
  end(win_for(opponent(*clock_.running())), v1::END_REASON_TIMEOUT, now, out);
  return out;
}

MatchCore::Events MatchCore::abort(v1::EndReason reason, TimePoint now) {
  Events out;
  if (!over()) end(v1::RESULT_ABORTED, reason, now, out);
  return out;
}

MatchCore::Events MatchCore::abandon(Side who, TimePoint now) {
  Events out;
  if (!over()) end(win_for(opponent(who)), v1::END_REASON_ABANDONED, now, out);
  return out;
}

MatchCore::Events MatchCore::presence(Side who, bool connected, TimePoint now) {
  if (over()) return {};
  v1::MatchEvent& e = emit(now);
  e.mutable_presence()->set_side(to_proto(who));
  e.mutable_presence()->set_connected(connected);
  return {e};
}

bool MatchCore::replay(const v1::MatchEvent& event) {
  if (event.seq() != log_.size() + 1) return false;
  switch (event.kind_case()) {
    case v1::MatchEvent::kMoveMade: {
      const Side mover = to_act();
      if (opening() && !opening_->places()) return false;
      auto played = game_.play(event.move_made().move());
      if (!played) return false;
      if (opening()) opening_->placed(game_.ply());
      moved_[index(mover)] = true;
      apply_move_effects(mover);
      break;
    }
    case v1::MatchEvent::kOpeningChosen: {
      const auto& chosen = event.opening_chosen();
      const auto by = from_proto(chosen.by());
      if (!opening() || by != to_act()) return false;
      const auto swapped =
          opening_->choose(chosen.place_two() ? std::nullopt : from_proto(chosen.side()));
      if (!swapped) return false;
      apply_choice(*by, *swapped);
      break;
    }
    case v1::MatchEvent::kDrawOffered:
      draw_by_ = from_proto(event.draw_offered().by());
      break;
    case v1::MatchEvent::kDrawDeclined:
      draw_by_.reset();
      break;
    case v1::MatchEvent::kTakebackRequested:
      takeback_by_ = from_proto(event.takeback_requested().by());
      break;
    case v1::MatchEvent::kTakebackDeclined:
      takeback_by_.reset();
      break;
    case v1::MatchEvent::kTakebackDone:
      for (int i = 0; i < event.takeback_done().undone(); ++i)
        game_.undo();
      takeback_by_.reset();
      draw_by_.reset();
      if (event.takeback_done().unrated()) setup_.rated = false;
      break;
    case v1::MatchEvent::kEnded:
      result_ = event.ended().result();
      reason_ = event.ended().reason();
      break;
    default:
      break;
  }
  if (clock_.enabled()) {
    clock_.set(Millis{event.clocks().first_ms()}, Millis{event.clocks().second_ms()});
  }
  log_.push_back(event);
  return true;
}

void MatchCore::resume_clock(TimePoint now) {
  // Time while the server was down is not charged to anyone.
  if (!over()) clock_.start(to_act(), now);
}

void MatchCore::attach_ratings(const std::vector<v1::RatingChange>& changes) {
  if (log_.empty() || !log_.back().has_ended()) return;
  for (const auto& c : changes)
    *log_.back().mutable_ended()->add_ratings() = c;
}

std::vector<v1::MatchEvent> MatchCore::events_after(std::uint64_t after, std::uint64_t upto) const {
  std::vector<v1::MatchEvent> out;
  upto = std::min<std::uint64_t>(upto, log_.size());
  for (std::uint64_t s = after; s < upto; ++s)
    out.push_back(log_[s]);
  return out;
}

v1::MatchState MatchCore::state(std::optional<Side> viewer, TimePoint now) const {
  v1::MatchState s;
  s.set_match_id(setup_.id);
  s.set_variant(setup_.variant.name);
  s.set_kind(setup_.kind);
  s.set_rated(setup_.rated);
  s.mutable_time_control()->set_initial_ms(setup_.initial.count());
  s.mutable_time_control()->set_increment_ms(setup_.increment.count());
  fill_player(s.mutable_first(), seat(Side::first));
  fill_player(s.mutable_second(), seat(Side::second));
  for (auto& m : move_texts())
    s.add_moves(m);
  s.set_to_move(to_proto(game_.to_move()));
  *s.mutable_clocks() = clocks(now);
  s.set_result(result_);
  s.set_end_reason(reason_);
  s.set_last_seq(log_.size());
  if (draw_by_) s.set_draw_offered_by(to_proto(*draw_by_));
  if (takeback_by_) s.set_takeback_requested_by(to_proto(*takeback_by_));
  if (viewer) s.set_your_side(to_proto(*viewer));
  s.set_diagram(game_.diagram());
  if (opening()) fill_opening(s.mutable_opening());
  return s;
}

}  // namespace inarow::server
