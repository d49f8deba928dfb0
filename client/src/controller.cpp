#include "inarow/client/controller.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace inarow::client {

namespace {

std::string yes_no(bool b) {
  return b ? "yes" : "no";
}

std::string join(const google::protobuf::RepeatedPtrField<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out.empty() ? "-" : out;
}

std::string fixed1(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

std::string signed1(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f", x);
  return buf;
}

// Stones placed so far in the opening's placing step (three, then two).
std::string placed_in_step(const MatchView& v) {
  const int ply = v.state().moves_size();
  return std::to_string(v.opening_step() == v1::OPENING_STEP_PLACE_TWO ? ply - 3 : ply);
}

// What a swap2 opening asks of the player to act, said to them.
std::string opening_ask(const MatchView& v) {
  switch (v.opening_step()) {
    case v1::OPENING_STEP_PLACE_THREE:
      return "place 3 opening stones (X O X), " + placed_in_step(v) + " placed";
    case v1::OPENING_STEP_CHOOSE:
      return "`choose first` to play X, `choose second` to play O, or `choose two` to place two "
             "more stones (O then X) and leave the choice of side to the other player";
    case v1::OPENING_STEP_PLACE_TWO:
      return "place two more stones (O then X), " + placed_in_step(v) + " placed";
    case v1::OPENING_STEP_CHOOSE_SIDE:
      return "`choose first` to play X or `choose second` to play O";
    default:
      return "";
  }
}

// The same, short enough for the prompt.
std::string opening_prompt(const MatchView& v) {
  if (!v.my_turn()) {
    return v.choosing() ? "waiting for the opponent's opening choice> "
                        : "waiting for the opening stones> ";
  }
  switch (v.opening_step()) {
    case v1::OPENING_STEP_CHOOSE:
      return "choose first|second|two> ";
    case v1::OPENING_STEP_CHOOSE_SIDE:
      return "choose your side: first|second> ";
    default:
      return opening_ask(v) + "> ";
  }
}

}  // namespace

Controller::Controller(ControllerOptions options, Profile profile, Hooks hooks)
    : options_(std::move(options)), profile_(std::move(profile)), hooks_(std::move(hooks)) {
  if (!options_.name.empty() && options_.name != profile_.name) {
    // A different name is a different player: start a new identity.
    profile_.name = options_.name;
    profile_.token.clear();
  }
  if (profile_.name.empty()) {
    const char* user = std::getenv("USER");
    profile_.name = user && *user ? user : "player";
  }
}

// ---------------------------------------------------------------- output

void Controller::print(const std::string& text) const {
  hooks_.print(text);
}

void Controller::ring(const MatchView& v) const {
  if (options_.pretty && profile_.sound && v.seated()) print("\a");
}

void Controller::say(const std::string& line_form, const std::string& pretty_form) const {
  print((options_.pretty ? pretty_form : line_form) + "\n");
}

void Controller::client_error(const std::string& code, const std::string& message) const {
  say("error code=" + code + " message=" + quote(message),
      paint("! " + message, sgr::bad, options_.style));
}

std::string Controller::player_name(const MatchView& v, v1::Side s) const {
  const auto& p = v.player(s);
  return p.name().empty() ? p.id() : p.name();
}

// "ada (1500)": the name and the rating at the start of the match.
std::string Controller::rated_name(const MatchView& v, v1::Side s) const {
  const auto& p = v.player(s);
  if (!p.has_rating()) return player_name(v, s);
  return player_name(v, s) + " (" + std::to_string(std::lround(p.rating().rating())) + ")";
}

std::string Controller::clocks_suffix(const MatchView& v, SteadyTime now) const {
  if (!v.timed()) return "";
  return " first-ms=" + std::to_string(v.clock_ms(v1::SIDE_FIRST, now)) +
         " second-ms=" + std::to_string(v.clock_ms(v1::SIDE_SECOND, now));
}

void Controller::show_board(const MatchView& v, SteadyTime now) const {
  if (!options_.pretty) {
    std::string out;
    std::string board = render_board(v, Style{});
    std::size_t start = 0;
    while (start < board.size()) {
      const auto end = board.find('\n', start);
      out += "board " + board.substr(start, end - start) + "\n";
      start = end == std::string::npos ? board.size() : end + 1;
    }
    print(out);
    return;
  }
  const Style& st = options_.style;
  std::string out = "\n" + render_board(v, st);
  auto who = [&](v1::Side s) {
    std::string label = paint(stone(s), s == v1::SIDE_FIRST ? sgr::first : sgr::second, st) + " " +
                        player_name(v, s);
    if (v.your_side() == s) label += " (you)";
    if (v.timed()) label += "  " + format_clock(v.clock_ms(s, now));
    if (!v.over() && v.to_act() == s) label = paint(label, sgr::bold, st) + " <";
    return label;
  };
  out += who(v1::SIDE_FIRST) + "    " + who(v1::SIDE_SECOND);
  if (v.state().spectators() > 0) {
    out += paint("    " + std::to_string(v.state().spectators()) + " watching", sgr::dim, st);
  }
  print(out + "\n");
}

void Controller::show_turn(const MatchView& v) const {
  if (v.decided()) return;
  // In an opening the side that acts is not always the next stone's.
  const v1::Side s = v.to_act();
  std::string line =
      "turn match=" + v.id() + " side=" + side_word(s) + " you=" + yes_no(v.my_turn());
  if (!v.in_opening()) {
    say(line, v.my_turn() ? paint("Your move.", sgr::good, options_.style)
                          : player_name(v, s) + " to move.");
    return;
  }
  line += " opening=" + std::string(step_word(v.opening_step())) +
          " stone=" + side_word(v.state().to_move());
  std::string pretty;
  if (v.my_turn()) {
    const char* what = v.opening_step() == v1::OPENING_STEP_CHOOSE_SIDE ? "Your choice of side: "
                       : v.choosing()                                   ? "Your choice: "
                                                                        : "Your move: ";
    pretty = paint(what + opening_ask(v) + ".", sgr::good, options_.style);
  } else if (v.choosing()) {
    pretty = "Waiting for " + player_name(v, s) + "'s opening choice.";
  } else {
    pretty = player_name(v, s) + " places the opening stones (" + placed_in_step(v) + " of " +
             (v.opening_step() == v1::OPENING_STEP_PLACE_TWO ? "2" : "3") + " placed).";
  }
  say(line, pretty);
}

// ---------------------------------------------------------------- connection

void Controller::on_connecting(int attempt) {
  if (attempt == 0) say("connecting url=" + options_.url, "Connecting to " + options_.url + " ...");
}

void Controller::on_connected() {
  connected_ = true;
  say("connected url=" + options_.url, "Connected.");
  send_hello();
}

void Controller::send_hello() {
  v1::ClientMessage m;
  auto* h = m.mutable_hello();
  h->set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
  if (sign_in_) {
    // A new device of an account: its name and password, no token, nothing
    // to resume.
    h->set_name(sign_in_->name);
    h->set_password(sign_in_->password);
  } else {
    h->set_name(profile_.name);
    if (!profile_.token.empty()) {
      h->set_token(profile_.token);
      for (const auto& [id, v] : views_) {
        if (v.seated() && !v.over()) {
          auto* c = h->add_resume();
          c->set_match_id(id);
          c->set_last_seq(v.last_seq());
        }
      }
    }
  }
  m.set_request_id(next_request_++);
  hello_request_ = m.request_id();
  if (sign_in_) sign_in_->request = hello_request_;
  hooks_.send(std::move(m));
}

void Controller::on_disconnected(const std::string& reason) {
  const bool was = connected_;
  connected_ = false;
  greeted_ = false;
  pending_ = 0;
  awaited_match_.clear();
  requests_.clear();
  game_requests_.clear();  // their answers will not come
  strength_requests_.clear();
  resuming_.clear();
  if (quitting_) return;
  if (was && !sign_in_) {
    say("disconnected reason=" + quote(reason),
        paint("Connection lost (" + reason + ").", sgr::bad, options_.style));
  }
}

std::size_t Controller::unanswered() const {
  std::size_t n = requests_.size();
  for (const auto& [id, c] : game_requests_)
    n += requests_.contains(id) ? 0 : 1;
  return n;
}

void Controller::on_reconnect_scheduled(int attempt, std::chrono::milliseconds delay) {
  if (quitting_) return;
  say("reconnecting attempt=" + std::to_string(attempt) +
          " delay-ms=" + std::to_string(delay.count()),
      paint("Reconnecting in " + fixed1(static_cast<double>(delay.count()) / 1000.0) +
                " s (attempt " + std::to_string(attempt) + ")...",
            sgr::note, options_.style));
}

// ---------------------------------------------------------------- messages

void Controller::on_message(const v1::ServerMessage& m, SteadyTime now) {
  // Signing in on a new connection: what the old one still says is not ours.
  if (sign_in_ && sign_in_->request == 0) return;
  // The level's strength asked for alongside `bot`: one line, no line waits
  // for it, and an error (an unknown level) was already said by the bot's.
  if (auto asked = strength_requests_.find(m.request_id());
      m.request_id() != 0 && asked != strength_requests_.end()) {
    if (m.has_profile()) {
      const v1::LevelMeasure* measure = nullptr;
      for (const auto& x : m.profile().measured())
        if (x.variant() == asked->second) measure = &x;
      print(paint(m.profile().name() + ": " + format_measure(measure, asked->second), sgr::note,
                  options_.style) +
            "\n");
    }
    strength_requests_.erase(asked);
    return;
  }
  switch (m.body_case()) {
    case v1::ServerMessage::kWelcome:
      on_welcome(m);
      break;
    case v1::ServerMessage::kError:
      on_error(m);
      break;
    case v1::ServerMessage::kAck:
      on_ack(m);
      break;
    case v1::ServerMessage::kMatchState:
      on_match_state(m, now);
      break;
    case v1::ServerMessage::kEvent:
      on_event(m.event(), now);
      break;
    case v1::ServerMessage::kMatchList:
      on_match_list(m.match_list());
      break;
    case v1::ServerMessage::kSeekList:
      on_seek_list(m.seek_list());
      break;
    case v1::ServerMessage::kGameList:
      on_game_list(m.game_list());
      break;
    case v1::ServerMessage::kGameRecord:
      on_game_record(m, now);
      break;
    case v1::ServerMessage::kProfile:
      on_profile(m.profile());
      break;
    case v1::ServerMessage::kLeaderboard:
      on_leaderboard(m.leaderboard());
      break;
    case v1::ServerMessage::kBye:
      say("bye reason=" + quote(m.bye().reason()),
          paint("The server closes this connection: " + m.bye().reason(), sgr::note,
                options_.style));
      break;
    default:
      break;
  }
  if (m.request_id() != 0 && m.request_id() == pending_ &&
      m.body_case() != v1::ServerMessage::kEvent) {
    pending_ = 0;
    // A request that starts a match is done when the match is here too: its
    // ack and its first event may come in either order.
    const auto kind =
        requests_.count(m.request_id()) ? requests_[m.request_id()] : Command::Kind::help;
    // (A rematch offered to a person is acked with the ended match's id,
    // which we have: nothing to wait for.)
    const bool starts = kind == Command::Kind::bot || kind == Command::Kind::join ||
                        kind == Command::Kind::botmatch || kind == Command::Kind::rematch ||
                        kind == Command::Kind::accept;
    if (m.has_ack() && starts && !m.ack().match_id().empty() && !views_.count(m.ack().match_id())) {
      awaited_match_ = m.ack().match_id();
    }
  }
  if (!awaited_match_.empty() && views_.count(awaited_match_)) {
    awaited_match_.clear();
  }
  // Answered (a GetGame by its record or by an error): forgotten.
  if (m.request_id() != 0) {
    requests_.erase(m.request_id());
    game_requests_.erase(m.request_id());
  }
  pump();
}

void Controller::on_welcome(const v1::ServerMessage& m) {
  const auto& w = m.welcome();
  greeted_ = true;
  if (sign_in_ && m.request_id() == sign_in_->request) sign_in_.reset();
  account_ = w.account();
  player_id_ = w.player_id();
  profile_.name = w.name();
  if (!w.token().empty()) profile_.token = w.token();
  hooks_.save_profile(profile_);
  for (const auto& id : w.matches())
    resuming_.insert(id);
  for (const auto& id : w.ended_matches())  // their end is on its way
    resuming_.insert(id);
  // A match of ours the server no longer has live ended long ago (or with a
  // server that kept nothing): forget it rather than wait for it.
  for (auto it = views_.begin(); it != views_.end();) {
    const MatchView& v = it->second;
    if (v.seated() && !v.over() && !resuming_.count(v.id())) {
      say("note message=" + quote("match " + v.id() + " is no longer live on the server"),
          paint("Your match " + v.id() + " is no longer live on the server.", sgr::note,
                options_.style));
      if (current_ == v.id()) current_.clear();
      it = views_.erase(it);
    } else {
      ++it;
    }
  }
  say("welcome player=" + w.player_id() + " name=" + quote(w.name()) +
          " resumed=" + yes_no(w.resumed()) + " matches=" + std::to_string(w.matches_size()) +
          " account=" + yes_no(w.account()) + " signed-in=" + yes_no(w.signed_in()),
      std::string(w.signed_in() ? "Signed in as "
                  : w.resumed() ? "Welcome back, "
                                : "Welcome, ") +
          paint(w.name(), sgr::bold, options_.style) + "." +
          (w.matches_size() > 0 ? " Resuming your game..." : " Type help for the commands."));
  // Spectated matches come back by watching again, from the last event seen.
  for (const auto& [id, v] : views_) {
    if (!v.seated() && !v.over() && id == current_) {
      v1::ClientMessage wm;
      wm.mutable_watch()->set_match_id(id);
      wm.mutable_watch()->set_after_seq(v.last_seq());
      resuming_.insert(id);
      send(std::move(wm), Command::Kind::watch);
    }
  }
}

void Controller::on_error(const v1::ServerMessage& m) {
  const auto& e = m.error();
  if (sign_in_ && m.request_id() == sign_in_->request) {
    say("error code=" + error_word(e.code()) + " message=" + quote(e.message()),
        paint("! Could not sign in as " + sign_in_->name + ": " + e.message(), sgr::bad,
              options_.style));
    sign_in_.reset();
    send_hello();  // as before, on this connection: a refused hello greets nobody
    return;
  }
  if (m.request_id() == hello_request_ && e.code() == v1::ERROR_BAD_TOKEN) {
    // The server does not know our token (a new server?): be a new player.
    say("note message=" + quote("token unknown to the server; new identity"),
        paint("The server does not know this player any more; starting afresh as " + profile_.name +
                  ".",
              sgr::note, options_.style));
    profile_.token.clear();
    send_hello();
    return;
  }
  if (requests_.count(m.request_id()) && requests_[m.request_id()] == Command::Kind::seek) {
    seeking_ = false;
  }
  say("error code=" + error_word(e.code()) + " message=" + quote(e.message()) +
          (e.match_id().empty() ? "" : " match=" + e.match_id()),
      paint("! " + e.message(), sgr::bad, options_.style));
  if (options_.pretty && m.request_id() == hello_request_ && e.code() == v1::ERROR_NAME_TAKEN) {
    print(paint("Type login " + profile_.name +
                    " to sign in with its password, or quit and start again with --name OTHER.",
                sgr::note, options_.style) +
          "\n");
  }
}

void Controller::on_ack(const v1::ServerMessage& m) {
  const auto it = requests_.find(m.request_id());
  if (it == requests_.end()) return;
  const auto& a = m.ack();
  switch (it->second) {
    case Command::Kind::create:
      say("private code=" + quote(a.code()),
          "Private game created. Your friend joins with: " +
              paint("join " + a.code(), sgr::bold, options_.style));
      break;
    case Command::Kind::seek:
      say("seeking", "Looking for an opponent... (cancel to stop)");
      break;
    case Command::Kind::cancel:
      seeking_ = false;
      say("seek-cancelled", "No longer seeking.");
      break;
    case Command::Kind::unwatch:
      say("unwatched match=" + a.match_id(), "Stopped watching.");
      break;
    case Command::Kind::password:
      account_ = true;
      say("password-set name=" + quote(profile_.name),
          "Your name is protected. On another device: " +
              paint("login " + profile_.name, sgr::bold, options_.style));
      break;
    default:
      break;
  }
}

void Controller::on_match_state(const v1::ServerMessage& m, SteadyTime now) {
  const auto& s = m.match_state();
  auto [it, fresh] = views_.try_emplace(s.match_id(), s, now);
  if (!fresh) it->second = MatchView(s, now);
  it->second.seat(player_id_);  // watching our own match: still our seat
  MatchView& v = it->second;
  const bool resumed = resuming_.erase(s.match_id()) > 0;
  // A state we asked for, or our own live match, becomes the one shown.
  const MatchView* shown = current();
  if (m.request_id() != 0 || (v.seated() && !v.over()) || !shown || shown->over() ||
      shown->id() == v.id()) {
    current_ = v.id();
  }
  say("state match=" + v.id() + " variant=" + s.variant() +
          " kind=" + std::string(kind_word(s.kind())) + " seq=" + std::to_string(s.last_seq()) +
          " ply=" + std::to_string(s.moves_size()) + " to-move=" + side_word(s.to_move()) +
          " you=" + side_word(s.your_side()) + " result=" + std::string(result_word(s.result())) +
          " first=" + quote(player_name(v, v1::SIDE_FIRST)) +
          " second=" + quote(player_name(v, v1::SIDE_SECOND)) + " moves=" + join(s.moves(), ",") +
          clocks_suffix(v, now) +
          (v.in_opening() ? " opening=" + std::string(step_word(v.opening_step())) : ""),
      std::string(resumed ? "Back in the game " : "Watching ") +
          paint(s.variant(), sgr::bold, options_.style) + ": " + player_name(v, v1::SIDE_FIRST) +
          " vs " + player_name(v, v1::SIDE_SECOND) + ", " + format_time_control(s.time_control()) +
          ".");
  if (options_.pretty) show_board(v, now);
  if (v.over()) {
    say("ended match=" + v.id() + " result=" + std::string(result_word(s.result())) +
            " reason=" + std::string(reason_word(s.end_reason())) + " you=-",
        "This match is over: " + std::string(result_word(s.result())) + " (" +
            std::string(reason_word(s.end_reason())) + ").");
  } else {
    show_turn(v);
  }
}

void Controller::on_rematch_event(const MatchView& v, const v1::MatchEvent& e) {
  const std::string id = " match=" + v.id();
  auto by = [&](v1::Side s) { return v.your_side() == s ? std::string("You") : player_name(v, s); };
  const auto& st = options_.style;
  switch (e.kind_case()) {
    case v1::MatchEvent::kRematchOffered: {
      const v1::Side s = e.rematch_offered().by();
      if (v.seated() && s != v.your_side()) rematch_offers_[v.id()] = s;
      say("rematch-offered" + id + " by=" + side_word(s),
          v.your_side() == s ? "You offered a rematch; waiting for an answer."
          : v.seated()
              ? paint(by(s) + " offers a rematch, sides swapped: `rematch` accepts, `decline` "
                              "declines.",
                      sgr::note, st)
              : by(s) + " offers a rematch.");
      break;
    }
    case v1::MatchEvent::kRematchDeclined: {
      const auto& d = e.rematch_declined();
      rematch_offers_.erase(v.id());
      say("rematch-declined" + id + " by=" + side_word(d.by()) + " lapsed=" + yes_no(d.lapsed()),
          d.lapsed() ? "The rematch offer lapsed: " + by(d.by()) + " left or began another match."
                     : by(d.by()) + " declined the rematch.");
      break;
    }
    case v1::MatchEvent::kRematchStarted:
      rematch_offers_.erase(v.id());
      say("rematch-started" + id + " new=" + e.rematch_started().match_id(),
          v.seated() ? "The rematch begins."
                     : "The players began a rematch: watch " + e.rematch_started().match_id());
      break;
    default:
      break;
  }
}

void Controller::on_event(const v1::MatchEvent& e, SteadyTime now) {
  auto it = views_.find(e.match_id());
  // Rematch news is not part of the game (seq 0): told, never applied.
  if (e.has_rematch_offered() || e.has_rematch_declined() || e.has_rematch_started()) {
    if (it != views_.end()) on_rematch_event(it->second, e);
    return;
  }
  // So is the number watching: kept for the header.
  if (e.has_spectators()) {
    if (it == views_.end()) return;
    it->second.set_spectators(e.spectators().count());
    say("spectators match=" + e.match_id() + " count=" + std::to_string(e.spectators().count()),
        paint(std::to_string(e.spectators().count()) + " watching.", sgr::dim, options_.style));
    return;
  }
  if (it == views_.end()) {
    if (!e.has_started()) return;  // not a match we follow
    it = views_.try_emplace(e.match_id(), e.started().state(), now).first;
    it->second.apply(e, now);
    it->second.seat(player_id_);
  } else if (!it->second.apply(e, now)) {
    return;  // seen already (a replay after a resume)
  }
  MatchView& v = it->second;
  const auto& st = options_.style;
  const std::string id = " match=" + v.id();
  auto by = [&](v1::Side s) { return v.your_side() == s ? std::string("You") : player_name(v, s); };
  switch (e.kind_case()) {
    case v1::MatchEvent::kStarted: {
      v.seat(player_id_);
      const auto& s = v.state();
      current_ = v.id();
      seeking_ = false;
      say("started" + id + " variant=" + s.variant() + " kind=" + std::string(kind_word(s.kind())) +
              " rated=" + yes_no(s.rated()) + " time=" + format_time_control(s.time_control()) +
              " first=" + quote(player_name(v, v1::SIDE_FIRST)) + " second=" +
              quote(player_name(v, v1::SIDE_SECOND)) + " you=" + side_word(v.your_side()),
          "New " + paint(s.variant(), sgr::bold, st) + " match (" +
              std::string(kind_word(s.kind())) + (s.rated() ? ", rated" : "") + ", " +
              format_time_control(s.time_control()) + "): " + paint("X", sgr::first, st) + " " +
              rated_name(v, v1::SIDE_FIRST) + " vs " + paint("O", sgr::second, st) + " " +
              rated_name(v, v1::SIDE_SECOND) +
              (v.seated() ? std::string(". You play ") + stone(v.your_side()) + "." : ".") +
              (v.in_opening() ? " The swap2 opening: X places three stones (X O X), then O "
                                "takes a side or places two more and leaves the choice to X."
                              : ""));
      if (options_.pretty) show_board(v, now);
      ring(v);
      show_turn(v);
      break;
    }
    case v1::MatchEvent::kMoveMade: {
      const auto& mm = e.move_made();
      say("move" + id + " seq=" + std::to_string(e.seq()) + " ply=" + std::to_string(mm.ply()) +
              " side=" + side_word(mm.side()) + " move=" + mm.move() + clocks_suffix(v, now),
          "");
      if (options_.pretty) {
        // In an opening a player places stones of either side.
        const v1::Side placer =
            v.last_placed_by() != v1::SIDE_UNSPECIFIED ? v.last_placed_by() : mm.side();
        show_board(v, now);
        if (placer != v.your_side()) ring(v);
        print(
            by(placer) +
            (mm.has_opening() ? std::string(" placed ") + stone(mm.side()) + " at " : " played ") +
            paint(mm.move(), sgr::bold, st) + ".\n");
      }
      show_turn(v);
      break;
    }
    case v1::MatchEvent::kOpeningChosen: {
      const auto& oc = e.opening_chosen();
      // `by` is the chooser's side before the choice; after a swap they hold the other.
      const v1::Side chooser = oc.swapped() ? opponent(oc.by()) : oc.by();
      std::string text =
          by(chooser) + (oc.place_two() ? " chose to place two more stones (O then X)."
                                        : std::string(" chose to play ") + stone(oc.side()) + " (" +
                                              side_word(oc.side()) + ").");
      if (oc.swapped()) {
        text += v.seated() ? std::string(" The players swap sides: you now play ") +
                                 stone(v.your_side()) + "."
                           : std::string(" The players swap sides.");
      }
      if (options_.pretty) show_board(v, now);
      if (chooser != v.your_side()) ring(v);
      say("opening-chosen" + id + " seq=" + std::to_string(e.seq()) + " by=" + side_word(oc.by()) +
              " choice=" + (oc.place_two() ? "two" : side_word(oc.side())) +
              " swapped=" + yes_no(oc.swapped()) + " you=" + side_word(v.your_side()) +
              " first=" + quote(player_name(v, v1::SIDE_FIRST)) +
              " second=" + quote(player_name(v, v1::SIDE_SECOND)) + clocks_suffix(v, now),
          paint(text, sgr::note, st));
      show_turn(v);
      break;
    }
    case v1::MatchEvent::kDrawOffered: {
      const v1::Side s = e.draw_offered().by();
      say("draw-offered" + id + " by=" + side_word(s),
          v.your_side() == s ? "You offered a draw."
                             : paint(by(s) + " offers a draw: `draw` accepts, `decline` declines.",
                                     sgr::note, st));
      break;
    }
    case v1::MatchEvent::kDrawDeclined:
      say("draw-declined" + id + " by=" + side_word(e.draw_declined().by()),
          by(e.draw_declined().by()) + " declined the draw.");
      break;
    case v1::MatchEvent::kTakebackRequested: {
      const v1::Side s = e.takeback_requested().by();
      say("takeback-requested" + id + " by=" + side_word(s),
          v.your_side() == s
              ? "You asked to take back your last move."
              : paint(by(s) + " asks to take back a move: `undo` accepts, `decline` declines.",
                      sgr::note, st));
      break;
    }
    case v1::MatchEvent::kTakebackDeclined:
      say("takeback-declined" + id + " by=" + side_word(e.takeback_declined().by()),
          by(e.takeback_declined().by()) + " declined the takeback.");
      break;
    case v1::MatchEvent::kTakebackDone:
      say("takeback-done" + id + " undone=" + std::to_string(e.takeback_done().undone()) +
              " moves=" + join(e.takeback_done().moves(), ","),
          "Took back " + std::to_string(e.takeback_done().undone()) + " move(s).");
      if (options_.pretty) show_board(v, now);
      show_turn(v);
      break;
    case v1::MatchEvent::kPresence: {
      const auto& p = e.presence();
      if (v.your_side() == p.side()) break;
      say("presence" + id + " side=" + side_word(p.side()) + " connected=" + yes_no(p.connected()),
          paint(player_name(v, p.side()) + (p.connected() ? " is back." : " lost the connection."),
                sgr::note, st));
      break;
    }
    case v1::MatchEvent::kEnded: {
      const auto& en = e.ended();
      std::string you = "-";
      std::string verdict;
      if (v.seated()) {
        const bool first = v.your_side() == v1::SIDE_FIRST;
        if (en.result() == v1::RESULT_DRAW)
          you = "drew", verdict = "a draw";
        else if (en.result() == v1::RESULT_ABORTED)
          you = "-", verdict = "aborted";
        else if ((en.result() == v1::RESULT_FIRST_WINS) == first)
          you = "won", verdict = "you won";
        else
          you = "lost", verdict = "you lost";
      } else {
        verdict = en.result() == v1::RESULT_DRAW          ? "a draw"
                  : en.result() == v1::RESULT_FIRST_WINS  ? player_name(v, v1::SIDE_FIRST) + " won"
                  : en.result() == v1::RESULT_SECOND_WINS ? player_name(v, v1::SIDE_SECOND) + " won"
                                                          : "aborted";
      }
      if (options_.pretty) show_board(v, now);
      ring(v);
      say("ended" + id + " result=" + std::string(result_word(en.result())) +
              " reason=" + std::string(reason_word(en.reason())) + " you=" + you +
              " line=" + join(en.winning_line(), ","),
          paint("Game over: " + verdict + " (" + std::string(reason_word(en.reason())) +
                    (en.winning_line_size() ? " " + join(en.winning_line(), " ") : "") + ").",
                you == "won" ? sgr::good : (you == "lost" ? sgr::bad : sgr::bold), st) +
              (v.seated() ? "\n`rematch` plays again with the sides swapped." : ""));
      for (const auto& r : en.ratings()) {
        std::string name = r.player_id();
        for (v1::Side s : {v1::SIDE_FIRST, v1::SIDE_SECOND}) {
          if (v.player(s).id() == r.player_id()) name = player_name(v, s);
        }
        const double change = r.after().rating() - r.before().rating();
        say("rating" + id + " player=" + r.player_id() + " name=" + quote(name) +
                " before=" + fixed1(r.before().rating()) + " after=" + fixed1(r.after().rating()) +
                " change=" + signed1(change),
            "  " + name + ": " + std::to_string(std::lround(r.before().rating())) + " -> " +
                std::to_string(std::lround(r.after().rating())) + " (" +
                paint(signed1(change), change >= 0 ? sgr::good : sgr::bad, st) + ")");
      }
      break;
    }
    default:
      break;
  }
}

void Controller::on_match_list(const v1::MatchList& list) {
  listed_.clear();
  say("matches count=" + std::to_string(list.matches_size()),
      list.matches_size() == 0 ? "No live matches." : "Live matches (watch N):");
  for (const auto& s : list.matches()) {
    listed_.push_back(s.match_id());
    const std::string n = std::to_string(listed_.size());
    const std::string first = s.first().name().empty() ? s.first().id() : s.first().name();
    const std::string second = s.second().name().empty() ? s.second().id() : s.second().name();
    say("match n=" + n + " id=" + s.match_id() + " variant=" + s.variant() +
            " kind=" + std::string(kind_word(s.kind())) + " first=" + quote(first) +
            " second=" + quote(second) + " ply=" + std::to_string(s.ply()) +
            " spectators=" + std::to_string(s.spectators()),
        "  " + n + ". " + s.variant() + "  " + first + " vs " + second + "  (" +
            std::string(kind_word(s.kind())) + ", move " + std::to_string(s.ply()) + ", " +
            std::to_string(s.spectators()) + " watching)  " + s.match_id());
  }
}

// ---------------------------------------------------------------- history

void Controller::on_game_list(const v1::GameList& list) {
  games_listed_.clear();
  const bool mine = list.player_id() == player_id_;
  say("games count=" + std::to_string(list.games_size()) + " player=" + quote(list.player_id()) +
          " next=" + quote(list.next()),
      list.games_size() == 0 ? std::string("No finished games.")
                             : std::string(mine ? "Your games" : "Their games") +
                                   ", newest first (replay N, export N):");
  for (const auto& g : list.games()) {
    games_listed_.push_back(g.match_id());
    const std::string n = std::to_string(games_listed_.size());
    const std::string first = g.first().name().empty() ? g.first().id() : g.first().name();
    const std::string second = g.second().name().empty() ? g.second().id() : g.second().name();
    std::string change;
    for (const auto& r : g.ratings()) {
      if (r.player_id() != list.player_id()) continue;
      const long d = std::lround(r.after().rating()) - std::lround(r.before().rating());
      change = (d >= 0 ? "+" : "") + std::to_string(d);
    }
    say("game n=" + n + " id=" + g.match_id() + " variant=" + g.variant() +
            " first=" + quote(first) + " second=" + quote(second) +
            " result=" + std::string(result_word(g.result())) +
            " reason=" + std::string(reason_word(g.end_reason())) +
            " plies=" + std::to_string(g.plies()) + " change=" + (change.empty() ? "-" : change) +
            " ended_ms=" + std::to_string(g.ended_ms()),
        "  " + n + ". " + g.variant() + "  " + first + " vs " + second + "  " +
            std::string(result_word(g.result())) + " by " +
            std::string(reason_word(g.end_reason())) + ", " + std::to_string(g.plies()) + " moves" +
            (change.empty() ? "" : ", " + change) + "  " + g.match_id());
  }
}

std::optional<std::string> Controller::from_list(const std::string& code,
                                                 const std::vector<std::string>& listed, bool ids,
                                                 const char* what, const char* where) const {
  char* end = nullptr;
  const long n = std::strtol(code.c_str(), &end, 10);
  const bool number = end && *end == '\0' && !code.empty();
  if (!number && ids) return code;
  if (!number || n < 1 || static_cast<std::size_t>(n) > listed.size()) {
    client_error("BAD_COMMAND", std::string("no ") + what + " number " + code + " in " + where);
    return std::nullopt;
  }
  return listed[static_cast<std::size_t>(n - 1)];
}

// replay and export: the game by id or by its number in the last `games`.
void Controller::ask_game(const Command& c) {
  const auto id = from_list(c.code, games_listed_, true, "game", "the last games");
  if (!id) return;
  v1::ClientMessage m;
  m.mutable_get_game()->set_match_id(*id);
  game_requests_[send(std::move(m), c.kind)] = c;
}

void Controller::on_game_record(const v1::ServerMessage& m, SteadyTime now) {
  auto it = game_requests_.find(m.request_id());
  if (it == game_requests_.end()) return;
  const Command c = it->second;
  game_requests_.erase(it);
  const v1::GameRecord& r = m.game_record();
  const v1::GameSummary& g = r.game();
  if (c.kind == Command::Kind::export_game) {
    const std::string& text = c.psq ? r.psq() : r.text();
    if (c.psq && text.empty()) {
      client_error("NO_PSQ",
                   "no .psq record for " + g.variant() + ": five in a row without gravity only");
      return;
    }
    if (c.file.empty()) return print(text);
    std::ofstream out(c.file, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      client_error("WRITE_FAILED", "cannot write " + c.file);
      return;
    }
    say("exported id=" + g.match_id() + " file=" + quote(c.file) +
            " bytes=" + std::to_string(text.size()),
        "Wrote " + g.match_id() + (c.psq ? " (.psq)" : "") + " to " + c.file);
    return;
  }
  replay_ = r;
  show_replay(c.ply < 0 ? r.moves_size() : std::min(c.ply, r.moves_size()), now);
}

// The replayed game after `at` moves: the players, the board, the moves in pairs.
void Controller::show_replay(int at, SteadyTime now) {
  const v1::GameRecord& r = *replay_;
  const v1::GameSummary& g = r.game();
  const int total = r.moves_size();
  replay_ply_ = at;
  v1::MatchState state;
  state.set_match_id(g.match_id());
  state.set_variant(g.variant());
  state.set_kind(g.kind());
  *state.mutable_first() = g.first();
  *state.mutable_second() = g.second();
  for (int i = 0; i < at; ++i)
    state.add_moves(r.moves(i).move());
  state.set_to_move(at % 2 == 0 ? v1::SIDE_FIRST : v1::SIDE_SECOND);
  if (at == total) {
    state.set_result(g.result());
    state.set_end_reason(g.end_reason());
  }
  google::protobuf::RepeatedPtrField<std::string> all;
  for (const auto& move : r.moves())
    *all.Add() = move.move();
  say("replay id=" + g.match_id() + " variant=" + g.variant() + " ply=" + std::to_string(at) +
          " plies=" + std::to_string(total) + " result=" + std::string(result_word(g.result())) +
          " pairs=" + quote(move_pairs(all)),
      g.variant() + ": " + (g.first().name().empty() ? g.first().id() : g.first().name()) + " vs " +
          (g.second().name().empty() ? g.second().id() : g.second().name()) + ", " +
          std::string(result_word(g.result())) + " by " + std::string(reason_word(g.end_reason())) +
          " — move " + std::to_string(at) + " of " + std::to_string(total));
  show_board(MatchView(state, now), now);
  if (options_.pretty) print(move_pairs(all) + "\n");
}

void Controller::on_seek_list(const v1::SeekList& list) {
  seeks_listed_.clear();
  say("seeks count=" + std::to_string(list.seeks_size()) + " total=" +
          std::to_string(list.total()) + " online=" + std::to_string(list.players_online()) +
          " games=" + std::to_string(list.games_in_play()),
      std::to_string(list.players_online()) + " online, " + std::to_string(list.games_in_play()) +
          " games in play. " +
          (list.seeks_size() == 0 ? "No open seeks." : "Open seeks (accept N):"));
  for (const auto& s : list.seeks()) {
    seeks_listed_.push_back(s.seek_id());
    const std::string n = std::to_string(seeks_listed_.size());
    const std::string name = s.player().name().empty() ? s.player().id() : s.player().name();
    const long rating = std::lround(s.player().rating().rating());
    const bool mine = s.player().id() == player_id_;
    say("seek n=" + n + " id=" + s.seek_id() + " variant=" + s.variant() +
            " time=" + format_time_control(s.time_control()) + " rated=" + yes_no(s.rated()) +
            " player=" + quote(name) + " rating=" + std::to_string(rating) +
            " mine=" + yes_no(mine),
        "  " + n + ". " + s.variant() + "  " + format_time_control(s.time_control()) + "  " +
            (s.rated() ? "rated" : "casual") + "  " + name + " (" + std::to_string(rating) + ")" +
            (mine ? "  (yours: cancel)" : ""));
  }
}

void Controller::on_profile(const v1::Profile& p) {
  const std::string what = p.bot() ? "bot" : p.account() ? "account" : "guest";
  say("profile id=" + p.player_id() + " name=" + quote(p.name()) + " kind=" + what +
          " variants=" + std::to_string(p.ratings_size()),
      p.name() + " (" + what + ", " + p.player_id() + ")" +
          (p.ratings_size() == 0 ? ": no rated games yet" : ":"));
  // A level's bot: what the arena measured, under each rated variant (or
  // that it was not measured there), then the measured variants not rated.
  auto measured_in = [&](const std::string& variant) -> const v1::LevelMeasure* {
    for (const auto& m : p.measured())
      if (m.variant() == variant) return &m;
    return nullptr;
  };
  auto arena = [&](const std::string& variant, const std::string& indent) {
    const v1::LevelMeasure* m = measured_in(variant);
    say("arena variant=" + variant +
            (m ? " elo=" + fixed1(m->elo()) + " margin=" + fixed1(m->margin()) +
                     " anchor=" + quote(m->anchor()) + " games=" + std::to_string(m->games())
               : " elo=- margin=- anchor=- games=-"),
        indent + format_measure(m, variant));
  };
  for (const auto& r : p.ratings()) {
    const std::string rating = std::to_string(static_cast<int>(r.rating().rating() + 0.5));
    const std::string rd = std::to_string(static_cast<int>(r.rating().deviation() + 0.5));
    say("rating variant=" + r.variant() + " rating=" + rating + " rd=" + rd +
            " games=" + std::to_string(r.games()),
        "  " + r.variant() + "  " + rating + " ±" + rd + "  (" + std::to_string(r.games()) +
            " rated games)");
    if (p.bot()) arena(r.variant(), "    ");
  }
  for (const auto& m : p.measured()) {
    const bool rated =
        std::any_of(p.ratings().begin(), p.ratings().end(),
                    [&](const v1::VariantRating& r) { return r.variant() == m.variant(); });
    if (!rated) arena(m.variant(), "  " + m.variant() + "  ");
  }
}

void Controller::on_leaderboard(const v1::Leaderboard& b) {
  say("leaderboard variant=" + b.variant() + " total=" + std::to_string(b.total()) +
          " min_games=" + std::to_string(b.min_games()),
      b.entries_size() == 0 ? "Nobody has " + std::to_string(b.min_games()) + " rated games of " +
                                  b.variant() + " yet."
                            : "Leaderboard, " + b.variant() + " (at least " +
                                  std::to_string(b.min_games()) + " rated games):");
  for (const auto& e : b.entries()) {
    const std::string rating = std::to_string(static_cast<int>(e.rating().rating() + 0.5));
    say("rank n=" + std::to_string(e.rank()) + " id=" + e.player_id() + " name=" + quote(e.name()) +
            " bot=" + (e.bot() ? "1" : "0") + " rating=" + rating +
            " games=" + std::to_string(e.games()),
        "  " + std::to_string(e.rank()) + ". " + e.name() + (e.bot() ? " [bot]" : "") + "  " +
            rating + "  (" + std::to_string(e.games()) + " games)");
  }
}

// ---------------------------------------------------------------- input

void Controller::on_line(std::string line) {
  lines_.emplace_back(std::move(line));
  pump();
  if (!options_.script && !lines_.empty() && !ready()) {
    say("",
        paint("Not connected: that runs once the connection is back.", sgr::note, options_.style));
  }
}

void Controller::on_eof() {
  lines_.emplace_back(std::nullopt);
  pump();
}

bool Controller::wait_met() const {
  if (!wait_) return true;
  const MatchView* v = current();
  switch (*wait_) {
    case WaitFor::turn:
      return v && (v->my_turn() || v->over());
    case WaitFor::start:
      return v && !v->over() && !seeking_;
    case WaitFor::end:
      return !v || v->over();
    case WaitFor::offer:
      return v && (v->over() || rematch_offers_.count(v->id()) ||
                   (v->state().draw_offered_by() != v1::SIDE_UNSPECIFIED &&
                    v->state().draw_offered_by() != v->your_side()) ||
                   (v->state().takeback_requested_by() != v1::SIDE_UNSPECIFIED &&
                    v->state().takeback_requested_by() != v->your_side()));
  }
  return true;
}

bool Controller::ready() const {
  if (quitting_ || sign_in_) return false;
  if (!greeted_ || !resuming_.empty()) return false;
  if (!options_.script) return true;
  return pending_ == 0 && awaited_match_.empty() && wait_met();
}

// What runs before the client is ready: a person's Ctrl-D, quit and help
// need no server, and `login` when no hello has been welcomed (the name was
// an account's, say) makes its own. A script's other lines wait their turn.
bool Controller::runs_unready(const std::optional<std::string>& line) const {
  if (!line) return !options_.script;
  auto c = parse_command(*line);
  if (!c) return false;
  if (c->kind == Command::Kind::login) return !greeted_ && !sign_in_;
  return !options_.script && (c->kind == Command::Kind::quit || c->kind == Command::Kind::help);
}

void Controller::pump() {
  if (wait_ && wait_met()) wait_.reset();
  while (!lines_.empty()) {
    if (asking_secret()) {
      auto line = std::move(lines_.front());
      lines_.pop_front();
      if (line) {
        take_secret(std::move(*line));
        continue;
      }
      // End of input at a password prompt: nothing is sent. A person stays;
      // a script ends.
      asking_.reset();
      say("note message=" + quote("cancelled"), "Cancelled.");
      if (options_.script) lines_.emplace_front(std::nullopt);
      continue;
    }
    if (!ready() && !runs_unready(lines_.front())) return;
    auto line = std::move(lines_.front());
    lines_.pop_front();
    if (!line) {
      quitting_ = true;
      hooks_.quit();
      return;
    }
    run(*line);
    if (wait_ && wait_met()) wait_.reset();
  }
}

void Controller::run(const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return;
  if (line[line.find_first_not_of(" \t")] == '#') return;  // comments in scripts
  auto c = parse_command(line);
  if (!c) {
    client_error("BAD_COMMAND", c.error());
    return;
  }
  execute(*c);
}

void Controller::ask_secrets(std::vector<std::string> prompts,
                             std::function<void(std::vector<std::string>)> then) {
  asking_ = Asking{{prompts.begin(), prompts.end()}, {}, std::move(then)};
  ask_next();
}

// A person sees the prompt; a script is told what its next line is for.
void Controller::ask_next() const {
  if (!options_.pretty) print("ask prompt=" + quote(asking_->prompts.front()) + "\n");
}

void Controller::take_secret(std::string line) {
  asking_->answers.push_back(std::move(line));
  asking_->prompts.pop_front();
  if (!asking_->prompts.empty()) {
    ask_next();
    return;
  }
  Asking done = std::move(*asking_);
  asking_.reset();
  done.then(std::move(done.answers));
}

void Controller::set_password(bool changing, std::vector<std::string> secrets) {
  // A person types the new one twice: a typo they cannot see would lock
  // them out.
  if (!options_.script && secrets[secrets.size() - 1] != secrets[secrets.size() - 2]) {
    client_error("BAD_COMMAND", "the two new passwords differ; nothing was changed");
    return;
  }
  v1::ClientMessage m;
  auto* p = m.mutable_set_password();
  if (changing) p->set_old_password(std::move(secrets[0]));
  p->set_password(std::move(secrets[changing ? 1 : 0]));
  send(std::move(m), Command::Kind::password);
}

void Controller::sign_in(std::string name, std::string password) {
  sign_in_ = SignIn{std::move(name), std::move(password)};
  say("signing-in name=" + quote(sign_in_->name), "Signing in as " + sign_in_->name + " ...");
  // A hello is said once a connection: a new one signs in. Offline, the
  // next connection does.
  if (connected_ && hooks_.reconnect) hooks_.reconnect();
}

MatchView* Controller::seated_live_match() {
  for (auto& [id, v] : views_) {
    if (v.seated() && !v.over()) return &v;
  }
  return nullptr;
}

MatchView* Controller::current() {
  auto it = views_.find(current_);
  return it == views_.end() ? nullptr : &it->second;
}

const MatchView* Controller::current() const {
  auto it = views_.find(current_);
  return it == views_.end() ? nullptr : &it->second;
}

void Controller::ask_strength(const std::string& level, const std::string& variant) {
  v1::ClientMessage m;
  m.set_request_id(next_request_++);
  m.mutable_get_profile()->set_name(level + " bot");
  strength_requests_[m.request_id()] = variant;
  hooks_.send(std::move(m));
}

std::uint64_t Controller::send(v1::ClientMessage m, Command::Kind kind) {
  m.set_request_id(next_request_++);
  requests_[m.request_id()] = kind;
  pending_ = m.request_id();
  hooks_.send(std::move(m));
  return pending_;
}

void Controller::execute(const Command& c) {
  using K = Command::Kind;
  MatchView* v = current();
  const bool live_seat = v && v->seated() && !v->over();
  auto tc = [&](v1::TimeControl* t) {
    t->set_initial_ms(c.initial_ms);
    t->set_increment_ms(c.increment_ms);
  };
  auto need_seat = [&]() {
    if (live_seat) return true;
    client_error("NO_MATCH",
                 v && v->seated() ? "this match is over" : "you are not playing a match");
    return false;
  };
  v1::ClientMessage m;
  switch (c.kind) {
    case K::help:
      print(help_text(live_seat));
      return;
    case K::password: {
      std::vector<std::string> prompts;
      if (account_) prompts.emplace_back("Current password: ");
      prompts.emplace_back("New password: ");
      if (!options_.script) prompts.emplace_back("New password again: ");
      ask_secrets(std::move(prompts), [this, changing = account_](std::vector<std::string> got) {
        set_password(changing, std::move(got));
      });
      return;
    }
    case K::login:
      if (const MatchView* seat = seated_live_match()) {
        client_error("IN_MATCH",
                     "finish match " + seat->id() + " first: signing in makes you another player");
        return;
      }
      ask_secrets({"Password for " + c.code + ": "},
                  [this, name = c.code](std::vector<std::string> got) {
                    sign_in(name, std::move(got[0]));
                  });
      return;
    case K::bot: {
      auto* b = m.mutable_play_bot();
      b->set_variant(c.variant);
      b->set_level(c.level);
      b->set_side(c.side);
      tc(b->mutable_time_control());
      send(std::move(m), c.kind);
      // A person picking a level is told what the arena measured of it here
      // (scripts ask with `profile`, so their lines stay as they were).
      if (options_.pretty) ask_strength(c.level, c.variant);
      return;
    }
    case K::seek:
      m.mutable_seek()->set_variant(c.variant);
      m.mutable_seek()->set_rated(!c.casual);
      tc(m.mutable_seek()->mutable_time_control());
      seeking_ = true;
      send(std::move(m), c.kind);
      return;
    case K::cancel:
      m.mutable_cancel_seek();
      send(std::move(m), c.kind);
      return;
    case K::create: {
      auto* p = m.mutable_create_private();
      p->set_variant(c.variant);
      p->set_side(c.side);
      p->set_rated(c.rated);
      tc(p->mutable_time_control());
      seeking_ = true;  // `wait start` waits for the friend
      send(std::move(m), c.kind);
      return;
    }
    case K::join:
      m.mutable_join_private()->set_code(c.code);
      send(std::move(m), c.kind);
      return;
    case K::watch: {
      const auto id = from_list(c.code, listed_, true, "match", "the last list");
      if (!id) return;
      m.mutable_watch()->set_match_id(*id);
      send(std::move(m), c.kind);
      return;
    }
    case K::unwatch:
      if (!v || v->seated()) {
        client_error("NO_MATCH", "you are not watching a match");
        return;
      }
      m.mutable_unwatch()->set_match_id(v->id());
      current_.clear();
      send(std::move(m), c.kind);
      return;
    case K::list:
      m.mutable_list_matches();
      send(std::move(m), c.kind);
      return;
    case K::seeks:
      m.mutable_list_seeks();
      send(std::move(m), c.kind);
      return;
    case K::accept: {
      const auto id = from_list(c.code, seeks_listed_, false, "seek", "the last seeks");
      if (!id) return;
      m.mutable_accept_seek()->set_seek_id(*id);
      send(std::move(m), c.kind);
      return;
    }
    case K::games:
      m.mutable_list_games()->set_player_id(c.code);
      send(std::move(m), c.kind);
      return;
    case K::replay:
    case K::export_game:
      ask_game(c);
      return;
    case K::replay_step:
      if (!replay_) {
        client_error("NO_REPLAY", "no game replayed yet: replay N first");
        return;
      }
      show_replay(std::clamp(replay_ply_ + c.ply, 0, replay_->moves_size()),
                  std::chrono::steady_clock::now());
      return;
    case K::profile:
      m.mutable_get_profile()->set_name(c.code);  // empty: one's own
      send(std::move(m), c.kind);
      return;
    case K::top:
      m.mutable_get_leaderboard()->set_variant(c.variant);
      send(std::move(m), c.kind);
      return;
    case K::botmatch: {
      auto* b = m.mutable_start_bot_match();
      b->set_variant(c.variant);
      b->set_first_level(c.level);
      b->set_second_level(c.level2);
      tc(b->mutable_time_control());
      send(std::move(m), c.kind);
      return;
    }
    case K::move:
      if (!need_seat()) return;
      m.mutable_move()->set_match_id(v->id());
      m.mutable_move()->set_move(c.move);
      send(std::move(m), c.kind);
      return;
    case K::resign:
      if (!need_seat()) return;
      m.mutable_resign()->set_match_id(v->id());
      send(std::move(m), c.kind);
      return;
    case K::draw: {
      if (!need_seat()) return;
      const v1::Side offered = v->state().draw_offered_by();
      if (offered != v1::SIDE_UNSPECIFIED && offered != v->your_side()) {
        m.mutable_answer_draw()->set_match_id(v->id());
        m.mutable_answer_draw()->set_accept(true);
      } else {
        m.mutable_offer_draw()->set_match_id(v->id());
      }
      send(std::move(m), c.kind);
      return;
    }
    case K::undo: {
      if (!need_seat()) return;
      const v1::Side asked = v->state().takeback_requested_by();
      if (asked != v1::SIDE_UNSPECIFIED && asked != v->your_side()) {
        m.mutable_answer_takeback()->set_match_id(v->id());
        m.mutable_answer_takeback()->set_accept(true);
      } else {
        m.mutable_request_takeback()->set_match_id(v->id());
      }
      send(std::move(m), c.kind);
      return;
    }
    case K::rematch:
      if (!v || !v->seated()) {
        client_error("NO_MATCH", "you have not played a match to play again");
        return;
      }
      if (!v->over()) {
        client_error("NOT_OVER", "this match is not over yet");
        return;
      }
      m.mutable_rematch()->set_match_id(v->id());
      send(std::move(m), c.kind);
      return;
    case K::decline: {
      if (v && v->seated() && v->over() && rematch_offers_.count(v->id())) {
        m.mutable_rematch()->set_match_id(v->id());
        m.mutable_rematch()->set_decline(true);
        send(std::move(m), c.kind);
        return;
      }
      if (!need_seat()) return;
      const auto& s = v->state();
      if (s.draw_offered_by() != v1::SIDE_UNSPECIFIED && s.draw_offered_by() != s.your_side()) {
        m.mutable_answer_draw()->set_match_id(v->id());
        m.mutable_answer_draw()->set_accept(false);
      } else if (s.takeback_requested_by() != v1::SIDE_UNSPECIFIED &&
                 s.takeback_requested_by() != s.your_side()) {
        m.mutable_answer_takeback()->set_match_id(v->id());
        m.mutable_answer_takeback()->set_accept(false);
      } else {
        client_error("NO_OFFER", "nothing to decline");
        return;
      }
      send(std::move(m), c.kind);
      return;
    }
    case K::choose: {
      if (!need_seat()) return;
      // Refused here when no choice is ours to make: nothing is sent.
      if (!v->in_opening()) {
        client_error("NO_CHOICE", v->game().variant().opening == Opening::swap2
                                      ? "no choice to make: the opening is over"
                                      : "no choice to make: this game has no swap2 opening");
        return;
      }
      if (!v->my_turn()) {
        client_error("NO_CHOICE", v->choosing() ? "no choice to make: waiting for the "
                                                  "opponent's opening choice"
                                                : "no choice to make: waiting for the "
                                                  "opening stones");
        return;
      }
      if (!v->choosing()) {
        client_error("NO_CHOICE", "no choice to make yet: " + opening_ask(*v));
        return;
      }
      if (c.place_two && v->opening_step() == v1::OPENING_STEP_CHOOSE_SIDE) {
        client_error("NO_CHOICE", "only a side now: choose first or choose second");
        return;
      }
      auto* o = m.mutable_choose_opening();
      o->set_match_id(v->id());
      if (c.place_two)
        o->set_place_two(true);
      else
        o->set_side(c.side);
      send(std::move(m), c.kind);
      return;
    }
    case K::board:
      if (!v) {
        client_error("NO_MATCH", "no match to show");
        return;
      }
      show_board(*v, std::chrono::steady_clock::now());
      if (!options_.pretty) show_turn(*v);
      return;
    case K::moves: {
      if (!v) {
        client_error("NO_MATCH", "no match to show");
        return;
      }
      const auto& moves = v->state().moves();
      say("moves match=" + v->id() + " ply=" + std::to_string(moves.size()) +
              " pairs=" + quote(move_pairs(moves)),
          moves.empty() ? std::string("No moves yet.") : move_pairs(moves));
      return;
    }
    case K::sound:
      profile_.sound = c.on;
      if (hooks_.save_profile) hooks_.save_profile(profile_);
      say(std::string("sound on=") + (c.on ? "yes" : "no"),
          c.on ? "Sounds on: the bell rings on a start, the opponent's move and the end."
               : "Sounds off.");
      return;
    case K::wait:
      wait_ = c.wait_for;
      return;
    case K::quit:
      if (live_seat && options_.pretty) {
        print("Your match goes on without you: run inarow again to come back to it.\n");
      }
      quitting_ = true;
      hooks_.quit();
      return;
  }
}

// ---------------------------------------------------------------- prompt

bool Controller::clock_running() const {
  const MatchView* v = current();
  return v && v->timed() && !v->over() && v->state().clocks().running() != v1::SIDE_UNSPECIFIED;
}

std::string Controller::prompt(SteadyTime now) const {
  if (asking_secret()) return asking_->prompts.front();
  if (!connected_ || !greeted_) return "(offline) inarow> ";
  const MatchView* v = current();
  if (!v || v->over()) return seeking_ ? "(seeking) inarow> " : "inarow> ";
  std::string p;
  if (v->timed()) {
    p += std::string("X ") + format_clock(v->clock_ms(v1::SIDE_FIRST, now)) + "  O " +
         format_clock(v->clock_ms(v1::SIDE_SECOND, now)) + " | ";
  }
  if (!v->seated()) return p + "watching> ";
  if (v->in_opening()) return p + opening_prompt(*v);
  return p + (v->my_turn() ? std::string("your move (") + stone(v->your_side()) + ")> "
                           : std::string("waiting> "));
}

}  // namespace inarow::client
