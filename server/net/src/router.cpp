#include "inarow/server/router.h"

#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "accounts.h"
#include "game_history.h"
#include "inarow/server/identity.h"
#include "inarow/server/lobby.h"
#include "inarow/server/match_actor.h"
#include "inarow/server/match_commands.h"
#include "inarow/server/match_registry.h"
#include "inarow/server/recovery.h"
#include "profiles.h"

namespace inarow::server {

namespace asio = boost::asio;
namespace v1 = ::inarow::v1;

// The fast path for a player's commands in a match it is seated in: once
// the router has routed one, the connection's later commands for that match
// go straight to the match's strand from the reading thread. Written on the
// router's strand, read from any thread.
class Routes {
 public:
  // The match and seat for this connection's command, if routed before.
  std::optional<std::pair<std::shared_ptr<MatchActor>, Side>> find(Connection* connection,
                                                                   const std::string& match_id) {
    std::shared_lock lock(mutex_);
    auto it = routes_.find(connection);
    if (it == routes_.end()) return std::nullopt;
    for (const Route& r : it->second) {
      if (r.match_id != match_id) continue;
      auto match = r.match.lock();
      if (!match || match->retired.load(std::memory_order_acquire)) return std::nullopt;
      return std::pair{std::move(match), r.side};
    }
    return std::nullopt;
  }

  void remember(Connection* connection, const std::string& match_id,
                const std::shared_ptr<MatchActor>& match, Side side) {
    std::unique_lock lock(mutex_);
    auto& list = routes_[connection];
    std::erase_if(list, [](const Route& r) {
      auto m = r.match.lock();
      return !m || m->retired.load(std::memory_order_relaxed);
    });
    for (const Route& r : list) {
      if (r.match_id == match_id) return;
    }
    list.push_back(Route{match_id, match, side});
  }

  void forget(Connection* connection) {
    std::unique_lock lock(mutex_);
    routes_.erase(connection);
  }

 private:
  struct Route {
    std::string match_id;
    std::weak_ptr<MatchActor> match;
    Side side;
  };
  std::shared_mutex mutex_;
  std::unordered_map<Connection*, std::vector<Route>> routes_;
};

struct Router::State : std::enable_shared_from_this<Router::State> {
  State(asio::io_context& ioc, asio::thread_pool& bot_workers, const ServerConfig& config,
        Store& store_, StoreWriter& writer, Metrics& metrics_)
      : store(store_),
        metrics(metrics_),
        strand(asio::make_strand(ioc)),
        services(std::make_shared<MatchServices>(ioc, bot_workers, config, writer, metrics_)),
        identity(strand, writer, store_, metrics_, matches, services->ratings),
        lobby(strand, services, identity, matches),
        accounts(strand, config, writer, metrics_, identity) {}

  Store& store;
  Metrics& metrics;
  asio::strand<asio::io_context::executor_type> strand;
  std::shared_ptr<MatchServices> services;
  MatchRegistry matches;
  Identity identity;
  Lobby lobby;
  Accounts accounts;
  Routes routes;
  // Where the store is read for game history, profiles and leaderboards
  // (null: on the strand).
  asio::thread_pool* readers = nullptr;
  // Set once by shutdown(); read on the strand and, for the routes, from
  // the reading threads.
  // A cluster's node: told of people coming and going (Router::on_presence).
  std::function<void(const std::string&, bool)> on_presence;
  // A cluster's node: where matches, codes and seeks of other nodes go.
  std::shared_ptr<Elsewhere> elsewhere;
  std::atomic<bool> shutting_down{false};

