#include "inarow/server/match_actor.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/post.hpp>

#include "game_record.h"
#include "inarow/server/match_commands.h"

namespace inarow::server {

namespace asio = boost::asio;
namespace v1 = ::inarow::v1;
using ErrorCode = boost::system::error_code;

namespace {

// A commit failed: what it held was never durable, so nobody is told of it
// (the asker gets an error instead of its ack) and the match stops here.
// Its store keeps everything up to the last good commit; a restarted server
// restores it from there.
const Failure kPausedFailure{ProtocolError::internal,
                             "the match is paused: the server could not store it; it resumes "
                             "from its last stored move when the server restarts"};

// The match went to another node of the cluster (its lease, or a write
// fenced): whoever was here reconnects and resumes it there.
const Failure kMovedFailure{ProtocolError::internal,
                            "the match moved to another server: reconnect to resume it"};

// A `started` event as one seat gets it: its state names the receiver's
// side. The log keeps (and spectators get) the event without it.
OutgoingPtr started_for(v1::MatchEvent e, Side seat) {
  e.mutable_started()->mutable_state()->set_your_side(to_proto(seat));
  return make_event(e);
}

}  // namespace

MatchActor::MatchActor(std::shared_ptr<MatchServices> services, MatchSetup setup)
    : services_(std::move(services)),
      strand_(asio::make_strand(services_->ioc)),
      core_(std::move(setup)),
      flag_timer_(strand_),
      grace_timers_{asio::steady_timer(strand_), asio::steady_timer(strand_)},
      unwatched_timer_(strand_) {}

std::optional<Side> MatchActor::seat_of(const std::string& player_id) const {
  for (int s = 0; s < 2; ++s) {
    if (setup().seats[s].player_id == player_id) return static_cast<Side>(s);
  }
  return std::nullopt;
}

void MatchActor::start(std::vector<std::pair<std::weak_ptr<Connection>, Side>> seated) {
  asio::post(strand_, [self = shared_from_this(), seated = std::move(seated)] {
    for (auto& [connection, side] : seated)
      self->subscribe(connection, side);
    auto events = self->core_.start(SteadyClock::now());
    self->check_watchers();
    const MatchSetup& s = self->setup();
    MatchRecord rec;
    rec.id = s.id;
    rec.variant = s.variant.name;
    rec.kind = s.kind;
    rec.rated = s.rated;
    rec.initial_ms = s.initial.count();
    rec.increment_ms = s.increment.count();
    rec.first_id = s.seats[0].player_id;
    rec.second_id = s.seats[1].player_id;
    rec.first_level = s.seats[0].level;
    rec.second_level = s.seats[1].level;
    rec.created_ms = unix_ms();
    rec.generation = s.generation;
    self->commit(std::move(events), {store_op::CreateMatch{std::move(rec)}}, {});
  });
}

bool MatchActor::restore(const MatchRecord& record) {
  for (const std::string& blob : record.events) {
    v1::MatchEvent e;
    if (!e.ParseFromString(blob) || !core_.replay(e)) return false;
  }
  published_seq_ = core_.last_seq();
  ply = core_.game().ply();
  return !core_.log().empty();
}

void MatchActor::resume(Millis used) {
  asio::post(strand_, [self = shared_from_this(), used] {
    const auto now = SteadyClock::now();
    self->core_.resume_clock(now - used);  // the turn began `used` ago
    for (int s = 0; s < 2; ++s) {
      if (!self->setup().seats[s].bot) self->start_grace(static_cast<Side>(s));
    }
    self->check_watchers();
    self->after_change();
    // A draw offered to a bot before the restart gets its answer now.
    if (auto by = self->core_.draw_offered_by(); by && self->core_.seat(opponent(*by)).bot) {
      self->judge_draw();
    }
  });
}

void MatchActor::command(ConnectionPtr from, Side side, v1::ClientMessage message) {
  asio::post(strand_,
             [self = shared_from_this(), from = std::move(from), side,
              message = std::move(message)]() mutable { self->on_command(from, side, message); });
}

void MatchActor::attach(std::weak_ptr<Connection> connection, std::optional<Side> side,
                        std::optional<std::uint64_t> after_seq, std::uint64_t request_id,
                        bool back) {
  asio::post(strand_, [=, self = shared_from_this()] {
    self->pending_attaches_.push_back({connection, side, after_seq, request_id, back});
    self->flush_attaches();
  });
}

void MatchActor::detach(const ConnectionPtr& connection, std::uint64_t request_id) {
  asio::post(strand_, [self = shared_from_this(), connection, request_id] {
    self->unsubscribe(connection.get());
    self->send(connection, make_ack(request_id, self->id()));
  });
}

void MatchActor::presence(Side side, bool connected) {
  asio::post(strand_,
             [self = shared_from_this(), side, connected] { self->set_presence(side, connected); });
}

void MatchActor::set_presence(Side side, bool connected) {
  if (core_.over() || stopped_) return;
  if (connected) {
    grace_timers_[index(side)].cancel();
  } else {
    start_grace(side);
  }
  commit(core_.presence(core_.side_of(side), connected, SteadyClock::now()), {}, {});
}

void MatchActor::forget(Connection* connection) {
  asio::post(strand_, [self = shared_from_this(), connection] { self->unsubscribe(connection); });
}

void MatchActor::notify(v1::MatchEvent event) {
  asio::post(strand_, [self = shared_from_this(), event = std::move(event)]() mutable {
    event.set_match_id(self->id());
    auto out = make_event(event);
    for (const Subscriber& s : self->subs_) {
      if (auto connection = s.connection.lock()) self->send(connection, out);
    }
  });
}

void MatchActor::shutdown() {
  asio::post(strand_, [self = shared_from_this()] {
    self->stopped_ = true;
    self->flag_timer_.cancel();
    for (auto& t : self->grace_timers_)
      t.cancel();
    self->unwatched_timer_.cancel();
    if (self->search_stop_) self->search_stop_->store(true);
  });
}

void MatchActor::abandon() {
  asio::post(strand_, [self = shared_from_this()] { self->let_go(std::nullopt); });
}

void MatchActor::let_go(const std::optional<Reply>& reply) {
  if (reply) send_error(reply->connection, reply->request_id, kMovedFailure);
  if (moved_) return;
  spdlog::warn("match_moved match={} at seq={}: another node owns it", id(), published_seq_);
  moved_ = stopped_ = paused_ = true;
  moved.store(true, std::memory_order_release);
  flag_timer_.cancel();
  for (auto& t : grace_timers_)
    t.cancel();
  unwatched_timer_.cancel();
  cancel_search();
  // Nothing more is said here: its followers come back to where it is now
  // and resume from the last event they saw (published, so durable).
  for (const Subscriber& s : subs_) {
    if (auto connection = s.connection.lock()) connection->close(CloseKind::going_away);
  }
  for (const PendingAttach& a : pending_attaches_) {
    if (auto connection = a.connection.lock()) connection->close(CloseKind::going_away);
  }
  subs_.clear();
  pending_attaches_.clear();
  if (services_->match_moved) services_->match_moved(id());
}

void MatchActor::send(const ConnectionPtr& to, OutgoingPtr message) {
  server::send(services_->metrics, to, std::move(message));
}

void MatchActor::send_error(const ConnectionPtr& to, std::uint64_t request_id,
                            const Failure& failure) {
  send(to, make_error(services_->metrics, request_id, failure, id()));
}

bool MatchActor::subscribe(const std::weak_ptr<Connection>& connection, std::optional<Side> side,
                           bool announce) {
  auto c = connection.lock();
  if (!c) return false;
  // Drop the dead first: a new connection may live at a dead one's address.
  std::erase_if(subs_, [&](const Subscriber& s) {
    if (!s.connection.expired()) return false;
    if (!s.side) --spectators;
    return true;
  });
  for (auto& s : subs_) {
    if (s.key == c.get()) return false;
  }
  subs_.push_back({connection, c.get(), side});
  if (!side) ++spectators;
  check_watchers();
  if (announce) announce_spectators();
  return true;
}

void MatchActor::announce_spectators(const std::vector<Connection*>& fresh) {
  const unsigned now = spectators.load(std::memory_order_relaxed);
  if (now == announced_spectators_ || stopped_) return;
  announced_spectators_ = now;
  v1::MatchEvent e;
  e.set_match_id(id());
  e.mutable_spectators()->set_count(now);
  auto out = make_event(e);
  for (const Subscriber& s : subs_) {
    if (std::find(fresh.begin(), fresh.end(), s.key) != fresh.end()) continue;
    if (auto connection = s.connection.lock()) send(connection, out);
  }
}

void MatchActor::unsubscribe(Connection* key) {
  std::erase_if(subs_, [&](const Subscriber& s) {
    if (s.key != key) return false;
    if (!s.side) --spectators;
    return true;
  });
  check_watchers();
  announce_spectators();
}

// A bot-vs-bot match is played for whoever watches it: once its starter and
// every spectator are gone for the grace, it is aborted (and its searches
// stop taking the bot workers from anyone).
void MatchActor::check_watchers() {
  if (setup().kind != v1::MATCH_KIND_BOT_VS_BOT || core_.over() || stopped_ || paused_) return;
  const bool watched = std::any_of(subs_.begin(), subs_.end(),
                                   [](const Subscriber& s) { return !s.connection.expired(); });
  if (watched) {
    if (unwatched_armed_) {
      unwatched_armed_ = false;
      unwatched_timer_.cancel();
    }
    return;
  }
  if (unwatched_armed_) return;
  unwatched_armed_ = true;
  const std::uint64_t generation = ++unwatched_generation_;
  unwatched_timer_.expires_after(services_->config.unwatched_grace);
  unwatched_timer_.async_wait([self = shared_from_this(), generation](ErrorCode ec) {
    if (ec || !self->unwatched_armed_ || generation != self->unwatched_generation_ ||
        self->stopped_ || self->paused_) {
      return;
    }
    self->unwatched_armed_ = false;
    spdlog::debug("match_unwatched match={}", self->id());
    self->commit(self->core_.abort(v1::END_REASON_ABANDONED, SteadyClock::now()), {}, {});
  });
}

// Attach only when everything in the log has been published, so that a
// new subscriber's state and the events it gets next never overlap.
void MatchActor::flush_attaches() {
  if (published_seq_ != core_.last_seq()) return;
  // Every one is subscribed before any state is written, so that each state
  // counts all the spectators of the batch and none of them needs an event
  // for the others; nothing is published in between.
  std::vector<std::pair<ConnectionPtr, const PendingAttach*>> live;
  for (const PendingAttach& a : pending_attaches_) {
    auto connection = a.connection.lock();
    if (!connection) continue;
    // A player's connection that follows already has every event: one of
    // another node, seated at the start through the link it joined by,
    // is attached again when its node hears it was seated (Seated).
    if (!subscribe(a.connection, a.side, false) && a.side && a.request_id == 0) continue;
    live.emplace_back(std::move(connection), &a);
  }
  const auto now = SteadyClock::now();
  const unsigned watching = spectators.load(std::memory_order_relaxed);
  std::vector<Connection*> fresh;
  std::vector<Side> back;
  for (const auto& [connection, a] : live) {
    if (a->back && a->side) back.push_back(*a->side);
    if (a->after_seq) {
      for (const auto& e : core_.events_after(*a->after_seq, published_seq_)) {
        send(connection, e.has_started() && a->side ? started_for(e, *a->side) : make_event(e));
      }
    }
    v1::ServerMessage m;
    m.set_request_id(a->request_id);
    // The viewer's side now: the players may have changed sides in the opening.
    const auto viewer = a->side ? std::optional(core_.side_of(*a->side)) : std::nullopt;
    *m.mutable_match_state() = core_.state(viewer, now);
    m.mutable_match_state()->set_spectators(watching);
    send(connection, make_outgoing(std::move(m)));
    fresh.push_back(connection.get());
  }
  pending_attaches_.clear();
  announce_spectators(fresh);
  for (const Side side : back)
    set_presence(side, true);
}

void MatchActor::on_command(const ConnectionPtr& from, Side seat,
                            const v1::ClientMessage& message) {
  const auto now = SteadyClock::now();
  const Side side = core_.side_of(seat);
  if (moved_) {
    send_error(from, message.request_id(), kMovedFailure);
    return;
  }
  if (stopped_) {
    send_error(from, message.request_id(),
               {ProtocolError::shutting_down, "the server is shutting down"});
    return;
  }
  if (paused_) {
    send_error(from, message.request_id(), kPausedFailure);
    return;
  }
  // A flag that fell just now ends the match before the command is looked at.
  if (auto flagged = core_.check_flag(now); !flagged.empty()) {
    commit(std::move(flagged), {}, {});
  }
  const MatchCommand* command = find_match_command(message);
  if (!command) {
    send_error(from, message.request_id(), {ProtocolError::unknown_message, "not a match command"});
    return;
  }
  auto result = command->apply(core_, side, message, now);
  if (!result) {
    send_error(from, message.request_id(), result.error());
    return;
  }
  MatchCore::Events events = std::move(*result);
  if (command->bot_grants && core_.seat(opponent(side)).bot) {
    // A bot grants every takeback; a search under way is for a stale position.
    cancel_search();
    auto granted = core_.answer_takeback(opponent(side), true, now);
    if (granted) events.insert(events.end(), granted->begin(), granted->end());
  }
  commit(std::move(events), {}, Reply{from, message.request_id()});
  const bool offered_to_bot = core_.draw_offered_by() == side && core_.seat(opponent(side)).bot;
  if (offered_to_bot && (message.has_offer_draw() || judging_)) judge_draw();
}

void MatchActor::judge_draw() {
  cancel_search();  // the bot's move waits for its answer
  judging_ = true;
  const std::uint64_t generation = ++judge_generation_;
  const int at_ply = core_.game().ply();
  services_->bots.judge_draw(core_.game(),
                             [self = shared_from_this(), at_ply, generation](bool draw) {
                               asio::post(self->strand_, [self, draw, at_ply, generation] {
                                 self->on_draw_judged(draw, at_ply, generation);
                               });
                             });
}

void MatchActor::on_draw_judged(bool draw, int at_ply, std::uint64_t generation) {
  if (generation != judge_generation_) return;  // a later judgement is under way
  judging_ = false;
  if (stopped_ || paused_ || core_.over()) return;
  const auto by = core_.draw_offered_by();
  if (!by || !core_.seat(opponent(*by)).bot) return after_change();
  // The person moved meanwhile (their offer stands): judge where it stands now.
  if (core_.game().ply() != at_ply) return judge_draw();
  auto answer = core_.answer_draw(opponent(*by), draw, SteadyClock::now());
  if (!answer) return after_change();
  commit(std::move(*answer), {}, {});
}

// Make the events durable, then publish them with the ack, if one is due.
void MatchActor::commit(MatchCore::Events events, std::vector<StoreOp> ops,
                        std::optional<Reply> reply) {
  if (moved_) return let_go(reply);
  if (paused_) return pause(reply);  // nothing more is stored after a failed commit
  if (events.empty() && ops.empty()) {
    if (reply) send(reply->connection, make_ack(reply->request_id, id()));
    return;
  }
  if (!events.empty() && events.back().has_ended()) {
    // Rated results update both players' ratings; the changes ride in the
    // ended event (here, before it is stored).
    v1::MatchEvent& ended = events.back();
    auto changes = services_->ratings.rate(core_.seated(), ended.ended().result(), ops);
    if (!changes.empty()) {
      for (const auto& c : changes)
        *ended.mutable_ended()->add_ratings() = c;
      core_.attach_ratings(changes);
    }
  }
  // One log row per event; the end files the game's record as well. Each
  // event is encoded once, for its log row and for its frame.
  std::vector<OutgoingPtr> outs;
  std::vector<SeatCopies> seat_copies;
  outs.reserve(events.size());
  ops.reserve(ops.size() + events.size() + 1);
  const std::int64_t at_ms = unix_ms();  // when these events' clocks were taken
  for (const auto& e : events) {
    if (e.has_move_made()) services_->metrics.moves.fetch_add(1, std::memory_order_relaxed);
    std::string encoded = e.SerializeAsString();
    outs.push_back(Outgoing::event(encoded));
    if (e.has_started()) {
      seat_copies.push_back(
          {outs.size() - 1, {started_for(e, Side::first), started_for(e, Side::second)}});
    }
    ops.push_back(
        store_op::AppendEvent{id(), e.seq(), std::move(encoded), at_ms, setup().generation});
    if (e.has_ended()) {
      store_op::FinishMatch finish{id(), e.ended().result(), e.ended().reason(), at_ms,
                                   moves_of(core_.log())};
      finish.swapped = core_.swapped();
      finish.generation = setup().generation;
      if (e.ended().ratings_size() == 2) {  // by seat, as rate() made them
        auto& deltas = finish.ratings.emplace();
        for (int s = 0; s < 2; ++s) {
          const v1::RatingChange& c = e.ended().ratings(s);
          deltas[s] = {{c.before().rating(), c.before().deviation(), c.before().volatility()},
                       {c.after().rating(), c.after().deviation(), c.after().volatility()}};
        }
      }
      ops.push_back(std::move(finish));
    }
  }
  const std::uint64_t last_seq = events.empty() ? 0 : events.back().seq();
  ply = core_.game().ply();
  swapped = core_.swapped();
  after_change();
  services_->writer.submit(std::move(ops), [self = shared_from_this(), outs = std::move(outs),
                                            seat_copies = std::move(seat_copies), last_seq,
                                            reply = std::move(reply)](
                                               StoreWriter::Outcome outcome) mutable {
    asio::post(self->strand_, [self, outs = std::move(outs), seat_copies = std::move(seat_copies),
                               last_seq, reply = std::move(reply), outcome] {
      // Fenced: another node owns the match now; this one lets it go.
      if (outcome == StoreWriter::Outcome::fenced) return self->let_go(reply);
      if (outcome != StoreWriter::Outcome::ok) return self->pause(reply);
      if (self->paused_) return;  // after a failed commit nothing more is told
      self->publish(outs, seat_copies, last_seq, reply);
    });
  });
}

void MatchActor::pause(const std::optional<Reply>& reply) {
  if (!paused_) {
    spdlog::error("store_write_failed match={} paused at seq={}", id(), published_seq_);
    paused_ = true;
    flag_timer_.cancel();
    for (auto& t : grace_timers_)
      t.cancel();
    cancel_search();
  }
  if (reply) send_error(reply->connection, reply->request_id, kPausedFailure);
}

// Every subscriber gets the events; the one who asked gets its ack with
// them, in the same hand-over to its connection.
// `last_seq` is the seq of the last of `outs`.
void MatchActor::publish(const std::vector<OutgoingPtr>& outs,
                         const std::vector<SeatCopies>& seat_copies, std::uint64_t last_seq,
                         const std::optional<Reply>& reply) {
  auto ack = reply ? make_ack(reply->request_id, id()) : nullptr;
  // Over before anyone hears of the end: a player who reconnects at once
  // must not find the match among its live ones.
  const bool ended_now = core_.over() && !over.exchange(true);
  std::erase_if(subs_, [&](const Subscriber& s) {
    auto connection = s.connection.lock();
    if (!connection) {
      if (!s.side) --spectators;
      return true;
    }
    const bool asker = ack && connection == reply->connection;
    std::vector<OutgoingPtr> batch;
    batch.reserve(outs.size() + (asker ? 1 : 0));
    batch.assign(outs.begin(), outs.end());
    if (s.side) {
      for (const SeatCopies& c : seat_copies)
        batch[c.index] = c.copies[index(*s.side)];
    }
    if (asker) batch.push_back(std::exchange(ack, nullptr));
    if (!batch.empty()) send_all(services_->metrics, connection, std::move(batch));
    return false;
  });
  if (!outs.empty()) published_seq_ = last_seq;
  if (ack) send(reply->connection, std::move(ack));  // the asker does not follow the match
  flush_attaches();
  check_watchers();
  announce_spectators();  // the dead spectators dropped above
  if (ended_now) {
    spdlog::debug("match_ended match={} result={} reason={} plies={}", id(),
                  v1::Result_Name(core_.result()), v1::EndReason_Name(core_.end_reason()),
                  core_.game().ply());
    services_->metrics.matches_live[setup().kind].fetch_sub(1, std::memory_order_relaxed);
    if (services_->match_ended) services_->match_ended(id());
  }
}

// After any change: the flag timer follows the running clock, and a bot to
// move starts thinking.
void MatchActor::after_change() {
  if (stopped_ || paused_) return;
  if (core_.over()) {
    flag_timer_.cancel();
    for (auto& t : grace_timers_)
      t.cancel();
    unwatched_armed_ = false;
    unwatched_timer_.cancel();
    cancel_search();
    return;
  }
  if (auto left = core_.until_flag(SteadyClock::now())) {
    flag_timer_.expires_after(*left + Millis{1});
    flag_timer_.async_wait([self = shared_from_this()](ErrorCode ec) {
      if (ec || self->stopped_) return;
      self->commit(self->core_.check_flag(SteadyClock::now()), {}, {});
    });
  }
  maybe_start_search();
}

void MatchActor::start_grace(Side side) {
  // With a clock the absent player's time runs out by itself.
  if (core_.clock().enabled() || core_.over()) return;
  auto& timer = grace_timers_[index(side)];
  timer.expires_after(services_->config.reconnect_grace);
  timer.async_wait([self = shared_from_this(), side](ErrorCode ec) {
    if (ec || self->stopped_) return;
    self->commit(self->core_.abandon(self->core_.side_of(side), SteadyClock::now()), {}, {});
  });
}

void MatchActor::maybe_start_search() {
  const Side side = core_.to_act();
  const Seat& seat = core_.seat(side);
  if (!seat.bot || searching_ || judging_ || core_.over()) return;
  searching_ = true;
  const std::uint64_t generation = ++search_generation_;
  search_stop_ = std::make_shared<std::atomic<bool>>(false);
  // A bot that plays a person goes ahead of bots that play bots.
  const BotLane lane = setup().kind == v1::MATCH_KIND_BOT_VS_BOT ? BotLane::bots : BotLane::person;
  if (const Swap2* opening = core_.opening()) {
    services_->bots.open(
        core_.game(), *opening, seat.level, lane, core_.clock(), side, search_stop_,
        [self = shared_from_this(), generation](bots::OpeningDecision decision) {
          asio::post(self->strand_, [self, decision = std::move(decision), generation] {
            self->on_bot_opening(decision, generation);
          });
        });
    return;
  }
  services_->bots.search(core_.game(), seat.level, lane, core_.clock(), side, search_stop_,
                         [self = shared_from_this(), generation](const bots::Choice& choice) {
                           asio::post(self->strand_, [self, choice, generation] {
                             self->on_bot_move(choice, generation);
                           });
                         });
}

void MatchActor::cancel_search() {
  if (!searching_) return;
  ++search_generation_;
  if (search_stop_) search_stop_->store(true);
}

// A bot's answer came back: whether it is still wanted. A stale one (the
// position changed under the search) starts the search again; a fallen flag
// ends the match instead.
bool MatchActor::bot_answer_stands(std::uint64_t generation) {
  searching_ = false;
  if (stopped_ || paused_ || core_.over()) return false;
  if (generation != search_generation_) {
    after_change();
    return false;
  }
  if (auto flagged = core_.check_flag(SteadyClock::now()); !flagged.empty()) {
    commit(std::move(flagged), {}, {});
    return false;
  }
  return true;
}

void MatchActor::on_bot_move(const bots::Choice& choice, std::uint64_t generation) {
  if (!bot_answer_stands(generation)) return;
  const Side side = core_.to_act();
  auto result = core_.move_cell(side, choice.move, SteadyClock::now());
  if (!result) {
    spdlog::error("bot_move_rejected match={} reason=\"{}\"", id(), result.error().message);
    return;
  }
  commit(std::move(*result), {}, {});
}

// The bot's part of the opening, as one turn: the choice first (two more
// stones are chosen before they are placed), then its stones, in order.
void MatchActor::on_bot_opening(const bots::OpeningDecision& decision, std::uint64_t generation) {
  if (!bot_answer_stands(generation)) return;
  const auto now = SteadyClock::now();
  const Side side = core_.to_act();
  MatchCore::Events events;
  auto take = [&](Expected<MatchCore::Events> result) {
    if (!result) {
      spdlog::error("bot_opening_rejected match={} reason=\"{}\"", id(), result.error().message);
      return false;
    }
    events.insert(events.end(), result->begin(), result->end());
    return true;
  };
  bool ok = true;
  if (decision.place_two || decision.side)
    ok = take(core_.choose_opening(side, decision.side, now));
  for (std::size_t i = 0; ok && i < decision.stones.size() && !core_.over(); ++i)
    ok = take(core_.move_cell(side, decision.stones[i], now));
  commit(std::move(events), {}, {});
}

}  // namespace inarow::server
