// The router: where every client message goes. Sessions hand it parsed
// messages; it answers through the Connection interface, so it knows
// nothing about sockets.
//
// A seated player's match command (match_commands.h) goes to its match's
// strand; once the router has routed one for a connection (it knows the
// player and the seat), later ones for that match go there straight from
// the reading thread. Everything else (hello, the lobby, watching) runs on
// the router's strand, where Identity, the Lobby and the MatchRegistry live.
// Every public function may be called from any thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "inarow/server/config.h"
#include "inarow/server/connection.h"
#include "inarow/server/metrics.h"
#include "inarow/server/store.h"
#include "inarow/server/store_writer.h"
#include "inarow/v1/inarow.pb.h"

namespace boost::asio {
class io_context;
class thread_pool;
}  // namespace boost::asio

namespace inarow::server {

class Router {
 public:
  // Bots search on `bot_workers`, which must outlive every match.
  Router(boost::asio::io_context& ioc, boost::asio::thread_pool& bot_workers,
         const ServerConfig& config, Store& store, StoreWriter& writer, Metrics& metrics);
  ~Router();
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  // The store is read on `readers` (game history, profiles, leaderboards,
  // and the players who come back), which must outlive the router's work;
  // unset, on its strand.
  void read_store_on(boost::asio::thread_pool& readers);
  // Load the bots, the unfinished matches and their players from the store
  // (before serving).
  void restore();
  void receive(ConnectionPtr from, inarow::v1::ClientMessage message);
  void disconnected(const ConnectionPtr& connection);
  // Say goodbye to every connection, stop bots and timers.
  void shutdown();
  // Told, on the router's strand, when a person's first connection comes
  // and their last goes (a cluster's node tells the others where they are).
  void on_presence(std::function<void(const std::string& player_id, bool online)> told);
  // The people online now, handed to `then` on the router's strand.
  void online_players(std::function<void(std::vector<std::string>)> then);

  struct State;  // the strand's state and the routes (router.cpp)

 private:
  std::shared_ptr<State> state_;
};

}  // namespace inarow::server
