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
                   Identity& identity)
    : strand_(std::move(strand)),
      config_(config),
      writer_(writer),
      metrics_(metrics),
      identity_(identity),
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
  std::string key = name_key(*name);
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
  // The connection's messages wait until it is greeted (or refused): the
  // account may have to be read from the store first.
  identity_.begin_greeting(connection.get());
  identity_.look_up(
      Identity::Key::account, key, owner,
      [this, owner, replay = std::move(replay), connection, message, key, address,
       name = std::move(*name)](Player* player) mutable {
        if (!identity_.greeting(connection.get()) || !player || player->password_hash.empty()) {
          --pending_;
          identity_.end_greeting(connection, replay, [&] {
            send_error(connection, message.request_id(),
                       {ProtocolError::unknown_player,
                        fmt::format("no account is named \"{}\"", json::echo(name))});
          });
          return;
        }
        // Held while its password is checked.
        identity_.pin(*player);
        check_password(connection, std::move(message), std::move(owner), std::move(replay), key,
                       address, *player);
      });
}

void Accounts::check_password(const ConnectionPtr& connection, v1::ClientMessage message,
                              std::shared_ptr<const void> owner, Identity::Replay replay,
                              const std::string& key, const std::string& address,
                              const Player& player) {
  const auto attempt = count_attempt(key, address);
  asio::post(hashers_, [this, owner = std::move(owner), replay = std::move(replay), connection,
                        message = std::move(message), key, address, attempt, player_id = player.id,
                        stored = player.password_hash]() mutable {
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
      if (!ok || !identity_.greeting(connection.get())) {
        // What it sent meanwhile is answered as before a hello.
        identity_.end_greeting(connection, replay, [&] {
          send_error(connection, message.request_id(),
                     {ProtocolError::wrong_password, "wrong password"});
        });
        identity_.unpin(player_id);
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
                           rehash = std::move(rehash)](StoreWriter::Outcome outcome) mutable {
            const bool kept = outcome == StoreWriter::Outcome::ok;  // no match: never fenced
            asio::post(strand_, [this, owner, replay = std::move(replay), connection,
                                 message = std::move(message), player_id, token, token_hash, stored,
                                 rehash, kept]() mutable {
              // Pinned: still held.
              Player& account = identity_.at(player_id);
              if (kept && rehash && account.password_hash == stored)
                account.password_hash = *rehash;
              identity_.end_greeting(connection, replay, [&] {
                if (!kept) {
                  send_error(connection, message.request_id(),
                             {ProtocolError::internal, "the sign-in could not be stored"});
                  return;
                }
                identity_.add_token(token_hash, account);
                identity_.welcome(connection, account, message.request_id(), true, message.hello(),
                                  token, token_hash, true);
              });
              identity_.unpin(player_id);
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
  }
  if (!reserve_hash()) {
    return send_error(connection, rid,
                      {ProtocolError::rate_limited, "too many passwords being hashed; try again"});
  }
  // Held, and no second change begins, from now until it is stored or given up.
  player->password_busy = true;
  if (changing) {
    hash_new_password(connection, player_id, rid, request, std::move(owner), key, true);
    return;
  }
  // A new account: its name must not be another account's, held here or not.
  identity_.read_store(
      owner, [key](Store& store) { return store.find_account(key); },
      [this, owner, connection, player_id, rid, request,
       key](std::optional<PlayerRecord> stored) mutable {
        Player* who = identity_.find(player_id);  // held: its password is busy
        const std::string* holder = identity_.account_holder(key);
        if ((stored && stored->id != player_id) || (holder && *holder != player_id)) {
          --pending_;
          who->password_busy = false;
          send_error(connection, rid,
                     {ProtocolError::name_taken,
                      fmt::format("the name \"{}\" is already an account's", who->name)});
          identity_.let_go(player_id);
          return;
        }
        // The key is held from now on: no other guest claims it meanwhile.
        identity_.claim(key, player_id);
        hash_new_password(connection, player_id, rid, request, std::move(owner), key, false);
      });
}

void Accounts::hash_new_password(const ConnectionPtr& connection, const std::string& player_id,
                                 std::uint64_t rid, const v1::SetPassword& request,
                                 std::shared_ptr<const void> owner, const std::string& key,
                                 bool changing) {
  const Player& player = identity_.at(player_id);
  const std::string address = connection->address();
  const std::string& password = request.password();
  const auto attempt = changing ? count_attempt(key, address) : Clock::time_point{};
  asio::post(hashers_, [this, owner = std::move(owner), connection, rid, player_id, key, address,
                        changing, attempt, stored = player.password_hash, password,
                        old = request.old_password()]() mutable {
    const bool old_ok = !changing || verify_password(stored, old);
    std::optional<std::string> hash;
    if (old_ok) hash = hash_password(password, cost_);
    asio::post(strand_, [this, owner = std::move(owner), connection = std::move(connection), rid,
                         player_id, key, address, changing, attempt, old_ok,
                         hash = std::move(hash)]() mutable {
      --pending_;
      if (changing && old_ok) forgive(key, address, attempt);
      Player* who = &identity_.at(player_id);  // held: its password is busy
      auto give_up = [&](const Failure& f) {
        who->password_busy = false;
        if (!changing) identity_.unclaim(key, player_id);
        send_error(connection, rid, f);
        identity_.let_go(player_id);  // in case its connection went meanwhile
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
                                      key, changing, since, keep,
                                      hash = *hash](StoreWriter::Outcome outcome) mutable {
        const bool kept = outcome == StoreWriter::Outcome::ok;  // no match: never fenced
        asio::post(strand_, [this, owner, connection, rid, player_id, key, changing, since, keep,
                             hash, kept] {
          Player* account = &identity_.at(player_id);  // held: its password is busy
          account->password_busy = false;
          if (!kept) {
            if (!changing) identity_.unclaim(key, player_id);
            send_error(connection, rid,
                       {ProtocolError::internal, "the password could not be stored"});
          } else {
            account->password_hash = hash;
            account->name_key = key;
            account->account_since_ms = since;
            if (changing) sign_out(identity_.revoke_other_devices(player_id, keep));
            send(metrics_, connection, make_ack(rid, {}));
          }
          identity_.let_go(player_id);  // in case its connection went meanwhile
        });
      });
    });
  });
}

}  // namespace inarow::server
