// A node's presence in its cluster: registered in the shared directory
// (Redis) under its id with the address it serves on, renewed on a thread
// of its own every ttl / 3, removed when it stops; and where its people
// are: each person's location names this node from their first connection
// here to their last. Its heartbeat is also how the node learns Redis is
// lost (/healthz turns not ready) and back (ready again, registered again
// if its entry lapsed meanwhile, and every location told again: a Redis
// that lost its entry lost them too).
//
// A location outlives a node that dies without leaving (it names a node
// that is gone): whoever reads one checks that its node is alive. It
// lapses after kLocationTtl, so the node tells its people's locations
// again every third of that. A node that stops clears those it set.
//
// A thread, not a timer on the io_context: a Redis call blocks (up to the
// command timeout when Redis is gone), and no I/O thread may wait on it.
// The node's other directory work (cluster_node.h: leases, lookups, the
// seek pool) runs on the same thread and connection, as jobs and tasks.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "inarow/common/expected.h"
#include "inarow/server/config.h"
#include "inarow/server/directory.h"
#include "inarow/server/metrics.h"
#include "inarow/server/redis.h"

namespace inarow::server {

class ClusterPresence {
 public:
  ClusterPresence(std::unique_ptr<Redis> redis, std::string node_id, std::string address,
                  Millis ttl, Metrics& metrics);
  ~ClusterPresence();
  ClusterPresence(const ClusterPresence&) = delete;
  ClusterPresence& operator=(const ClusterPresence&) = delete;

  // How long a location lives unless told again.
  static constexpr Millis kLocationTtl{std::chrono::hours(1)};

  // `everyone` hands the people online now to a callback (the router's
  // Router::online_players): asked when the locations must be told again.
  using Everyone = std::function<void(std::function<void(std::vector<std::string>)>)>;

  // Registers the node (an error if Redis refuses) and starts the heartbeat.
  inarow::expected<void, std::string> start(Everyone everyone = {});
  // A person's first connection here came (online) or their last went:
  // their location is set or cleared on the presence's thread, in order.
  void located(const std::string& player_id, bool online);
  // Every one of `players` is here (a location told again).
  void located(std::vector<std::string> players);
  // Stops the heartbeat and removes the node's entry. Idempotent.
  void stop();
  const std::string& node_id() const { return node_id_; }

  // Runs `job` on the presence's thread, after the jobs queued before it
  // (dropped once stopping).
  void enqueue(std::function<void(Directory&)> job);
  // Runs `task` on that thread every `period` (set before start()).
  void every(Millis period, std::function<void(Directory&)> task);
  // For a call that must be made now, off the thread (before serving, or
  // after stop()): a Directory is any thread's, its Redis serialises.
  Directory& directory() { return directory_; }
  const RedisOptions& redis_options() const { return redis_->options(); }

 private:
  struct Periodic {
    Millis period;
    std::function<void(Directory&)> task;
    SteadyClock::time_point next;
  };
  void run();
  // One heartbeat: renew (or register again); whether Redis answered.
  bool beat();
  void tell_locations_again();

  std::unique_ptr<Redis> redis_;
  Directory directory_;
  std::string node_id_;
  std::string address_;
  Millis ttl_;
  Metrics& metrics_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::deque<std::function<void(Directory&)>> jobs_;  // guarded by mutex_
  Everyone everyone_;
  std::vector<Periodic> periodic_;  // set before start(), then the thread's
  // The people whose location names this node, as it told the directory:
  // the thread's, then stop()'s.
  std::set<std::string> located_;
  std::thread thread_;
};

// A node id for a server started without one: host name, port and process
// id, unique on a machine and readable in logs.
std::string default_node_id(std::uint16_t port);

}  // namespace inarow::server
