#include "inarow/server/identity.h"

#include <fmt/format.h>

#include <boost/asio/post.hpp>

#include "ids.h"
#include "inarow/bots/bot.h"
#include "inarow/server/player_name.h"

namespace inarow::server {

namespace asio = boost::asio;
namespace v1 = ::inarow::v1;

namespace {

Player make_player(std::string id, std::string name, std::string token_hash, bool bot) {
  Player p;
  p.id = std::move(id);
  p.name = std::move(name);
  p.token_hash = std::move(token_hash);
  p.bot = bot;
  return p;
}

PlayerRecord make_record(const Player& p) {
  PlayerRecord r;
  r.id = p.id;
  r.name = p.name;
  r.token_hash = p.token_hash;
  r.bot = p.bot;
  return r;
}

}  // namespace

Identity::Identity(Strand strand, StoreWriter& writer, Metrics& metrics, MatchRegistry& matches)
    : strand_(std::move(strand)), writer_(writer), metrics_(metrics), matches_(matches) {}

void Identity::restore(const PlayerRecord& p) {
  if (!p.token_hash.empty()) tokens_[p.token_hash] = p.id;
  for (const std::string& device : p.device_token_hashes)
    tokens_[device] = p.id;
  Player& player = players_[p.id] = make_player(p.id, p.name, p.token_hash, p.bot);
  if (!p.password_hash.empty()) {
    player.password_hash = p.password_hash;
    player.name_key = p.name_key;
    player.account_since_ms = p.account_since_ms;
    accounts_[p.name_key] = p.id;
  }
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

const Player* Identity::bot_named(const std::string& key) {
  constexpr std::string_view kSuffix = " bot";
  if (!key.ends_with(kSuffix)) return nullptr;
  // Every level's bot is a player, whether or not it has played here yet:
  // its profile is asked for before a first game against it. (A level's
  // name is its key: lower case, no spaces.)
  const auto level = bots::find_level(std::string_view(key).substr(0, key.size() - kSuffix.size()));
  return level ? &bot(level->name) : nullptr;
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
    auto t = tokens_.find(hash_token(hello.token()));
    if (t == tokens_.end()) {
      send_error(connection, rid, {ProtocolError::bad_token, "unknown token"});
      return;
    }
    welcome(connection, players_.at(t->second), rid, true, hello, {}, t->first);
    return;
  }
  auto checked = check_player_name(hello.name());
  if (!checked) {
    send_error(connection, rid, checked.error());
    return;
  }
  std::string name = std::move(*checked);
  if (accounts_.contains(name_key(name))) {
    send_error(connection, rid,
               {ProtocolError::name_taken,
                fmt::format("the name \"{}\" is an account's: sign in with its password, or "
                            "choose another",
                            name)});
    return;
  }
  // A new identity: stored before the player hears of it.
  const std::string id = new_player_id();
  const std::string token = new_token();
  Player entry = make_player(id, name, hash_token(token), false);
  PlayerRecord rec = make_record(entry);
  begin_greeting(connection.get());
  writer_.submit({store_op::SavePlayer{std::move(rec)}},
                 [this, owner = std::move(owner), replay = std::move(replay), connection, rid,
                  hello, token, entry = std::move(entry)](bool) mutable {
                   asio::post(strand_, [this, owner, replay = std::move(replay), connection, rid,
                                        hello, token, entry = std::move(entry)]() mutable {
                     tokens_[entry.token_hash] = entry.id;
                     auto& player = players_[entry.id] = std::move(entry);
                     end_greeting(connection, replay, [&] {
                       welcome(connection, player, rid, false, hello, token, player.token_hash);
                     });
                   });
                 });
}

std::string Identity::token_hash_of(Connection* connection) const {
  auto it = connections_.find(connection);
  return it == connections_.end() ? std::string{} : it->second.token_hash;
}

std::vector<ConnectionPtr> Identity::revoke_other_devices(const std::string& player_id,
                                                          const std::string& keep_hash) {
  // A walk over every token: a password change is rare, and a per-player
  // list would cost every player memory for it.
  std::erase_if(tokens_, [&](const auto& entry) {
    return entry.second == player_id && entry.first != keep_hash;
  });
  std::vector<ConnectionPtr> out;
  Player* player = find(player_id);
  if (!player) return out;
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

bool Identity::end_greeting(const ConnectionPtr& connection, const Replay& replay,
                            const std::function<void()>& answer) {
  auto held = greeting_.find(connection.get());
  if (held == greeting_.end()) return false;  // gone meanwhile
  auto waiting = std::move(held->second);
  greeting_.erase(held);
  answer();
  for (auto& m : waiting)
    replay(connection, m);
  return true;
}

void Identity::welcome(const ConnectionPtr& connection, Player& player, std::uint64_t request_id,
                       bool resumed, const v1::Hello& hello, const std::string& token,
                       const std::string& token_hash, bool signed_in) {
  const bool was_away = live_connections(player).empty();
  connections_[connection.get()] = ConnectionEntry{connection, player.id, {}, token_hash};
  player.connections.push_back(connection);
  if (was_away && !player.bot) ++online_;

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
  if (was_away && !player.bot && online_changed) online_changed();

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
  auto it = players_.find(id);
  if (it != players_.end()) return it->second;
  Player entry = make_player(id, std::string(level) + " bot", {}, true);
  writer_.submit({store_op::SavePlayer{make_record(entry)}});
  return players_[id] = std::move(entry);
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
    if (d.last && !p->bot && online_ > 0) {
      --online_;
      if (online_changed) online_changed();
    }
  }
  return d;
}

std::vector<ConnectionPtr> Identity::connections() const {
  std::vector<ConnectionPtr> out;
  for (const auto& [key, entry] : connections_) {
    if (auto c = entry.connection.lock()) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace inarow::server
