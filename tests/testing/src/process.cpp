#include "inarow/testing/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <random>
#include <regex>
#include <stdexcept>
#include <thread>

#include "inarow/testing/temp_dir.h"

namespace inarow::testing {

namespace {

using Clock = std::chrono::steady_clock;

int wait_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::optional<int> wait_pid(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return wait_status(status);
    if (r < 0) return std::nullopt;
    if (Clock::now() > deadline) return std::nullopt;
    std::this_thread::sleep_for(5ms);
  }
}

// Waits for `pid` to end; once it has, `pid` is -1. The status, or nullopt
// (nothing to wait for, or not within `timeout`).
std::optional<int> reap(pid_t& pid, std::chrono::milliseconds timeout) {
  if (pid <= 0) return std::nullopt;
  auto status = wait_pid(pid, timeout);
  if (status) pid = -1;
  return status;
}

// SIGKILL and wait.
void kill_and_reap(pid_t& pid) {
  if (pid <= 0) return;
  ::kill(pid, SIGKILL);
  wait_pid(pid, 5s);
  pid = -1;
}

}  // namespace

// ---------------------------------------------------------------- server

ServerProcess::ServerProcess(ServerOptions options) : options_(std::move(options)) {
  start(options_.port);
}

ServerProcess::ServerProcess(std::string store, std::uint16_t port, std::string binary)
    : ServerProcess([&] {
        ServerOptions options;
        options.store = std::move(store);
        options.port = port;
        options.binary = std::move(binary);
        return options;
      }()) {}

ServerProcess::~ServerProcess() {
  if (options_.end_signal == SIGKILL)
    kill();
  else
    stop();
}

std::string ServerProcess::url() const {
  return "ws://127.0.0.1:" + std::to_string(port_) + "/ws";
}

std::string ServerProcess::log() const {
  return read_file(log_);
}

void ServerProcess::start(std::uint16_t port) {
  log_ = dir_.path() / ("server-" + std::to_string(++starts_) + ".log");
  // The arguments are made before the fork: the child only calls what is
  // safe there.
  std::vector<std::string> args = {options_.binary, "--port", std::to_string(port), "--store",
                                   options_.store};
  if (options_.no_sync) args.push_back("--no-sync");
  args.insert(args.end(), {"--log-level", "info"});
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // no orphan server if the test dies
    const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    ::close(fd);
    if (options_.max_files) {
      const rlimit limit{*options_.max_files, *options_.max_files};
      ::setrlimit(RLIMIT_NOFILE, &limit);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  // The port is in the log: "listening on 127.0.0.1:NNNNN".
  const std::regex listening(R"(listening on 127\.0\.0\.1:(\d+))");
  const auto deadline = Clock::now() + 20s;
  while (Clock::now() < deadline) {
    std::smatch m;
    const std::string s = log();
    if (std::regex_search(s, m, listening)) {
      port_ = static_cast<std::uint16_t>(std::stoi(m[1]));
      return;
    }
    if (reap(pid_, 0ms)) throw std::runtime_error("inarow-server exited at start:\n" + s);
    std::this_thread::sleep_for(10ms);
  }
  kill();
  throw std::runtime_error("inarow-server did not say where it listens");
}

void ServerProcess::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  if (!reap(pid_, 10s)) kill_and_reap(pid_);
}

void ServerProcess::kill() {
  kill_and_reap(pid_);
}

std::optional<int> ServerProcess::wait_exit(std::chrono::milliseconds timeout) {
  return reap(pid_, timeout);
}

void ServerProcess::restart() {
  stop();
  start(port_);
}

// ---------------------------------------------------------------- client

ChildProcess::ChildProcess(std::vector<std::string> args) {
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe(in_pipe) != 0 || ::pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::dup2(in_pipe[0], STDIN_FILENO);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  in_ = in_pipe[1];
  out_ = out_pipe[0];
  ::signal(SIGPIPE, SIG_IGN);
}

ChildProcess::~ChildProcess() {
  if (in_ >= 0) ::close(in_);
  if (pid_ > 0 && !wait_pid(pid_, 2s)) kill_now();
  if (out_ >= 0) ::close(out_);
}

void ChildProcess::kill_now() {
  kill_and_reap(pid_);
}

void ChildProcess::send(const std::string& line) {
  const std::string data = line + "\n";
  transcript_ += "> " + line + "\n";
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(in_, data.data() + done, data.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

void ChildProcess::close_stdin() {
  if (in_ >= 0) ::close(in_);
  in_ = -1;
}

std::optional<std::string> ChildProcess::next_line(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      transcript_ += line + "\n";
      return line;
    }
    if (eof_) return std::nullopt;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{out_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(out_, chunk, sizeof chunk);
    if (n <= 0) {
      eof_ = true;
      continue;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

std::optional<std::string> ChildProcess::expect_if(
    const std::function<bool(const std::string&)>& match, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    auto line = next_line(left);
    if (!line) return std::nullopt;
    if (match(*line)) return line;
  }
}

std::optional<std::string> ChildProcess::expect(const std::string& prefix,
                                                std::chrono::milliseconds timeout) {
  return expect_if([&](const std::string& l) { return l.rfind(prefix, 0) == 0; }, timeout);
}

std::optional<int> ChildProcess::wait_exit(std::chrono::milliseconds timeout) {
  return reap(pid_, timeout);
}

}  // namespace inarow::testing
