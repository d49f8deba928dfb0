#include "postgres_cluster.h"

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

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

// A port nobody listens on now (the kernel's pick); a race with another
// process is caught when postgres cannot bind it.
std::uint16_t free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t n = sizeof a;
  std::uint16_t port = 0;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &n) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(s);
  return port;
}

// The end of a log (at most `bytes` of it), from byte `from` on.
std::string tail(const fs::path& log, std::uintmax_t from = 0, std::size_t bytes = 2000) {
  std::ifstream in(log);
  in.seekg(static_cast<std::streamoff>(from));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

// Runs `argv` as `uid`:`gid` (if `switch_user`) with its output appended to
// `log`; the child's pid. Everything is made before the fork: the child
// only makes system calls until it runs the program.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& log, bool switch_user, uid_t uid,
            gid_t gid, bool die_with_parent) {
  std::vector<const char*> args;
  for (const auto& a : argv)
    args.push_back(a.c_str());
  args.push_back(nullptr);
  const std::string log_path = log.string();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int out = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  const int null = ::open("/dev/null", O_RDONLY);
  if (out < 0 || null < 0) ::_exit(125);
  ::dup2(null, 0);
  ::dup2(out, 1);
  ::dup2(out, 2);
  // What runuser -u nobody does, without needing it: PostgreSQL refuses root.
  if (switch_user && (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0)) {
    ::_exit(126);
  }
  // If the tests die, the postmaster shuts down fast rather than linger
  // (set after setuid, which clears it).
  if (die_with_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGINT);
    if (::getppid() != parent) ::_exit(1);
  }
  ::execv(args[0], const_cast<char* const*>(args.data()));
  ::_exit(127);
}

// Waits up to `timeout` for `pid`; its status, or nullopt if it still runs.
std::optional<int> wait_for(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0) return -1;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(20ms);
  }
}

std::unique_ptr<PostgresCluster>& shared_slot() {
  static std::unique_ptr<PostgresCluster> cluster;
  return cluster;
}
std::string& shared_failure() {
  static std::string why;
  return why;
}
std::mutex& shared_mutex() {
  static std::mutex m;
  return m;
}

// Stops the shared cluster once every test has run.
class StopTheCluster : public ::testing::Environment {
 public:
  void TearDown() override {
    std::lock_guard lock(shared_mutex());
    shared_slot().reset();
  }
};
[[maybe_unused]] ::testing::Environment* const kStopTheCluster =
    ::testing::AddGlobalTestEnvironment(new StopTheCluster);

}  // namespace

PostgresCluster* PostgresCluster::shared() {
  std::lock_guard lock(shared_mutex());
  auto& slot = shared_slot();
  if (slot) return slot.get();
  if (!shared_failure().empty()) return nullptr;  // tried once: the same answer
  std::unique_ptr<PostgresCluster> cluster(new PostgresCluster());
  if (auto made = cluster->create(); !made) {
    shared_failure() = made.error();
    return nullptr;
  }
  slot = std::move(cluster);
  return slot.get();
}

const std::string& PostgresCluster::shared_error() {
  return shared_failure();
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
  const pid_t initdb = spawn({(bindir_ / "initdb").string(), "-D", data_.string(), "-U", "inarow",
                              "--auth=trust", "-E", "UTF8", "--locale=C", "-N"},
                             dir_ / "initdb.log", as_other_user_, uid_, gid_, false);
  if (initdb < 0) return inarow::unexpected(std::string("fork failed"));
  const auto status = wait_for(initdb, 180s);
  if (!status) {
    ::kill(initdb, SIGKILL);
    ::waitpid(initdb, nullptr, 0);
    return inarow::unexpected("initdb did not finish in 180 s: " + tail(dir_ / "initdb.log"));
  }
  if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
    return inarow::unexpected("initdb (" + (bindir_ / "initdb").string() +
                              ") failed: " + tail(dir_ / "initdb.log") + kSetup);
  }
  // A free port; another if someone took it before postgres bound it.
  std::string why;
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto started = start_on(free_port());
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
      spawn({(bindir_ / "postgres").string(), "-D", data_.string(), "-k", dir_.string(), "-p",
             std::to_string(port), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"},
            log, as_other_user_, uid_, gid_, true);
  if (pid < 0) return inarow::unexpected(std::string("fork failed"));
  postmaster_ = pid;
  port_ = port;
  // Ready when it takes a connection.
  const std::string probe = "host=127.0.0.1 port=" + std::to_string(port) +
                            " user=inarow dbname=postgres connect_timeout=2";
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto status = wait_for(pid, 0ms)) {
      postmaster_ = -1;
      return inarow::unexpected("postgres exited on port " + std::to_string(port) + ": " +
                                tail(log, log_start));
    }
    PGconn* c = PQconnectdb(probe.c_str());
    const bool up = PQstatus(c) == CONNECTION_OK;
    PQfinish(c);
    if (up) return {};
    std::this_thread::sleep_for(50ms);
  }
  stop();
  return inarow::unexpected("postgres did not accept connections on port " + std::to_string(port) +
                            " within 60 s: " + tail(log, log_start));
}

void PostgresCluster::stop() {
  if (postmaster_ <= 0) return;
  ::kill(postmaster_, SIGINT);  // fast shutdown: sessions ended, a clean checkpoint
  if (!wait_for(postmaster_, 60s)) {
    ::kill(postmaster_, SIGQUIT);  // immediate shutdown
    if (!wait_for(postmaster_, 10s)) {
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