  void on_receive(const ConnectionPtr& from, v1::ClientMessage& message);
  void send(const ConnectionPtr& to, OutgoingPtr message) {
    server::send(metrics, to, std::move(message));
  }
  void send_error(const ConnectionPtr& to, std::uint64_t request_id, const Failure& f,
                  const std::string& match_id = {}) {
    send(to, make_error(metrics, request_id, f, match_id));
  }
};

Router::Router(asio::io_context& ioc, asio::thread_pool& bot_workers, const ServerConfig& config,
               Store& store, StoreWriter& writer, Metrics& metrics)
    : state_(std::make_shared<State>(ioc, bot_workers, config, store, writer, metrics)) {
  state_->lobby.owned_by(state_);
  // Who is online is part of what the lobby's followers see.
  state_->identity.online_changed = [state = state_.get()](const std::string& player, bool online) {
    state->lobby.feed_changed();
    if (state->on_presence) state->on_presence(player, online);
  };
  // A hello with a password goes to the accounts (on the strand: the
  // identity calls it from its hello).
  state_->identity.on_sign_in(
      [state = state_.get()](const ConnectionPtr& c, const v1::ClientMessage& m,
                             std::shared_ptr<const void> owner, Identity::Replay replay) {
        state->accounts.sign_in(c, m, std::move(owner), std::move(replay));
      });
  // A match's end comes from its strand; the lobby hears of it on ours.
  state_->services->match_ended = [weak = std::weak_ptr<State>(state_)](const std::string& id) {
    if (auto state = weak.lock()) {
      asio::post(state->strand, [state, id] {
        state->lobby.match_ended(id);
        if (state->elsewhere) state->elsewhere->match_ended(id);
      });
    }
  };
  state_->services->match_moved = [weak = std::weak_ptr<State>(state_)](const std::string& id) {
    if (auto state = weak.lock()) {
      asio::post(state->strand, [state, id] {
        state->lobby.match_moved(id);
        if (state->elsewhere) state->elsewhere->match_moved(id);
      });
    }
  };
}

Router::~Router() {
  // Matches may outlive the router in handlers the io_context still holds;
  // they must not call back into it.
  state_->services->match_ended = nullptr;
  state_->services->match_moved = nullptr;
  // Password hashes in flight post their answers to the strand: done before
  // the io_context can go.
  state_->accounts.stop();
  state_->matches.clear();
}

void Router::restore(bool with_matches) {
  restore_from_store(state_->store, state_->identity, state_->matches, state_->services,
                     with_matches);
}

void Router::take_over(std::string match_id, std::int64_t generation,
                       std::function<void(TakenOver)> done) {
  // The store first: once the TakeOver is committed, the match's former
  // owner can write nothing more (fenced), so what is read after it is
  // all there will ever be of the match before this node goes on with it.
  auto state = state_;
  state->services->writer.submit(
      {store_op::TakeOver{match_id, generation}},
      [state, match_id, generation, done = std::move(done)](StoreWriter::Outcome outcome) mutable {
        auto read = [state, match_id, generation, outcome, done = std::move(done)]() mutable {
          auto record = state->store.load_match(match_id);
          const bool gone = !record || record->result != 0;
          if (outcome != StoreWriter::Outcome::ok) {
            // Refused for a match the store has finished (or never had):
            // it is live no more. Any other refusal: not now.
            if (!gone) {
              spdlog::warn("take_over_refused match={} generation={} {}", match_id, generation,
                           outcome == StoreWriter::Outcome::fenced ? "fenced" : "store failed");
            }
            return done(gone ? TakenOver::gone : TakenOver::refused);
          }
          asio::post(state->strand, [state, match_id, generation, record = std::move(record), gone,
                                     done = std::move(done)] {
            if (state->shutting_down) return done(TakenOver::refused);
            if (gone) return done(TakenOver::gone);
            if (auto here = state->matches.find(match_id)) {
              // This node's own earlier run of it, letting go: replaced.
              if (!here->moved.load(std::memory_order_acquire)) return done(TakenOver::refused);
              state->lobby.match_moved(match_id);
            }
            // No charge for the turn's time before the take-over: nobody
            // knows when the former owner died (recovery.h says what a
            // restart charges instead).
            auto actor = restore_match(*record, generation, Millis{0}, state->identity,
                                       state->matches, state->services, state->store);
            if (actor) state->lobby.feed_changed();
            done(actor ? TakenOver::running : TakenOver::gone);
          });
        };
        if (state->readers) {
          asio::post(*state->readers, std::move(read));
        } else {
          read();
        }
      });
}

void Router::abandon(std::string match_id) {
  asio::post(state_->strand, [state = state_, match_id = std::move(match_id)] {
    if (auto match = state->matches.find(match_id)) match->abandon();
  });
}

void Router::read_store_on(asio::thread_pool& readers) {
  state_->readers = &readers;
  state_->identity.read_on(readers);
}

void Router::receive(ConnectionPtr from, v1::ClientMessage message) {
  state_->metrics.messages_in.fetch_add(1, std::memory_order_relaxed);
  if (const MatchCommand* command = find_match_command(message);
      command && !state_->shutting_down.load(std::memory_order_acquire)) {
    if (auto routed = state_->routes.find(from.get(), command->match_id(message))) {
      routed->first->command(std::move(from), routed->second, std::move(message));
      return;
    }
  }
  asio::post(state_->strand,
             [state = state_, from = std::move(from), message = std::move(message)]() mutable {
               state->on_receive(from, message);
             });
}

void Router::disconnected(const ConnectionPtr& connection) {
  asio::post(state_->strand, [state = state_, connection] {
    state->routes.forget(connection.get());
    state->lobby.unfollow(connection.get());
    if (state->elsewhere && !connection->relayed()) state->elsewhere->gone(connection.get());
    auto gone = state->identity.disconnected(connection);
    if (!gone) return;
    for (const std::string& id : gone->watching) {
      if (auto m = state->matches.find(id)) m->forget(connection.get());
    }
    Player* player = state->identity.find(gone->player_id);
    if (!player) return;
    for (const std::string& id : player->matches) {
      if (auto m = state->matches.find(id)) m->forget(connection.get());
    }
    if (!gone->last) return;
    state->lobby.stop_seeking(gone->player_id);
    state->lobby.player_left(gone->player_id);
    for (const std::string& id : player->matches) {
      auto m = state->matches.find(id);
      if (!m) continue;
      if (auto side = m->seat_of(gone->player_id)) m->presence(*side, false);
    }
    // Held no longer unless a match or a pending change holds them.
    state->identity.let_go(gone->player_id);
  });
}

void Router::on_presence(std::function<void(const std::string&, bool)> told) {
  asio::post(state_->strand, [state = state_, told = std::move(told)]() mutable {
    state->on_presence = std::move(told);
  });
}

void Router::online_players(std::function<void(std::vector<std::string>)> then) {
  asio::post(state_->strand,
             [state = state_, then = std::move(then)] { then(state->identity.online_players()); });
}

void Router::send_elsewhere(std::shared_ptr<Elsewhere> elsewhere) {
  asio::post(state_->strand, [state = state_, elsewhere = std::move(elsewhere)]() mutable {
    state->elsewhere = std::move(elsewhere);
    state->lobby.send_elsewhere(state->elsewhere.get());
    state->identity.resume_elsewhere = [state = state.get()](
                                           const ConnectionPtr& c, const std::string& player,
                                           const std::string& match_id, std::uint64_t after) {
      state->elsewhere->resume(c, player, match_id, after);
    };
  });
}

void Router::adopt(ConnectionPtr relayed, std::string player_id) {
  asio::post(state_->strand,
             [state = state_, relayed = std::move(relayed), player_id = std::move(player_id)] {
               state->identity.adopt(relayed, player_id, state,
                                     [state](const ConnectionPtr& c, v1::ClientMessage& m) {
                                       state->on_receive(c, m);
                                     });
             });
}

void Router::attach_seated(ConnectionPtr relayed, std::string match_id,
                           std::optional<std::uint64_t> after_seq) {
  asio::post(state_->strand, [state = state_, relayed = std::move(relayed),
                              match_id = std::move(match_id), after_seq] {
    // The link's player may still be read from the store (Identity::adopt).
    state->identity.when_greeted(relayed.get(), [state, relayed, match_id, after_seq] {
      const std::string* player = state->identity.player_of(relayed.get());
      auto match = state->matches.find(match_id);
      if (!player || !match) {
        // The player's node is told the match is not here: it resumes no more.
        state->send_error(relayed, 0, {ProtocolError::unknown_match, "no match " + match_id},
                          match_id);
        return;
      }
      const auto side = match->seat_of(*player);
      if (!side) {
        state->send_error(relayed, 0, {ProtocolError::not_seated, "you do not play in this match"},
                          match_id);
        return;
      }
      // Back, unless another connection of theirs had them here already.
      Player* p = state->identity.find(*player);
      const bool back = p && state->identity.live_connections(*p).size() == 1;
      match->attach(relayed, side, after_seq, 0, back);
    });
  });
}

void Router::seated_elsewhere(
    std::string match_id, std::string player_id,
    std::function<void(const ConnectionPtr&, const std::string&)> attach) {
  asio::post(state_->strand, [state = state_, match_id = std::move(match_id),
                              player_id = std::move(player_id), attach = std::move(attach)] {
    Player* player = state->identity.find(player_id);
    if (!player) return;
    for (const auto& weak : state->identity.live_connections(*player)) {
      auto c = weak.lock();
      if (c && !c->relayed()) attach(c, player_id);
    }
  });
}

void Router::paired(SharedSeek first, SharedSeek second, std::string match_id) {
  asio::post(state_->strand, [state = state_, first = std::move(first), second = std::move(second),
                              match_id = std::move(match_id)]() mutable {
    state->lobby.paired(std::move(first), std::move(second), std::move(match_id));
  });
}

void Router::shutdown() {
  asio::post(state_->strand, [state = state_] {
    state->shutting_down.store(true, std::memory_order_release);
    state->lobby.shutdown();
    for (auto& [id, match] : state->matches.all())
      match->shutdown();
    v1::ServerMessage bye;
    bye.mutable_bye()->set_reason("the server is shutting down");
    auto out = make_outgoing(std::move(bye));
    for (auto& connection : state->identity.connections()) {
      state->send(connection, out);
      connection->close(CloseKind::going_away);
    }
  });
}

void Router::State::on_receive(const ConnectionPtr& from, v1::ClientMessage& msg) {
  const std::uint64_t rid = msg.request_id();
  if (shutting_down) {
    send_error(from, rid, {ProtocolError::shutting_down, "the server is shutting down"});
    return;
  }
  if (identity.hold(from.get(), msg)) return;
  if (msg.has_hello()) {
    identity.hello(from, msg, shared_from_this(),
                   [self = shared_from_this()](const ConnectionPtr& c, v1::ClientMessage& m) {
                     self->on_receive(c, m);
                   });
    return;
  }
  const std::string* who = identity.player_of(from.get());
  if (!who) {
    send_error(from, rid, {ProtocolError::hello_required, "say hello first"});
    return;
  }
  const std::string player_id = *who;

  auto match_for = [&](const std::string& match_id) -> std::shared_ptr<MatchActor> {
    auto match = matches.find(match_id);
    if (!match) {
      send_error(from, rid, {ProtocolError::unknown_match, "no match " + match_id}, match_id);
    }
    return match;
  };
  auto answer = [&](const Expected<std::string>& match_id) {
    if (!match_id) return send_error(from, rid, match_id.error());
    send(from, make_ack(rid, *match_id));
  };

  // A cluster's node: what is about another node's match, or a private
  // code another node holds, goes there and is answered from there (never
  // from a relayed client: it is already at the node it was sent to).
  if (elsewhere && !from->relayed()) {
    std::string about;
    if (const MatchCommand* command = find_match_command(msg)) {
      about = command->match_id(msg);
    } else if (msg.has_watch()) {
      about = msg.watch().match_id();
    } else if (msg.has_unwatch()) {
      about = msg.unwatch().match_id();
    } else if (msg.has_rematch()) {
      about = msg.rematch().match_id();  // the ended match's node keeps its offers
    }
    if (!about.empty() && !matches.find(about)) {
      elsewhere->forward(from, player_id, about, std::move(msg));
      return;
    }
    if (msg.has_join_private() && !lobby.holds_code(msg.join_private().code())) {
      const std::string code = msg.join_private().code();
      elsewhere->forward_code(from, player_id, code, std::move(msg));
      return;
    }
  }

  if (const MatchCommand* command = find_match_command(msg)) {
    const std::string match_id = command->match_id(msg);
    auto match = match_for(match_id);
    if (!match) return;
    auto side = match->seat_of(player_id);
    if (!side) {
      send_error(from, rid, {ProtocolError::not_seated, "you do not play in this match"}, match_id);
      return;
    }
    // Posted before the route is published: a later command taking the
    // route cannot overtake this one.
    match->command(from, *side, std::move(msg));
    routes.remember(from.get(), match_id, match, *side);
    return;
  }

  switch (msg.body_case()) {
    case v1::ClientMessage::kSeek:
      lobby.seek(player_id, msg.seek(), [self = shared_from_this(), from, rid](Expected<void> ok) {
        if (!ok) return self->send_error(from, rid, ok.error());
        self->send(from, make_ack(rid, {}));
        self->lobby.run_matchmaker();
      });
      break;
    case v1::ClientMessage::kListSeeks: {
      lobby.follow(from, msg.list_seeks().follow());
      lobby.seek_list([self = shared_from_this(), from, rid](Expected<v1::SeekList> list) {
        if (!list) return self->send_error(from, rid, list.error());
        v1::ServerMessage m;
        m.set_request_id(rid);
        *m.mutable_seek_list() = std::move(*list);
        self->send(from, make_outgoing(std::move(m)));
      });
      break;
    }
    case v1::ClientMessage::kAcceptSeek:
      lobby.accept_seek(player_id, msg.accept_seek(),
                        [self = shared_from_this(), from, rid](Expected<std::string> match_id) {
                          if (!match_id) return self->send_error(from, rid, match_id.error());
                          self->send(from, make_ack(rid, *match_id));
                        });
      break;
    case v1::ClientMessage::kCancelSeek:
      if (lobby.cancel_seek(player_id)) {
        send(from, make_ack(rid, {}));
      } else {
        send_error(from, rid, {ProtocolError::bad_request, "not seeking"});
      }
      break;
    case v1::ClientMessage::kPlayBot:
      answer(lobby.play_bot(player_id, msg.play_bot()));
      break;
    case v1::ClientMessage::kCreatePrivate:
      if (auto code = lobby.create_private(player_id, msg.create_private()); !code) {
        send_error(from, rid, code.error());
      } else {
        send(from, make_ack(rid, {}, *code));
      }
      break;
    case v1::ClientMessage::kJoinPrivate:
      lobby.join_private(player_id, msg.join_private(),
                         [self = shared_from_this(), from, rid](Expected<std::string> match_id) {
                           if (!match_id) return self->send_error(from, rid, match_id.error());
                           self->send(from, make_ack(rid, *match_id));
                         });
      break;
    case v1::ClientMessage::kRematch:
      lobby.rematch(player_id, msg.rematch(),
                    [self = shared_from_this(), from, rid,
                     old = msg.rematch().match_id()](Expected<std::string> id) {
                      if (!id) {
                        // A rematch already made: the error names it, to follow.
                        const bool made = id.error().code == ProtocolError::rematch_made;
                        return self->send_error(from, rid, id.error(),
                                                made ? self->lobby.rematch_of(old) : old);
                      }
                      // A new match is named in the ack; an offer or a
                      // decline answers for the ended match.
                      self->send(from, make_ack(rid, id->empty() ? old : *id));
                    });
      break;
    case v1::ClientMessage::kWatch: {
      auto match = matches.find(msg.watch().match_id());
      // A private game is not there for whoever lacks its code.
      if (!match || !lobby.may_watch(player_id, *match, msg.watch().code())) {
        send_error(from, rid, {ProtocolError::unknown_match, "no match " + msg.watch().match_id()},
                   msg.watch().match_id());
        break;
      }
      std::optional<std::uint64_t> after;
      if (msg.watch().after_seq() > 0) after = msg.watch().after_seq();
      identity.watching(from.get())->insert(match->id());
      match->attach(from, std::nullopt, after, rid);
      break;
    }
    case v1::ClientMessage::kUnwatch:
      if (auto match = match_for(msg.unwatch().match_id())) {
        identity.watching(from.get())->erase(match->id());
        match->detach(from, rid);
      }
      break;
    case v1::ClientMessage::kListMatches: {
      v1::ServerMessage m;
      m.set_request_id(rid);
      *m.mutable_match_list() = lobby.list(msg.list_matches());
      send(from, make_outgoing(std::move(m)));
      break;
    }
    case v1::ClientMessage::kStartBotMatch: {
      auto id = lobby.start_bot_match(player_id, msg.start_bot_match());
      answer(id);
      if (!id) break;
      // The asker watches the match from its start.
      identity.watching(from.get())->insert(*id);
      matches.find(*id)->attach(from, std::nullopt, std::nullopt, 0);
      break;
    }
    case v1::ClientMessage::kListGames:
    case v1::ClientMessage::kGetGame:
    case v1::ClientMessage::kGetProfile:
    case v1::ClientMessage::kGetLeaderboard: {
      // The store is read off the strand; the answer goes from there.
      auto read = [&store = store, &metrics = metrics, &config = services->config, from, player_id,
                   msg = std::move(msg)] {
        const bool history = msg.has_list_games() || msg.has_get_game();
        server::send(metrics, from,
                     history ? answer_history(metrics, store, player_id, msg)
                             : answer_players(metrics, store, config, player_id, msg));
      };
      if (readers) {
        asio::post(*readers, std::move(read));
      } else {
        read();
      }
      break;
    }
    case v1::ClientMessage::kSetPassword:
      accounts.set_password(from, player_id, rid, msg.set_password(), shared_from_this());
      break;
    case v1::ClientMessage::kPing: {
      v1::ServerMessage m;
      m.set_request_id(rid);
      m.mutable_pong();
      send(from, make_outgoing(std::move(m)));
      break;
    }
    default:
      send_error(from, rid, {ProtocolError::unknown_message, "unknown message"});
  }
}

}  // namespace inarow::server
