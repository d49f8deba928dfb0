// A node's presence in its cluster: registered in the shared directory
// (Redis) under its id with the address it serves on, renewed on a thread
// of its own every ttl / 3, removed when it stops. Its heartbeat is also how
// the node learns Redis is lost (/healthz turns not ready) and back (ready
// again, registered again if its entry lapsed meanwhile).
//
// A thread, not a timer on the io_context: a Redis call blocks (up to the
// command timeout when Redis is gone), and no I/O thread may wait on it.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

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

  // Registers the node (an error if Redis refuses) and starts the heartbeat.
  inarow::expected<void, std::string> start();
  // Stops the heartbeat and removes the node's entry. Idempotent.
  void stop();
  const std::string& node_id() const { return node_id_; }

 private:
  void run();
  // One heartbeat: renew (or register again); whether Redis answered.
  bool beat();

  std::unique_ptr<Redis> redis_;
  Directory directory_;
  std::string node_id_;
  std::string address_;
  Millis ttl_;
  Metrics& metrics_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

// A node id for a server started without one: host name, port and process
// id, unique on a machine and readable in logs.
std::string default_node_id(std::uint16_t port);

}  // namespace inarow::server
