// A node of a cluster at work: what its clients do in matches other nodes
// own, and what other nodes' clients do in the matches it owns.
//
// A client's node forwards; the owner serves. When a client of this node
// acts in a match another node owns (a command, a watch, a private code
// held there, a match it resumes), this node opens a link for that client
// to the owner over the node bus (node_bus.h) and forwards the client's
// messages there; the owner binds the link to a relayed connection
// (Connection::relayed) of the client's player and runs them through its
// own router, exactly as a client of its own, and what it sends the
// relayed connection comes back over the bus in order to the client.
// Nothing of a match is held twice: its state, clock and log stay with
// its owner.
//
// Who owns a match is its lease in the shared directory (directory.h):
// this node claims one for each match it makes and renews them all every
// third of the lease; a match made here that seats a player connected to
// another node tells that node (Seated), which attaches the player's
// connections through links. Seeks go to the shared pool and are paired
// there; a private code held here is put in the directory under this
// node's id, so a join on any node is forwarded here.
//
// A node that dies leaves its leases to run out; one that stops hands
// them over (released, and a Handover to every node). Every node looks
// for orphans (live matches nobody owns) every third of the lease and
// takes its share over: the lease claimed at a new generation, the store
// told first (TakeOver fences the former owner's writes), then the match
// read back and run here (Router::take_over). A client's message for a
// match that nobody owns takes it over on its node at once; one for a
// dead node's match waits until its lease runs out. A match here whose
// lease is taken, or whose write is fenced, lets go of itself
// (MatchActor::abandon) and closes its followers, who come back and
// resume where it is now. Nodes that leave are seen (watch_nodes) and
// their links closed the same way.
//
// Redis calls block, so they run on the presence's thread
// (cluster_presence.h), over its connection; bus messages arrive on the
// bus's reader thread; both only post into the router. Messages lost between nodes (a bus gap)
// close the links they used: their clients reconnect and resume from their last seq.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cluster_presence.h"
#include "inarow/common/expected.h"
#include "inarow/node/v1/node.pb.h"
#include "inarow/server/config.h"
#include "inarow/server/directory.h"
#include "inarow/server/metrics.h"
#include "inarow/server/node_bus.h"
#include "inarow/server/recent_map.h"
#include "inarow/server/router.h"

namespace inarow::server {

class RelayedConnection;

class ClusterNode : public Elsewhere, public std::enable_shared_from_this<ClusterNode> {
 public:
  // Its directory work runs on `presence`'s thread, which must outlive it.
  ClusterNode(Router& router, ClusterPresence& presence, const ServerConfig& config,
              Metrics& metrics);
  ~ClusterNode() override;
  ClusterNode(const ClusterNode&) = delete;
  ClusterNode& operator=(const ClusterNode&) = delete;

  // Opens the node bus and gives the presence its periodic tasks (before
  // the presence starts); an error if Redis does not answer.
  inarow::expected<void, std::string> start();
  // The store's unfinished matches (at start): each one that no live node
  // owns is taken over here.
  void take_stored(std::vector<std::string> match_ids);
  // Releases the leases of the matches still here and tells the other
  // nodes to take them at once (Handover); then this node takes no match
  // over and forwards nothing more. For a node that stops, once its
  // matches have stopped and their writes are stored. Idempotent.
  void hand_over();
  // hand_over(), then the bus stops (after the links' last messages).
  // Idempotent.
  void stop();

  // Elsewhere (on the router's strand).
  const std::string& node_id() const override { return node_id_; }
  void forward(const ConnectionPtr& from, const std::string& player_id, const std::string& match_id,
               inarow::v1::ClientMessage message) override;
  void forward_code(const ConnectionPtr& from, const std::string& player_id,
                    const std::string& code, inarow::v1::ClientMessage message) override;
  void resume(const ConnectionPtr& from, const std::string& player_id, const std::string& match_id,
              std::optional<std::uint64_t> after_seq) override;
  void gone(Connection* connection) override;
  void match_made(const std::string& match_id, const std::vector<ConnectionPtr>& relayed) override;
  void match_ended(const std::string& match_id) override;
  void match_moved(const std::string& match_id) override;
  void seated_away(const std::string& match_id, const std::string& player_id,
                   const std::vector<ConnectionPtr>& following) override;
  void code_opened(const std::string& code) override;
  void code_closed(const std::string& code) override;
  void seek(SharedSeek seek,
            std::function<void(inarow::expected<Directory::SeekAdded, std::string>)> then) override;
  bool seeking(const std::string& player_id) override;
  bool cancel_seek(const std::string& player_id) override;
  void list_seeks(std::size_t limit,
                  std::function<void(inarow::expected<SeekPage, std::string>)> then) override;
  void accept_seek(std::string seek_id, std::string player, bool busy, std::string match_id,
                   std::function<void(inarow::expected<Accepted, std::string>)> then) override;
  void hold_match(
      std::string match_id, std::vector<std::string> players,
      std::function<void(inarow::expected<std::optional<std::size_t>, std::string>)> then) override;
  void count_match(const std::string& match_id, std::vector<std::string> players) override;

  // A relayed connection's output, to the client's node (any thread).
  void relay(const std::string& node, std::uint64_t link, std::vector<OutgoingPtr> messages);
  void relay_close(const std::string& node, std::uint64_t link, CloseKind kind);

