// What every session shares (Beast's chat example calls it shared_state):
// the config and metrics, the router and the store, the connections per
// address, and every WebSocket session alive, so a stop can close even
// those that never said hello.
#pragma once

#include <atomic>
#include <boost/asio/thread_pool.hpp>
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

// A plain HTTP connection that can be asked to go when descriptors run out.
class Evictable {
 public:
  virtual ~Evictable() = default;
  // Close now if waiting for the peer (a request, or the rest of one); from
  // any thread.
  virtual void evict() = 0;
};

class SessionContext {
 public:
  SessionContext(const ServerConfig& server_config, Metrics& counters, Router& messages,
                 Store& records, boost::asio::thread_pool& readers)
      : config(server_config),
        metrics(counters),
        router(messages),
        store(records),
        record_readers(readers) {}

  const ServerConfig& config;
  Metrics& metrics;
  Router& router;
  Store& store;  // GET /matches/<id> reads game records, on record_readers
  boost::asio::thread_pool& record_readers;  // never an I/O thread: the read may wait on disk
  std::atomic<int> sessions{0};              // WebSocket sessions alive

  // A WebSocket connection is admitted while its address has fewer than
  // max_connections_per_ip; release when it ends.
  bool admit(const std::string& address);
  void release(const std::string& address);
  // The same for plain HTTP connections, against max_http_connections_per_ip.
  bool admit_http(const std::string& address);
  void release_http(const std::string& address);

  // Plain HTTP connections, oldest first, for evict_waiting_http.
  std::uint64_t enlist_http(std::weak_ptr<Evictable> session);
  void discharge_http(std::uint64_t key);
  // Out of descriptors: ask up to `n` of the oldest plain HTTP connections
  // to close (each once); how many were asked.
  std::size_t evict_waiting_http(std::size_t n);

  void enlist(const ConnectionPtr& connection);
  void discharge(Connection* connection);
  // Close every connection alive (going away).
  void close_all();

 private:
  std::mutex mutex_;
  std::map<std::string, int> per_address_;
  std::map<std::string, int> http_per_address_;
  std::map<std::uint64_t, std::weak_ptr<Evictable>> http_sessions_;
  std::uint64_t next_http_key_ = 0;
  std::unordered_map<Connection*, std::weak_ptr<Connection>> live_;
};

}  // namespace inarow::server
