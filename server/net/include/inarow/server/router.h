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

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inarow/server/config.h"
#include "inarow/server/connection.h"
#include "inarow/server/directory.h"
#include "inarow/server/metrics.h"
#include "inarow/server/store.h"
#include "inarow/server/store_writer.h"
#include "inarow/v1/inarow.pb.h"

namespace boost::asio {
class io_context;
class thread_pool;
}  // namespace boost::asio

namespace inarow::server {

// Where what is not on this node goes: the other nodes of a cluster
// (cluster_node.h). The router and the lobby call it on the router's
// strand; it must not block (Redis is asked on a thread of its own).
class Elsewhere {
 public:
  virtual ~Elsewhere() = default;
  virtual const std::string& node_id() const = 0;
  // A greeted client's message about a match that is not here (a match
  // command, a watch, an unwatch): to the match's owner, answered from
  // there, or with an error if no node has it.
  virtual void forward(const ConnectionPtr& from, const std::string& player_id,
                       const std::string& match_id, inarow::v1::ClientMessage message) = 0;
  // A join by a private code this node does not hold: to the node that does.
  virtual void forward_code(const ConnectionPtr& from, const std::string& player_id,
                            const std::string& code, inarow::v1::ClientMessage message) = 0;
  // A returning player's match that is not here (hello.resume): attached
  // at its owner, with the events after `after_seq`.
  virtual void resume(const ConnectionPtr& from, const std::string& player_id,
                      const std::string& match_id, std::optional<std::uint64_t> after_seq) = 0;
  // A client of this node left: its links go.
  virtual void gone(Connection* connection) = 0;
  // A match was made here (this node owns it), seating these relayed
  // connections; and it ended.
  virtual void match_made(const std::string& match_id,
                          const std::vector<ConnectionPtr>& relayed) = 0;
  virtual void match_ended(const std::string& match_id) = 0;
  // A match here let go of itself (another node owns it now).
  virtual void match_moved(const std::string& match_id) = 0;
  // A match made here seats a player connected to another node. `following`:
  // that player's links here, seated with the match already (their nodes
  // hear every event through them and need not attach again).
  virtual void seated_away(const std::string& match_id, const std::string& player_id,
                           const std::vector<ConnectionPtr>& following) = 0;
  // Private codes opened here (others join through this node) and closed.
  virtual void code_opened(const std::string& code) = 0;
  virtual void code_closed(const std::string& code) = 0;
  // A seek into the shared pool (paired there, across nodes), unless its
  // player seeks already or is at the cap on live matches against people
  // (counted across the nodes): what became of it, to `then` (on another
  // thread); whether the player has one there; and out of it (false: they
  // had none).
  virtual void seek(
      SharedSeek seek,
      std::function<void(inarow::expected<Directory::SeekAdded, std::string>)> then) = 0;
  virtual bool seeking(const std::string& player_id) = 0;
  virtual bool cancel_seek(const std::string& player_id) = 0;
  // The first `limit` seeks of the shared pool and how many are open, to
  // `then` (on another thread).
  virtual void list_seeks(std::size_t limit,
                          std::function<void(inarow::expected<SeekPage, std::string>)> then) = 0;
  // `player` (`busy`: at the cap as this node sees it) accepts `seek_id`
  // from the pool, to play in `match_id` made here: what became of it, to
  // `then` (on another thread).
  virtual void accept_seek(std::string seek_id, std::string player, bool busy, std::string match_id,
                           std::function<void(inarow::expected<Accepted, std::string>)> then) = 0;
  // A match against people to be made here outside the pool (a private
  // game joined, a rematch), as `match_id`: held for all of `players` in
  // the count every node reads, unless one is at the cap there. To `then`
  // (on another thread): nullopt if held, else the index of the first at
  // the cap.
  virtual void hold_match(
      std::string match_id, std::vector<std::string> players,
      std::function<void(inarow::expected<std::optional<std::size_t>, std::string>)> then) = 0;
  // A match against people made here: it counts toward both players' cap
  // on every node while it is live.
  virtual void count_match(const std::string& match_id, std::vector<std::string> players) = 0;
};

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
  // Load the bots and (`with_matches`) the unfinished matches and their
  // players from the store (before serving). A node of a cluster takes
  // matches over one by one instead (take_over).
  void restore(bool with_matches = true);
  void receive(ConnectionPtr from, inarow::v1::ClientMessage message);
  void disconnected(const ConnectionPtr& connection);
  // Say goodbye to every connection, stop bots and timers.
  void shutdown();
  // Told, on the router's strand, when a person's first connection comes
  // and their last goes (a cluster's node tells the others where they are).
  void on_presence(std::function<void(const std::string& player_id, bool online)> told);
  // The people online now, handed to `then` on the router's strand.
  void online_players(std::function<void(std::vector<std::string>)> then);

  // ---- A node of a cluster ----
  // Hand what is not here to `elsewhere` from now on (before serving).
  void send_elsewhere(std::shared_ptr<Elsewhere> elsewhere);
  // A client of another node acts here through `relayed` as `player_id`
  // (its node greeted it). What it sends before the player is read waits.
  void adopt(ConnectionPtr relayed, std::string player_id);
  // A seated player, through `relayed`, comes back to a match here.
  void attach_seated(ConnectionPtr relayed, std::string match_id,
                     std::optional<std::uint64_t> after_seq);
  // Another node made `match_id` (it owns it) seating `player_id`, who is
  // connected here: each of their connections here attaches to it there
  // (`attach` is called for each, on the router's strand).
  void seated_elsewhere(
      std::string match_id, std::string player_id,
      std::function<void(const ConnectionPtr&, const std::string& player_id)> attach);
  // Two seeks paired in the shared pool, one of them this node's: the
  // match, `match_id`, is made here.
  void paired(SharedSeek first, SharedSeek second, std::string match_id);
  // This node holds the lease of a live match at `generation` (above the
  // store's): the store is told (TakeOver), the match read back and run
  // here. `done` (on the router's strand, or the store writer's thread)
  // says how it went.
  enum class TakenOver {
    running,  // it runs here now
    gone,     // the store has it finished, or not at all: it is live no more
    refused,  // not now (the store refused or failed, the router is stopping)
  };
  void take_over(std::string match_id, std::int64_t generation,
                 std::function<void(TakenOver)> done);
  // This node's lease of a match is lost: the match here lets go of it
  // (MatchActor::abandon).
  void abandon(std::string match_id);

  struct State;  // the strand's state and the routes (router.cpp)

 private:
  std::shared_ptr<State> state_;
};

}  // namespace inarow::server
