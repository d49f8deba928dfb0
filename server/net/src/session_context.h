// What every session shares (Beast's chat example calls it shared_state):
// the config and metrics, the router and the store, the connections per
// address, and every WebSocket session alive, so a stop can close even
// those that never said hello.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "inarow/server/config.h"
#include "inarow/server/connection.h"
#include "inarow/server/metrics.h"
#include "inarow/server/router.h"
#include "inarow/server/store.h"

namespace inarow::server {

class SessionContext {
 public:
  SessionContext(const ServerConfig& server_config, Metrics& counters, Router& messages,
                 Store& records)
      : config(server_config), metrics(counters), router(messages), store(records) {}

  const ServerConfig& config;
  Metrics& metrics;
  Router& router;
  Store& store;                  // GET /matches/<id> reads game records
  std::atomic<int> sessions{0};  // WebSocket sessions alive

  // A WebSocket connection is admitted while its address has fewer than
  // max_connections_per_ip; release when it ends.
  bool admit(const std::string& address);
  void release(const std::string& address);
  // The same for plain HTTP connections, against max_http_connections_per_ip.
  bool admit_http(const std::string& address);
  void release_http(const std::string& address);

  void enlist(const ConnectionPtr& connection);
  void discharge(Connection* connection);
  // Close every connection alive (going away).
  void close_all();

 private:
  std::mutex mutex_;
  std::map<std::string, int> per_address_;
  std::map<std::string, int> http_per_address_;
  std::unordered_map<Connection*, std::weak_ptr<Connection>> live_;
};

}  // namespace inarow::server
