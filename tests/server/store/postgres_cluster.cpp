#include "postgres_cluster.h"

#include <grp.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "inarow/testing/local_service.h"

namespace inarow::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const char* const kSetup =
    " (PostgreSQL's server is needed for these tests: run scripts/setup.sh, or set "
    "INAROW_PG_BINDIR to the directory of its initdb and postgres)";

bool runnable(const fs::path& dir) {
  return access((dir / "initdb").c_str(), X_OK) == 0 &&
         access((dir / "postgres").c_str(), X_OK) == 0;
}

// INAROW_PG_BINDIR, else the newest /usr/lib/postgresql/<major>/bin (where
// Debian keeps them, off PATH), else the directory of an initdb on PATH.
inarow::expected<fs::path, std::string> find_bindir() {
  if (const char* env = std::getenv("INAROW_PG_BINDIR"); env && *env) {
    if (runnable(env)) return fs::path(env);
    return inarow::unexpected("INAROW_PG_BINDIR=" + std::string(env) +
                              " has no initdb and postgres" + kSetup);
  }
  std::error_code ec;
  int best_major = -1;
  fs::path best;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string name = entry.path().filename().string();
    char* end = nullptr;
    const long major = std::strtol(name.c_str(), &end, 10);
    if (end == name.c_str() || *end != '\0' || !runnable(entry.path() / "bin")) continue;
    if (major > best_major) {
      best_major = static_cast<int>(major);
      best = entry.path() / "bin";
    }
  }
  if (best_major >= 0) return best;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (!dir.empty() && runnable(dir)) return fs::path(dir);
    }
  }
  return inarow::unexpected(std::string("no PostgreSQL server binaries (initdb, postgres) found") +
                            kSetup);
}

PerProcess<PostgresCluster> shared_cluster;

}  // namespace

PostgresCluster* PostgresCluster::shared() {
  return shared_cluster.get(
      []() -> inarow::expected<std::unique_ptr<PostgresCluster>, std::string> {
        std::unique_ptr<PostgresCluster> cluster(new PostgresCluster());
        if (auto made = cluster->create(); !made) return inarow::unexpected(made.error());
        return cluster;
      });
}

const std::string& PostgresCluster::shared_error() {
  return shared_cluster.error();
}

PostgresCluster::~PostgresCluster() {
  stop();
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

inarow::expected<void, std::string> PostgresCluster::create() {
  auto bindir = find_bindir();
  if (!bindir) return inarow::unexpected(bindir.error());
  bindir_ = *bindir;
  std::string pattern = (fs::temp_directory_path() / "inarow-pg-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) return inarow::unexpected("mkdtemp failed for " + pattern);
  dir_ = pattern;
  data_ = dir_ / "data";
  uid_ = ::geteuid();
  gid_ = ::getegid();
  if (uid_ == 0) {
    // PostgreSQL will not run as root: its files and processes are nobody's.
    const passwd* nobody = ::getpwnam("nobody");
    if (!nobody) return inarow::unexpected(std::string("running as root, and no user 'nobody'"));
    uid_ = nobody->pw_uid;
    gid_ = nobody->pw_gid;
    as_other_user_ = true;
    if (::chown(dir_.c_str(), uid_, gid_) != 0) {
      return inarow::unexpected("cannot give " + dir_.string() + " to nobody");
    }
  }
  // initdb, as the user who will run the cluster. -N: no fsync of the new
  // files (a test cluster); the C locale, so that initdb never trips over
  // the environment's (the store's columns compare bytes anyway).
  const pid_t initdb = spawn_logged({(bindir_ / "initdb").string(), "-D", data_.string(), "-U",
                                     "inarow", "--auth=trust", "-E", "UTF8", "--locale=C", "-N"},
                                    dir_ / "initdb.log", {.as_user = as_user(), .death_signal = 0});
  if (initdb < 0) return inarow::unexpected(std::string("fork failed"));
  const auto status = wait_for_exit(initdb, 180s);
  if (!status) {
    ::kill(initdb, SIGKILL);
    ::waitpid(initdb, nullptr, 0);
    return inarow::unexpected("initdb did not finish in 180 s: " + file_tail(dir_ / "initdb.log"));
  }
  if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
    return inarow::unexpected("initdb (" + (bindir_ / "initdb").string() +
                              ") failed: " + file_tail(dir_ / "initdb.log") + kSetup);
  }
  // A free port; another if someone took it before postgres bound it.
  std::string why;
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto started = start_on(free_loopback_port());
    if (started) return {};
    why = started.error();
    if (why.find("Address already in use") == std::string::npos) break;
  }
  return inarow::unexpected(why);
}

