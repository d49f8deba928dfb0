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
                                        : FischerClock()) {}

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

Expected<MatchCore::Events> MatchCore::move(Side by, std::string_view text, TimePoint now) {
  if (auto ok = check_can_act(by); !ok) return inarow::unexpected(ok.error());
  if (by != game_.to_move()) return fail_with(ProtocolError::not_your_turn, "not your turn");
  auto cell = game_.parse_move(text);
  if (!cell) return fail_with(ProtocolError::illegal_move, cell.error().message);
  return move_cell(by, *cell, now);
}

Expected<MatchCore::Events> MatchCore::move_cell(Side by, Cell cell, TimePoint now) {
  if (auto ok = check_can_act(by); !ok) return inarow::unexpected(ok.error());
  if (by != game_.to_move()) return fail_with(ProtocolError::not_your_turn, "not your turn");
  if (!game_.is_legal(cell)) {
    return fail_with(ProtocolError::illegal_move,
                     "illegal move " + format_cell(setup_.variant, cell));
  }
  Events out;
  if (!clock_.press(now)) {
    // The flag fell before the timer said so: the move comes too late.
    end(win_for(opponent(by)), v1::END_REASON_TIMEOUT, now, out);
    return out;
  }
  auto played = game_.play(cell);
  if (!played) return fail_with(ProtocolError::illegal_move, played.error().message);
  moved_[index(by)] = true;
  apply_move_effects(by);

  v1::MatchEvent& e = emit(now);
  auto* made = e.mutable_move_made();
  made->set_side(to_proto(by));
  made->set_move(format_move(setup_.variant, cell));
  made->set_ply(game_.ply());
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
  if (game_.ply() < takeback_plies(by)) {
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
      auto played = game_.play(event.move_made().move());
      if (!played) return false;
      moved_[index(opponent(game_.to_move()))] = true;
      apply_move_effects(opponent(game_.to_move()));
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
  if (!over()) clock_.start(game_.to_move(), now);
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
  fill_player(s.mutable_first(), setup_.seats[0]);
  fill_player(s.mutable_second(), setup_.seats[1]);
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
  return s;
}

}  // namespace inarow::server
