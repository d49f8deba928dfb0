// A server for tests: the real Server on 127.0.0.1 with an ephemeral port,
// an in-memory store and short timers, in this process.
#pragma once

#include <cstdint>
#include <memory>

#include "inarow/server/config.h"
#include "inarow/server/server.h"

namespace inarow::testing {

using namespace std::chrono_literals;

// A config for tests: ephemeral port, in-memory store, short timers.
server::ServerConfig test_config();

class TestServer {
 public:
  explicit TestServer(server::ServerConfig config = test_config());
  ~TestServer();
  std::uint16_t port() const { return server_->port(); }
  server::Server& server() { return *server_; }
  void stop() { server_->stop(); }

 private:
  std::unique_ptr<server::Server> server_;
};

}  // namespace inarow::testing