inarow::expected<void, std::string> PostgresCluster::start() {
  // The same port as before (a restart): it may take a moment to be free.
  std::string why;
  for (int attempt = 0; attempt < 50; ++attempt) {
    auto started = start_on(port_);
    if (started) return {};
    why = started.error();
    if (why.find("Address already in use") == std::string::npos) break;
    std::this_thread::sleep_for(100ms);
  }
  return inarow::unexpected(why);
}

inarow::expected<void, std::string> PostgresCluster::start_on(std::uint16_t port) {
  if (postmaster_ > 0) return {};
  const fs::path log = dir_ / "postgres.log";
  const auto log_start = fs::exists(log) ? fs::file_size(log) : 0;
  const pid_t pid =
      // If the tests die, the postmaster shuts down fast rather than linger.
      spawn_logged(
          {(bindir_ / "postgres").string(), "-D", data_.string(), "-k", dir_.string(), "-p",
           std::to_string(port), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"},
          log, {.as_user = as_user(), .death_signal = SIGINT});
  if (pid < 0) return inarow::unexpected(std::string("fork failed"));
  postmaster_ = pid;
  port_ = port;
  // Ready when it takes a connection.
  const std::string probe = "host=127.0.0.1 port=" + std::to_string(port) +
                            " user=inarow dbname=postgres connect_timeout=2";
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto status = wait_for_exit(pid, 0ms)) {
      postmaster_ = -1;
      return inarow::unexpected("postgres exited on port " + std::to_string(port) + ": " +
                                file_tail(log, log_start));
    }
    PGconn* c = PQconnectdb(probe.c_str());
    const bool up = PQstatus(c) == CONNECTION_OK;
    PQfinish(c);
    if (up) return {};
    std::this_thread::sleep_for(50ms);
  }
  stop();
  return inarow::unexpected("postgres did not accept connections on port " + std::to_string(port) +
                            " within 60 s: " + file_tail(log, log_start));
}

void PostgresCluster::stop() {
  if (postmaster_ <= 0) return;
  ::kill(postmaster_, SIGINT);  // fast shutdown: sessions ended, a clean checkpoint
  if (!wait_for_exit(postmaster_, 60s)) {
    ::kill(postmaster_, SIGQUIT);  // immediate shutdown
    if (!wait_for_exit(postmaster_, 10s)) {
      ::kill(postmaster_, SIGKILL);
      ::waitpid(postmaster_, nullptr, 0);
    }
  }
  postmaster_ = -1;
}

inarow::expected<void, std::string> PostgresCluster::restart() {
  stop();
  return start();
}

std::string PostgresCluster::uri(const std::string& name) const {
  return "postgresql://inarow@127.0.0.1:" + std::to_string(port_) + "/" + name;
}

inarow::expected<std::string, std::string> PostgresCluster::create_database() {
  // Our own counter in the name: no value of anyone else's in the SQL.
  const std::string name = "t" + std::to_string(::getpid()) + "_" + std::to_string(++databases_);
  auto made = query(uri("postgres"), "CREATE DATABASE " + name + " TEMPLATE template0");
  if (!made) return inarow::unexpected(made.error());
  return uri(name);
}

inarow::expected<std::string, std::string> PostgresCluster::query(const std::string& uri,
                                                                  const std::string& sql) {
  PGconn* c = PQconnectdb(uri.c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    std::string why = PQerrorMessage(c);
    PQfinish(c);
    return inarow::unexpected(why);
  }
  PGresult* r = PQexec(c, sql.c_str());
  const ExecStatusType s = PQresultStatus(r);
  inarow::expected<std::string, std::string> out = std::string();
  if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
    out = inarow::unexpected(std::string(PQresultErrorMessage(r)));
  } else if (s == PGRES_TUPLES_OK && PQntuples(r) > 0 && PQnfields(r) > 0) {
    out = std::string(PQgetvalue(r, 0, 0));
  }
  PQclear(r);
  PQfinish(c);
  return out;
}

}  // namespace inarow::testing