 private:
  // What a client of this node sends through one link, and what it waits
  // for before it can be sent: the owner of its match, looked up.
  struct Outbound {
    std::weak_ptr<Connection> connection;
    std::string player_id;
    std::uint64_t request_id = 0;
    std::string match_id;                   // for an error if no node has the match
    inarow::node::v1::NodeMessage message;  // its link id is set when sent
  };
  // This node's links, client side: by connection, the link to each node.
  struct ClientLinks {
    std::weak_ptr<Connection> connection;
    std::map<std::string, std::uint64_t> by_node;
  };

  void on_message(const std::string& from, std::string_view bytes);
  // Another node's client's message for a match being taken over here (its
  // lease names this node, but it runs once read back) waits in held_ with
  // this node's own clients' messages; false if the match is not.
  bool hold_while_taking(const std::string& match_id, const ConnectionPtr& connection,
                         std::uint64_t request_id, const inarow::node::v1::NodeMessage& message);
  void on_gap(const std::string& from);
  // A node is gone (dead, stopped, or its messages lost): the links to and
  // from it close; their clients come back and resume from their last seq.
  void drop_node(const std::string& node);
  void post(const std::string& node, const inarow::node::v1::NodeMessage& message);
  // Sends `out` over the client's link to `node`, opening it first if
  // there is none (under mutex_).
  void send_locked(const std::string& node, Outbound out);
  // The owner of `match_id` is looked up, then `out` goes there (or its
  // client hears the match is nowhere).
  void to_owner(const std::string& match_id, Outbound out);
  // What waits for `match_id`'s owner goes to it: a live node's; here, once
  // a take-over here is done; or, while its owner is a dead node's lease
  // that has not run out yet, it waits for the next try (retry_routes). A
  // match that nobody owns is taken over here.
  void route(Directory& directory, const std::string& match_id);
  void retry_routes(Directory& directory);
  void nowhere(const Outbound& out, const Failure& failure);
  // A client's message for a match this node owns now, run here.
  void deliver_here(const Outbound& out);
  void renew_leases(Directory& directory);
  // Tries to pair each of this node's seeks (the tick: windows widen), or
  // one seek just added (only it can fit where nothing fitted before).
  void pair_seeks(Directory& directory);
  void pair_seek(Directory& directory, const SharedSeek& seek);
  // A seek of this node's (by player) went from the pool; `seek` names it,
  // and its node is told if it is another's.
  void seek_gone(const SharedSeek& seek);
  // Take-overs: a live match nobody owns is claimed here, told to the
  // store, read back and run (Router::take_over).
  void take_over(Directory& directory, const std::string& match_id);
  void took_over(Directory& directory, const std::string& match_id, std::int64_t generation,
                 Router::TakenOver result);
  // The orphans (released, or their lease run out): this node's share.
  void scan_orphans(Directory& directory);
  // The live nodes, looked at again: those gone since are dropped.
  void watch_nodes(Directory& directory);

  Router& router_;
  ClusterPresence& presence_;
  const ServerConfig& config_;
  Metrics& metrics_;
  std::string node_id_;
  Millis lease_ttl_;
  std::unique_ptr<NodeBus> bus_;
  // Set once bus_ is: a message that arrives sooner (the bus reads as soon
  // as it opens) waits for it, since handling it may send.
  std::mutex bus_mutex_;
  std::condition_variable bus_set_;
  std::atomic<bool> bus_ready_{false};

  // How many matches' owners a generation of owners_ holds: at most twice as
  // many are kept, a few megabytes, far more than one node routes at once.
  static constexpr std::size_t kOwnersRemembered = std::size_t{1} << 16;

  std::mutex mutex_;
  // Guarded by mutex_:
  bool stopping_ = false;
  std::uint64_t next_link_ = 0;
  std::unordered_map<Connection*, ClientLinks> client_links_;
  std::unordered_map<std::uint64_t, std::pair<std::weak_ptr<Connection>, std::string>> links_;
  // match -> node, as last looked up; bounded, since a long-lived node routes
  // for ever more matches and a forgotten one is only looked up again.
  RecentMap<std::string, std::string> owners_{kOwnersRemembered};
  std::unordered_map<std::string, std::vector<Outbound>> waiting_;  // match -> owner lookup
  std::map<std::pair<std::string, std::uint64_t>, std::shared_ptr<RelayedConnection>> relayed_;
  std::unordered_map<std::string, std::int64_t> owned_;  // match -> lease generation
  // Matches being taken over here: their generation (0 while claimed),
  // and what clients of any node sent them meanwhile.
  std::unordered_map<std::string, std::int64_t> taking_;
  std::unordered_map<std::string, std::vector<Outbound>> held_;
  // Matches whose owner is a dead node's lease: when to stop waiting.
  std::unordered_map<std::string, SteadyClock::time_point> retry_;
  std::map<std::string, SharedSeek> seeks_;  // this node's, by player
  // The presence thread's: the live nodes at the last look, and the
  // shuffle of the orphans.
  std::set<std::string> known_nodes_;
  std::mt19937_64 random_;
};

}  // namespace inarow::server
