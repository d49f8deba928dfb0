#include "inarow/server/identity.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/asio/post.hpp>

#include "ids.h"
#include "inarow/server/player_name.h"

namespace inarow::server {

namespace asio = boost::asio;
namespace v1 = ::inarow::v1;

namespace {

PlayerRecord new_record(std::string id, std::string name, std::string token_hash, bool bot) {
  PlayerRecord r;
  r.id = std::move(id);
  r.name = std::move(name);
  r.token_hash = std::move(token_hash);
  r.bot = bot;
  return r;
}

}  // namespace

Identity::Identity(Strand strand, StoreWriter& writer, Store& store, Metrics& metrics,
                   MatchRegistry& matches, RatingBook& ratings)
    : strand_(std::move(strand)),
      writer_(writer),
      store_(store),
      metrics_(metrics),
      matches_(matches),
      ratings_(ratings) {}

Player& Identity::admit(const PlayerRecord& p) {
  auto [it, added] = players_.try_emplace(p.id);
  Player& player = it->second;
  if (!added) return player;
  player.id = p.id;
  player.name = p.name;
  player.token_hash = p.token_hash;
  player.bot = p.bot;
  if (!p.token_hash.empty()) add_token(p.token_hash, player);
  for (const std::string& device : p.device_token_hashes)
    add_token(device, player);
  if (!p.password_hash.empty()) {
    player.password_hash = p.password_hash;
    player.name_key = p.name_key;
    player.account_since_ms = p.account_since_ms;
    accounts_[p.name_key] = p.id;
  }
  ratings_.admit(p);
  metrics_.players_held.store(static_cast<std::int64_t>(players_.size()));
  return player;
}

void Identity::add_token(const std::string& token_hash, Player& player) {
  tokens_[token_hash] = player.id;
  if (std::find(player.tokens.begin(), player.tokens.end(), token_hash) == player.tokens.end())
    player.tokens.push_back(token_hash);
}

Player* Identity::held(Key key, const std::string& value) {
  switch (key) {
    case Key::id:
      return find(value);
    case Key::token_hash: {
      auto it = tokens_.find(value);
      return it == tokens_.end() ? nullptr : find(it->second);
    }
    case Key::account: {
      auto it = accounts_.find(value);
      return it == accounts_.end() ? nullptr : find(it->second);
    }
  }
  return nullptr;
}

void Identity::look_up(Key key, std::string value, std::shared_ptr<const void> owner,
                       std::function<void(Player*)> then) {
  if (Player* p = held(key, value)) {
    const std::string id = p->id;
    then(p);
    let_go(id);
    return;
  }
  metrics_.player_reads.fetch_add(1, std::memory_order_relaxed);
  read_store(
      std::move(owner),
      [key, value](Store& store) {
        switch (key) {
          case Key::id:
            return store.find_player(value);
          case Key::token_hash:
            return store.find_player_by_token(value);
          case Key::account:
            return store.find_account(value);
        }
        return std::optional<PlayerRecord>{};
      },
      [this, key, value, then = std::move(then)](std::optional<PlayerRecord> record) {
        // Another look-up may have brought the player in meanwhile.
        Player* p = held(key, value);
        if (!p && record) p = &admit(*record);
        const std::string id = p ? p->id : std::string{};
        then(p);
        if (!id.empty()) let_go(id);
      });
}

void Identity::unpin(const std::string& player_id) {
  Player* p = find(player_id);
  if (!p) return;
  if (p->pins > 0) --p->pins;
  let_go(player_id);
}

void Identity::let_go(const std::string& player_id) {
  auto it = players_.find(player_id);
  if (it == players_.end()) return;
  Player& p = it->second;
  if (p.bot || p.pins > 0 || p.password_busy || !p.matches.empty() ||
      !live_connections(p).empty()) {
    return;
  }
  for (const std::string& token : p.tokens) {
    if (auto t = tokens_.find(token); t != tokens_.end() && t->second == player_id)
      tokens_.erase(t);
  }
  if (!p.name_key.empty()) unclaim(p.name_key, player_id);
  ratings_.forget(player_id);
  players_.erase(it);
  metrics_.players_held.store(static_cast<std::int64_t>(players_.size()));
}

const std::string* Identity::account_holder(const std::string& key) const {
  auto it = accounts_.find(key);
  return it == accounts_.end() ? nullptr : &it->second;
}

bool Identity::claim(const std::string& key, const std::string& player_id) {
  auto [it, added] = accounts_.try_emplace(key, player_id);
  return added || it->second == player_id;
}

void Identity::unclaim(const std::string& key, const std::string& player_id) {
  auto it = accounts_.find(key);
  if (it != accounts_.end() && it->second == player_id) accounts_.erase(it);
}

void Identity::send_error(const ConnectionPtr& to, std::uint64_t request_id,
                          const Failure& failure) {
  send(metrics_, to, make_error(metrics_, request_id, failure));
}

void Identity::hello(const ConnectionPtr& connection, const v1::ClientMessage& msg,
                     std::shared_ptr<const void> owner, Replay replay) {
  const std::uint64_t rid = msg.request_id();
  const v1::Hello& hello = msg.hello();
  if (connections_.contains(connection.get())) {
    send_error(connection, rid, {ProtocolError::already_greeted, "hello was already said"});
    return;
  }
  if (hello.protocol_version() != v1::PROTOCOL_VERSION_CURRENT) {
    send_error(
        connection, rid,
        {ProtocolError::bad_version,
         fmt::format("protocol version {} is not supported; this server speaks {}",
                     hello.protocol_version(), static_cast<int>(v1::PROTOCOL_VERSION_CURRENT))});
    return;
  }
  if (!hello.password().empty()) {
    if (!hello.token().empty()) {
      send_error(
          connection, rid,
          {ProtocolError::bad_request, "a password signs in by name: send the name and no token"});
      return;
    }
    sign_in_(connection, msg, std::move(owner), std::move(replay));
    return;
  }
  if (!hello.token().empty()) {
    std::string hash = hash_token(hello.token());
    if (Player* p = held(Key::token_hash, hash)) {
      welcome(connection, *p, rid, true, hello, {}, hash);
      return;
    }
    // Not held: read from the store while what the connection sends waits.
    begin_greeting(connection.get());
    look_up(Key::token_hash, hash, std::move(owner),
            [this, connection, rid, hello, hash, replay = std::move(replay)](Player* p) {
              end_greeting(connection, replay, [&] {
                if (!p)
                  return send_error(connection, rid, {ProtocolError::bad_token, "unknown token"});
                welcome(connection, *p, rid, true, hello, {}, hash);
              });
            });
    return;
  }
  auto checked = check_player_name(hello.name());
  if (!checked) {
    send_error(connection, rid, checked.error());
    return;
  }
  std::string name = std::move(*checked);
  std::string key = name_key(name);
  // An account's name is theirs alone, whether or not they are held now.
  begin_greeting(connection.get());
  read_store(
      owner, [key](Store& store) { return store.find_account(key).has_value(); },
      [this, connection, rid, hello, name = std::move(name), key, owner,
       replay = std::move(replay)](bool stored_account) mutable {
        if (stored_account || accounts_.contains(key)) {
          end_greeting(connection, replay, [&] {
            send_error(connection, rid,
                       {ProtocolError::name_taken,
                        fmt::format("the name \"{}\" is an account's: sign in with its password, "
                                    "or choose another",
                                    name)});
          });
          return;
        }
        create_guest(connection, rid, hello, std::move(name), std::move(owner), std::move(replay));
      });
}

void Identity::create_guest(const ConnectionPtr& connection, std::uint64_t rid,
                            const v1::Hello& hello, std::string name,
                            std::shared_ptr<const void> owner, Replay replay) {
  if (!greeting(connection.get())) return;  // gone meanwhile
  // A new identity: stored before the player hears of it.
  const std::string token = new_token();
  PlayerRecord record = new_record(new_player_id(), std::move(name), hash_token(token), false);
  std::vector<StoreOp> save{store_op::SavePlayer{record}};  // copied before `record` moves
  writer_.submit(
      std::move(save), [this, owner = std::move(owner), replay = std::move(replay), connection, rid,
                        hello, token, record = std::move(record)](auto outcome) mutable {
        const bool kept = outcome == StoreWriter::Outcome::ok;  // no match: never fenced
        asio::post(strand_, [this, owner, replay = std::move(replay), connection, rid, hello, token,
                             kept, record = std::move(record)] {
          if (!kept) {
            // Not stored, so its token could not bring it back: refused.
            end_greeting(connection, replay, [&] {
              send_error(connection, rid,
                         {ProtocolError::internal, "the new player could not be stored"});
            });
            return;
          }
          Player& player = admit(record);
          end_greeting(connection, replay, [&] {
            welcome(connection, player, rid, false, hello, token, player.token_hash);
          });
          let_go(record.id);  // the connection went meanwhile: nothing holds them
        });
      });
}

std::string Identity::token_hash_of(Connection* connection) const {
  auto it = connections_.find(connection);
  return it == connections_.end() ? std::string{} : it->second.token_hash;
}

std::vector<ConnectionPtr> Identity::revoke_other_devices(const std::string& player_id,
                                                          const std::string& keep_hash) {
  std::vector<ConnectionPtr> out;
  Player* player = find(player_id);
  if (!player) return out;
  std::erase_if(player->tokens, [&](const std::string& token) {
    if (token == keep_hash) return false;
    if (auto t = tokens_.find(token); t != tokens_.end() && t->second == player_id)
      tokens_.erase(t);
    return true;
  });
  if (player->token_hash != keep_hash) player->token_hash.clear();
  for (const auto& weak : live_connections(*player)) {
    auto c = weak.lock();
    if (!c) continue;
    if (auto it = connections_.find(c.get());
        it != connections_.end() && it->second.token_hash != keep_hash)
      out.push_back(std::move(c));
  }
  return out;
}

bool Identity::hold(Connection* connection, v1::ClientMessage& message) {
  auto held = greeting_.find(connection);
  if (held == greeting_.end()) return false;
  held->second.push_back(std::move(message));
  return true;
}

void Identity::when_greeted(Connection* connection, std::function<void()> then) {
  auto held = greeting_.find(connection);
  if (held == greeting_.end()) return then();
  held->second.push_back(std::move(then));
}

bool Identity::end_greeting(const ConnectionPtr& connection, const Replay& replay,
                            const std::function<void()>& answer) {
  auto held = greeting_.find(connection.get());
  if (held == greeting_.end()) return false;  // gone meanwhile
  auto waiting = std::move(held->second);
  greeting_.erase(held);
  answer();
  for (auto& h : waiting) {
    if (auto* m = std::get_if<v1::ClientMessage>(&h)) {
      replay(connection, *m);
    } else {
      std::get<std::function<void()>>(h)();
    }
  }
  return true;
}

void Identity::welcome(const ConnectionPtr& connection, Player& player, std::uint64_t request_id,
                       bool resumed, const v1::Hello& hello, const std::string& token,
                       const std::string& token_hash, bool signed_in) {
  const bool was_away = live_connections(player).empty();
  const bool was_offline = !online_here(player);
  connections_[connection.get()] = ConnectionEntry{connection, player.id, {}, token_hash};
  player.connections.push_back(connection);
  if (was_offline && !player.bot) ++online_;

  v1::ServerMessage m;
  m.set_request_id(request_id);
  auto* w = m.mutable_welcome();
  w->set_player_id(player.id);
  w->set_name(player.name);
  w->set_token(token);
  w->set_resumed(resumed);
  w->set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
  w->set_players_online(static_cast<std::uint32_t>(online_));
  w->set_games_in_play(matches_.in_play());
  w->set_account(!player.password_hash.empty());
  w->set_signed_in(signed_in);
  // Live matches, and apart from them the ones that ended lately: an ended
  // match lingers in the registry (and in player.matches) for the reconnect
  // grace so that a player who was away still gets its end.
  std::vector<std::shared_ptr<MatchActor>> seated;
  for (const std::string& id : player.matches) {
    auto match = matches_.find(id);
    if (!match) continue;
    if (match->over.load()) {
      w->add_ended_matches(id);
    } else {
      w->add_matches(id);
    }
    seated.push_back(std::move(match));
  }
  send(metrics_, connection, make_outgoing(std::move(m)));
  if (was_offline && !player.bot && online_changed) online_changed(player.id, true);

  // Matches of a cluster's other nodes come back where they are.
  if (resume_elsewhere) {
    for (const auto& cursor : hello.resume()) {
      if (!matches_.find(cursor.match_id()))
        resume_elsewhere(connection, player.id, cursor.match_id(), cursor.last_seq());
    }
  }
  // Back in every match: the missed events, the full state, then "I'm back".
  for (auto& match : seated) {
    std::optional<std::uint64_t> after;
    for (const auto& cursor : hello.resume()) {
      if (cursor.match_id() == match->id()) after = cursor.last_seq();
    }
    const auto side = match->seat_of(player.id);
    match->attach(connection, side, after, 0);
    if (was_away && side) match->presence(*side, true);
  }
}

const std::string* Identity::player_of(Connection* connection) const {
  auto it = connections_.find(connection);
  return it == connections_.end() ? nullptr : &it->second.player_id;
}

std::set<std::string>* Identity::watching(Connection* connection) {
  auto it = connections_.find(connection);
  return it == connections_.end() ? nullptr : &it->second.watching;
}

Player* Identity::find(const std::string& player_id) {
  auto it = players_.find(player_id);
  return it == players_.end() ? nullptr : &it->second;
}

Player& Identity::bot(std::string_view level) {
  const std::string id = bot_id(level);
  if (Player* held = find(id)) return *held;
  PlayerRecord record = new_record(id, std::string(level) + " bot", {}, true);
  writer_.submit({store_op::SavePlayer{record}});
  return admit(record);
}

std::vector<std::weak_ptr<Connection>> Identity::live_connections(Player& p) {
  std::erase_if(p.connections, [](const std::weak_ptr<Connection>& w) { return w.expired(); });
  return p.connections;
}

std::optional<Identity::Departure> Identity::disconnected(const ConnectionPtr& connection) {
  greeting_.erase(connection.get());
  auto it = connections_.find(connection.get());
  if (it == connections_.end()) return std::nullopt;
  Departure d{it->second.player_id, std::move(it->second.watching), false};
  connections_.erase(it);
  if (Player* p = find(d.player_id)) {
    std::erase_if(p->connections, [&](const std::weak_ptr<Connection>& w) {
      auto s = w.lock();
      return !s || s == connection;
    });
    d.last = p->connections.empty();
    if (!connection->relayed() && !online_here(*p) && !p->bot && online_ > 0) {
      --online_;
      if (online_changed) online_changed(d.player_id, false);
    }
  }
  return d;
}

bool Identity::online_here(const Player& player) {
  return std::any_of(player.connections.begin(), player.connections.end(),
                     [](const std::weak_ptr<Connection>& w) {
                       auto c = w.lock();
                       return c && !c->relayed();
                     });
}

void Identity::adopt(const ConnectionPtr& relayed, const std::string& player_id,
                     std::shared_ptr<const void> owner, Replay replay) {
  if (connections_.contains(relayed.get())) return;
  begin_greeting(relayed.get());
  look_up(Key::id, player_id, std::move(owner), [this, relayed, replay](Player* p) {
    end_greeting(relayed, replay, [&] {
      if (!p || p->bot) return relayed->close(CloseKind::policy_violation);
      connections_[relayed.get()] = ConnectionEntry{relayed, p->id, {}, {}};
      p->connections.push_back(relayed);
    });
  });
}

std::vector<std::string> Identity::online_players() {
  std::vector<std::string> ids;
  for (const auto& [key, entry] : connections_) {
    if (auto c = entry.connection.lock(); !c || c->relayed()) continue;
    const Player* p = find(entry.player_id);
    if (p && !p->bot) ids.push_back(entry.player_id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::vector<ConnectionPtr> Identity::connections() const {
  std::vector<ConnectionPtr> out;
  for (const auto& [key, entry] : connections_) {
    if (auto c = entry.connection.lock()) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace inarow::server
