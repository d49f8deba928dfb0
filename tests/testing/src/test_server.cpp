#include "inarow/testing/test_server.h"

#include <cstdlib>
#include <spdlog/spdlog.h>

#include <stdexcept>

namespace inarow::testing {

server::ServerConfig test_config() {
  server::ServerConfig c;
  c.address = "127.0.0.1";
  c.port = 0;
  c.threads = 2;
  c.bot_threads = 1;
  c.store = ":memory:";
  c.store_full_sync = false;
  c.reconnect_grace = 2s;
  c.matchmaker_tick = 50ms;
  c.bot_seed = 12345;
  return c;
}

TestServer::TestServer(server::ServerConfig config)
    : server_(std::make_unique<server::Server>(std::move(config))) {
  spdlog::set_level(std::getenv("INAROW_TEST_LOG") ? spdlog::level::debug : spdlog::level::warn);
  auto started = server_->start();
  if (!started) throw std::runtime_error(started.error());
}

TestServer::~TestServer() {
  server_->stop();
}

}  // namespace inarow::testing
