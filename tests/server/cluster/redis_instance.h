// A private redis-server for tests: on 127.0.0.1 and an ephemeral port, no
// persistence (--save "", no AOF), its directory and log in a fresh
// temporary directory, killed if the tests die (PR_SET_PDEATHSIG), stopped
// (SIGTERM) and its directory removed at the end.
//
// One shared instance per test process: shared() starts it on first use
// and a gtest environment stops it when the tests are done. Tests that need
// their own (a password, a restart under a live connection) launch() one.
// Tests on the shared one keep apart by a key prefix of their own
// (test_prefix()). A redis-server that cannot be found or started is a
// failure (saying to run scripts/setup.sh), never a skip.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "inarow/common/expected.h"

namespace inarow::testing {

class RedisInstance {
 public:
  // The process's instance, started on first use; nullptr (and the reason
  // in shared_error()) if it could not be.
  static RedisInstance* shared();
  static const std::string& shared_error();

  // A new instance of its own, started, with `extra` arguments after ours
  // (say {"--requirepass", "secret"}).
  static inarow::expected<std::unique_ptr<RedisInstance>, std::string> launch(
      std::vector<std::string> extra = {});

  ~RedisInstance();
  RedisInstance(const RedisInstance&) = delete;
  RedisInstance& operator=(const RedisInstance&) = delete;

  // redis://127.0.0.1:PORT (no password, database 0).
  std::string url() const;
  std::uint16_t port() const { return port_; }

  // Stops it (SIGTERM, then wait): connections made before are lost, and
  // so is every key (nothing is saved).
  void stop();
  // Starts it again on the same port.
  inarow::expected<void, std::string> start();
  inarow::expected<void, std::string> restart();

 private:
  RedisInstance() = default;
  // The first start, on a free port (another on a clash).
  inarow::expected<void, std::string> create();
  inarow::expected<void, std::string> start_on(std::uint16_t port);

  std::filesystem::path server_;  // the redis-server binary
  std::filesystem::path dir_;     // its working directory and log
  std::vector<std::string> extra_;
  std::uint16_t port_ = 0;
  pid_t pid_ = -1;
};

// A key prefix unique to the running test ("t:Suite.Name:"), for a
// RedisOptions::prefix.
std::string test_prefix();

}  // namespace inarow::testing
