// A private PostgreSQL cluster for tests: initdb into a fresh temporary
// directory, a postmaster on 127.0.0.1 and an ephemeral port (trust
// authentication, user `inarow`, fsync off), a fresh database per test,
// stopped (fast shutdown) and removed at the end. As root (CI), the
// directory belongs to `nobody` and initdb and postgres run as that user:
// PostgreSQL refuses to run as root.
//
// One cluster per test process: shared() starts it on first use and a
// gtest environment stops it when the tests are done, so a binary pays for
// initdb once. A PostgreSQL that cannot be found or started is a failure
// (saying to run scripts/setup.sh), never a skip.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "inarow/common/expected.h"

namespace inarow::testing {

class PostgresCluster {
 public:
  // The process's cluster, started on first use; nullptr (and the reason
  // in shared_error()) if it could not be.
  static PostgresCluster* shared();
  static const std::string& shared_error();

  ~PostgresCluster();
  PostgresCluster(const PostgresCluster&) = delete;
  PostgresCluster& operator=(const PostgresCluster&) = delete;

  // A new, empty database (CREATE DATABASE ... TEMPLATE template0); its
  // conninfo URI, or why not.
  inarow::expected<std::string, std::string> create_database();
  // The URI of database `name` on this cluster.
  std::string uri(const std::string& name) const;
  std::uint16_t port() const { return port_; }

  // Stops the postmaster (fast shutdown: SIGINT, then wait) and starts it
  // again on the same port and directory: connections made before are
  // lost, as after a server's restart.
  inarow::expected<void, std::string> restart();
  // Stops it (fast shutdown), as restart()'s first half; start() brings
  // it back on the same port.
  void stop();
  inarow::expected<void, std::string> start();

  // Runs `sql` (no parameters: the tests' own SQL) on database `name`;
  // the first column of the first row ("" if none), or the error.
  static inarow::expected<std::string, std::string> query(const std::string& uri,
                                                          const std::string& sql);

 private:
  PostgresCluster() = default;
  // initdb, then the first start on a free port (another port on a clash).
  inarow::expected<void, std::string> create();
  inarow::expected<void, std::string> start_on(std::uint16_t port);

  std::filesystem::path bindir_;
  std::filesystem::path dir_;   // the socket's directory and the log
  std::filesystem::path data_;  // dir_/data
  std::uint16_t port_ = 0;
  pid_t postmaster_ = -1;
  uid_t uid_ = 0;  // who runs PostgreSQL (nobody when we are root), and their group
  gid_t gid_ = 0;
  bool as_other_user_ = false;
  std::optional<std::pair<uid_t, gid_t>> as_user() const {
    if (!as_other_user_) return std::nullopt;
    return std::pair{uid_, gid_};
  }
  int databases_ = 0;
};

}  // namespace inarow::testing
