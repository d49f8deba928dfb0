#include "redis_instance.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

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

// A port nobody listens on now (the kernel's pick); a race with another
// process is caught when redis-server cannot bind it.
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

// The end of a file (at most `bytes` of it), from byte `from` on.
std::string tail(const fs::path& file, std::uintmax_t from = 0, std::size_t bytes = 2000) {
  std::ifstream in(file);
  in.seekg(static_cast<std::streamoff>(from));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

std::uintmax_t size_of(const fs::path& file) {
  std::error_code ec;
  const auto n = fs::file_size(file, ec);
  return ec ? 0 : n;
}

// Runs `argv` with its output appended to `out`, killed if we die; the
// child's pid. Everything is made before the fork: the child only makes
// system calls until it runs the program.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& out) {
  std::vector<const char*> args;
  for (const auto& a : argv)
    args.push_back(a.c_str());
  args.push_back(nullptr);
  const std::string out_path = out.string();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  const int null = ::open("/dev/null", O_RDONLY);
  if (fd < 0 || null < 0) ::_exit(125);
  ::dup2(null, 0);
  ::dup2(fd, 1);
  ::dup2(fd, 2);
  // Nothing to save: if the tests die, so does the server, at once.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
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
    std::this_thread::sleep_for(10ms);
  }
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

std::unique_ptr<RedisInstance>& shared_slot() {
  static std::unique_ptr<RedisInstance> instance;
  return instance;
}
std::string& shared_failure() {
  static std::string why;
  return why;
}
std::mutex& shared_mutex() {
  static std::mutex m;
  return m;
}

// Stops the shared instance once every test has run.
class StopTheInstance : public ::testing::Environment {
 public:
  void TearDown() override {
    std::lock_guard lock(shared_mutex());
    shared_slot().reset();
  }
};
[[maybe_unused]] ::testing::Environment* const kStopTheInstance =
    ::testing::AddGlobalTestEnvironment(new StopTheInstance);

}  // namespace

RedisInstance* RedisInstance::shared() {
  std::lock_guard lock(shared_mutex());
  auto& slot = shared_slot();
  if (slot) return slot.get();
  if (!shared_failure().empty()) return nullptr;  // tried once: the same answer
  auto made = launch();
  if (!made) {
    shared_failure() = made.error();
    return nullptr;
  }
  slot = std::move(*made);
  return slot.get();
}

const std::string& RedisInstance::shared_error() {
  return shared_failure();
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
    auto started = start_on(free_port());
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
  const auto log_start = size_of(log);
  const auto out_start = size_of(out);
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
  const pid_t pid = spawn(argv, out);
  if (pid < 0) return inarow::unexpected(std::string("fork failed"));
  pid_ = pid;
  port_ = port;
  const auto said = [&] { return tail(log, log_start) + tail(out, out_start); };
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto status = wait_for(pid, 0ms)) {
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
  if (!wait_for(pid_, 10s)) {
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
