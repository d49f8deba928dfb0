// Server: the whole game server behind one small facade — open the store,
// restore unfinished matches, listen, serve, stop gracefully. main.cpp and
// the tests use only this.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "inarow/common/expected.h"
#include "inarow/server/config.h"
#include "inarow/server/metrics.h"

namespace inarow::server {

class Server {
 public:
  explicit Server(ServerConfig config);
  ~Server();  // stops if still running
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Open the store, restore matches, bind and start the I/O threads.
  inarow::expected<void, std::string> start();
  // The bound port (the real one when the config asked for 0).
  std::uint16_t port() const;
  // Stop accepting, say goodbye to every client, wait for them to go (at
  // most a few seconds), stop the bots and flush the store. Idempotent.
  void stop();
  const Metrics& metrics() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace inarow::server
