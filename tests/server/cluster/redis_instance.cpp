#include "redis_instance.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <thread>

#include "inarow/testing/local_service.h"

namespace inarow::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const char* const kSetup =
    " (redis-server is needed for these tests: run scripts/setup.sh, which installs Debian's "
    "redis-server)";

// redis-server on PATH, else Debian's.
inarow::expected<fs::path, std::string> find_server() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (dir.empty()) continue;
      const fs::path candidate = fs::path(dir) / "redis-server";
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  if (::access("/usr/bin/redis-server", X_OK) == 0) return fs::path("/usr/bin/redis-server");
  return inarow::unexpected(std::string("no redis-server found on PATH nor in /usr/bin") + kSetup);
}

// Whether a server answers PING on the port: +PONG, or -NOAUTH from one
// that wants a password (it is up all the same). A raw socket, not the
// client under test.
bool answers_ping(std::uint16_t port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) return false;
  timeval tv{};
  tv.tv_sec = 1;
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool up = false;
  if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    const char ping[] = "PING\r\n";
    if (::send(s, ping, sizeof ping - 1, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof ping - 1)) {
      char reply[64] = {};
      const ssize_t n = ::recv(s, reply, sizeof reply - 1, 0);
      const std::string text(reply, n > 0 ? static_cast<std::size_t>(n) : 0);
      up = text.starts_with("+PONG") || text.starts_with("-NOAUTH");
    }
  }
  ::close(s);
  return up;
}

PerProcess<RedisInstance> shared_instance;

}  // namespace

RedisInstance* RedisInstance::shared() {
  return shared_instance.get([] { return launch(); });
}

const std::string& RedisInstance::shared_error() {
  return shared_instance.error();
}

inarow::expected<std::unique_ptr<RedisInstance>, std::string> RedisInstance::launch(
    std::vector<std::string> extra) {
  std::unique_ptr<RedisInstance> instance(new RedisInstance());
  instance->extra_ = std::move(extra);
  if (auto made = instance->create(); !made) return inarow::unexpected(made.error());
  return instance;
}

RedisInstance::~RedisInstance() {
  stop();
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

std::string RedisInstance::url() const {
  return "redis://127.0.0.1:" + std::to_string(port_);
}

inarow::expected<void, std::string> RedisInstance::create() {
  auto server = find_server();
  if (!server) return inarow::unexpected(server.error());
  server_ = *server;
  std::string pattern = (fs::temp_directory_path() / "inarow-redis-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) return inarow::unexpected("mkdtemp failed for " + pattern);
  dir_ = pattern;
  // A free port; another if someone took it before redis-server bound it.
  std::string why;
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto started = start_on(free_loopback_port());
    if (started) return {};
    why = started.error();
    if (why.find("in use") == std::string::npos) break;
  }
  return inarow::unexpected(why);
}

inarow::expected<void, std::string> RedisInstance::start() {
  // The same port as before (a restart): it may take a moment to be free.
  std::string why;
  for (int attempt = 0; attempt < 50; ++attempt) {
    auto started = start_on(port_);
    if (started) return {};
    why = started.error();
    if (why.find("in use") == std::string::npos) break;
    std::this_thread::sleep_for(100ms);
  }
  return inarow::unexpected(why);
}

inarow::expected<void, std::string> RedisInstance::start_on(std::uint16_t port) {
  if (pid_ > 0) return {};
  const fs::path log = dir_ / "redis.log";
  const fs::path out = dir_ / "redis.out";  // what it says before it opens its log
  const auto log_start = file_size_or_zero(log);
  const auto out_start = file_size_or_zero(out);
  std::vector<std::string> argv{server_.string(),
                                "--port",
                                std::to_string(port),
                                "--bind",
                                "127.0.0.1",
                                "--save",
                                "",
                                "--appendonly",
                                "no",
                                "--daemonize",
                                "no",
                                "--dir",
                                dir_.string(),
                                "--logfile",
                                log.string()};
  argv.insert(argv.end(), extra_.begin(), extra_.end());
  // Nothing to save: if the tests die, so does the server, at once.
  const pid_t pid = spawn_logged(argv, out);
  if (pid < 0) return inarow::unexpected(std::string("fork failed"));
  pid_ = pid;
  port_ = port;
  const auto said = [&] { return file_tail(log, log_start) + file_tail(out, out_start); };
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto status = wait_for_exit(pid, 0ms)) {
      pid_ = -1;
      return inarow::unexpected("redis-server (" + server_.string() + ") exited on port " +
                                std::to_string(port) + ": " + said() + kSetup);
    }
    if (answers_ping(port)) return {};
    std::this_thread::sleep_for(10ms);
  }
  stop();
  return inarow::unexpected("redis-server did not answer PING on port " + std::to_string(port) +
                            " within 10 s: " + said());
}

void RedisInstance::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  if (!wait_for_exit(pid_, 10s)) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
}

inarow::expected<void, std::string> RedisInstance::restart() {
  stop();
  return start();
}

std::string test_prefix() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (!info) return "t:none:";
  return std::string("t:") + info->test_suite_name() + "." + info->name() + ":";
}

}  // namespace inarow::testing
