#include "accounts.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <charconv>

#include "ids.h"
#include "inarow/common/json.h"
#include "inarow/server/match_core.h"
#include "inarow/server/player_name.h"
#include "inarow/server/request_checks.h"

namespace inarow::server {

namespace asio = boost::asio;
namespace v1 = ::inarow::v1;

namespace {

// Failure lists kept past this many keys are swept of the expired ones.
constexpr std::size_t kSweepAbove = 4096;

Failure too_long() {
  return {ProtocolError::bad_request,
          fmt::format("passwords are at most {} bytes", kMaxPasswordBytes)};
}

}  // namespace

Accounts::Accounts(Strand strand, const ServerConfig& config, StoreWriter& writer, Metrics& metrics,
                   Identity& identity, RatingBook& ratings)
    : strand_(std::move(strand)),
      config_(config),
      writer_(writer),
      metrics_(metrics),
      identity_(identity),
      ratings_(ratings),
      cost_{config.password_ops, config.password_memory_kib * 1024},
      hashers_(static_cast<std::size_t>(std::max(1, config.password_threads))) {}

void Accounts::stop() {
  hashers_.stop();
  hashers_.join();
}

void Accounts::send_error(const ConnectionPtr& to, std::uint64_t request_id,
                          const Failure& failure) {
  send(metrics_, to, make_error(metrics_, request_id, failure));
}

bool Accounts::too_many_failures(const std::string& key, const std::string& address) {
  const auto since = Clock::now() - config_.password_failure_window;
  auto over = [&](auto& book, const std::string& k, int limit) {
    auto it = book.find(k);
    if (it == book.end()) return false;
    auto& times = it->second;
    while (!times.empty() && times.front() < since)
      times.pop_front();
    if (times.empty()) {
      book.erase(it);
      return false;
    }
    return static_cast<int>(times.size()) >= limit;
  };
  return over(name_failures_, key, config_.password_failures_per_name) ||
         (!address.empty() &&
          over(address_failures_, address, config_.password_failures_per_address));
}

Accounts::Clock::time_point Accounts::count_attempt(const std::string& key,
                                                    const std::string& address) {
  const auto now = Clock::now();
  const auto since = now - config_.password_failure_window;
  for (auto* book : {&name_failures_, &address_failures_}) {
    if (book->size() <= kSweepAbove) continue;
    std::erase_if(*book, [&](const auto& entry) { return entry.second.back() < since; });
  }
  name_failures_[key].push_back(now);
  if (!address.empty()) address_failures_[address].push_back(now);
  return now;
}

void Accounts::forgive(const std::string& key, const std::string& address, Clock::time_point at) {
  auto take_back = [at](auto& book, const std::string& k) {
    auto it = book.find(k);
    if (it == book.end()) return;  // swept meanwhile
    auto& times = it->second;
    if (auto t = std::find(times.begin(), times.end(), at); t != times.end()) times.erase(t);
    if (times.empty()) book.erase(it);
  };
  take_back(name_failures_, key);
  if (!address.empty()) take_back(address_failures_, address);
}

bool Accounts::reserve_hash() {
  if (pending_ >= config_.max_pending_passwords) return false;
  ++pending_;
  return true;
}

void Accounts::sign_in(const ConnectionPtr& connection, const v1::ClientMessage& message,
                       std::shared_ptr<const void> owner, Identity::Replay replay) {
  const std::uint64_t rid = message.request_id();
  const v1::Hello& hello = message.hello();
  if (hello.password().size() > kMaxPasswordBytes) return send_error(connection, rid, too_long());
  auto name = check_player_name(hello.name());
  if (!name) return send_error(connection, rid, name.error());
  const std::string key = name_key(*name);
  const std::string* holder = identity_.account_holder(key);
  Player* player = holder ? identity_.find(*holder) : nullptr;
  if (!player || player->password_hash.empty()) {
    return send_error(connection, rid,
                      {ProtocolError::unknown_player,
                       fmt::format("no account is named \"{}\"", json::echo(*name))});
  }
  const std::string address = connection->address();
  if (too_many_failures(key, address)) {
    return send_error(connection, rid,
                      {ProtocolError::rate_limited,
                       "too many wrong passwords lately for this name or address; wait a minute"});
  }
  if (!reserve_hash()) {
    return send_error(connection, rid,
                      {ProtocolError::rate_limited, "too many sign-ins at once; try again"});
  }
  const auto attempt = count_attempt(key, address);
  // The connection's messages wait until it is greeted (or refused).
  identity_.begin_greeting(connection.get());
  asio::post(hashers_, [this, owner = std::move(owner), replay = std::move(replay), connection,
                        message, key, address, attempt, player_id = player->id,
                        stored = player->password_hash]() mutable {
    const bool ok = verify_password(stored, message.hello().password());
    // A hash of an older cost is made again at today's while the password
    // is at hand: the only time it is.
    std::optional<std::string> rehash;
    if (ok && password_needs_rehash(stored, cost_))
      rehash = hash_password(message.hello().password(), cost_);
    asio::post(strand_, [this, owner = std::move(owner), replay = std::move(replay),
                         connection = std::move(connection), message = std::move(message), key,
                         address, attempt, player_id, ok, stored = std::move(stored),
                         rehash = std::move(rehash)]() mutable {
      --pending_;
      if (ok) forgive(key, address, attempt);
      if (!identity_.greeting(connection.get())) return;  // gone meanwhile
      if (!ok || !identity_.find(player_id)) {
        // What it sent meanwhile is answered as before a hello.
        identity_.end_greeting(connection, replay, [&] {
          send_error(connection, message.request_id(),
                     {ProtocolError::wrong_password, "wrong password"});
        });
        return;
      }
      // This device's own token, stored before it is told; with it the
      // new hash, unless the password changed meanwhile.
      const std::string token = new_token();
      const std::string token_hash = hash_token(token);
      std::vector<StoreOp> ops{store_op::AddDevice{player_id, token_hash, unix_ms()}};
      if (const Player* account = identity_.find(player_id);
          rehash && !account->password_busy && account->password_hash == stored) {
        ops.push_back(store_op::SaveAccount{player_id, account->name_key, *rehash,
                                            account->account_since_ms});
      } else {
        rehash.reset();
      }
      writer_.submit(
          std::move(ops), [this, owner = std::move(owner), replay = std::move(replay), connection,
                           message = std::move(message), player_id, token, token_hash, stored,
                           rehash = std::move(rehash)](bool kept) mutable {
            asio::post(strand_, [this, owner, replay = std::move(replay), connection,
                                 message = std::move(message), player_id, token, token_hash, stored,
                                 rehash, kept]() mutable {
              Player* account = identity_.find(player_id);
              if (kept && account && rehash && account->password_hash == stored)
                account->password_hash = *rehash;
              identity_.end_greeting(connection, replay, [&] {
                if (!kept || !account) {
                  send_error(connection, message.request_id(),
                             {ProtocolError::internal, "the sign-in could not be stored"});
                  return;
                }
                identity_.add_token(token_hash, player_id);
                identity_.welcome(connection, *account, message.request_id(), true, message.hello(),
                                  token, token_hash, true);
              });
            });
          });
    });
  });
}

void Accounts::sign_out(const std::vector<ConnectionPtr>& connections) {
  if (connections.empty()) return;
  v1::ServerMessage bye;
  bye.mutable_bye()->set_reason("signed out: the password was changed on another device");
  auto out = make_outgoing(std::move(bye));
  for (const ConnectionPtr& c : connections) {
    send(metrics_, c, out);
    c->close(CloseKind::going_away);
  }
}

void Accounts::set_password(const ConnectionPtr& connection, const std::string& player_id,
                            std::uint64_t rid, const v1::SetPassword& request,
                            std::shared_ptr<const void> owner) {
  Player* player = identity_.find(player_id);
  if (!player) return;
  const std::string& password = request.password();
  if (password.size() > kMaxPasswordBytes || request.old_password().size() > kMaxPasswordBytes) {
    return send_error(connection, rid, too_long());
  }
  if (password.size() < kMinPasswordBytes) {
    return send_error(connection, rid,
                      {ProtocolError::weak_password,
                       fmt::format("passwords need at least {} bytes", kMinPasswordBytes)});
  }
  const std::string key = name_key(player->name);
  if (name_key(password) == key) {
    return send_error(connection, rid,
                      {ProtocolError::weak_password, "a password cannot be the name itself"});
  }
  if (player->password_busy) {
    return send_error(connection, rid,
                      {ProtocolError::bad_request, "a password change is already under way"});
  }
  const bool changing = !player->password_hash.empty();
  const std::string address = connection->address();
  if (changing) {
    if (request.old_password().empty()) {
      return send_error(connection, rid,
                        {ProtocolError::wrong_password, "changing a password needs the old one"});
    }
    if (too_many_failures(key, address)) {
      return send_error(
          connection, rid,
          {ProtocolError::rate_limited,
           "too many wrong passwords lately for this name or address; wait a minute"});
    }
  } else if (const std::string* holder = identity_.account_holder(key);
             holder && *holder != player_id) {
    return send_error(connection, rid,
                      {ProtocolError::name_taken,
                       fmt::format("the name \"{}\" is already an account's", player->name)});
  }
  if (!reserve_hash()) {
    return send_error(connection, rid,
                      {ProtocolError::rate_limited, "too many passwords being hashed; try again"});
  }
  // The key is held from now on: no other guest claims it meanwhile.
  if (!changing) identity_.claim(key, player_id);
  player->password_busy = true;
  const auto attempt = changing ? count_attempt(key, address) : Clock::time_point{};
  asio::post(hashers_, [this, owner = std::move(owner), connection, rid, player_id, key, address,
                        changing, attempt, stored = player->password_hash, password,
                        old = request.old_password()]() mutable {
    const bool old_ok = !changing || verify_password(stored, old);
    std::optional<std::string> hash;
    if (old_ok) hash = hash_password(password, cost_);
    asio::post(strand_, [this, owner = std::move(owner), connection = std::move(connection), rid,
                         player_id, key, address, changing, attempt, old_ok,
                         hash = std::move(hash)]() mutable {
      --pending_;
      if (changing && old_ok) forgive(key, address, attempt);
      Player* who = identity_.find(player_id);
      if (!who) return;
      auto give_up = [&](const Failure& f) {
        who->password_busy = false;
        if (!changing) identity_.unclaim(key, player_id);
        send_error(connection, rid, f);
      };
      if (!old_ok) {
        return give_up({ProtocolError::wrong_password, "wrong password"});
      }
      if (!hash) return give_up({ProtocolError::internal, "the password could not be hashed"});
      const std::int64_t since = changing ? who->account_since_ms : unix_ms();
      std::vector<StoreOp> ops{store_op::SaveAccount{player_id, key, *hash, since}};
      // A change signs the player's other devices out, in the same write:
      // whoever knew the old password may hold one of them.
      const std::string keep = identity_.token_hash_of(connection.get());
      if (changing) ops.push_back(store_op::RevokeDevices{player_id, keep});
      writer_.submit(std::move(ops), [this, owner = std::move(owner), connection, rid, player_id,
                                      key, changing, since, keep, hash = *hash](bool kept) mutable {
        asio::post(strand_, [this, owner, connection, rid, player_id, key, changing, since, keep,
                             hash, kept] {
          Player* account = identity_.find(player_id);
          if (!account) return;
          account->password_busy = false;
          if (!kept) {
            if (!changing) identity_.unclaim(key, player_id);
            send_error(connection, rid,
                       {ProtocolError::internal, "the password could not be stored"});
            return;
          }
          account->password_hash = hash;
          account->name_key = key;
          account->account_since_ms = since;
          if (changing) sign_out(identity_.revoke_other_devices(player_id, keep));
          send(metrics_, connection, make_ack(rid, {}));
        });
      });
    });
  });
}

Expected<v1::Profile> Accounts::profile(const std::string& asker, const v1::GetProfile& request) {
  if (!request.player_id().empty() && !request.name().empty())
    return fail_with(ProtocolError::bad_request, "ask by player id or by name, not both");
  const Player* player = nullptr;
  if (!request.name().empty()) {
    auto name = normalise_player_name(request.name());
    if (!name) return inarow::unexpected(name.error());
    const std::string key = name_key(*name);
    if (const std::string* holder = identity_.account_holder(key)) {
      const Player* p = identity_.find(*holder);
      if (p && !p->password_hash.empty()) player = p;
    }
    if (!player) player = identity_.bot_named(key);
    if (!player)
      return fail_with(
          ProtocolError::unknown_player,
          fmt::format("no account or bot is named \"{}\"", json::echo(request.name())));
  } else {
    const std::string& id = request.player_id().empty() ? asker : request.player_id();
    player = identity_.find(id);
    if (!player)
      return fail_with(ProtocolError::unknown_player, fmt::format("no player {}", json::echo(id)));
  }
  v1::Profile out;
  out.set_player_id(player->id);
  out.set_name(player->name);
  out.set_bot(player->bot);
  out.set_account(!player->password_hash.empty());
  out.set_account_since_ms(player->account_since_ms);
  for (const RatingBook::Entry& e : ratings_.of_player(player->id)) {
    auto* r = out.add_ratings();
    r->set_variant(e.variant);
    *r->mutable_rating() = to_proto(e.rating);
    r->set_games(static_cast<std::uint32_t>(e.games));
  }
  return out;
}

Expected<v1::Leaderboard> Accounts::leaderboard(const v1::GetLeaderboard& request) {
  auto variant = check_variant(request.variant());
  if (!variant) return inarow::unexpected(variant.error());
  std::size_t from = 0;
  if (!request.after().empty()) {
    const std::string& a = request.after();
    auto [end, ec] = std::from_chars(a.data(), a.data() + a.size(), from);
    if (ec != std::errc{} || end != a.data() + a.size() || a.size() > 9)
      return fail_with(
          ProtocolError::bad_request,
          fmt::format("after is the next cursor of an earlier page, not \"{}\"", json::echo(a)));
  }
  const std::size_t page = static_cast<std::size_t>(std::max(1, config_.leaderboard_page_size));
  const std::size_t limit =
      request.limit() == 0 ? page : std::min<std::size_t>(request.limit(), page);
  const auto ranked = ratings_.ranking(variant->name, config_.leaderboard_min_games);
  v1::Leaderboard out;
  out.set_variant(variant->name);
  out.set_total(static_cast<std::uint32_t>(ranked.size()));
  out.set_min_games(static_cast<std::uint32_t>(std::max(0, config_.leaderboard_min_games)));
  for (std::size_t i = from; i < ranked.size() && i < from + limit; ++i) {
    auto* e = out.add_entries();
    e->set_rank(static_cast<std::uint32_t>(i + 1));
    e->set_player_id(ranked[i].player);
    if (const Player* p = identity_.find(ranked[i].player)) {
      e->set_name(p->name);
      e->set_bot(p->bot);
    }
    *e->mutable_rating() = to_proto(ranked[i].rating);
    e->set_games(static_cast<std::uint32_t>(ranked[i].games));
  }
  if (from + limit < ranked.size()) out.set_next(std::to_string(from + limit));
  return out;
}

}  // namespace inarow::server
