// Accounts: a player protects their name with a password and signs in with
// it from another device. Lives on the router's
// strand beside Identity (which keeps the players, their tokens and who
// holds each name key).
//
// Argon2id is slow and takes memory on purpose, so it never runs on the
// strand or the network threads: it runs on a pool of its own
// (config.password_threads), at most config.max_pending_passwords hashes
// waiting or running at once, and a name or an address that gave too many
// wrong passwords lately is refused before anything is hashed.
#pragma once

#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>

#include "inarow/server/config.h"
#include "inarow/server/identity.h"
#include "inarow/server/password.h"

namespace inarow::server {

class Accounts {
 public:
  using Strand = Identity::Strand;

  Accounts(Strand strand, const ServerConfig& config, StoreWriter& writer, Metrics& metrics,
           Identity& identity);
  // Drops the hashes not yet started and waits for those running. Called
  // before the io_context goes (their answers are posted to the strand).
  void stop();

  // A hello with a password (from Identity::hello: the version is checked,
  // the connection not yet greeted).
  void sign_in(const ConnectionPtr& connection, const inarow::v1::ClientMessage& message,
               std::shared_ptr<const void> owner, Identity::Replay replay);
  void set_password(const ConnectionPtr& connection, const std::string& player_id,
                    std::uint64_t request_id, const inarow::v1::SetPassword& request,
                    std::shared_ptr<const void> owner);

 private:
  using Clock = std::chrono::steady_clock;
  // Wrong passwords lately, per name key and per address. An attempt counts
  // as wrong from the moment its hash is asked for, so attempts in flight
  // together cannot pass the limit; one found right is taken back.
  bool too_many_failures(const std::string& key, const std::string& address);
  Clock::time_point count_attempt(const std::string& key, const std::string& address);
  void forgive(const std::string& key, const std::string& address, Clock::time_point at);
  // Says bye to each connection and closes it (their device's token no
  // longer names the player).
  void sign_out(const std::vector<ConnectionPtr>& connections);
  // Sign-in, once the account is found (and pinned): its password checked
  // on the hashers, then the device's token stored and the connection welcomed.
  void check_password(const ConnectionPtr& connection, inarow::v1::ClientMessage message,
                      std::shared_ptr<const void> owner, Identity::Replay replay,
                      const std::string& key, const std::string& address, const Player& player);
  // A password set or changed, once the name is known free (a hash reserved
  // and the player's password busy): hashed, stored, acknowledged.
  void hash_new_password(const ConnectionPtr& connection, const std::string& player_id,
                         std::uint64_t request_id, const inarow::v1::SetPassword& request,
                         std::shared_ptr<const void> owner, const std::string& key, bool changing);
  // Room for one more hash (counted until its answer is back on the strand).
  bool reserve_hash();
  void send_error(const ConnectionPtr& to, std::uint64_t request_id, const Failure& failure);

  Strand strand_;
  const ServerConfig& config_;
  StoreWriter& writer_;
  Metrics& metrics_;
  Identity& identity_;
  PasswordCost cost_;
  int pending_ = 0;
  std::unordered_map<std::string, std::deque<Clock::time_point>> name_failures_;
  std::unordered_map<std::string, std::deque<Clock::time_point>> address_failures_;
  boost::asio::thread_pool hashers_;
};

}  // namespace inarow::server
